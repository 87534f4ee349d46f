#!/bin/sh
# Regenerates core/src/test/resources/longdouble/x87-reference.txt from real x87 arithmetic.
# Needs gcc on x86-64 Linux. -fno-fast-math keeps IEEE semantics and gcc's __mulxc3 call.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$root/core/src/test/resources/longdouble/x87-reference.txt"
bin=$(mktemp)
trap 'rm -f "$bin"' EXIT
gcc -O2 -fno-fast-math -Wall -Wextra -o "$bin" "$here/x87ref.c"
mkdir -p "$(dirname "$out")"
"$bin" > "$out"
wc -l "$out"
