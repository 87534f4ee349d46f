#!/usr/bin/env python3
"""Compares recorded vectors with an independent model of docs/semantics.md's rules.

Not needed for replay: it is how the observations in NOTES.md were found. The
model covers the integer types, FLOAT, DOUBLE, FLOAT_COMPLEX and DOUBLE_COMPLEX
(LONG_DOUBLE and its complex are not modelled; the Debian build offers neither).
For each element it checks the final target exactly (or NaN-equal) and that the
fetched result equals the initial target, then lists the differences grouped by
(family, op, datatype, kind). Standard library only.

usage: design_check.py FILE.jsonl
"""
import ctypes
import json
import math
import struct
import sys
from collections import defaultdict

SIZES = {"FI_INT8": 1, "FI_UINT8": 1, "FI_INT16": 2, "FI_UINT16": 2, "FI_INT32": 4,
         "FI_UINT32": 4, "FI_INT64": 8, "FI_UINT64": 8, "FI_FLOAT": 4, "FI_DOUBLE": 8,
         "FI_FLOAT_COMPLEX": 8, "FI_DOUBLE_COMPLEX": 16, "FI_LONG_DOUBLE": 16,
         "FI_LONG_DOUBLE_COMPLEX": 32}


class Fmt:
    def __init__(self, bits):
        self.bits = bits
        self.nbytes = bits // 8
        self.code = "<f" if bits == 32 else "<d"
        self.sign = 1 << (bits - 1)
        self.quiet = 1 << (22 if bits == 32 else 51)
        self.default_nan = 0xffc00000 if bits == 32 else 0xfff8000000000000

    def to_f(self, u):
        return struct.unpack(self.code, u.to_bytes(self.nbytes, "little"))[0]

    def round(self, x):
        if self.bits == 32:
            return ctypes.c_float(x).value
        return x

    def to_u(self, x):
        x = self.round(x)
        return int.from_bytes(struct.pack(self.code, x), "little")

    def isnan(self, u):
        return math.isnan(self.to_f(u))

    def arith(self, a, b, fn):
        """x86 SSE: NaN operand -> first NaN (a then b) quieted; invalid -> default NaN."""
        if self.isnan(a):
            return a | self.quiet
        if self.isnan(b):
            return b | self.quiet
        try:
            r = fn(self.to_f(a), self.to_f(b))
        except OverflowError:
            r = math.inf
        if math.isnan(r):
            return self.default_nan
        return self.to_u(r)


F32, F64 = Fmt(32), Fmt(64)


def add(f, a, b):
    return f.arith(a, b, lambda x, y: x + y)


def sub(f, a, b):
    return f.arith(a, b, lambda x, y: x - y)


def mul(f, a, b):
    return f.arith(a, b, lambda x, y: x * y)


def cmul(f, a, b, c, d):
    """(a+bi)(c+di) as gcc: inline then __mulsc3/__muldc3 recovery."""
    ac, bd, ad, bc = mul(f, a, c), mul(f, b, d), mul(f, a, d), mul(f, b, c)
    x, y = sub(f, ac, bd), add(f, ad, bc)
    if f.isnan(x) and f.isnan(y):
        A, B, C, D = (f.to_f(v) for v in (a, b, c, d))
        recalc = False

        def cs(v, s):
            return math.copysign(v, s)
        if math.isinf(A) or math.isinf(B):
            A = cs(1.0 if math.isinf(A) else 0.0, A)
            B = cs(1.0 if math.isinf(B) else 0.0, B)
            if math.isnan(C):
                C = cs(0.0, C)
            if math.isnan(D):
                D = cs(0.0, D)
            recalc = True
        if math.isinf(C) or math.isinf(D):
            C = cs(1.0 if math.isinf(C) else 0.0, C)
            D = cs(1.0 if math.isinf(D) else 0.0, D)
            if math.isnan(A):
                A = cs(0.0, A)
            if math.isnan(B):
                B = cs(0.0, B)
            recalc = True
        if not recalc and any(math.isinf(f.to_f(v)) for v in (ac, bd, ad, bc)):
            if math.isnan(A):
                A = cs(0.0, A)
            if math.isnan(B):
                B = cs(0.0, B)
            if math.isnan(C):
                C = cs(0.0, C)
            if math.isnan(D):
                D = cs(0.0, D)
            recalc = True
        if recalc:
            def r(v):
                return f.round(v)
            try:
                x = f.to_u(math.inf * r(r(A * C) - r(B * D)))
            except (OverflowError, ValueError):
                x = f.default_nan
            try:
                y = f.to_u(math.inf * r(r(A * D) + r(B * C)))
            except (OverflowError, ValueError):
                y = f.default_nan
            x = f.default_nan if f.isnan(x) else x
            y = f.default_nan if f.isnan(y) else y
    return x, y


def truth_f(f, u):
    return f.to_f(u) != 0.0  # NaN true, -0 false


def int_info(dt):
    size = SIZES[dt]
    signed = not dt.startswith("FI_UINT")
    return size, signed


def sval(u, size, signed):
    if signed and u >= 1 << (8 * size - 1):
        return u - (1 << (8 * size))
    return u


def model_elem(op, dt, t, o, c):
    """returns the new target element (bytes) for one element, or None."""
    size = SIZES[dt]
    T = int.from_bytes(t, "little")
    O = int.from_bytes(o, "little") if o is not None else None
    C = int.from_bytes(c, "little") if c is not None else None
    mask = (1 << (8 * size)) - 1

    def out(v):
        return (v & mask).to_bytes(size, "little")

    if op == "FI_ATOMIC_READ":
        return t
    if op == "FI_ATOMIC_WRITE":
        return o
    if op == "FI_MSWAP":
        return out((O & C) | (T & ~C))
    if op == "FI_CSWAP" and dt in ("FI_FLOAT", "FI_DOUBLE", "FI_FLOAT_COMPLEX") or (
            op == "FI_CSWAP" and dt.startswith(("FI_INT", "FI_UINT"))):
        return o if c == t else t

    if dt.startswith(("FI_INT", "FI_UINT")):
        _, signed = int_info(dt)
        a, b = sval(T, size, signed), sval(O, size, signed)
        cc = sval(C, size, signed) if C is not None else None
        r = {
            "FI_MIN": lambda: b if a > b else a,
            "FI_MAX": lambda: b if a < b else a,
            "FI_SUM": lambda: a + b,
            "FI_PROD": lambda: a * b,
            "FI_LOR": lambda: int(bool(a) or bool(b)),
            "FI_LAND": lambda: int(bool(a) and bool(b)),
            "FI_LXOR": lambda: int(bool(a) != bool(b)),
            "FI_BOR": lambda: a | b,
            "FI_BAND": lambda: a & b,
            "FI_BXOR": lambda: a ^ b,
            "FI_CSWAP_NE": lambda: b if cc != a else a,
            "FI_CSWAP_LE": lambda: b if cc <= a else a,
            "FI_CSWAP_LT": lambda: b if cc < a else a,
            "FI_CSWAP_GE": lambda: b if cc >= a else a,
            "FI_CSWAP_GT": lambda: b if cc > a else a,
        }[op]()
        return out(r)

    if dt in ("FI_FLOAT", "FI_DOUBLE"):
        f = F32 if dt == "FI_FLOAT" else F64
        a, b = f.to_f(T), f.to_f(O)
        cc = f.to_f(C) if C is not None else None
        one = f.to_u(1.0)
        if op == "FI_MIN":
            return o if a > b else t
        if op == "FI_MAX":
            return o if a < b else t
        if op == "FI_SUM":
            return out(add(f, T, O))
        if op == "FI_PROD":
            return out(mul(f, T, O))
        if op in ("FI_LOR", "FI_LAND", "FI_LXOR"):
            x, y = truth_f(f, T), truth_f(f, O)
            v = {"FI_LOR": x or y, "FI_LAND": x and y, "FI_LXOR": x != y}[op]
            return out(one if v else 0)
        if op == "FI_CSWAP_NE":
            return o if cc != a else t
        if op == "FI_CSWAP_LE":
            return o if cc <= a else t
        if op == "FI_CSWAP_LT":
            return o if cc < a else t
        if op == "FI_CSWAP_GE":
            return o if cc >= a else t
        if op == "FI_CSWAP_GT":
            return o if cc > a else t
    if dt in ("FI_FLOAT_COMPLEX", "FI_DOUBLE_COMPLEX"):
        f = F32 if dt == "FI_FLOAT_COMPLEX" else F64
        h = size // 2
        hm = (1 << (8 * h)) - 1
        tr, ti = T & hm, T >> (8 * h)
        orr, oi = (O & hm, O >> (8 * h)) if O is not None else (None, None)

        def pack(re, im):
            return re.to_bytes(h, "little") + im.to_bytes(h, "little")
        one = f.to_u(1.0)
        if op == "FI_SUM":
            return pack(add(f, tr, orr), add(f, ti, oi))
        if op == "FI_PROD":
            x, y = cmul(f, tr, ti, orr, oi)
            return pack(x, y)
        if op in ("FI_LOR", "FI_LAND", "FI_LXOR"):
            x = truth_f(f, tr) or truth_f(f, ti)
            y = truth_f(f, orr) or truth_f(f, oi)
            v = {"FI_LOR": x or y, "FI_LAND": x and y, "FI_LXOR": x != y}[op]
            return pack(one if v else 0, 0)
        if op == "FI_CSWAP" and dt == "FI_DOUBLE_COMPLEX":
            cr, ci = C & hm, C >> (8 * h)
            eq = f.to_f(cr) == f.to_f(tr) and f.to_f(ci) == f.to_f(ti)
            return o if eq else t
        if op == "FI_CSWAP_NE":
            cr, ci = C & hm, C >> (8 * h)
            eq = f.to_f(cr) == f.to_f(tr) and f.to_f(ci) == f.to_f(ti)
            return o if not eq else t
    raise KeyError((op, dt))


def is_nan_bytes(dt, b):
    if dt in ("FI_FLOAT", "FI_DOUBLE"):
        f = F32 if dt == "FI_FLOAT" else F64
        return f.isnan(int.from_bytes(b, "little"))
    if dt in ("FI_FLOAT_COMPLEX", "FI_DOUBLE_COMPLEX"):
        h = len(b) // 2
        f = F32 if h == 4 else F64
        return (f.isnan(int.from_bytes(b[:h], "little")),
                f.isnan(int.from_bytes(b[h:], "little")))
    return False


def nan_equal(dt, x, y):
    if dt in ("FI_FLOAT", "FI_DOUBLE"):
        return is_nan_bytes(dt, x) and is_nan_bytes(dt, y)
    if dt in ("FI_FLOAT_COMPLEX", "FI_DOUBLE_COMPLEX"):
        h = len(x) // 2
        nx, ny = is_nan_bytes(dt, x), is_nan_bytes(dt, y)
        ok = True
        for i, (a, b) in enumerate(zip(nx, ny)):
            if a or b:
                ok &= a and b
            else:
                ok &= x[i * h:(i + 1) * h] == y[i * h:(i + 1) * h]
        return ok
    return False


def main(path):
    exact = nan_eq = skipped = 0
    bad = defaultdict(list)
    for line in open(path):
        d = json.loads(line)
        if d["record"] != "case":
            continue
        dt, op, n = d["datatype"], d["op"], d["count"]
        size = SIZES[dt]
        it = bytes.fromhex(d["initial_target"])
        op_b = bytes.fromhex(d["operand"]) if d["operand"] else None
        cm = bytes.fromhex(d["compare"]) if d["compare"] else None
        ft = bytes.fromhex(d["final_target"])
        res = bytes.fromhex(d["result"]) if d["result"] else None
        for k in range(n):
            sl = slice(k * size, (k + 1) * size)
            try:
                want = model_elem(op, dt, it[sl], op_b[sl] if op_b else None,
                                  cm[sl] if cm else None)
            except KeyError:
                skipped += 1
                continue
            got = ft[sl]
            if res is not None and res[sl] != it[sl]:
                bad[(d["family"], op, dt, "result")].append((d["id"], k))
            if want == got:
                exact += 1
            elif nan_equal(dt, want, got):
                nan_eq += 1
                bad[(d["family"], op, dt, "nan-bits")].append(
                    (d["id"], k, it[sl].hex(), op_b[sl].hex() if op_b else None,
                     cm[sl].hex() if cm else None, want.hex(), got.hex()))
            else:
                bad[(d["family"], op, dt, "value")].append(
                    (d["id"], k, it[sl].hex(), op_b[sl].hex() if op_b else None,
                     cm[sl].hex() if cm else None, want.hex(), got.hex()))
    print(f"elements exact {exact}, nan-equal only {nan_eq}, not modelled {skipped}, "
          f"differing groups {len(bad)}")
    for key in sorted(bad):
        v = bad[key]
        print(key, len(v))
        for e in v[:4]:
            print("   ", e)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: design_check.py FILE.jsonl")
    main(sys.argv[1])
