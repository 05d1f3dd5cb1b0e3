#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Folded into bench/rtt.sh (part 1 of `make bench`): no NAPI, static
# timeouts with and without prefer, tune mode, plain and SQPOLL rings.
exec bash "$(dirname "$0")/rtt.sh" "$@"
