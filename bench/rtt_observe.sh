#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Folded into bench/overhead.sh (part 2 of `make bench`): observe-mode
# uringtuned vs none on the ping-pong RTT, NOP throughput and UDP echo
# throughput, in interleaved rounds.
exec bash "$(dirname "$0")/overhead.sh" "$@"
