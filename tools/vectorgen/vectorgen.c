/*
 * vectorgen.c - reference test vectors for fiucx, computed by real C code.
 *
 * Every (family, op, datatype) cell of docs/semantics.md's validity table (354 cells)
 * gets edge cases (count 1), mixed cases (count 3..8) and pseudo-random cases
 * (fixed-seed xorshift).  Each element is computed the way libfabric's
 * prov/util/src/util_atomic.c computes it (with the rules of docs/semantics.md where
 * the two differ), by gcc on x86-64: float/double with SSE, long double with
 * the x87, complex products as C's a*b (libgcc's __mulsc3/__muldc3/__mulxc3
 * in the NaN case).
 *
 * Output: JSON Lines on stdout (see docs/conformance.md); first a "meta" record.
 *
 * Build (see generate.sh): gcc -O2 -std=gnu11 -fno-fast-math -Wall -Werror
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__GNUC__) || !defined(__x86_64__)
#error "vectorgen must be built by gcc for x86-64"
#endif
#if defined(__FAST_MATH__)
#error "vectorgen must be built without -ffast-math"
#endif
#if defined(__FMA__) || defined(__FMA4__)
#error "FMA would allow contraction of a*b+c; build for baseline x86-64"
#endif
#if __FLT_EVAL_METHOD__ != 0
#error "float/double must be evaluated in their own precision (SSE)"
#endif
#if __LDBL_MANT_DIG__ != 64
#error "long double must be the x87 80-bit extended format"
#endif

_Static_assert(sizeof(float) == 4, "float");
_Static_assert(sizeof(double) == 8, "double");
_Static_assert(sizeof(long double) == 16, "long double is 16 bytes");
_Static_assert(sizeof(float _Complex) == 8, "float complex");
_Static_assert(sizeof(double _Complex) == 16, "double complex");
_Static_assert(sizeof(long double _Complex) == 32, "long double complex");

/* Arithmetic in functions the optimiser cannot see through: no constant
 * folding, no propagation of known values, the target is always the first
 * (left) operand as in libfabric's `d[i] OP s[i]`. */
#define NOIPA __attribute__((noipa))

NOIPA static float f_add(float a, float b) { return a + b; }
NOIPA static float f_mul(float a, float b) { return a * b; }
NOIPA static double d_add(double a, double b) { return a + b; }
NOIPA static double d_mul(double a, double b) { return a * b; }
NOIPA static long double ld_add(long double a, long double b) { return a + b; }
NOIPA static long double ld_mul(long double a, long double b) { return a * b; }
/* Complex sums part by part, the target's part the first operand of each
 * add.  (gcc 12 compiles float _Complex `a + b` with the imaginary parts the
 * other way round, `b.im + a.im`, so when both imaginary parts are NaN the
 * operand's NaN would win; docs/semantics.md's rule is the target's NaN.) */
NOIPA static float _Complex fc_add(float _Complex a, float _Complex b)
{
	float _Complex r;
	__real__ r = f_add(__real__ a, __real__ b);
	__imag__ r = f_add(__imag__ a, __imag__ b);
	return r;
}
NOIPA static double _Complex dc_add(double _Complex a, double _Complex b)
{
	double _Complex r;
	__real__ r = d_add(__real__ a, __real__ b);
	__imag__ r = d_add(__imag__ a, __imag__ b);
	return r;
}
NOIPA static long double _Complex ldc_add(long double _Complex a, long double _Complex b)
{
	long double _Complex r;
	__real__ r = ld_add(__real__ a, __real__ b);
	__imag__ r = ld_add(__imag__ a, __imag__ b);
	return r;
}
/* Complex products are C's a*b as gcc compiles it: inline (ac-bd, ad+bc),
 * libgcc's __mulsc3/__muldc3/__mulxc3 when both parts are NaN. */
NOIPA static float _Complex fc_mul(float _Complex a, float _Complex b) { return a * b; }
NOIPA static double _Complex dc_mul(double _Complex a, double _Complex b) { return a * b; }
NOIPA static long double _Complex ldc_mul(long double _Complex a, long double _Complex b) { return a * b; }

/* ------------------------------------------------------------------------ */
/* libfabric enums                                                          */

enum {
	DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_INT32, DT_UINT32,
	DT_INT64, DT_UINT64, DT_FLOAT, DT_DOUBLE, DT_FLOAT_COMPLEX,
	DT_DOUBLE_COMPLEX, DT_LONG_DOUBLE, DT_LONG_DOUBLE_COMPLEX, NDT
};
static const char *const dt_name[NDT] = {
	"FI_INT8", "FI_UINT8", "FI_INT16", "FI_UINT16", "FI_INT32", "FI_UINT32",
	"FI_INT64", "FI_UINT64", "FI_FLOAT", "FI_DOUBLE", "FI_FLOAT_COMPLEX",
	"FI_DOUBLE_COMPLEX", "FI_LONG_DOUBLE", "FI_LONG_DOUBLE_COMPLEX",
};
static const int dt_size[NDT] = { 1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16, 16, 32 };

enum {
	OP_MIN, OP_MAX, OP_SUM, OP_PROD, OP_LOR, OP_LAND, OP_BOR, OP_LXOR,
	OP_BAND, OP_BXOR, OP_READ, OP_WRITE, OP_CSWAP, OP_CSWAP_NE,
	OP_CSWAP_LE, OP_CSWAP_LT, OP_CSWAP_GE, OP_CSWAP_GT, OP_MSWAP, NOP
};
static const char *const op_name[NOP] = {
	"FI_MIN", "FI_MAX", "FI_SUM", "FI_PROD", "FI_LOR", "FI_LAND", "FI_BOR",
	"FI_LXOR", "FI_BAND", "FI_BXOR", "FI_ATOMIC_READ", "FI_ATOMIC_WRITE",
	"FI_CSWAP", "FI_CSWAP_NE", "FI_CSWAP_LE", "FI_CSWAP_LT", "FI_CSWAP_GE",
	"FI_CSWAP_GT", "FI_MSWAP",
};

enum { FAM_BASE, FAM_FETCH, FAM_COMPARE, NFAM };
static const char *const fam_name[NFAM] = { "base", "fetch", "compare" };

static int is_int(int dt) { return dt <= DT_UINT64; }
static int is_cplx(int dt)
{
	return dt == DT_FLOAT_COMPLEX || dt == DT_DOUBLE_COMPLEX ||
	       dt == DT_LONG_DOUBLE_COMPLEX;
}
/* ints, FLOAT, DOUBLE, LONG_DOUBLE: the ordered types */
static int is_ordered(int dt) { return !is_cplx(dt); }

/* docs/semantics.md, "Which cells exist". */
static int valid(int fam, int op, int dt)
{
	switch (op) {
	case OP_MIN: case OP_MAX:
		return fam != FAM_COMPARE && is_ordered(dt);
	case OP_SUM: case OP_PROD: case OP_LOR: case OP_LAND: case OP_LXOR:
		return fam != FAM_COMPARE;
	case OP_BOR: case OP_BAND: case OP_BXOR:
		return fam != FAM_COMPARE && is_int(dt);
	case OP_READ:
		return fam == FAM_FETCH;
	case OP_WRITE:
		return fam != FAM_COMPARE;
	case OP_CSWAP: case OP_CSWAP_NE:
		return fam == FAM_COMPARE;
	case OP_CSWAP_LE: case OP_CSWAP_LT: case OP_CSWAP_GE: case OP_CSWAP_GT:
		return fam == FAM_COMPARE && is_ordered(dt);
	case OP_MSWAP:
		return fam == FAM_COMPARE && is_int(dt);
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Stores.  A computed long double goes into a zeroed 16-byte slot (10 value
 * bytes, 6 zero padding bytes); copies (WRITE, swaps, MIN/MAX) copy all the
 * bytes of the element.                                                     */

static void st_f(uint8_t *p, float v) { memcpy(p, &v, 4); }
static void st_d(uint8_t *p, double v) { memcpy(p, &v, 8); }
static void st_ld(uint8_t *p, long double v)
{
	memset(p, 0, 16);
	memcpy(p, &v, 10);
}
static void st_fc(uint8_t *p, float _Complex v) { memcpy(p, &v, 8); }
static void st_dc(uint8_t *p, double _Complex v) { memcpy(p, &v, 16); }
static void st_ldc(uint8_t *p, long double _Complex v)
{
	long double re = __real__ v, im = __imag__ v;
	memset(p, 0, 32);
	memcpy(p, &re, 10);
	memcpy(p + 16, &im, 10);
}

/*
 * One element.  t: target before, s: operand (NULL for ATOMIC_READ),
 * c: compare (NULL outside the compare family), out: target after.
 * The fetched result is always the target before (not computed here).
 */

/* Integers: util_atomic.c's OFI_OP_* on the C type; SUM/PROD in unsigned
 * 64-bit arithmetic (wraps like the hardware, no signed-overflow UB; the
 * conversion back to a signed type is modulo 2^N in gcc). */
#define INT_APPLY(T)                                                          \
	do {                                                                  \
		T d, sv = 0, cv = 0, r = 0;                                   \
		int store = 1;                                                \
		memcpy(&d, t, sizeof(T));                                     \
		if (s) memcpy(&sv, s, sizeof(T));                             \
		if (c) memcpy(&cv, c, sizeof(T));                             \
		switch (op) {                                                 \
		case OP_MIN: if (d > sv) r = sv; else store = 0; break;       \
		case OP_MAX: if (d < sv) r = sv; else store = 0; break;       \
		case OP_SUM: r = (T)((uint64_t)d + (uint64_t)sv); break;      \
		case OP_PROD: r = (T)((uint64_t)d * (uint64_t)sv); break;     \
		case OP_LOR: r = (T)(d || sv); break;                         \
		case OP_LAND: r = (T)(d && sv); break;                        \
		case OP_LXOR: r = (T)((d && !sv) || (!d && sv)); break;       \
		case OP_BOR: r = (T)(d | sv); break;                          \
		case OP_BAND: r = (T)(d & sv); break;                         \
		case OP_BXOR: r = (T)(d ^ sv); break;                         \
		case OP_READ: store = 0; break;                               \
		case OP_WRITE: r = sv; break;                                 \
		case OP_CSWAP: if (cv == d) r = sv; else store = 0; break;    \
		case OP_CSWAP_NE: if (cv != d) r = sv; else store = 0; break; \
		case OP_CSWAP_LE: if (cv <= d) r = sv; else store = 0; break; \
		case OP_CSWAP_LT: if (cv < d) r = sv; else store = 0; break;  \
		case OP_CSWAP_GE: if (cv >= d) r = sv; else store = 0; break; \
		case OP_CSWAP_GT: if (cv > d) r = sv; else store = 0; break;  \
		case OP_MSWAP: r = (T)((sv & cv) | (d & ~cv)); break;         \
		default: abort();                                             \
		}                                                             \
		if (store) memcpy(out, &r, sizeof(T));                        \
	} while (0)

/* FLOAT, DOUBLE, LONG_DOUBLE.  CSWAP_BYTES: FLOAT and DOUBLE compare bytes
 * (libfabric's __atomic_compare_exchange); LONG_DOUBLE compares with IEEE
 * == (libfabric's lock-style `if ((cmp) == (dst))`). */
#define REAL_APPLY(T, ADD, MUL, STORE, CSWAP_BYTES)                           \
	do {                                                                  \
		T d, sv = 0, cv = 0;                                          \
		const size_t sz = sizeof(T);                                  \
		memcpy(&d, t, sz);                                            \
		if (s) memcpy(&sv, s, sz);                                    \
		if (c) memcpy(&cv, c, sz);                                    \
		switch (op) {                                                 \
		case OP_MIN: if (d > sv) memcpy(out, s, sz); break;           \
		case OP_MAX: if (d < sv) memcpy(out, s, sz); break;           \
		case OP_SUM: STORE(out, ADD(d, sv)); break;                   \
		case OP_PROD: STORE(out, MUL(d, sv)); break;                  \
		case OP_LOR: STORE(out, (T)(d || sv)); break;                 \
		case OP_LAND: STORE(out, (T)(d && sv)); break;                \
		case OP_LXOR: STORE(out, (T)((d && !sv) || (!d && sv))); break; \
		case OP_READ: break;                                          \
		case OP_WRITE: memcpy(out, s, sz); break;                     \
		case OP_CSWAP:                                                \
			if ((CSWAP_BYTES) ? memcmp(t, c, sz) == 0 : cv == d)  \
				memcpy(out, s, sz);                           \
			break;                                                \
		case OP_CSWAP_NE: if (cv != d) memcpy(out, s, sz); break;     \
		case OP_CSWAP_LE: if (cv <= d) memcpy(out, s, sz); break;     \
		case OP_CSWAP_LT: if (cv < d) memcpy(out, s, sz); break;      \
		case OP_CSWAP_GE: if (cv >= d) memcpy(out, s, sz); break;     \
		case OP_CSWAP_GT: if (cv > d) memcpy(out, s, sz); break;      \
		default: abort();                                             \
		}                                                             \
	} while (0)

/* Complex: ofi_complex_{sum,prod,lor,land,lxor,eq}_<type> of libfabric's
 * include/unix/osd.h (a+b, a*b, a||b, a&&b, (a&&!b)||(!a&&b), a==b).
 * CSWAP on FLOAT_COMPLEX compares bytes, on the wider ones IEEE ==. */
#define CPLX_APPLY(CT, ADD, MUL, STORE, CSWAP_BYTES)                          \
	do {                                                                  \
		CT d, sv = 0, cv = 0;                                         \
		const size_t sz = sizeof(CT);                                 \
		memcpy(&d, t, sz);                                            \
		if (s) memcpy(&sv, s, sz);                                    \
		if (c) memcpy(&cv, c, sz);                                    \
		switch (op) {                                                 \
		case OP_SUM: STORE(out, ADD(d, sv)); break;                   \
		case OP_PROD: STORE(out, MUL(d, sv)); break;                  \
		case OP_LOR: STORE(out, (CT)(d || sv)); break;                \
		case OP_LAND: STORE(out, (CT)(d && sv)); break;               \
		case OP_LXOR: STORE(out, (CT)((d && !sv) || (!d && sv))); break; \
		case OP_READ: break;                                          \
		case OP_WRITE: memcpy(out, s, sz); break;                     \
		case OP_CSWAP:                                                \
			if ((CSWAP_BYTES) ? memcmp(t, c, sz) == 0 : d == cv)  \
				memcpy(out, s, sz);                           \
			break;                                                \
		case OP_CSWAP_NE: if (!(d == cv)) memcpy(out, s, sz); break;  \
		default: abort();                                             \
		}                                                             \
	} while (0)

static void apply(int op, int dt, const uint8_t *t, const uint8_t *s,
		  const uint8_t *c, uint8_t *out)
{
	memcpy(out, t, dt_size[dt]);
	switch (dt) {
	case DT_INT8: INT_APPLY(int8_t); break;
	case DT_UINT8: INT_APPLY(uint8_t); break;
	case DT_INT16: INT_APPLY(int16_t); break;
	case DT_UINT16: INT_APPLY(uint16_t); break;
	case DT_INT32: INT_APPLY(int32_t); break;
	case DT_UINT32: INT_APPLY(uint32_t); break;
	case DT_INT64: INT_APPLY(int64_t); break;
	case DT_UINT64: INT_APPLY(uint64_t); break;
	case DT_FLOAT: REAL_APPLY(float, f_add, f_mul, st_f, 1); break;
	case DT_DOUBLE: REAL_APPLY(double, d_add, d_mul, st_d, 1); break;
	case DT_LONG_DOUBLE:
		REAL_APPLY(long double, ld_add, ld_mul, st_ld, 0);
		break;
	case DT_FLOAT_COMPLEX:
		CPLX_APPLY(float _Complex, fc_add, fc_mul, st_fc, 1);
		break;
	case DT_DOUBLE_COMPLEX:
		CPLX_APPLY(double _Complex, dc_add, dc_mul, st_dc, 0);
		break;
	case DT_LONG_DOUBLE_COMPLEX:
		CPLX_APPLY(long double _Complex, ldc_add, ldc_mul, st_ldc, 0);
		break;
	default:
		abort();
	}
}

/* ------------------------------------------------------------------------ */
/* Value pools.  Index meanings are shared by FLOAT, DOUBLE and LONG_DOUBLE
 * (and by the parts of the complex types), so one list of edge pairs serves
 * all of them.                                                              */

#define NREAL 31
enum {
	R_P0, R_N0, R_P1, R_N1, R_PDMIN, R_NDMIN, R_PMAX, R_NMAX, R_PINF,
	R_NINF, R_PQNAN, R_NQNAN, R_PSNAN, R_NSNAN, R_1_5, R_HALFULP,
	R_1ULP, R_DMAXSUB, R_NMIN, R_0_5, R_2, R_TIE_A, R_QNAN_PAY,
	R_NSNAN_BIG, R_3DMIN, R_N2_5, R_TIE_B, R_PSNAN_PAY, R_NQNAN_PAY,
	R_TIE_C, R_3
};

static const uint32_t pool_f[NREAL] = {
	0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x00000001,
	0x80000001, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000,
	0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x3fc00000,
	0x33800000, /* 2^-24: half an ulp of 1 */
	0x3f800001, /* 1 + 2^-23 */
	0x007fffff, 0x00800000, 0x3f000000, 0x40000000,
	0x3f800800, /* A = 1 + 2^-12: A*A = 1 + 2^-11 + 2^-24, tie down */
	0x7fc12345, 0xffa00000, 0x00000003, 0xc0200000,
	0x3f801800, /* B = 1 + 2^-11 + 2^-12: A*B ties up */
	0x7f812345, 0xffc54321,
	0x3f800400, /* C = 1 + 2^-13 */
	0x40400000,
};

static const uint64_t pool_d[NREAL] = {
	0x0000000000000000ULL, 0x8000000000000000ULL, 0x3ff0000000000000ULL,
	0xbff0000000000000ULL, 0x0000000000000001ULL, 0x8000000000000001ULL,
	0x7fefffffffffffffULL, 0xffefffffffffffffULL, 0x7ff0000000000000ULL,
	0xfff0000000000000ULL, 0x7ff8000000000000ULL, 0xfff8000000000000ULL,
	0x7ff0000000000001ULL, 0xfff0000000000001ULL, 0x3ff8000000000000ULL,
	0x3ca0000000000000ULL, /* 2^-53 */
	0x3ff0000000000001ULL, /* 1 + 2^-52 */
	0x000fffffffffffffULL, 0x0010000000000000ULL, 0x3fe0000000000000ULL,
	0x4000000000000000ULL,
	0x3ff0000004000000ULL, /* A = 1 + 2^-26 */
	0x7ff8000000012345ULL, 0xfff4000000000000ULL, 0x0000000000000003ULL,
	0xc004000000000000ULL,
	0x3ff0000006000000ULL, /* B = 1 + 2^-26 + 2^-27: A*B ties up */
	0x7ff0000000012345ULL, 0xfff8000000054321ULL,
	0x3ff0000002000000ULL, /* C = 1 + 2^-27: A*C ties down */
	0x4008000000000000ULL,
};

/* 80-bit extended: significand (explicit integer bit), sign+exponent */
static const struct { uint64_t sig; uint16_t se; } pool_ld[NREAL] = {
	{ 0, 0 }, { 0, 0x8000 },
	{ 0x8000000000000000ULL, 0x3fff }, { 0x8000000000000000ULL, 0xbfff },
	{ 1, 0 }, { 1, 0x8000 },
	{ 0xffffffffffffffffULL, 0x7ffe }, { 0xffffffffffffffffULL, 0xfffe },
	{ 0x8000000000000000ULL, 0x7fff }, { 0x8000000000000000ULL, 0xffff },
	{ 0xc000000000000000ULL, 0x7fff }, { 0xc000000000000000ULL, 0xffff },
	{ 0x8000000000000001ULL, 0x7fff }, { 0x8000000000000001ULL, 0xffff },
	{ 0xc000000000000000ULL, 0x3fff },
	{ 0x8000000000000000ULL, 0x3fbf }, /* 2^-64 */
	{ 0x8000000000000001ULL, 0x3fff }, /* 1 + 2^-63 */
	{ 0x7fffffffffffffffULL, 0 }, { 0x8000000000000000ULL, 1 },
	{ 0x8000000000000000ULL, 0x3ffe }, { 0x8000000000000000ULL, 0x4000 },
	{ 0x8000000080000000ULL, 0x3fff }, /* A = 1 + 2^-32: A*A ties down */
	{ 0xc000000000012345ULL, 0x7fff }, { 0xa000000000000000ULL, 0xffff },
	{ 3, 0 }, { 0xa000000000000000ULL, 0xc000 },
	{ 0x80000000c0000000ULL, 0x3fff }, /* B = 1 + 2^-31 + 2^-32: A*B ties up */
	{ 0x8000000000012345ULL, 0x7fff }, { 0xc000000000054321ULL, 0xffff },
	{ 0x8000000040000000ULL, 0x3fff }, /* C = 1 + 2^-33 */
	{ 0xc000000000000000ULL, 0x4000 },
};

static void put_ld(uint8_t *p, uint64_t sig, uint16_t se)
{
	memset(p, 0, 16);
	memcpy(p, &sig, 8);
	memcpy(p + 8, &se, 2);
}

/* real pool value of the real type behind dt (FLOAT, DOUBLE, LONG_DOUBLE) */
static void real_pool(int rdt, int idx, uint8_t *p)
{
	switch (rdt) {
	case DT_FLOAT: memcpy(p, &pool_f[idx], 4); break;
	case DT_DOUBLE: memcpy(p, &pool_d[idx], 8); break;
	case DT_LONG_DOUBLE: put_ld(p, pool_ld[idx].sig, pool_ld[idx].se); break;
	default: abort();
	}
}

#define NCPLX 27
static const int pool_c[NCPLX][2] = {
	{ R_P0, R_P0 },           /*  0  0 */
	{ R_N0, R_N0 },           /*  1 -0-0i */
	{ R_P0, R_N0 },           /*  2 +0-0i */
	{ R_P1, R_P0 },           /*  3  1 */
	{ R_P0, R_P1 },           /*  4  i */
	{ R_P1, R_P1 },           /*  5  1+i */
	{ R_N1, R_2 },            /*  6 -1+2i */
	{ R_PINF, R_P0 },         /*  7  inf */
	{ R_P0, R_PINF },         /*  8  inf i */
	{ R_PINF, R_PINF },       /*  9  inf+inf i */
	{ R_NINF, R_P1 },         /* 10 -inf+i */
	{ R_PQNAN, R_P0 },        /* 11  NaN */
	{ R_P0, R_PQNAN },        /* 12  NaN i */
	{ R_PQNAN, R_PQNAN },     /* 13  NaN+NaN i */
	{ R_PINF, R_PQNAN },      /* 14  inf+NaN i */
	{ R_PSNAN, R_P1 },        /* 15  sNaN+i */
	{ R_PMAX, R_PMAX },       /* 16  max+max i */
	{ R_PDMIN, R_NDMIN },     /* 17  dmin-dmin i */
	{ R_1_5, R_N2_5 },        /* 18  1.5-2.5i */
	{ R_TIE_A, R_TIE_B },     /* 19 */
	{ R_P1, R_N1 },           /* 20  1-i */
	{ R_NQNAN, R_NSNAN },     /* 21 */
	{ R_0_5, R_0_5 },         /* 22  0.5+0.5i */
	{ R_N0, R_P0 },           /* 23 -0+0i */
	{ R_HALFULP, R_P1 },      /* 24 */
	{ R_QNAN_PAY, R_NQNAN_PAY }, /* 25 */
	{ R_NMAX, R_PINF },       /* 26 -max+inf i */
};

static int real_of(int dt)
{
	switch (dt) {
	case DT_FLOAT_COMPLEX: return DT_FLOAT;
	case DT_DOUBLE_COMPLEX: return DT_DOUBLE;
	case DT_LONG_DOUBLE_COMPLEX: return DT_LONG_DOUBLE;
	default: return dt;
	}
}

#define NINT 17
static uint64_t int_pattern(int idx, int w)
{
	const uint64_t mask = w == 8 ? ~0ULL : ((1ULL << (8 * w)) - 1);
	const uint64_t msb = 1ULL << (8 * w - 1);
	switch (idx) {
	case 0: return 0;
	case 1: return 1;
	case 2: return 2;
	case 3: return 3;
	case 4: return mask;                 /* -1, UMAX */
	case 5: return mask - 1;             /* -2 */
	case 6: return msb;                  /* MIN, 2^(N-1) */
	case 7: return msb + 1;              /* MIN+1 */
	case 8: return msb - 1;              /* MAX */
	case 9: return msb - 2;              /* MAX-1 */
	case 10: return 0x5555555555555555ULL & mask;
	case 11: return 0xaaaaaaaaaaaaaaaaULL & mask;
	case 12: return 0x0f0f0f0f0f0f0f0fULL & mask;
	case 13: return 0xf0f0f0f0f0f0f0f0ULL & mask;
	case 14: return 100;
	case 15: return (uint64_t)-100 & mask;
	case 16: return 0x0123456789abcdefULL & mask;
	}
	abort();
}

static int pool_n(int dt)
{
	return is_int(dt) ? NINT : is_cplx(dt) ? NCPLX : NREAL;
}

static void pool_value(int dt, int idx, uint8_t *p)
{
	if (is_int(dt)) {
		uint64_t v = int_pattern(idx, dt_size[dt]);
		memcpy(p, &v, dt_size[dt]); /* little-endian */
	} else if (is_cplx(dt)) {
		int half = dt_size[dt] / 2;
		real_pool(real_of(dt), pool_c[idx][0], p);
		real_pool(real_of(dt), pool_c[idx][1], p + half);
	} else {
		real_pool(dt, idx, p);
	}
}

/* ------------------------------------------------------------------------ */
/* Curated edge tuples: {target, operand, compare} as pool indices; -1 for
 * "none" (compare outside the compare family) or "pick automatically"
 * (operand of the compare family).                                          */

typedef struct { int t, s, c; } tuple_t;

static const tuple_t int_bin[] = {
	{ 0, 0, -1 }, { 0, 1, -1 }, { 4, 1, -1 }, { 8, 1, -1 }, { 6, 4, -1 },
	{ 6, 8, -1 }, { 8, 6, -1 }, { 4, 0, -1 }, { 1, 4, -1 }, { 8, 8, -1 },
	{ 1, 0, -1 }, { 10, 11, -1 }, { 8, 2, -1 }, { 14, 15, -1 },
	{ 5, 3, -1 }, { 7, 9, -1 }, { 12, 13, -1 }, { 4, 4, -1 },
	{ 6, 6, -1 }, { 11, 12, -1 }, { 2, 16, -1 }, { 6, 0, -1 },
	{ 16, 5, -1 }, { 13, 7, -1 },
};
static const tuple_t int_cmp[] = { /* {target, operand(auto), compare} */
	{ 0, -1, 0 }, { 1, -1, 0 }, { 0, -1, 1 }, { 4, -1, 1 }, { 1, -1, 4 },
	{ 6, -1, 8 }, { 8, -1, 6 }, { 8, -1, 8 }, { 6, -1, 6 }, { 4, -1, 4 },
	{ 10, -1, 11 }, { 5, -1, 4 }, { 4, -1, 5 }, { 7, -1, 6 },
	{ 14, -1, 15 }, { 15, -1, 15 }, { 16, -1, 16 }, { 11, -1, 10 },
};
static const tuple_t int_mswap[] = { /* {target, operand, mask} */
	{ 11, 10, 4 }, { 11, 10, 0 }, { 11, 10, 12 }, { 0, 4, 13 },
	{ 4, 0, 12 }, { 14, 8, 6 }, { 6, 8, 1 }, { 16, 15, 10 },
	{ 4, 4, 0 }, { 0, 0, 4 }, { 13, 16, 11 }, { 8, 7, 6 },
	{ 16, 0, 16 }, { 2, 5, 8 },
};

static const tuple_t real_bin[] = {
	{ R_P1, R_P1, -1 }, { R_P0, R_N0, -1 }, { R_N0, R_P0, -1 },
	{ R_N0, R_N0, -1 }, { R_P1, R_N1, -1 }, { R_PINF, R_NINF, -1 },
	{ R_P0, R_PINF, -1 }, { R_PMAX, R_PMAX, -1 }, { R_PMAX, R_2, -1 },
	{ R_PDMIN, R_0_5, -1 }, { R_3DMIN, R_0_5, -1 },
	{ R_P1, R_HALFULP, -1 }, { R_1ULP, R_HALFULP, -1 },
	{ R_TIE_A, R_TIE_A, -1 }, { R_TIE_A, R_TIE_B, -1 },
	{ R_PQNAN, R_P1, -1 }, { R_P1, R_PSNAN, -1 },
	{ R_PSNAN, R_NQNAN, -1 }, { R_QNAN_PAY, R_NQNAN_PAY, -1 },
	{ R_PQNAN, R_NQNAN, -1 }, { R_DMAXSUB, R_PDMIN, -1 },
	{ R_NMAX, R_PMAX, -1 }, { R_N1, R_P1, -1 }, { R_P1, R_P0, -1 },
	/* the rest go into count > 1 cases */
	{ R_TIE_A, R_TIE_C, -1 }, { R_NDMIN, R_PDMIN, -1 },
	{ R_NMIN, R_0_5, -1 }, { R_NQNAN, R_PQNAN, -1 },
	{ R_NSNAN, R_PSNAN_PAY, -1 }, { R_NSNAN_BIG, R_PSNAN, -1 },
	{ R_PINF, R_PQNAN, -1 }, { R_NINF, R_NINF, -1 },
	{ R_N1, R_NMAX, -1 }, { R_1_5, R_N2_5, -1 }, { R_P0, R_P1, -1 },
	{ R_PINF, R_P0, -1 }, { R_PINF, R_PINF, -1 }, { R_NINF, R_PINF, -1 },
	{ R_P0, R_PDMIN, -1 }, { R_PDMIN, R_P0, -1 }, { R_P1, R_PQNAN, -1 },
	{ R_PQNAN, R_PQNAN, -1 }, { R_PSNAN, R_PSNAN, -1 },
	{ R_NMAX, R_NINF, -1 }, { R_3, R_1ULP, -1 }, { R_2, R_N1, -1 },
};
static const tuple_t real_cmp[] = { /* {target, operand(auto or given), compare} */
	{ R_P1, -1, R_P1 }, { R_P0, -1, R_N0 }, { R_N0, -1, R_P0 },
	{ R_P0, -1, R_P0 }, { R_PQNAN, -1, R_PQNAN }, { R_PQNAN, -1, R_NQNAN },
	{ R_P1, -1, R_PQNAN }, { R_PQNAN, -1, R_P1 }, { R_PSNAN, -1, R_PSNAN },
	{ R_P1, -1, R_N1 }, { R_N1, -1, R_P1 }, { R_PINF, -1, R_PINF },
	{ R_PINF, -1, R_PMAX }, { R_PMAX, -1, R_PINF }, { R_NINF, -1, R_PINF },
	{ R_PDMIN, -1, R_P0 }, { R_P0, -1, R_PDMIN }, { R_P1, -1, R_1ULP },
	{ R_1ULP, -1, R_P1 }, { R_P1, R_PSNAN, R_P1 },
	/* the rest go into count > 1 cases */
	{ R_NDMIN, -1, R_PDMIN }, { R_QNAN_PAY, -1, R_QNAN_PAY },
	{ R_NMAX, -1, R_NINF }, { R_NSNAN, -1, R_NSNAN }, { R_P0, R_NQNAN, R_P0 },
	{ R_N0, -1, R_N0 }, { R_NQNAN, -1, R_PQNAN }, { R_N1, -1, R_N1 },
	{ R_PMAX, -1, R_PMAX }, { R_2, R_NSNAN_BIG, R_2 },
};

static const tuple_t cplx_bin[] = {
	{ 5, 5, -1 }, { 5, 20, -1 }, { 0, 2, -1 }, { 1, 1, -1 }, { 2, 23, -1 },
	{ 7, 3, -1 }, { 7, 0, -1 }, { 14, 3, -1 }, { 9, 5, -1 }, { 8, 8, -1 },
	{ 16, 16, -1 }, { 11, 3, -1 }, { 13, 5, -1 }, { 15, 3, -1 },
	{ 25, 21, -1 }, { 10, 6, -1 }, { 17, 22, -1 }, { 18, 19, -1 },
	{ 4, 4, -1 }, { 12, 7, -1 }, { 3, 0, -1 }, { 0, 0, -1 },
	/* the rest go into count > 1 cases */
	{ 26, 5, -1 }, { 12, 0, -1 }, { 6, 18, -1 }, { 19, 19, -1 },
	{ 24, 3, -1 }, { 22, 17, -1 }, { 9, 9, -1 }, { 10, 10, -1 },
	{ 21, 25, -1 }, { 14, 14, -1 }, { 3, 3, -1 }, { 23, 2, -1 },
	{ 20, 11, -1 }, { 8, 4, -1 },
};
static const tuple_t cplx_cmp[] = {
	{ 5, -1, 5 }, { 0, -1, 2 }, { 2, -1, 0 }, { 0, -1, 23 }, { 13, -1, 13 },
	{ 11, -1, 11 }, { 11, -1, 12 }, { 5, -1, 20 }, { 7, -1, 7 },
	{ 3, -1, 4 }, { 1, -1, 0 }, { 16, -1, 16 }, { 15, -1, 15 },
	{ 3, 15, 3 }, { 25, -1, 25 }, { 12, -1, 3 },
	/* the rest go into count > 1 cases */
	{ 17, -1, 17 }, { 9, -1, 9 }, { 14, -1, 14 }, { 20, -1, 5 },
	{ 1, -1, 1 }, { 21, -1, 21 }, { 18, -1, 18 },
};

/* ------------------------------------------------------------------------ */
/* Deterministic pseudo-random numbers (xorshift64*), seeded per cell.       */

static uint64_t rng;
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static void rand_real(int rdt, uint8_t *p)
{
	uint64_t r = rnd(), m = rnd();
	int mode = (int)(r & 7);
	if (mode == 7) { /* a pool value */
		real_pool(rdt, (int)((r >> 8) % NREAL), p);
		return;
	}
	int sign = (int)((r >> 3) & 1);
	int ex = (int)((r >> 8) % 13) - 6; /* moderate magnitude */
	switch (rdt) {
	case DT_FLOAT: {
		uint32_t u;
		if (mode <= 1)
			u = (uint32_t)m; /* any bits: NaNs, huge, tiny */
		else
			u = ((uint32_t)sign << 31) | ((uint32_t)(127 + ex) << 23) |
			    ((uint32_t)m & 0x7fffff);
		memcpy(p, &u, 4);
		break;
	}
	case DT_DOUBLE: {
		uint64_t u;
		if (mode <= 1)
			u = m;
		else
			u = ((uint64_t)sign << 63) | ((uint64_t)(1023 + ex) << 52) |
			    (m & 0xfffffffffffffULL);
		memcpy(p, &u, 8);
		break;
	}
	case DT_LONG_DOUBLE: {
		uint16_t se;
		uint64_t sig = m;
		if (mode <= 1)
			se = (uint16_t)(r >> 16); /* any sign and exponent */
		else
			se = (uint16_t)((sign << 15) | (0x3fff + ex));
		/* canonical encodings only: explicit integer bit set iff the
		 * exponent is not 0 */
		if ((se & 0x7fff) == 0)
			sig &= 0x7fffffffffffffffULL;
		else
			sig |= 0x8000000000000000ULL;
		put_ld(p, sig, se);
		break;
	}
	default:
		abort();
	}
}

static void rand_value(int dt, uint8_t *p)
{
	if (is_int(dt)) {
		uint64_t v = rnd();
		if ((v & 3) == 0) /* sometimes small magnitudes */
			v = (v >> 2) % 7 - 3;
		memcpy(p, &v, dt_size[dt]);
	} else if (is_cplx(dt)) {
		int half = dt_size[dt] / 2;
		rand_real(real_of(dt), p);
		rand_real(real_of(dt), p + half);
	} else {
		rand_real(dt, p);
	}
}

/* ------------------------------------------------------------------------ */
/* NaN detection (inputs only)                                               */

static int real_isnan(int rdt, const uint8_t *p)
{
	switch (rdt) {
	case DT_FLOAT: {
		uint32_t u;
		memcpy(&u, p, 4);
		return (u & 0x7f800000) == 0x7f800000 && (u & 0x7fffff);
	}
	case DT_DOUBLE: {
		uint64_t u;
		memcpy(&u, p, 8);
		return (u & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL &&
		       (u & 0xfffffffffffffULL);
	}
	case DT_LONG_DOUBLE: {
		uint64_t sig;
		uint16_t se;
		memcpy(&sig, p, 8);
		memcpy(&se, p + 8, 2);
		return (se & 0x7fff) == 0x7fff && (sig & 0x7fffffffffffffffULL);
	}
	}
	abort();
}

static int elem_isnan(int dt, const uint8_t *p)
{
	if (is_int(dt))
		return 0;
	if (is_cplx(dt))
		return real_isnan(real_of(dt), p) ||
		       real_isnan(real_of(dt), p + dt_size[dt] / 2);
	return real_isnan(dt, p);
}

/* ------------------------------------------------------------------------ */
/* Emission                                                                  */

#define MAXC 8
#define MAXSZ 32

typedef struct {
	int n;
	uint8_t t[MAXC * MAXSZ], s[MAXC * MAXSZ], c[MAXC * MAXSZ];
} case_t;

static FILE *out;
static long ncases, fam_cases[NFAM];
static int cell_cases[NFAM][NOP][NDT];

static void hex(const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		fputc(digits[p[i] >> 4], out);
		fputc(digits[p[i] & 15], out);
	}
	fputc('"', out);
}

static void emit(int fam, int op, int dt, const char *kind, int k,
		 const case_t *cs)
{
	const int sz = dt_size[dt];
	const int has_s = op != OP_READ, has_c = fam == FAM_COMPARE;
	uint8_t fin[MAXC * MAXSZ];
	int nan = 0;

	if (!valid(fam, op, dt) || cs->n < 1 || cs->n > MAXC)
		abort();
	for (int i = 0; i < cs->n; i++) {
		apply(op, dt, cs->t + i * sz, has_s ? cs->s + i * sz : NULL,
		      has_c ? cs->c + i * sz : NULL, fin + i * sz);
		nan |= elem_isnan(dt, cs->t + i * sz);
		if (has_s)
			nan |= elem_isnan(dt, cs->s + i * sz);
		if (has_c)
			nan |= elem_isnan(dt, cs->c + i * sz);
	}

	fprintf(out, "{\"record\":\"case\",\"id\":\"%s/%s/%s/%s_%d\","
		"\"family\":\"%s\",\"op\":\"%s\",\"op_id\":%d,"
		"\"datatype\":\"%s\",\"dt_id\":%d,\"count\":%d,"
		"\"initial_target\":",
		fam_name[fam], op_name[op], dt_name[dt], kind, k,
		fam_name[fam], op_name[op], op, dt_name[dt], dt, cs->n);
	hex(cs->t, (size_t)cs->n * sz);
	fputs(",\"operand\":", out);
	if (has_s)
		hex(cs->s, (size_t)cs->n * sz);
	else
		fputs("null", out);
	fputs(",\"compare\":", out);
	if (has_c)
		hex(cs->c, (size_t)cs->n * sz);
	else
		fputs("null", out);
	fputs(",\"final_target\":", out);
	hex(fin, (size_t)cs->n * sz);
	fputs(",\"result\":", out);
	if (fam != FAM_BASE)
		hex(cs->t, (size_t)cs->n * sz); /* the initial target */
	else
		fputs("null", out);
	fprintf(out, ",\"nan\":%s}\n", nan ? "true" : "false");

	ncases++;
	fam_cases[fam]++;
	cell_cases[fam][op][dt]++;
}

/* The operand the compare family swaps in when the tuple does not name
 * one: a value distinct from the target so that a swap shows. */
static int auto_operand(int dt, int t)
{
	if (is_int(dt))
		return t == 14 ? 15 : 14;
	if (is_cplx(dt))
		return t == 6 ? 18 : 6;
	return t == R_1_5 ? R_N2_5 : R_1_5;
}

/* Put element i of a case from a tuple of pool indices. */
static void set_elem(case_t *cs, int i, int fam, int op, int dt, tuple_t tp)
{
	const int sz = dt_size[dt];
	memset(cs->t + i * sz, 0, sz);
	memset(cs->s + i * sz, 0, sz);
	memset(cs->c + i * sz, 0, sz);
	pool_value(dt, tp.t, cs->t + i * sz);
	if (op != OP_READ) {
		int s = tp.s >= 0 ? tp.s : auto_operand(dt, tp.t);
		pool_value(dt, s, cs->s + i * sz);
	}
	if (fam == FAM_COMPARE)
		pool_value(dt, tp.c >= 0 ? tp.c : tp.t, cs->c + i * sz);
}

/* Tuples for a cell: curated ones first. */
static int curated(int fam, int op, int dt, tuple_t *tp, int max)
{
	int n = 0, np = pool_n(dt);
	const tuple_t *src = NULL;
	int nsrc = 0;

#define USE(a) do { src = (a); nsrc = (int)(sizeof(a) / sizeof((a)[0])); } while (0)
	if (op == OP_READ) {
		for (int i = 0; i < np && n < max; i++)
			tp[n++] = (tuple_t){ i, -1, -1 };
		return n;
	}
	if (op == OP_WRITE) {
		for (int i = 0; i < np && n < max; i++)
			tp[n++] = (tuple_t){ i, np - 1 - i, -1 };
		return n;
	}
	if (op == OP_MSWAP)
		USE(int_mswap);
	else if (fam == FAM_COMPARE && is_int(dt))
		USE(int_cmp);
	else if (fam == FAM_COMPARE && is_cplx(dt))
		USE(cplx_cmp);
	else if (fam == FAM_COMPARE)
		USE(real_cmp);
	else if (is_int(dt))
		USE(int_bin);
	else if (is_cplx(dt))
		USE(cplx_bin);
	else
		USE(real_bin);
#undef USE
	for (int i = 0; i < nsrc && n < max; i++)
		tp[n++] = src[i];
	return n;
}

static tuple_t random_tuple(int fam, int op, int dt)
{
	int np = pool_n(dt);
	tuple_t tp;
	tp.t = (int)(rnd() % np);
	tp.s = (int)(rnd() % np);
	tp.c = -1;
	if (fam == FAM_COMPARE) {
		if (op == OP_MSWAP || (rnd() & 1))
			tp.c = (int)(rnd() % np);
		else
			tp.c = tp.t; /* compare == target */
	}
	(void)op;
	return tp;
}

static void gen_cell(int fam, int op, int dt)
{
	const int sz = dt_size[dt];
	tuple_t tp[128];
	int ntp, used = 0;
	/* count = 1 edge cases per cell; the rest of the curated tuples go
	 * into the count > 1 cases */
	const int max_edge = is_int(dt) ? 12 : (is_cplx(dt) ? 16 : 20);
	static const int multi_counts[] = { 3, 4, 5, 6, 8 };
	static const int rand_counts_int[] = { 1, 2, 3, 5 };
	static const int rand_counts_fp[] = { 1, 1, 2, 3, 5 };
	const int *rand_counts = is_int(dt) ? rand_counts_int : rand_counts_fp;
	const int nrand = is_int(dt) ? 4 : 5;
	case_t cs;

	rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)(fam * 1000 + op * 20 + dt + 1) *
				      0xd1b54a32d192ed03ULL);
	for (int i = 0; i < 8; i++)
		rnd();

	ntp = curated(fam, op, dt, tp, 128);

	for (int k = 0; k < ntp && k < max_edge; k++, used++) {
		cs.n = 1;
		set_elem(&cs, 0, fam, op, dt, tp[k]);
		emit(fam, op, dt, "edge", k, &cs);
	}

	/* mixed: leftover curated tuples, then random pool tuples */
	for (int k = 0; k < (int)(sizeof(multi_counts) / sizeof(int)); k++) {
		cs.n = multi_counts[k];
		for (int i = 0; i < cs.n; i++) {
			tuple_t x = used < ntp ? tp[used++] : random_tuple(fam, op, dt);
			set_elem(&cs, i, fam, op, dt, x);
		}
		emit(fam, op, dt, "multi", k, &cs);
	}
	/* curated tuples that still did not fit */
	for (int k = 0; used < ntp; k++) {
		cs.n = ntp - used < MAXC ? ntp - used : MAXC;
		for (int i = 0; i < cs.n; i++)
			set_elem(&cs, i, fam, op, dt, tp[used++]);
		emit(fam, op, dt, "more", k, &cs);
	}

	/* pseudo-random values */
	for (int k = 0; k < nrand; k++) {
		cs.n = rand_counts[k];
		for (int i = 0; i < cs.n; i++) {
			uint8_t *t = cs.t + i * sz, *s = cs.s + i * sz, *c = cs.c + i * sz;
			memset(t, 0, sz);
			memset(s, 0, sz);
			memset(c, 0, sz);
			rand_value(dt, t);
			if (op != OP_READ)
				rand_value(dt, s);
			if (fam == FAM_COMPARE) {
				if (op != OP_MSWAP && (rnd() % 3) != 0)
					memcpy(c, t, sz); /* compare == target */
				else
					rand_value(dt, c);
			}
		}
		emit(fam, op, dt, "rand", k, &cs);
	}
}

/* ------------------------------------------------------------------------ */
/* Checks of the machine before anything is written                          */

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint64_t dbits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
static double bitsd(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

static void require(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "vectorgen: machine check failed: %s\n", what);
		exit(2);
	}
}

static void self_check(void)
{
	uint8_t a[16], b[16], r[16];
	long double x;

	/* SSE default NaN has its sign bit set */
	require(fbits(f_add(bitsf(0x7f800000), bitsf(0xff800000))) == 0xffc00000,
		"float inf-inf == 0xffc00000");
	require(fbits(f_mul(bitsf(0), bitsf(0x7f800000))) == 0xffc00000,
		"float 0*inf == 0xffc00000");
	require(dbits(d_add(bitsd(0x7ff0000000000000ULL), bitsd(0xfff0000000000000ULL))) ==
		0xfff8000000000000ULL, "double inf-inf == 0xfff8000000000000");
	/* SSE: of two NaNs the first source (the target) wins, quieted */
	require(fbits(f_add(bitsf(0x7f812345), bitsf(0xffc54321))) == 0x7fc12345,
		"float sNaN + qNaN gives the first NaN quieted");
	/* x87 default NaN: sign set, significand c000000000000000 */
	put_ld(a, 0x8000000000000000ULL, 0x7fff);
	put_ld(b, 0x8000000000000000ULL, 0xffff);
	{
		long double ia, ib;
		memcpy(&ia, a, 16);
		memcpy(&ib, b, 16);
		x = ld_add(ia, ib);
	}
	st_ld(r, x);
	put_ld(a, 0xc000000000000000ULL, 0xffff);
	require(memcmp(r, a, 16) == 0, "long double inf-inf is the x87 default NaN");
	/* x87 precision control is 64 bits: 1 + 2^-63 is exact */
	{
		long double one = 1.0L, tiny;
		put_ld(a, 0x8000000000000000ULL, 0x3fff - 63);
		memcpy(&tiny, a, 16);
		x = ld_add(one, tiny);
		st_ld(r, x);
		put_ld(a, 0x8000000000000001ULL, 0x3fff);
		require(memcmp(r, a, 16) == 0, "x87 computes with a 64-bit significand");
	}
}

/* JSON string body: the printable ASCII of s, quotes and backslashes escaped */
static void json_str(const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if (*s >= 0x20 && *s < 0x7f)
			putchar(*s);
	}
}

/* argv[1], optional: the compiler's own version line (`gcc --version`),
 * recorded in the meta record; default "gcc " __VERSION__. */
int main(int argc, char **argv)
{
	char *buf = NULL;
	size_t len = 0;
	int ncells = 0;

	self_check();

	out = open_memstream(&buf, &len);
	if (!out)
		return 1;
	for (int fam = 0; fam < NFAM; fam++)
		for (int op = 0; op < NOP; op++)
			for (int dt = 0; dt < NDT; dt++)
				if (valid(fam, op, dt))
					gen_cell(fam, op, dt);
	fclose(out);

	for (int fam = 0; fam < NFAM; fam++)
		for (int op = 0; op < NOP; op++)
			for (int dt = 0; dt < NDT; dt++) {
				if (cell_cases[fam][op][dt] > 0 && !valid(fam, op, dt)) {
					fprintf(stderr, "case for an invalid cell\n");
					return 1;
				}
				if (valid(fam, op, dt)) {
					if (cell_cases[fam][op][dt] < 1) {
						fprintf(stderr, "cell without cases\n");
						return 1;
					}
					ncells++;
				}
			}
	if (ncells != 354) {
		fprintf(stderr, "vectorgen: %d cells, expected 354\n", ncells);
		return 1;
	}

	fputs("{\"record\":\"meta\",\"generator\":\"tools/vectorgen/vectorgen.c\","
	      "\"compiler\":\"", stdout);
	if (argc > 1)
		json_str(argv[1]);
	else
		json_str("gcc " __VERSION__);
	printf("\",\"flags\":\"-O2 -std=gnu11 -fno-fast-math -Wall -Werror\","
	       "\"cells\":%d,\"cases\":%ld,\"cases_base\":%ld,\"cases_fetch\":%ld,"
	       "\"cases_compare\":%ld,\"note\":\"Reference results computed by C on "
	       "x86-64 as libfabric's prov/util/src/util_atomic.c computes them, "
	       "with the rules of fiucx DESIGN.md where they differ: float/double "
	       "with SSE, long double with the x87 (64-bit significand, "
	       "computed values stored with 6 zero padding bytes), complex "
	       "products as C's a*b (libgcc __mulsc3/__muldc3/__mulxc3 when both "
	       "parts come out NaN). CSWAP compares bytes on FLOAT, DOUBLE, "
	       "FLOAT_COMPLEX and IEEE == on the wider types. Complex sums are "
	       "computed part by part with the target's part first, so that "
	       "of two NaNs the target's wins (DESIGN.md). Edge cases have "
	       "count 1, mixed cases count 3..8, rand cases come from a "
	       "fixed-seed xorshift64*.\"}\n",
	       ncells, ncases, fam_cases[FAM_BASE],
	       fam_cases[FAM_FETCH], fam_cases[FAM_COMPARE]);
	fwrite(buf, 1, len, stdout);
	free(buf);
	if (fflush(stdout) != 0 || ferror(stdout))
		return 1;
	fprintf(stderr, "vectorgen: %d cells, %ld cases (base %ld, fetch %ld, "
		"compare %ld)\n", ncells, ncases, fam_cases[FAM_BASE],
		fam_cases[FAM_FETCH], fam_cases[FAM_COMPARE]);
	return 0;
}
