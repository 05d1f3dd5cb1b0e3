#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fetch the Debian cloud kernels the VM tests boot, through Debian's package
# registry with apt, into the cache (.cache/vm, git-ignored):
#
#   6.1   bookworm                        linux-image-6.1.0-*-cloud-amd64
#   6.12  bookworm-backports              linux-image-6.12.*-cloud-amd64
#   7     trixie-backports or sid, newest linux-image-7.*-cloud-amd64, which
#         from 7.x on is split: linux-binary-* (vmlinuz, in the modules dir)
#         and linux-base-* (config, System.map)
#
# usage: vm/fetch-kernels.sh [--refresh] [6.1|6.12|7 ...]   (default: all three)
#
# The machine's apt sources lack most of these suites: a private sources file
# is built at run time from the URIs of the Debian archive already configured
# in /etc/apt/sources.list.d/*.sources, with these suites, and apt keeps its
# lists for it under the cache (refreshed once a day, or with --refresh).
# Nothing of the system's apt state is touched.
#
# Each kernel lands in .cache/vm/kernels/<package>_<version>/ (vmlinuz,
# config, krel = its `uname -r`, and modules/ when NVMe is not built in),
# and .cache/vm/kernels/<series> points at it. Per kernel, one line:
#
#   KERNEL <series> <uname -r> <package version> <dir> <downloaded N MiB|cached>
#   SKIP <series>: <reason>
#
# Exit: 0 every kernel asked for is there; 3 at least one was skipped
# (registry unreachable, no such package, unusable kernel); 2 bad usage.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${UT_VM_CACHE:-$ROOT/.cache/vm}
. "$ROOT/vm/modules-lib.sh"
# where the machine's apt sources are read from (tests point it elsewhere)
SOURCES_DIR=${UT_VM_APT_SOURCES:-/etc/apt/sources.list.d}
APTDIR=$CACHE/apt
KDIR=$CACHE/kernels
LISTS_MAX_AGE_S=86400
ALL_SERIES="6.1 6.12 7"
# the suites holding each series, newest-first is decided by version
declare -A SUITES=(
	[6.1]="bookworm"
	[6.12]="bookworm-backports"
	[7]="trixie-backports sid"
)
FLAVOUR=cloud-amd64

refresh=
series=()
for a in "$@"; do
	case $a in
	--refresh) refresh=1 ;;
	-h|--help) sed -n '3,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	6.1|6.12|7) series+=("$a") ;;
	*) echo "fetch-kernels: unknown argument '$a' (expected --refresh, 6.1, 6.12 or 7)" >&2; exit 2 ;;
	esac
done
[ ${#series[@]} -gt 0 ] || read -r -a series <<<"$ALL_SERIES"

mkdir -p "$APTDIR/lists/partial" "$APTDIR/sources.list.d" "$APTDIR/preferences.d" "$KDIR" || exit 1
APT_OPTS=(-o "Dir::Etc::sourcelist=/dev/null"
	  -o "Dir::Etc::sourceparts=$APTDIR/sources.list.d"
	  -o "Dir::Etc::preferences=/dev/null" -o "Dir::Etc::preferencesparts=$APTDIR/preferences.d"
	  -o "Dir::State::Lists=$APTDIR/lists"
	  -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")

skipped=0
skip() {
	echo "SKIP $1: $2"
	skipped=1
}

# The Debian archive's stanzas in the machine's deb822 sources: those with a
# suite named after this release (bookworm, bookworm-updates; not -security,
# a different archive). Prints "URI<TAB>Signed-By" per URI.
archive_uris() {
	local codename
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || return 0
	awk -v cn="$codename" '
		function flush() {
			if (types ~ /(^| )deb( |$)/ && ok)
				for (i = 1; i <= nu; i++) print u[i] "\t" signed
			types = ""; ok = 0; nu = 0; signed = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^Types:/ { types = $0; sub(/^Types:[ \t]*/, "", types) }
		/^URIs:/ { for (i = 2; i <= NF; i++) u[++nu] = $i }
		/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == cn || ($i ~ ("^" cn "-") && $i !~ /-security$/)) ok = 1 }
		/^Signed-By:/ { signed = $2 }
		END { flush() }
	' "$SOURCES_DIR"/*.sources 2>/dev/null | sort -u
}

# Write the private sources file; fails when no Debian archive is configured.
write_sources() {
	local f=$APTDIR/sources.list.d/uringtune-vm.sources uri signed suites
	suites=$(printf '%s\n' "${SUITES[@]}" | tr ' ' '\n' | sort -u | tr '\n' ' ')
	: >"$f.tmp"
	while IFS=$'\t' read -r uri signed; do
		{
			echo "Types: deb"
			echo "URIs: $uri"
			echo "Suites: ${suites% }"
			echo "Components: main"
			[ -z "$signed" ] || echo "Signed-By: $signed"
			echo
		} >>"$f.tmp"
	done < <(archive_uris)
	if [ ! -s "$f.tmp" ]; then
		rm -f "$f.tmp"
		return 1
	fi
	mv "$f.tmp" "$f"
}

# The lists of one suite are there (an update may have failed for others).
have_suite() {
	compgen -G "$APTDIR/lists/*_dists_$1_main_binary-*_Packages*" >/dev/null
}

lists_fresh() {
	local f=$APTDIR/lists/.updated
	[ -z "$refresh" ] && [ -f "$f" ] && [ $(( $(date +%s) - $(stat -c %Y "$f") )) -lt $LISTS_MAX_AGE_S ]
}

update_err=
update_lists() {
	local out rc
	if ! write_sources; then
		update_err="no Debian archive in $SOURCES_DIR/*.sources to take URIs from"
		return 1
	fi
	lists_fresh && return 0
	out=$(apt-get "${APT_OPTS[@]}" -o Acquire::Retries=1 -o Acquire::http::Timeout=30 -q update 2>&1)
	rc=$?
	if [ $rc -ne 0 ] || grep -qE '^(E|W): ' <<<"$out"; then
		# the errors say what failed; apt's sandbox warnings do not
		update_err=$(grep -E '^E: |^W: (Failed to fetch|Some index)' <<<"$out" | head -n 1 | cut -c1-160)
		[ -n "$update_err" ] || update_err=$(grep -E '^(E|W): ' <<<"$out" | head -n 1 | cut -c1-160)
		[ -n "$update_err" ] || update_err="apt-get update exited $rc"
		return 1
	fi
	touch "$APTDIR/lists/.updated"
}

# newest "package<TAB>version" of the series in its suites, from the lists
resolve() {
	local s=$1 re names suite_re
	# 6.1 -> linux-image-6.1.0-50-cloud-amd64 (not 6.12...); 7 -> linux-image-7.3.4+deb13-...
	re="^linux-image-${s//./\\.}[.-].*-${FLAVOUR}\$"
	[ "$s" = 7 ] && re="^linux-image-7\\.[0-9]+[.+-].*-${FLAVOUR}\$"
	# every linux-image-* name in the lists, once: apt-cache reads ~40 MB
	[ -s "$APTDIR/images" ] && [ "$APTDIR/images" -nt "$APTDIR/lists/.updated" ] ||
		apt-cache "${APT_OPTS[@]}" pkgnames linux-image- >"$APTDIR/images"
	mapfile -t names < <(grep -E "$re" "$APTDIR/images")
	[ ${#names[@]} -gt 0 ] || return 1
	suite_re=$(tr ' ' '|' <<<"${SUITES[$s]}")
	# madison: "pkg | version | URI suite/main amd64 Packages"
	apt-cache "${APT_OPTS[@]}" madison "${names[@]}" 2>/dev/null |
		awk -F' *[|] *' -v re="^($suite_re)/" '{ split($3, w, " "); if (w[2] ~ re) print $1 "\t" $2 }' |
		sort -t$'\t' -k2,2 -u |
		{
			local best='' bestv='' p v
			while IFS=$'\t' read -r p v; do
				if [ -z "$bestv" ] || dpkg --compare-versions "$v" gt "$bestv"; then
					best=$p bestv=$v
				fi
			done
			[ -n "$best" ] && printf '%s\t%s\n' "$best" "$bestv"
		}
}

# Depends of pkg=ver, one name per line (alternatives and versions dropped)
depends_of() {
	apt-cache "${APT_OPTS[@]}" show "$1=$2" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1 |
		tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*//' -e 's/ //g'
}

download() {
	local dir=$1
	shift
	# apt's download method runs as _apt: let it write there
	chown _apt "$dir" 2>/dev/null || true
	(cd "$dir" && apt-get "${APT_OPTS[@]}" -q download "$@" >download.log 2>&1) ||
		{ grep -E '^(E|W): ' "$dir/download.log" | head -n 1 | cut -c1-160; return 1; }
}

# Copy NVMe's modules (and what they need, per modules.dep) when the kernel
# has it as a module; the init loads modules/*.ko in the order of modules.load.
copy_nvme_modules() {
	local root=$1 out=$2 krel=$3 mdir list m d
	mdir=$(modules_dir "$root" "$krel") || return 1
	# dependencies first
	list=$(modules_closure "$mdir/modules.dep" ${UT_VM_MODULES:-nvme-core nvme}) || return 1
	[ -n "$list" ] || return 1
	mkdir -p "$out/modules"
	: >"$out/modules.load"
	for m in $list; do
		d=$out/modules/$(basename "$m")
		cp "$mdir/$m" "$d" && d=$(module_unpack "$d") || return 1
		basename "$d" >>"$out/modules.load"
	done
}

# fetch SERIES: resolve, download, extract, check; prints KERNEL or SKIP
fetch() {
	local s=$1 pkg ver dir krel tmp deps pkgs=() p vmlinuz config err bytes t0
	local link=$KDIR/$s
	if [ -n "$lists_ok" ]; then
		for p in ${SUITES[$s]}; do have_suite "$p" && break; p=; done
		if [ -z "$p" ]; then
			cached_or_skip "$s" "suites ${SUITES[$s]} not in the registry's answer"
			return
		fi
		if ! IFS=$'\t' read -r pkg ver < <(resolve "$s"); then
			cached_or_skip "$s" "no linux-image-$s*-$FLAVOUR in ${SUITES[$s]// / or }"
			return
		fi
	else
		cached_or_skip "$s" "registry unreachable: $update_err"
		return
	fi
	dir=$KDIR/${pkg}_$ver
	if [ -f "$dir/complete" ]; then
		ln -sfn "$(basename "$dir")" "$link"
		echo "KERNEL $s $(cat "$dir/krel") $ver $dir cached"
		return
	fi
	tmp=$(mktemp -d "$KDIR/.fetch.XXXXXX") || { skip "$s" "mktemp failed"; return; }
	# 7.x: linux-image-* is empty and depends on linux-binary-* (vmlinuz)
	# and linux-base-* (config); 6.x: linux-image-* holds everything
	pkgs=("$pkg=$ver")
	deps=$(depends_of "$pkg" "$ver")
	for p in $(grep -E "^linux-(binary|base)-" <<<"$deps"); do
		pkgs=("${pkgs[@]}" "$p=$ver")
	done
	t0=$(date +%s)
	if ! err=$(download "$tmp" "${pkgs[@]}"); then
		rm -rf "$tmp"
		skip "$s" "apt-get download ${pkgs[*]}: ${err:-failed}"
		return
	fi
	bytes=$(cat "$tmp"/*.deb | wc -c)
	mkdir -p "$tmp/root"
	for p in "$tmp"/*.deb; do
		dpkg-deb -x "$p" "$tmp/root" || { rm -rf "$tmp"; skip "$s" "dpkg-deb -x $(basename "$p") failed"; return; }
	done
	vmlinuz=$(ls "$tmp"/root/boot/vmlinuz-* "$tmp"/root/usr/lib/modules/*/vmlinuz \
		     "$tmp"/root/lib/modules/*/vmlinuz 2>/dev/null | head -n 1)
	config=$(ls "$tmp"/root/boot/config-* "$tmp"/root/usr/lib/modules/*/config \
		    "$tmp"/root/lib/modules/*/config 2>/dev/null | head -n 1)
	if [ -z "$vmlinuz" ]; then
		rm -rf "$tmp"
		skip "$s" "no vmlinuz in ${pkgs[*]}"
		return
	fi
	case $vmlinuz in
	*/boot/vmlinuz-*) krel=${vmlinuz##*/vmlinuz-} ;;
	*) krel=$(basename "$(dirname "$vmlinuz")") ;;
	esac
	mkdir -p "$tmp/out"
	cp "$vmlinuz" "$tmp/out/vmlinuz"
	echo "$krel" >"$tmp/out/krel"
	echo "$ver" >"$tmp/out/version"
	printf '%s\n' "${pkgs[@]}" >"$tmp/out/packages"
	echo "$bytes" >"$tmp/out/download_bytes"
	if [ -n "$config" ]; then
		cp "$config" "$tmp/out/config"
		if ! grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$config"; then
			rm -rf "$tmp"
			skip "$s" "$krel has no BTF (CONFIG_DEBUG_INFO_BTF is not y): uringtuned cannot run on it"
			return
		fi
		# NVMe built in (=y) needs nothing; as a module it goes into the initramfs
		if grep -q '^CONFIG_BLK_DEV_NVME=m' "$config" || [ -n "${UT_VM_FORCE_MODULES:-}" ]; then
			if ! copy_nvme_modules "$tmp/root" "$tmp/out" "$krel"; then
				rm -rf "$tmp"
				skip "$s" "$krel has NVMe as a module and the package holds no nvme.ko"
				return
			fi
		elif ! grep -q '^CONFIG_BLK_DEV_NVME=y' "$config"; then
			rm -rf "$tmp"
			skip "$s" "$krel has no NVMe driver (CONFIG_BLK_DEV_NVME)"
			return
		fi
	fi
	rm -rf "$dir"
	mv "$tmp/out" "$dir" && touch "$dir/complete"
	rm -rf "$tmp"
	ln -sfn "$(basename "$dir")" "$link"
	echo "KERNEL $s $krel $ver $dir downloaded $(awk -v b="$bytes" 'BEGIN { printf "%.1f MiB", b / 1048576 }') in $(( $(date +%s) - t0 )) s"
}

# Without the registry, a kernel fetched before still serves.
cached_or_skip() {
	local s=$1 why=$2 dir
	dir=$(readlink -f "$KDIR/$s" 2>/dev/null)
	if [ -n "$dir" ] && [ -f "$dir/complete" ]; then
		echo "KERNEL $s $(cat "$dir/krel") $(cat "$dir/version") $dir cached ($why)"
	else
		skip "$s" "$why"
	fi
}

lists_ok=
if update_lists; then
	lists_ok=1
elif compgen -G "$APTDIR/lists/*_Packages*" >/dev/null && [ -n "$update_err" ] &&
     [ -f "$APTDIR/sources.list.d/uringtune-vm.sources" ]; then
	# lists from an earlier update still name what can be fetched
	echo "fetch-kernels: apt-get update failed ($update_err); using the lists of $(date -r "$APTDIR/lists" '+%F %T')" >&2
	lists_ok=1
fi

for s in "${series[@]}"; do
	fetch "$s"
done
[ $skipped -eq 0 ] || exit 3
exit 0
