#!/bin/sh
# Records atomic test vectors from the C libfabric library installed from
# Debian (libfabric1 + libfabric-dev) and writes them, in the format of
# docs/conformance.md, to conformance/src/test/resources/vectors/libfabric-sockets.jsonl.
#
#   tools/fi_record/record.sh            sockets provider (the recorded file)
#   FI_RECORD_PROVIDER='tcp;ofi_rxm' tools/fi_record/record.sh
#                                        -> libfabric-tcp.jsonl
#
# The output is deterministic (fixed seed, no addresses or times in it).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prov=${FI_RECORD_PROVIDER:-sockets}
case "$prov" in
sockets) name=sockets ;;
"tcp;ofi_rxm") name=tcp ;;
*) name=$(printf '%s' "$prov" | tr -c 'A-Za-z0-9_\n' '-') ;;
esac
out="$root/conformance/src/test/resources/vectors/libfabric-$name.jsonl"

work=$(mktemp -d "${TMPDIR:-/tmp}/fi_record.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# shellcheck disable=SC2046  # pkg-config output is meant to be split
gcc -O2 -Wall -Werror -o "$work/fi_record" "$here/fi_record.c" \
	$(pkg-config --cflags --libs libfabric)

# fi_record bounds every wait itself; timeout is the last resort.
timeout 600 "$work/fi_record" -p "$prov" -o "$work/out.jsonl"
python3 "$here/check.py" "$work/out.jsonl"
mkdir -p "$(dirname "$out")"
mv "$work/out.jsonl" "$out"
echo "wrote $out" >&2
