#!/usr/bin/env python3
"""Validate gcc-reference.jsonl (tools/vectorgen).

Structure: every line parses; the first is the meta record; hex fields are
lowercase with count*size bytes; null fields as docs/conformance.md says; ids unique;
exactly the 354 valid (family, op, datatype) cells of docs/semantics.md, each with a
case; result equals initial_target for fetch and compare; the nan flag is
right; long double padding bytes are zero.

Semantics (skip with --no-semantics): every final_target is recomputed here,
independently of the C generator, from the rules of docs/semantics.md: integer ops
on Python ints; float, double and 80-bit long double with exact rational
arithmetic rounded to nearest even; NaN results by the SSE rule (first NaN
operand, quieted) for FLOAT/DOUBLE and by the x87 rule (larger significand,
equal significands give the positive one, quieted) for LONG_DOUBLE; invalid
operations give the negative default NaN; complex products as gcc/libgcc
compute them (C99 Annex G recovery when both parts are NaN).

Usage: check.py [--no-semantics] FILE
"""
import json
import re
import sys
from fractions import Fraction

DT = ["FI_INT8", "FI_UINT8", "FI_INT16", "FI_UINT16", "FI_INT32", "FI_UINT32",
      "FI_INT64", "FI_UINT64", "FI_FLOAT", "FI_DOUBLE", "FI_FLOAT_COMPLEX",
      "FI_DOUBLE_COMPLEX", "FI_LONG_DOUBLE", "FI_LONG_DOUBLE_COMPLEX"]
SIZE = [1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16, 16, 32]
OPS = ["FI_MIN", "FI_MAX", "FI_SUM", "FI_PROD", "FI_LOR", "FI_LAND", "FI_BOR",
       "FI_LXOR", "FI_BAND", "FI_BXOR", "FI_ATOMIC_READ", "FI_ATOMIC_WRITE",
       "FI_CSWAP", "FI_CSWAP_NE", "FI_CSWAP_LE", "FI_CSWAP_LT", "FI_CSWAP_GE",
       "FI_CSWAP_GT", "FI_MSWAP"]
FAMILIES = ["base", "fetch", "compare"]

INTS = set(DT[:8])
ORDERED = INTS | {"FI_FLOAT", "FI_DOUBLE", "FI_LONG_DOUBLE"}
ALL = set(DT)


def valid_cells():
    """the table of docs/semantics.md, written out independently of vectorgen.c."""
    rows = {
        "FI_MIN": (ORDERED, ORDERED, set()),
        "FI_MAX": (ORDERED, ORDERED, set()),
        "FI_SUM": (ALL, ALL, set()),
        "FI_PROD": (ALL, ALL, set()),
        "FI_LOR": (ALL, ALL, set()),
        "FI_LAND": (ALL, ALL, set()),
        "FI_LXOR": (ALL, ALL, set()),
        "FI_BOR": (INTS, INTS, set()),
        "FI_BAND": (INTS, INTS, set()),
        "FI_BXOR": (INTS, INTS, set()),
        "FI_ATOMIC_READ": (set(), ALL, set()),
        "FI_ATOMIC_WRITE": (ALL, ALL, set()),
        "FI_CSWAP": (set(), set(), ALL),
        "FI_CSWAP_NE": (set(), set(), ALL),
        "FI_CSWAP_LE": (set(), set(), ORDERED),
        "FI_CSWAP_LT": (set(), set(), ORDERED),
        "FI_CSWAP_GE": (set(), set(), ORDERED),
        "FI_CSWAP_GT": (set(), set(), ORDERED),
        "FI_MSWAP": (set(), set(), INTS),
    }
    cells = set()
    for op, fams in rows.items():
        for fam, dts in zip(FAMILIES, fams):
            for dt in dts:
                cells.add((fam, op, dt))
    return cells


# --------------------------------------------------------------------------
# floating-point formats

class Fmt:
    def __init__(self, name, p, ebits, explicit):
        self.name = name
        self.p = p                      # significand digits incl. leading
        self.ebits = ebits
        self.bias = (1 << (ebits - 1)) - 1
        self.emin = 1 - self.bias
        self.emax = self.bias
        self.explicit = explicit        # 80-bit: explicit integer bit
        self.fbits = p if explicit else p - 1
        self.x87 = explicit
        self.nbytes = {24: 4, 53: 8, 64: 16}[p]

    # raw: (sign, exp_field, frac_field)  (frac incl. explicit bit for x87)
    def unpack(self, b):
        if self.explicit:
            sig = int.from_bytes(b[0:8], "little")
            se = int.from_bytes(b[8:10], "little")
            return se >> 15, se & 0x7fff, sig
        v = int.from_bytes(b, "little")
        return (v >> (self.ebits + self.fbits),
                (v >> self.fbits) & ((1 << self.ebits) - 1),
                v & ((1 << self.fbits) - 1))

    def pack(self, sign, e, f):
        if self.explicit:
            return f.to_bytes(8, "little") + ((sign << 15) | e).to_bytes(2, "little") + bytes(6)
        v = (sign << (self.ebits + self.fbits)) | (e << self.fbits) | f
        return v.to_bytes(self.nbytes, "little")

    def emax_field(self):
        return (1 << self.ebits) - 1

    def mantissa_payload(self, f):
        """fraction bits below the integer bit"""
        return f & ((1 << (self.p - 1)) - 1)

    def quiet_bit(self):
        return 1 << (self.p - 2)

    def isnan(self, b):
        s, e, f = self.unpack(b)
        return e == self.emax_field() and self.mantissa_payload(f) != 0

    def value(self, b):
        """Fraction, +-inf (float) or None for NaN; -0 gives Fraction(0)"""
        s, e, f = self.unpack(b)
        if e == self.emax_field():
            if self.mantissa_payload(f) != 0:
                return None
            return float("-inf") if s else float("inf")
        if self.explicit:
            sig = f
            ex = (e if e else 1) - self.bias - (self.p - 1)
        else:
            sig = f | (1 << self.fbits) if e else f
            ex = (e if e else 1) - self.bias - self.fbits
        v = Fraction(sig) * (Fraction(2) ** ex)
        return -v if s else v

    def sign(self, b):
        return self.unpack(b)[0]

    def zero(self, sign):
        return self.pack(sign, 0, 0)

    def inf(self, sign):
        return self.pack(sign, self.emax_field(), (1 << 63) if self.explicit else 0)

    def default_nan(self):
        top = (1 << 63) if self.explicit else 0
        return self.pack(1, self.emax_field(), top | self.quiet_bit())

    def quiet(self, b):
        s, e, f = self.unpack(b)
        return self.pack(s, e, f | self.quiet_bit())

    def one(self):
        return self.from_fraction(Fraction(1))

    def from_fraction(self, v, zero_sign=0):
        """round to nearest even; v exact rational"""
        if v == 0:
            return self.zero(zero_sign)
        sign = 1 if v < 0 else 0
        m = -v if sign else v
        e = m.numerator.bit_length() - m.denominator.bit_length()
        if Fraction(2) ** e > m:
            e -= 1
        # now 2^e <= m < 2^(e+1)
        q = max(e, self.emin) - (self.p - 1)
        n = m / (Fraction(2) ** q)
        N = n.numerator // n.denominator
        rem = n - N
        if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and N & 1):
            N += 1
        if N == 1 << self.p:
            N >>= 1
            q += 1
        if N == 0:
            return self.zero(sign)
        top = N.bit_length() - 1 + q      # exponent of the result
        if top > self.emax:
            return self.inf(sign)
        if N < (1 << (self.p - 1)):       # subnormal
            assert q == self.emin - (self.p - 1)
            return self.pack(sign, 0, N)
        e_field = top + self.bias
        f = N if self.explicit else N - (1 << (self.p - 1))
        return self.pack(sign, e_field, f)


F32 = Fmt("float", 24, 8, False)
F64 = Fmt("double", 53, 11, False)
F80 = Fmt("x87", 64, 15, True)


def pick_nan(fmt, a, b):
    """NaN result of a binary op whose operands a (first) and b hold a NaN"""
    na, nb = fmt.isnan(a), fmt.isnan(b)
    if na and nb and fmt.x87:
        sa, _, fa = fmt.unpack(a)
        sb, _, fb = fmt.unpack(b)
        if fa != fb:
            return fmt.quiet(a if fa > fb else b)
        return fmt.quiet(a if sa == 0 else b)   # equal significands: positive
    return fmt.quiet(a if na else b)


def f_add(fmt, a, b, sub=False):
    if fmt.isnan(a) or fmt.isnan(b):
        return pick_nan(fmt, a, b)
    va, vb = fmt.value(a), fmt.value(b)
    sb = fmt.sign(b)
    if sub:
        vb = -vb
        sb ^= 1
    if isinstance(va, float) or isinstance(vb, float):
        if isinstance(va, float) and isinstance(vb, float) and va != vb:
            return fmt.default_nan()
        inf = va if isinstance(va, float) else vb
        return fmt.inf(1 if inf < 0 else 0)
    r = va + vb
    if r == 0:
        if va == 0 and vb == 0:
            return fmt.zero(fmt.sign(a) & sb)
        return fmt.zero(0)
    return fmt.from_fraction(r)


def f_mul(fmt, a, b):
    if fmt.isnan(a) or fmt.isnan(b):
        return pick_nan(fmt, a, b)
    va, vb = fmt.value(a), fmt.value(b)
    sign = fmt.sign(a) ^ fmt.sign(b)
    if isinstance(va, float) or isinstance(vb, float):
        if va == 0 or vb == 0:
            return fmt.default_nan()
        return fmt.inf(sign)
    r = va * vb
    if r == 0:
        return fmt.zero(sign)
    return fmt.from_fraction(r)


def isinf(fmt, b):
    v = fmt.value(b)
    return isinstance(v, float)


def copysign01(fmt, one, b):
    s = fmt.sign(b)
    return fmt.pack(s, *fmt.unpack(fmt.one())[1:]) if one else fmt.zero(s)


def c_mul(fmt, a, b, c, d):
    """(a+bi)*(c+di) as gcc's inline code plus libgcc __mul?c3"""
    ac, bd, ad, bc = f_mul(fmt, a, c), f_mul(fmt, b, d), f_mul(fmt, a, d), f_mul(fmt, b, c)
    x = f_add(fmt, ac, bd, sub=True)
    y = f_add(fmt, ad, bc)
    if fmt.isnan(x) and fmt.isnan(y):
        recalc = False
        if isinf(fmt, a) or isinf(fmt, b):
            a = copysign01(fmt, isinf(fmt, a), a)
            b = copysign01(fmt, isinf(fmt, b), b)
            if fmt.isnan(c):
                c = fmt.zero(fmt.sign(c))
            if fmt.isnan(d):
                d = fmt.zero(fmt.sign(d))
            recalc = True
        if isinf(fmt, c) or isinf(fmt, d):
            c = copysign01(fmt, isinf(fmt, c), c)
            d = copysign01(fmt, isinf(fmt, d), d)
            if fmt.isnan(a):
                a = fmt.zero(fmt.sign(a))
            if fmt.isnan(b):
                b = fmt.zero(fmt.sign(b))
            recalc = True
        if not recalc and any(isinf(fmt, v) for v in (ac, bd, ad, bc)):
            if fmt.isnan(a):
                a = fmt.zero(fmt.sign(a))
            if fmt.isnan(b):
                b = fmt.zero(fmt.sign(b))
            if fmt.isnan(c):
                c = fmt.zero(fmt.sign(c))
            if fmt.isnan(d):
                d = fmt.zero(fmt.sign(d))
            recalc = True
        if recalc:
            inf = fmt.inf(0)
            x = f_mul(fmt, inf, f_add(fmt, f_mul(fmt, a, c), f_mul(fmt, b, d), sub=True))
            y = f_mul(fmt, inf, f_add(fmt, f_mul(fmt, a, d), f_mul(fmt, b, c)))
    return x, y


# --------------------------------------------------------------------------
# element semantics

def fmt_of(dt):
    return {"FI_FLOAT": F32, "FI_DOUBLE": F64, "FI_LONG_DOUBLE": F80,
            "FI_FLOAT_COMPLEX": F32, "FI_DOUBLE_COMPLEX": F64,
            "FI_LONG_DOUBLE_COMPLEX": F80}[dt]


def real_cmp(fmt, x, y, rel):
    vx, vy = fmt.value(x), fmt.value(y)
    if vx is None or vy is None:
        return rel == "!="
    return {"==": vx == vy, "!=": vx != vy, "<": vx < vy, "<=": vx <= vy,
            ">": vx > vy, ">=": vx >= vy}[rel]


def truth(dt, b):
    if dt in INTS:
        return int.from_bytes(b, "little") != 0
    fmt = fmt_of(dt)
    if dt.endswith("COMPLEX"):
        h = len(b) // 2
        return truth_real(fmt, b[:h]) or truth_real(fmt, b[h:])
    return truth_real(fmt, b)


def truth_real(fmt, b):
    v = fmt.value(b)
    return v is None or v != 0


def bool_value(dt, t):
    size = SIZE[DT.index(dt)]
    if dt in INTS:
        return (1 if t else 0).to_bytes(size, "little")
    fmt = fmt_of(dt)
    one = fmt.one() if t else fmt.zero(0)
    if dt.endswith("COMPLEX"):
        return one + fmt.zero(0)
    return one


def int_val(dt, b):
    return int.from_bytes(b, "little", signed=not dt.startswith("FI_UINT"))


REL = {"FI_CSWAP_NE": "!=", "FI_CSWAP_LE": "<=", "FI_CSWAP_LT": "<",
       "FI_CSWAP_GE": ">=", "FI_CSWAP_GT": ">"}


def expected(op, dt, t, s, c):
    size = SIZE[DT.index(dt)]
    mask = (1 << (8 * size)) - 1
    cplx = dt.endswith("COMPLEX")
    if op == "FI_ATOMIC_READ":
        return t
    if op == "FI_ATOMIC_WRITE":
        return s
    if op in ("FI_LOR", "FI_LAND", "FI_LXOR"):
        a, b = truth(dt, t), truth(dt, s)
        r = {"FI_LOR": a or b, "FI_LAND": a and b, "FI_LXOR": a != b}[op]
        return bool_value(dt, r)
    if dt in INTS:
        d, sv = int_val(dt, t), int_val(dt, s)
        cv = int_val(dt, c) if c is not None else None
        u = lambda v: (v & mask).to_bytes(size, "little")
        if op == "FI_MIN":
            return s if d > sv else t
        if op == "FI_MAX":
            return s if d < sv else t
        if op == "FI_SUM":
            return u(d + sv)
        if op == "FI_PROD":
            return u(d * sv)
        if op == "FI_BOR":
            return u(d | sv)
        if op == "FI_BAND":
            return u(d & sv)
        if op == "FI_BXOR":
            return u(d ^ sv)
        if op == "FI_MSWAP":
            return u((sv & cv) | (d & ~cv))
        if op == "FI_CSWAP":
            return s if cv == d else t
        rel = REL[op]
        ok = {"!=": cv != d, "<=": cv <= d, "<": cv < d, ">=": cv >= d, ">": cv > d}[rel]
        return s if ok else t
    fmt = fmt_of(dt)
    if not cplx:
        if op == "FI_MIN":
            return s if real_cmp(fmt, t, s, ">") else t
        if op == "FI_MAX":
            return s if real_cmp(fmt, t, s, "<") else t
        if op == "FI_SUM":
            return f_add(fmt, t, s)
        if op == "FI_PROD":
            return f_mul(fmt, t, s)
        if op == "FI_CSWAP":
            if dt == "FI_LONG_DOUBLE":
                return s if real_cmp(fmt, c, t, "==") else t
            return s if c == t else t
        return s if real_cmp(fmt, c, t, REL[op]) else t
    h = size // 2
    tr, ti, sr, si = t[:h], t[h:], s[:h], s[h:]
    if op == "FI_SUM":
        return f_add(fmt, tr, sr) + f_add(fmt, ti, si)
    if op == "FI_PROD":
        x, y = c_mul(fmt, tr, ti, sr, si)
        return x + y
    eq = real_cmp(fmt, t[:h], c[:h], "==") and real_cmp(fmt, t[h:], c[h:], "==")
    if op == "FI_CSWAP":
        if dt == "FI_FLOAT_COMPLEX":
            return s if c == t else t
        return s if eq else t
    if op == "FI_CSWAP_NE":
        return s if not eq else t
    raise AssertionError(op + " " + dt)


def elem_nan(dt, b):
    if dt in INTS:
        return False
    fmt = fmt_of(dt)
    if dt.endswith("COMPLEX"):
        h = len(b) // 2
        return fmt.isnan(b[:h]) or fmt.isnan(b[h:])
    return fmt.isnan(b)


# --------------------------------------------------------------------------

HEX = re.compile(r"^(?:[0-9a-f]{2})*$")
FIELDS = ["record", "id", "family", "op", "op_id", "datatype", "dt_id", "count",
          "initial_target", "operand", "compare", "final_target", "result", "nan"]


def main(argv):
    semantics = "--no-semantics" not in argv
    paths = [a for a in argv if not a.startswith("--")]
    if len(paths) != 1:
        print(__doc__)
        return 2
    errors = []
    err = lambda where, msg: errors.append("%s: %s" % (where, msg))
    ids = set()
    cells = {}
    fam_count = {f: 0 for f in FAMILIES}
    nan_cases = 0
    sem_checked = 0
    with open(paths[0], encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines, 1):
        where = "line %d" % n
        try:
            r = json.loads(line)
        except ValueError as e:
            err(where, "does not parse: %s" % e)
            continue
        if n == 1:
            if r.get("record") != "meta" or r.get("generator") != "tools/vectorgen/vectorgen.c" \
                    or not r.get("compiler"):
                err(where, "first line is not the meta record")
            continue
        if r.get("record") != "case":
            err(where, "unexpected record %r" % r.get("record"))
            continue
        if list(r.keys()) != FIELDS:
            err(where, "fields %s" % list(r.keys()))
            continue
        where = r["id"]
        if r["id"] in ids:
            err(where, "duplicate id")
        ids.add(r["id"])
        fam, op, dt, cnt = r["family"], r["op"], r["datatype"], r["count"]
        if fam not in FAMILIES or op not in OPS or dt not in DT:
            err(where, "bad names")
            continue
        if r["op_id"] != OPS.index(op) or r["dt_id"] != DT.index(dt):
            err(where, "op_id/dt_id do not match the names")
        if not r["id"].startswith("%s/%s/%s/" % (fam, op, dt)):
            err(where, "id does not name its cell")
        if not isinstance(cnt, int) or not 1 <= cnt <= 8:
            err(where, "count %r" % cnt)
            continue
        size = SIZE[DT.index(dt)]
        want_null = {"operand": op == "FI_ATOMIC_READ", "compare": fam != "compare",
                     "result": fam == "base", "initial_target": False,
                     "final_target": False}
        raw = {}
        bad = False
        for f, isnull in want_null.items():
            v = r[f]
            if isnull:
                if v is not None:
                    err(where, "%s should be null" % f)
                    bad = True
                raw[f] = None
                continue
            if not isinstance(v, str) or not HEX.match(v) or len(v) != 2 * cnt * size:
                err(where, "%s: bad hex or length (want %d bytes)" % (f, cnt * size))
                bad = True
                continue
            raw[f] = bytes.fromhex(v)
        if bad:
            continue
        if fam != "base" and raw["result"] != raw["initial_target"]:
            err(where, "result differs from initial_target")
        if dt in ("FI_LONG_DOUBLE", "FI_LONG_DOUBLE_COMPLEX"):
            for f, b in raw.items():
                if b is None:
                    continue
                for i in range(0, len(b), 16):
                    if any(b[i + 10:i + 16]):
                        err(where, "%s: non-zero long double padding" % f)
                        break
        elems = lambda f, i: None if raw[f] is None else raw[f][i * size:(i + 1) * size]
        nan = any(elem_nan(dt, elems(f, i)) for i in range(cnt)
                  for f in ("initial_target", "operand", "compare") if raw[f] is not None)
        if nan != r["nan"]:
            err(where, "nan flag %r, inputs say %r" % (r["nan"], nan))
        nan_cases += nan
        cells[(fam, op, dt)] = cells.get((fam, op, dt), 0) + 1
        fam_count[fam] += 1
        if semantics:
            for i in range(cnt):
                want = expected(op, dt, elems("initial_target", i), elems("operand", i),
                                elems("compare", i))
                got = elems("final_target", i)
                if want != got:
                    err(where, "element %d: final %s, rules say %s" % (i, got.hex(), want.hex()))
            sem_checked += 1
    valid = valid_cells()
    if len(valid) != 354:
        err("table", "python table has %d cells" % len(valid))
    for cell in sorted(valid - set(cells)):
        err("coverage", "no case for %s" % "/".join(cell))
    for cell in sorted(set(cells) - valid):
        err("coverage", "case for invalid cell %s" % "/".join(cell))
    total = sum(fam_count.values())
    print("%d cases in %d cells (base %d, fetch %d, compare %d), %d with NaN inputs, "
          "cases per cell %d..%d%s" % (
              total, len(cells), fam_count["base"], fam_count["fetch"], fam_count["compare"],
              nan_cases, min(cells.values()) if cells else 0,
              max(cells.values()) if cells else 0,
              ", semantics re-derived for %d cases" % sem_checked if semantics else ""))
    for e in errors[:50]:
        print("ERROR", e)
    if errors:
        print("%d errors" % len(errors))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
