# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# bash completion for uringtune(8): commands, their options, and the rings
# uringtuned lists (PID:FD, and the pids and names for --pid and --comm),
# asked of the daemon with `uringtune status --json` (on the --socket given
# on the line, if any); when it does not answer within 2 s, or may not be
# asked, nothing is offered for them, silently. Needs bash only (not the
# bash-completion package's helpers).
#
# bash splits words at ':' and '=' (COMP_WORDBREAKS): "21249:4" reaches us
# as "21249" ":" "4", and "--ring=21249:4" as five words. They are joined
# back into the words the user typed, and the candidates trimmed to what
# bash replaces: the text after the last ':' or '='.

# _uringtune_words: COMP_WORDS joined back (_ut_w) and the current one's index (_ut_c)
_uringtune_words()
{
	local i x last
	_ut_w=()
	_ut_c=0
	for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
		x=${COMP_WORDS[i]}
		last=
		((${#_ut_w[@]} == 0)) || last=${_ut_w[${#_ut_w[@]} - 1]}
		if ((i > 0 && ${#_ut_w[@]} > 0)) && {
			[[ $x == "=" && $last == --* && $last != *=* ]] ||
			[[ $last == --*= ]] ||
			[[ $x == :* && ${last##*=} =~ ^[0-9]+$ ]] ||
			[[ $last =~ (^|=)[0-9]+:$ && $x =~ ^[0-9]*$ ]]
		}; then
			_ut_w[${#_ut_w[@]} - 1]+=$x
		else
			_ut_w+=("$x")
		fi
		((i == COMP_CWORD)) && _ut_c=$((${#_ut_w[@]} - 1))
	done
	# the cursor after a word break that bash gave no word of its own
	((COMP_CWORD < ${#COMP_WORDS[@]})) || { _ut_w+=(""); _ut_c=$((${#_ut_w[@]} - 1)); }
}

# _uringtune_rings SOCKET: "PID:FD PID COMM" lines, one per ring the daemon lists
_uringtune_rings()
{
	local at=() json
	[ -z "$1" ] || at=(--socket "$1")
	json=$(timeout 2 "${_ut_cli:-uringtune}" "${at[@]}" status --json 2>/dev/null) || return 0
	# each ring opens with "pid", "comm", "fd" (the daemon's status_json.c);
	# names with a quote, a backslash or a blank are left out of --comm's
	printf '%s\n' "$json" | grep -oE '"pid":[0-9]+,"comm":"([^"\\]|\\.)*","fd":[0-9]+' |
		sed -E 's/^"pid":([0-9]+),"comm":"(.*)","fd":([0-9]+)$/\1:\3 \1 \2/'
}

# _uringtune_reply FULL PREFIX WORDS...: COMPREPLY from the WORDS starting
# with PREFIX, each as FULL's text would read with it, trimmed to what bash
# replaces (after FULL's last ':' or '=')
_uringtune_reply()
{
	local full=$1 pre=$2 head w
	shift 2
	head=${full%"$pre"}
	local keep=${full%[:=]*}
	[ "$keep" = "$full" ] && keep= || keep+=${full:${#keep}:1}
	for w in "$@"; do
		[[ $w == "$pre"* ]] || continue
		w=$head$w
		COMPREPLY+=("${w#"$keep"}")
	done
}

_uringtune()
{
	local _ut_w _ut_c cur prev cmd='' sock='' i w opt val
	local _ut_cli=${COMP_WORDS[0]}
	COMPREPLY=()
	_uringtune_words
	cur=${_ut_w[_ut_c]}
	prev=${_ut_w[_ut_c - 1]-}

	# the command word and the socket, from what comes before the cursor
	for ((i = 1; i < _ut_c; i++)); do
		w=${_ut_w[i]}
		case $w in
		--socket) sock=${_ut_w[i + 1]-}; ((i++)) ;;
		--socket=*) sock=${w#--socket=} ;;
		--ring | --pid | --comm | --busy-poll-us | --hybrid | --agent-socket | --agent-lib) ((i++)) ;;
		-*) ;;
		*) if [ -z "$cmd" ]; then cmd=$w; [ "$cmd" != exec ] || break; fi ;;
		esac
	done

	# exec: its options, then CMD and CMD's own arguments
	if [ "$cmd" = exec ]; then
		for ((i++; i < _ut_c; i++)); do
			w=${_ut_w[i]}
			case $w in
			--) ((i++)); break ;;
			--hybrid | --agent-socket | --agent-lib | --socket) ((i++)) ;;
			-*) ;;
			*) break ;;
			esac
		done
		if ((i < _ut_c)); then
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			return 0
		fi
		if ((i == _ut_c)) && [[ $cur != -* ]]; then
			mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
			return 0
		fi
	fi

	# an option's value: --opt VALUE or --opt=VALUE
	opt=$prev val=$cur
	if [[ $cur == --*=* ]]; then
		opt=${cur%%=*} val=${cur#*=}
	fi
	case $opt in
	--socket | --agent-socket | --agent-lib)
		local files
		mapfile -t files < <(compgen -f -- "$val")
		_uringtune_reply "$cur" "$val" "${files[@]}"
		return 0 ;;
	--hybrid)
		_uringtune_reply "$cur" "$val" on off auto
		return 0 ;;
	--busy-poll-us)
		return 0 ;;
	--ring | --pid | --comm)
		local rings ids=() pids=() comms=() r p c
		rings=$(_uringtune_rings "$sock")
		while read -r r p c; do
			[ -n "$r" ] || continue
			ids+=("$r")
			pids+=("$p")
			[[ $c =~ ^[^[:space:]]+$ ]] && comms+=("$c")
		done <<<"$rings"
		case $opt in
		--ring) _uringtune_reply "$cur" "$val" "${ids[@]}" ;;
		--pid) mapfile -t pids < <(printf '%s\n' "${pids[@]}" | sort -un)
			_uringtune_reply "$cur" "$val" "${pids[@]}" ;;
		--comm) mapfile -t comms < <(printf '%s\n' "${comms[@]}" | sort -u)
			_uringtune_reply "$cur" "$val" "${comms[@]}" ;;
		esac
		return 0 ;;
	esac

	case $cmd in
	'')
		if [[ $cur == -* ]]; then
			_uringtune_reply "$cur" "$cur" --socket --help --version
		else
			_uringtune_reply "$cur" "$cur" status set reset exec
		fi ;;
	status)
		_uringtune_reply "$cur" "$cur" --ring --pid --comm --watch --json --wide ;;
	set | reset)
		if [[ $cur == -* ]]; then
			[ "$cmd" = set ] && _uringtune_reply "$cur" "$cur" --busy-poll-us --prefer --static --force
			return 0
		fi
		# the ring, once: PID:FD
		local n=0 ids=() r p c
		for ((i = 1; i < _ut_c; i++)); do
			w=${_ut_w[i]}
			case $w in
			--socket | --busy-poll-us) ((i++)) ;;
			-* | "$cmd") ;;
			*) ((n++)) ;;
			esac
		done
		((n == 0)) || return 0
		while read -r r p c; do
			[ -n "$r" ] && ids+=("$r")
		done <<<"$(_uringtune_rings "$sock")"
		_uringtune_reply "$cur" "$cur" "${ids[@]}" ;;
	exec)
		_uringtune_reply "$cur" "$cur" --hybrid --napi --agent-socket --agent-lib --verbose -- ;;
	esac
	return 0
}

complete -F _uringtune uringtune
