#!/usr/bin/env bash
# Runs node (NODE, which npm sets, else the first on PATH) with the arguments given, with jemalloc as the process's
# allocator where the machine has it (Debian's libjemalloc2). glibc's malloc keeps the free chunks that thousands of
# closed TLS connections leave behind and walks them on large allocations from then on: after 10,000 gateway sessions
# came and went, each page read cost a server about a third more CPU with glibc's allocator and about the same with
# jemalloc's (docs/operations.md#memory-allocator). An LD_PRELOAD already set is left as it is; PARLEY_JEMALLOC=0 keeps
# glibc's. `exec`: the process started is node itself, which signals reach directly.
set -euo pipefail
if [ -z "${LD_PRELOAD:-}" ] && [ "${PARLEY_JEMALLOC:-1}" != 0 ]; then
  jemalloc="$({ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | awk '$1 == "libjemalloc.so.2" && !found { print $NF; found = 1 }' || true)"
  if [ -n "$jemalloc" ]; then export LD_PRELOAD="$jemalloc"; fi
fi
exec "${NODE:-node}" "$@"
