#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The product's shape (issue 11): no .c over 600 lines, no function over 80
# lines, no include cycle among modules (a module is a .c/.h pair; X depends
# on Y when X.c or X.h includes Y.h). The BPF programs and tests are exempt
# from the length rules.
set -u
cd "$(dirname "$0")/../.." || exit 1
fail() { echo "FAIL: $*"; exit 1; }

bad=0
for f in $(git ls-files 'daemon/*.c' 'agent/*.c' 'cli/*.c' 'common/*.c' | grep -v '\.bpf\.c$'); do
	n=$(wc -l <"$f")
	[ "$n" -le 600 ] || { echo "$f: $n lines"; bad=1; }
	# a function: a line opening with '{' at column 0 to the next '}' at column 0
	awk -v F="$f" '/^\{/{s=NR} /^\}/{ if (s && NR-s+2>80) { print F":"s": "(NR-s+2)" lines"; e=1 } s=0 }
		END { exit e }' "$f" || bad=1
done
[ "$bad" = 0 ] || fail "files or functions over the limits (above)"

python3 - <<'PY' || fail "include cycle"
import os, re, subprocess, sys
files = subprocess.run(["git", "ls-files", "daemon", "agent", "cli", "common", "bpf"],
                       capture_output=True, text=True).stdout.split()
files = [f for f in files if f.endswith((".c", ".h"))]
mod = lambda p: os.path.splitext(p)[0].replace(".bpf", "")
by_dir_base = {}
for p in files:
    by_dir_base.setdefault(os.path.basename(mod(p)), set()).add(mod(p))
g = {}
for p in files:
    for inc in re.findall(r'#include\s+"([^"]+)"', open(p, errors="replace").read()):
        for m in by_dir_base.get(os.path.basename(os.path.splitext(inc)[0]), ()):
            # the header a file sees: its own folder's first, as the compiler does
            if m != mod(p):
                g.setdefault(mod(p), set()).add(m)
state, cyc = {}, []
def dfs(v, stack):
    state[v] = 1; stack.append(v)
    for w in g.get(v, ()):
        if state.get(w) == 1:
            cyc.append(" -> ".join(stack[stack.index(w):] + [w]))
        elif w not in state:
            dfs(w, stack)
    stack.pop(); state[v] = 2
sys.setrecursionlimit(10000)
for v in list(g):
    if v not in state:
        dfs(v, [])
for c in cyc:
    print("cycle:", c)
sys.exit(1 if cyc else 0)
PY
echo "shape: no file over 600 lines, no function over 80, no include cycle"
