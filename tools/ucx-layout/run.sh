#!/bin/sh
# Compile tools/ucx-layout/ucx-layout.c against the installed UCX headers and
# print its facts ("NAME VALUE" lines, see ucx-layout.c) on stdout.
#
# Exit 2, with what is missing on stderr, when there is no C compiler or no
# UCX headers (Debian and Ubuntu: apt-get install gcc libucx-dev); headers
# outside the default include path: CPPFLAGS=-I/prefix/include.
#
# Usage: tools/ucx-layout/run.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}

if ! command -v "$CC" >/dev/null 2>&1; then
	echo "ucx-layout: no C compiler ($CC not found on PATH)" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# whether the headers are there, apart from whether they and the probe compile
# (an error there exits 1)
printf '#if !__has_include(<ucp/api/ucp.h>)\n#error no ucp/api/ucp.h\n#endif\n' >"$tmp/has-ucp.c"
# shellcheck disable=SC2086 # CPPFLAGS is a list of flags
if ! "$CC" ${CPPFLAGS:-} -E -o /dev/null "$tmp/has-ucp.c" 2>/dev/null; then
	echo "ucx-layout: UCX headers missing (ucp/api/ucp.h not found by $CC; Debian and Ubuntu: libucx-dev)" >&2
	exit 2
fi

# no -Werror: a warning in some release's UCX headers is not the probe's to fix
# shellcheck disable=SC2086
"$CC" ${CPPFLAGS:-} -std=gnu11 -Wall -o "$tmp/ucx-layout" "$here/ucx-layout.c"
"$tmp/ucx-layout"
