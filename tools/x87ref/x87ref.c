/*
 * x87ref: exact results of x86-64 `long double` (x87, 64-bit precision, round to nearest even,
 * every exception masked: the Linux default control word) for LongDoubleTest. Build and run with
 * generate.sh. Output is deterministic: a fixed table of edge values and a fixed-seed xorshift.
 *
 * A long double is written as SSSS:MMMMMMMMMMMMMMMM, the sign/exponent field and the significand
 * in hex (bytes 8-9 and 0-7 of its memory). Lines:
 *   P a b a+b a-b a*b cmp   cmp is six 0/1 digits: a<b a<=b a>b a>=b a==b a!=b
 *   U a truth double        truth is (a != 0); double is the bits of (double)a in hex
 *   D double a              a is (long double) of the double's bits
 *   C a b c d re im         (a + bi) * (c + di) as long double _Complex
 * Lines starting with # are comments.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  uint16_t se;
  uint64_t m;
} bits80;

static long double to_ld(bits80 b) {
  long double x;
  memset(&x, 0, sizeof x);
  memcpy(&x, &b.m, 8);
  memcpy((char *)&x + 8, &b.se, 2);
  return x;
}

static bits80 of_ld(long double x) {
  bits80 b;
  memcpy(&b.m, &x, 8);
  memcpy(&b.se, (char *)&x + 8, 2);
  return b;
}

static void put(bits80 b) { printf(" %04x:%016llx", b.se, (unsigned long long)b.m); }

#define Q 0x4000000000000000ull /* quiet bit */
#define J 0x8000000000000000ull /* explicit integer bit */

static const bits80 EDGE[] = {
    {0x0000, 0}, {0x8000, 0},                                    /* +-0 */
    {0x0000, 1}, {0x8000, 1},                                    /* +-min denormal */
    {0x0000, 0x7fffffffffffffffull}, {0x8000, 0x7fffffffffffffffull}, /* +-max denormal */
    {0x0000, 0x4000000000000000ull}, {0x0000, 0x0000000100000001ull},
    {0x0000, J}, {0x8000, J}, {0x0000, 0xffffffffffffffffull},   /* pseudo-denormals */
    {0x0001, J}, {0x8001, J}, {0x0001, J | 1}, {0x0001, 0xffffffffffffffffull}, /* min normal */
    {0x0002, J}, {0x0041, J}, {0x003f, 0xc000000000000000ull},
    {0x3fff, J}, {0xbfff, J}, {0x3fff, J | 1}, {0xbfff, J | 1}, /* +-1, 1+ulp */
    {0x3ffe, 0xffffffffffffffffull}, {0x3ffe, J}, {0x4000, J}, {0x3fff, 0xc000000000000000ull},
    {0x3fbf, J}, {0xbfbf, J}, {0x3fbf, J | 1}, {0x3fc0, 0xc000000000000000ull}, /* 2^-64: ties */
    {0x3fbe, J}, {0x3fc0, J}, {0x403e, J}, {0x4040, J | 1},
    {0x3fff, 0xfffffffffffffffeull}, {0x3fff, 0xffffffffffffffffull},
    {0x3ffd, 0xaaaaaaaaaaaaaaabull}, {0xc000, 0xc90fdaa22168c235ull},
    {0x5ffe, J}, {0x5fff, 0xffffffffffffffffull}, {0x6000, J}, /* near sqrt(max) */
    {0x2000, J}, {0x1fff, 0xb504f333f9de6484ull}, {0x1fe1, J}, {0x1fc0, 0xc000000000000001ull},
    {0x7ffe, 0xffffffffffffffffull}, {0xfffe, 0xffffffffffffffffull}, /* +-max */
    {0x7ffe, 0xfffffffffffffffeull}, {0x7ffe, J}, {0x7fbe, J}, {0x7fbf, J},
    {0x7fff, J}, {0xffff, J},                                         /* +-inf */
    {0x7fff, J | Q}, {0xffff, J | Q}, {0x7fff, J | Q | 1}, {0xffff, J | Q | 1}, /* QNaN */
    {0x7fff, J | Q | 0x1234}, {0xffff, J | Q | 0x1234}, {0x7fff, 0xffffffffffffffffull},
    {0x7fff, J | 1}, {0xffff, J | 1}, {0x7fff, J | 0x1234}, {0xffff, 0xbfffffffffffffffull}, /* SNaN */
    {0x7fff, Q}, {0x7fff, 1}, {0xffff, 0}, {0x7fff, 0},           /* pseudo-NaN, pseudo-inf */
    {0x3fff, Q}, {0x0001, 0}, {0x4000, 0x7fffffffffffffffull},   /* unnormals */
};
#define NEDGE (sizeof EDGE / sizeof EDGE[0])

static uint64_t state = 0x2545f4914f6cdd1dull;

static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

static uint64_t below(uint64_t n) { return next() % n; }

static uint16_t sign(void) { return (uint16_t)((next() & 1) << 15); }

/* A significand with few bits set, so sums and products land exactly on halfway points. */
static uint64_t sparse(void) {
  uint64_t m = J;
  int n = (int)below(4);
  for (int i = 0; i < n; i++) m |= 1ull << below(64);
  return m;
}

static uint64_t random_significand(void) { return (next() & 1) ? sparse() : next() | J; }

static bits80 normal(int exponent) {
  bits80 b = {(uint16_t)(sign() | exponent), random_significand()};
  return b;
}

static bits80 any_bits(void) {
  uint64_t m = next();
  if (below(4) != 0) m |= J; /* mostly valid encodings, some unnormals and pseudo-NaNs */
  bits80 b = {(uint16_t)next(), m};
  return b;
}

static bits80 denormal(void) {
  bits80 b = {sign(), next() >> below(64)};
  if (below(4) == 0) b.m |= J; /* pseudo-denormal */
  return b;
}

static bits80 nan_like(void) {
  switch (below(5)) {
    case 0: { bits80 b = {(uint16_t)(sign() | 0x7fff), J | Q | (next() >> (2 + below(62)))}; return b; }
    case 1: { bits80 b = {(uint16_t)(sign() | 0x7fff), J | ((next() >> (2 + below(62))) | 1)}; return b; }
    case 2: { bits80 b = {(uint16_t)(sign() | 0x7fff), J | Q}; return b; }
    case 3: return EDGE[below(NEDGE)];
    default: return normal((int)below(0x7fff));
  }
}

static void pair(bits80 a, bits80 b) {
  volatile long double x = to_ld(a), y = to_ld(b);
  long double s = x + y, d = x - y, p = x * y;
  printf("P");
  put(a);
  put(b);
  put(of_ld(s));
  put(of_ld(d));
  put(of_ld(p));
  printf(" %d%d%d%d%d%d\n", x < y, x <= y, x > y, x >= y, x == y, x != y);
}

static void unary(bits80 a) {
  volatile long double x = to_ld(a);
  volatile double d = x;
  double dv = d;
  uint64_t db;
  memcpy(&db, &dv, 8);
  printf("U");
  put(a);
  printf(" %d %016llx\n", x != 0, (unsigned long long)db);
}

static void from_double(uint64_t db) {
  double dv;
  memcpy(&dv, &db, 8);
  volatile double d = dv;
  long double x = d;
  printf("D %016llx", (unsigned long long)db);
  put(of_ld(x));
  printf("\n");
}

static void complex_product(bits80 a, bits80 b, bits80 c, bits80 d) {
  volatile long double _Complex z = __builtin_complex(to_ld(a), to_ld(b));
  volatile long double _Complex w = __builtin_complex(to_ld(c), to_ld(d));
  long double _Complex r = z * w;
  printf("C");
  put(a);
  put(b);
  put(c);
  put(d);
  put(of_ld(__real__ r));
  put(of_ld(__imag__ r));
  printf("\n");
}

/* Components that drive gcc's inline product and __mulxc3's recovery of infinities. */
static const bits80 COMPLEX_PART[] = {
    {0x0000, 0}, {0x8000, 0}, {0x3fff, J}, {0xbfff, J}, {0x4000, 0xc000000000000000ull},
    {0x7fff, J}, {0xffff, J}, {0x7fff, J | Q}, {0xffff, J | Q | 5}, {0x7fff, J | 3},
    {0x7ffe, 0xffffffffffffffffull}, {0xfffe, J}, {0x7000, J}, {0x0000, 1},
    {0x7fff, 0}, {0x3fff, Q}, {0x0000, J},
};
#define NCOMPLEX (sizeof COMPLEX_PART / sizeof COMPLEX_PART[0])

static bits80 complex_part(void) {
  return below(4) == 0 ? normal(0x3fff - 40 + (int)below(80)) : COMPLEX_PART[below(NCOMPLEX)];
}

int main(void) {
  printf("# x87 long double reference, tools/x87ref/x87ref.c\n");
  for (size_t i = 0; i < NEDGE; i++)
    for (size_t j = 0; j < NEDGE; j++) pair(EDGE[i], EDGE[j]);
  for (int i = 0; i < 1000; i++) pair(any_bits(), any_bits());
  for (int i = 0; i < 1200; i++) { /* add/sub: rounding, ties, cancellation */
    int e = 1 + (int)below(0x7ffe);
    int f = e - (int)below(70);
    if (f < 1) f = 1;
    if (below(2)) pair(normal(e), normal(f)); else pair(normal(f), normal(e));
  }
  for (int i = 0; i < 1200; i++) { /* mul: products near underflow, overflow, and in between */
    int target = below(3) == 0 ? 1 - (int)below(70) : below(2) ? 0x7ffe - 3 + (int)below(6) : (int)below(0x7fff);
    int e = 1 + (int)below(0x7ffe);
    int f = target - e + 0x3fff;
    if (f < 1 || f > 0x7ffe) f = 1 + (int)below(0x7ffe);
    pair(normal(e), normal(f));
  }
  for (int i = 0; i < 500; i++) { /* denormals and pseudo-denormals among small values */
    bits80 small = below(2) ? denormal() : normal(1 + (int)below(70));
    if (below(2)) pair(denormal(), small); else pair(small, denormal());
  }
  for (int i = 0; i < 600; i++) pair(nan_like(), nan_like());
  for (size_t i = 0; i < NEDGE; i++) unary(EDGE[i]);
  for (int i = 0; i < 400; i++) unary(any_bits());
  for (int i = 0; i < 300; i++) unary(normal(0x3fff - 1100 + (int)below(2200))); /* double range */
  for (int i = 0; i < 200; i++) unary(normal(0x3fff - 1100 + (int)below(80))); /* double denormals */
  static const uint64_t DOUBLES[] = {
      0, 0x8000000000000000ull, 1, 0x800fffffffffffffull, 0x0010000000000000ull,
      0x3ff0000000000000ull, 0x7fefffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
      0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull, 0xfff4000000000123ull,
      0x7fffffffffffffffull,
  };
  for (size_t i = 0; i < sizeof DOUBLES / sizeof DOUBLES[0]; i++) from_double(DOUBLES[i]);
  for (int i = 0; i < 300; i++) from_double(next());
  for (size_t i = 0; i < NCOMPLEX; i++) /* one infinite or NaN factor against each part */
    for (size_t j = 0; j < NCOMPLEX; j++) {
      bits80 one = {0x3fff, J};
      complex_product(COMPLEX_PART[i], COMPLEX_PART[j], one, COMPLEX_PART[(i + j) % NCOMPLEX]);
    }
  for (int i = 0; i < 500; i++) complex_product(complex_part(), complex_part(), complex_part(), complex_part());
  return 0;
}
