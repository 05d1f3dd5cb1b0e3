#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# `make bench`: every benchmark in turn. Numbers, not verdicts.
set -eu
cd "$(dirname "$0")/.."
for b in bench/prog_cost.sh bench/rtt_observe.sh bench/rtt_tune.sh bench/reaction.sh; do
	echo "== $b"
	bash "$b"
done
