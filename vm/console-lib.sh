# SPDX-License-Identifier: GPL-2.0-only
#
# Sourced by vm/run.sh and vm/run-systemd.sh: what the host makes of a
# guest's serial console.
#
# QEMU's console on stdin | console_read LOG TMP START
#   every line goes to LOG; "UTVM: BOOT" writes the seconds since START
#   (date +%s.%N) to TMP/boot_s, "UTVM: EXIT N" writes N to TMP/exit; a KVM
#   internal error (the vCPU stopped, QEMU stays up) is kept in
#   TMP/kvm_error and QEMU (TMP/qemu.pid, if any) ended at once; the
#   "UTVM:" lines are printed, from "UTVM:" on.

console_read() {
	local log=$1 tmp=$2 start=$3 line l

	while IFS= read -r line; do
		line=${line%$'\r'}
		printf '%s\n' "$line" >>"$log"
		case $line in
		*"UTVM: BOOT "*)
			echo "$(date +%s.%N) $start" | awk '{ printf "%.2f\n", $1 - $2 }' >"$tmp/boot_s" ;;
		*"UTVM: EXIT "*)
			l=${line#*UTVM: EXIT }
			echo "${l%% *}" >"$tmp/exit" ;;
		*"KVM internal error"*)
			echo "$line" >"$tmp/kvm_error"
			[ ! -f "$tmp/qemu.pid" ] || kill "$(cat "$tmp/qemu.pid")" 2>/dev/null ;;
		esac
		case $line in
		*UTVM:*) printf '%s\n' "UTVM:${line#*UTVM:}" ;;
		esac
	done
}
