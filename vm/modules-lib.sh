# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by vm/fetch-kernels.sh (NVMe's modules for the initramfs, where
# it is not built in) and vm/fetch-modules.sh (the systemd guest's
# modules): kernel modules out of an unpacked Debian kernel package.

# modules_dir ROOT KREL: the modules directory of KREL under ROOT
# (usr/lib/modules from 7.x, lib/modules before), given the modules.dep
# that packages leave to depmod at install time; prints it, or fails
modules_dir() {
	local root=$1 krel=$2 mdir

	mdir=$(ls -d "$root/usr/lib/modules/$krel" "$root/lib/modules/$krel" 2>/dev/null | head -n 1)
	[ -n "$mdir" ] || return 1
	if [ ! -f "$mdir/modules.dep" ]; then
		# the host's depmod reads BASE/lib/modules
		[ -e "$root/lib/modules/$krel" ] ||
			{ mkdir -p "$root/lib/modules" && ln -s "$mdir" "$root/lib/modules/$krel"; } || return 1
		depmod -b "$root" "$krel" 2>/dev/null || return 1
	fi
	[ -f "$mdir/modules.dep" ] || return 1
	echo "$mdir"
}

# module_path DEP NAME: NAME's path in modules.dep DEP ("-" and "_" alike),
# or nothing (built in, or not in this kernel)
module_path() {
	local p

	p=$(grep -oE "^[^:]*/${2//-/[-_]}\\.ko(\\.xz|\\.zst|\\.gz)?:" "$1" | head -n 1)
	echo "${p%:}"
}

# modules_closure DEP NAME...: the paths of the NAMEd modules and of every
# module they need, dependencies first, each once; names DEP does not hold
# are left out (see module_path)
modules_closure() {
	local dep=$1 seen=" " name path
	shift

	_modules_add() {
		local p=$1 line d

		case $seen in *" $p "*) return 0 ;; esac
		seen="$seen$p "
		line=$(grep -m1 "^$p:" "$dep") || return 1
		for d in ${line#*:}; do _modules_add "$d" || return 1; done
		echo "$p"
	}
	for name; do
		path=$(module_path "$dep" "$name")
		[ -z "$path" ] || _modules_add "$path" || return 1
	done
}

# module_unpack FILE: a compressed module decompressed in place; prints the
# plain .ko's path (busybox's insmod and older modprobes take no other)
module_unpack() {
	local f=$1

	case $f in
	*.xz) xz -d "$f" && f=${f%.xz} ;;
	*.zst) zstd -q -d --rm "$f" && f=${f%.zst} ;;
	*.gz) gzip -d "$f" && f=${f%.gz} ;;
	esac || return 1
	echo "$f"
}
