#!/bin/sh
# Build tools/vectorgen/vectorgen.c and write the gcc reference vectors to
# conformance/src/test/resources/vectors/gcc-reference.jsonl.
#
# Deterministic and idempotent: the same compiler gives the same bytes, and
# the output file is only replaced when its content changes.  Before writing,
# the script checks the machine code (float/double in SSE, long double in the
# x87, no FMA, complex products through libgcc) when objdump is there, and
# validates the output with check.py when python3 is there.
#
# Usage: tools/vectorgen/generate.sh [OUTPUT]
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-"$root/conformance/src/test/resources/vectors/gcc-reference.jsonl"}
CC=gcc

case "$(uname -m)" in
x86_64 | amd64) ;;
*)
	echo "generate.sh: needs x86-64 (got $(uname -m))" >&2
	exit 1
	;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

"$CC" -O2 -std=gnu11 -fno-fast-math -Wall -Werror \
	-o "$tmp/vectorgen" "$here/vectorgen.c"

if command -v objdump >/dev/null 2>&1; then
	objdump -d --no-show-raw-insn "$tmp/vectorgen" >"$tmp/dis"
	# body of one function of the disassembly
	body() {
		awk -v f="<$1>:" '$2 == f { p = 1; next } /^$/ { p = 0 } p' "$tmp/dis"
	}
	need() { # function, instruction pattern
		if ! body "$1" | grep -Eq "$2"; then
			echo "generate.sh: $1 does not use $2" >&2
			exit 1
		fi
	}
	need f_add '[[:space:]]addss[[:space:]]'
	need f_mul '[[:space:]]mulss[[:space:]]'
	need d_add '[[:space:]]addsd[[:space:]]'
	need d_mul '[[:space:]]mulsd[[:space:]]'
	need ld_add '[[:space:]]faddp?[[:space:]]'
	need ld_mul '[[:space:]]fmulp?[[:space:]]'
	need fc_mul 'call.*<__mulsc3>'
	need dc_mul 'call.*<__muldc3>'
	need ldc_mul 'call.*<__mulxc3>'
	if grep -Eq '[[:space:]]v?fn?m(add|sub)[0-9]{3}' "$tmp/dis"; then
		echo "generate.sh: the binary contains FMA instructions" >&2
		exit 1
	fi
else
	echo "generate.sh: objdump not found, machine code not checked" >&2
fi

"$tmp/vectorgen" "$("$CC" --version | head -n 1)" >"$tmp/out.jsonl"

if command -v python3 >/dev/null 2>&1; then
	python3 "$here/check.py" "$tmp/out.jsonl"
else
	echo "generate.sh: python3 not found, output not validated" >&2
fi

mkdir -p "$(dirname "$out")"
if [ -f "$out" ] && cmp -s "$tmp/out.jsonl" "$out"; then
	echo "generate.sh: $out is up to date"
else
	cp "$tmp/out.jsonl" "$out.tmp.$$"
	mv "$out.tmp.$$" "$out"
	echo "generate.sh: wrote $out"
fi
