#!/usr/bin/env python3
"""Self-check of a vector file written by fi_record (the format of docs/conformance.md).

Parses every line and checks: JSON objects with a "record" field, a meta line
first, case ids unique, names and enum ids known and consistent, count >= 1,
every hex field lowercase with count * size bytes, null exactly where
docs/conformance.md puts it (operand for ATOMIC_READ, compare outside the compare
family, result in the base family), and "nan" equal to whether an input holds
a NaN. Standard library only.

usage: check.py FILE.jsonl [...]     exit status 0 when every file is clean
"""
import json
import re
import sys

DATATYPES = ["FI_INT8", "FI_UINT8", "FI_INT16", "FI_UINT16", "FI_INT32", "FI_UINT32",
             "FI_INT64", "FI_UINT64", "FI_FLOAT", "FI_DOUBLE", "FI_FLOAT_COMPLEX",
             "FI_DOUBLE_COMPLEX", "FI_LONG_DOUBLE", "FI_LONG_DOUBLE_COMPLEX"]
SIZES = [1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16, 16, 32]
# enum fi_op order of /usr/include/rdma/fi_domain.h
OPS = ["FI_MIN", "FI_MAX", "FI_SUM", "FI_PROD", "FI_LOR", "FI_LAND", "FI_BOR", "FI_BAND",
       "FI_LXOR", "FI_BXOR", "FI_ATOMIC_READ", "FI_ATOMIC_WRITE", "FI_CSWAP",
       "FI_CSWAP_NE", "FI_CSWAP_LE", "FI_CSWAP_LT", "FI_CSWAP_GE", "FI_CSWAP_GT",
       "FI_MSWAP"]
FAMILIES = ("base", "fetch", "compare")
HEX = re.compile(r"^(?:[0-9a-f]{2})*$")


def part_nan(b):
    """NaN test of one real part given as little-endian bytes."""
    v = int.from_bytes(b, "little")
    if len(b) == 4:
        return (v & 0x7FFFFFFF) > 0x7F800000
    if len(b) == 8:
        return (v & 0x7FFFFFFFFFFFFFFF) > 0x7FF0000000000000
    # x87 80-bit in a 16-byte slot
    mant = v & 0xFFFFFFFFFFFFFFFF
    exp = (v >> 64) & 0x7FFF
    return exp == 0x7FFF and (mant & 0x7FFFFFFFFFFFFFFF) != 0


def has_nan(dt, data):
    if dt < 8 or data is None:
        return False
    part = {8: 4, 9: 8, 10: 4, 11: 8, 12: 16, 13: 16}[dt]
    return any(part_nan(data[i:i + part]) for i in range(0, len(data), part))


def check(path):
    errors = []
    ids = set()
    counts = {"case": 0, "nan": 0, "other": 0}

    def err(lineno, msg):
        errors.append(f"{path}:{lineno}: {msg}")

    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for lineno, line in enumerate(lines, 1):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            err(lineno, f"not JSON: {e}")
            continue
        if not isinstance(rec, dict) or "record" not in rec:
            err(lineno, "not an object with a 'record' field")
            continue
        if lineno == 1:
            if rec["record"] != "meta":
                err(lineno, "first line is not the meta record")
            for key in ("recorder", "libfabric", "provider", "fabric"):
                if not isinstance(rec.get(key), str) or not rec.get(key):
                    err(lineno, f"meta lacks '{key}'")
        if rec["record"] != "case":
            counts["other"] += 1
            continue
        counts["case"] += 1
        cid = rec.get("id")
        if not isinstance(cid, str) or not cid:
            err(lineno, "case without id")
        elif cid in ids:
            err(lineno, f"duplicate id {cid}")
        else:
            ids.add(cid)
        fam, op, dtn = rec.get("family"), rec.get("op"), rec.get("datatype")
        if fam not in FAMILIES:
            err(lineno, f"bad family {fam!r}")
            continue
        if op not in OPS or dtn not in DATATYPES:
            err(lineno, f"bad op/datatype {op!r}/{dtn!r}")
            continue
        opi, dti = OPS.index(op), DATATYPES.index(dtn)
        if "op_id" in rec and rec["op_id"] != opi:
            err(lineno, f"op_id {rec['op_id']} does not match {op} ({opi})")
        if "dt_id" in rec and rec["dt_id"] != dti:
            err(lineno, f"dt_id {rec['dt_id']} does not match {dtn} ({dti})")
        count = rec.get("count")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            err(lineno, f"bad count {count!r}")
            continue
        nbytes = count * SIZES[dti]
        nullable = {
            "initial_target": False,
            "final_target": False,
            "operand": op == "FI_ATOMIC_READ",
            "compare": fam != "compare",
            "result": fam == "base",
        }
        data = {}
        for field, must_be_null in nullable.items():
            if field not in rec:
                err(lineno, f"{cid}: field {field} missing")
                continue
            v = rec[field]
            if must_be_null:
                if v is not None:
                    err(lineno, f"{cid}: {field} should be null")
                continue
            if not isinstance(v, str) or not HEX.match(v):
                err(lineno, f"{cid}: {field} is not lowercase hex")
                continue
            if len(v) != 2 * nbytes:
                err(lineno, f"{cid}: {field} has {len(v) // 2} bytes, "
                            f"count * size is {nbytes}")
                continue
            data[field] = bytes.fromhex(v)
        nan = rec.get("nan")
        if not isinstance(nan, bool):
            err(lineno, f"{cid}: nan is not a boolean")
        else:
            want = any(has_nan(dti, data.get(k))
                       for k in ("initial_target", "operand", "compare"))
            if nan != want:
                err(lineno, f"{cid}: nan is {nan}, inputs say {want}")
            counts["nan"] += nan
    return errors, counts


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    bad = 0
    for path in argv[1:]:
        errors, counts = check(path)
        for e in errors[:50]:
            print(e)
        if len(errors) > 50:
            print(f"... and {len(errors) - 50} more")
        print(f"{path}: {counts['case']} cases ({counts['nan']} with NaN inputs), "
              f"{counts['other']} other records, {len(errors)} problems")
        bad += bool(errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
