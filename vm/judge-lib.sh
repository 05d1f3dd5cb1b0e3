# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Reading what a guest reported, for vm/vmtest.sh and vm/hybrid-judge.sh
# (and tests/integration/vm_hybrid_judge.sh, which feeds them a made-up
# guest): $out is the file of the boot's output.

# field KEY LINE: value of key=value in a tool's output line
field() { sed -nE "s/.*(^| )$1=([^ ]*).*/\\2/p" <<<"$2"; }
# utvm KIND [CASE]: the payload of the first "UTVM: KIND [CASE] ..." line
utvm() {
	local pfx="UTVM: $1 " l
	[ $# -lt 2 ] || pfx="$pfx$2 "
	l=$(grep -m1 -F "$pfx" "$out") || return 0
	printf '%s\n' "${l#*"$pfx"}"
}

# "major minor" of a uname -r, compared as one number
kver() { awk -F'[.+-]' '{ printf "%d\n", $1 * 1000 + $2 }' <<<"$1"; }

# fio_json CASE: fio's JSON result of one case ("" if there is none)
fio_json() {
	local j
	j=$(utvm FIOJSON "$1")
	j=${j#"${j%%\{*}"}
	jq -e '.jobs[0]' >/dev/null 2>&1 <<<"$j" && printf '%s\n' "$j"
}
