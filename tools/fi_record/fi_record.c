/*
 * fi_record: records atomic test vectors from the real C libfabric library.
 *
 * For every (family, op, datatype) cell it asks the provider through
 * fi_atomicvalid / fi_fetch_atomicvalid / fi_compare_atomicvalid and
 * fi_query_atomic; for every valid cell it runs edge, all-pairs and random
 * cases through fi_atomic / fi_fetch_atomic / fi_compare_atomic against a
 * registered region reached through the provider (the endpoint talks to
 * itself through its address vector), waits for the completion, and writes
 * what it observed as JSON Lines in the format of docs/conformance.md.
 *
 * usage: fi_record [-p provider] [-o out.jsonl]
 *        (default provider "sockets", default output stdout)
 * Summary on stderr.  Every wait is bounded; alarm() ends the run if
 * anything hangs.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_cm.h>

#define NFAM 3
#define NOP 19
#define NDT 14
#define MAXCOUNT 64          /* most elements one recorded call uses */
#define MAXSIZE 32           /* largest element (LONG_DOUBLE_COMPLEX) */
#define BUFBYTES (MAXCOUNT * MAXSIZE)
#define PAIR_BUDGET_INT 512  /* bytes of target per cell spent on all-pairs */
#define PAIR_BUDGET_FP 1024
#define OP_TIMEOUT_MS 5000
#define RUN_TIMEOUT_S 900

enum family { BASE, FETCH, COMPARE };
static const char *fam_name[NFAM] = {"base", "fetch", "compare"};

static const char *op_name[NOP] = {
	"FI_MIN", "FI_MAX", "FI_SUM", "FI_PROD", "FI_LOR", "FI_LAND",
	"FI_BOR", "FI_BAND", "FI_LXOR", "FI_BXOR", "FI_ATOMIC_READ",
	"FI_ATOMIC_WRITE", "FI_CSWAP", "FI_CSWAP_NE", "FI_CSWAP_LE",
	"FI_CSWAP_LT", "FI_CSWAP_GE", "FI_CSWAP_GT", "FI_MSWAP"};
static const int op_val[NOP] = {
	FI_MIN, FI_MAX, FI_SUM, FI_PROD, FI_LOR, FI_LAND, FI_BOR, FI_BAND,
	FI_LXOR, FI_BXOR, FI_ATOMIC_READ, FI_ATOMIC_WRITE, FI_CSWAP,
	FI_CSWAP_NE, FI_CSWAP_LE, FI_CSWAP_LT, FI_CSWAP_GE, FI_CSWAP_GT,
	FI_MSWAP};

static const char *dt_name[NDT] = {
	"FI_INT8", "FI_UINT8", "FI_INT16", "FI_UINT16", "FI_INT32",
	"FI_UINT32", "FI_INT64", "FI_UINT64", "FI_FLOAT", "FI_DOUBLE",
	"FI_FLOAT_COMPLEX", "FI_DOUBLE_COMPLEX", "FI_LONG_DOUBLE",
	"FI_LONG_DOUBLE_COMPLEX"};
static const int dt_val[NDT] = {
	FI_INT8, FI_UINT8, FI_INT16, FI_UINT16, FI_INT32, FI_UINT32,
	FI_INT64, FI_UINT64, FI_FLOAT, FI_DOUBLE, FI_FLOAT_COMPLEX,
	FI_DOUBLE_COMPLEX, FI_LONG_DOUBLE, FI_LONG_DOUBLE_COMPLEX};
static const size_t dt_size[NDT] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 8, 16, 16, 32};

/* ------------------------------------------------------------------ */
/* libfabric state                                                    */

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_av *av;
static struct fid_cq *cq;
static struct fid_ep *ep;
static struct fid_mr *target_mr, *local_mr;
static fi_addr_t self_addr;
static uint64_t target_key, target_base;
static void *local_desc;

/* target region and local buffers, one allocation each, page aligned */
static uint8_t *target_region;  /* BUFBYTES */
static uint8_t *local_region;   /* operand | compare | result */
#define OPERAND (local_region)
#define COMPARE_BUF (local_region + BUFBYTES)
#define RESULT (local_region + 2 * BUFBYTES)

#define CHECK(call)                                                        \
	do {                                                               \
		int _r = (int)(call);                                      \
		if (_r) {                                                  \
			fprintf(stderr, "fi_record: %s failed: %d (%s)\n", \
				#call, _r, fi_strerror(-_r));              \
			exit(2);                                           \
		}                                                          \
	} while (0)

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void setup(const char *prov)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cq_attr;
	struct fi_av_attr av_attr;
	char name[256];
	size_t namelen = sizeof(name);
	uint64_t mr_mode;
	int ret;

	if (!hints) {
		fprintf(stderr, "fi_record: fi_allocinfo failed\n");
		exit(2);
	}
	hints->caps = FI_ATOMIC | FI_READ | FI_WRITE | FI_REMOTE_READ |
		      FI_REMOTE_WRITE;
	hints->ep_attr->type = FI_EP_RDM;
	hints->fabric_attr->prov_name = strdup(prov);
	/* every mode bit we know how to serve */
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				      FI_MR_ALLOCATED | FI_MR_PROV_KEY |
				      FI_MR_ENDPOINT;
	hints->mode = FI_CONTEXT | FI_CONTEXT2;

	ret = fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", NULL, FI_SOURCE,
			 hints, &info);
	if (ret) {
		fprintf(stderr, "fi_record: fi_getinfo(%s) failed: %d (%s)\n",
			prov, ret, fi_strerror(-ret));
		exit(2);
	}
	fi_freeinfo(hints);

	mr_mode = info->domain_attr->mr_mode;
	if (mr_mode == FI_MR_BASIC)
		mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	else if (mr_mode == FI_MR_SCALABLE)
		mr_mode = 0;

	CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
	CHECK(fi_domain(fabric, info, &domain, NULL));

	memset(&cq_attr, 0, sizeof(cq_attr));
	cq_attr.format = FI_CQ_FORMAT_CONTEXT;
	cq_attr.size = 64;
	cq_attr.wait_obj = FI_WAIT_NONE;
	CHECK(fi_cq_open(domain, &cq_attr, &cq, NULL));

	memset(&av_attr, 0, sizeof(av_attr));
	av_attr.type = FI_AV_TABLE;
	av_attr.count = 4;
	CHECK(fi_av_open(domain, &av_attr, &av, NULL));

	CHECK(fi_endpoint(domain, info, &ep, NULL));
	CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
	CHECK(fi_ep_bind(ep, &av->fid, 0));
	CHECK(fi_enable(ep));

	CHECK(fi_getname(&ep->fid, name, &namelen));
	ret = fi_av_insert(av, name, 1, &self_addr, 0, NULL);
	if (ret != 1) {
		fprintf(stderr, "fi_record: fi_av_insert returned %d\n", ret);
		exit(2);
	}

	if (posix_memalign((void **)&target_region, 4096, BUFBYTES) ||
	    posix_memalign((void **)&local_region, 4096, 3 * BUFBYTES)) {
		fprintf(stderr, "fi_record: out of memory\n");
		exit(2);
	}
	memset(target_region, 0, BUFBYTES);
	memset(local_region, 0, 3 * BUFBYTES);

	CHECK(fi_mr_reg(domain, target_region, BUFBYTES,
			FI_REMOTE_READ | FI_REMOTE_WRITE, 0,
			(mr_mode & FI_MR_PROV_KEY) ? 0 : 0xf1ec0de, 0,
			&target_mr, NULL));
	if (mr_mode & FI_MR_ENDPOINT) {
		CHECK(fi_mr_bind(target_mr, &ep->fid, 0));
		CHECK(fi_mr_enable(target_mr));
	}
	target_key = fi_mr_key(target_mr);
	target_base = (mr_mode & FI_MR_VIRT_ADDR) ?
			      (uint64_t)(uintptr_t)target_region : 0;

	local_desc = NULL;
	if (mr_mode & FI_MR_LOCAL) {
		CHECK(fi_mr_reg(domain, local_region, 3 * BUFBYTES,
				FI_READ | FI_WRITE, 0,
				(mr_mode & FI_MR_PROV_KEY) ? 0 : 0xf1ec0df, 0,
				&local_mr, NULL));
		if (mr_mode & FI_MR_ENDPOINT) {
			CHECK(fi_mr_bind(local_mr, &ep->fid, 0));
			CHECK(fi_mr_enable(local_mr));
		}
		local_desc = fi_mr_desc(local_mr);
	}
	fprintf(stderr,
		"fi_record: provider %s fabric %s domain %s mr_mode 0x%" PRIx64
		" (using 0x%" PRIx64 ") key 0x%" PRIx64 " base 0x%" PRIx64 "\n",
		info->fabric_attr->prov_name, info->fabric_attr->name,
		info->domain_attr->name, (uint64_t)info->domain_attr->mr_mode,
		mr_mode, target_key, target_base);
}

static void teardown(void)
{
	if (local_mr)
		fi_close(&local_mr->fid);
	fi_close(&target_mr->fid);
	fi_close(&ep->fid);
	fi_close(&av->fid);
	fi_close(&cq->fid);
	fi_close(&domain->fid);
	fi_close(&fabric->fid);
	fi_freeinfo(info);
	free(target_region);
	free(local_region);
}

/* Waits for the completion carrying ctx.  0 on success, negative on error. */
static int wait_completion(void *ctx)
{
	struct fi_cq_entry entry;
	struct fi_cq_err_entry err;
	uint64_t deadline = now_ms() + OP_TIMEOUT_MS;
	ssize_t ret;

	for (;;) {
		ret = fi_cq_read(cq, &entry, 1);
		if (ret == 1) {
			if (entry.op_context == ctx)
				return 0;
			fprintf(stderr, "fi_record: stray completion %p\n",
				entry.op_context);
			continue;
		}
		if (ret == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			ret = fi_cq_readerr(cq, &err, 0);
			fprintf(stderr,
				"fi_record: completion error: err %d (%s) "
				"prov_errno %d\n",
				err.err, fi_strerror(err.err), err.prov_errno);
			return err.err ? -err.err : -FI_EOTHER;
		}
		if (ret != -FI_EAGAIN) {
			fprintf(stderr, "fi_record: fi_cq_read: %zd (%s)\n",
				ret, fi_strerror((int)-ret));
			return (int)ret;
		}
		if (now_ms() > deadline) {
			fprintf(stderr, "fi_record: completion timed out\n");
			return -FI_ETIMEDOUT;
		}
	}
}

/* Issues one call, retrying on -FI_EAGAIN within the time limit. */
static int run_call(int fam, int op, int dt, size_t count)
{
	static struct fi_context2 context_token;
	void *ctx = &context_token;
	uint64_t deadline = now_ms() + OP_TIMEOUT_MS;
	enum fi_op fop = (enum fi_op)op_val[op];
	enum fi_datatype fdt = (enum fi_datatype)dt_val[dt];
	ssize_t ret;

	for (;;) {
		switch (fam) {
		case BASE:
			ret = fi_atomic(ep, OPERAND, count, local_desc,
					self_addr, target_base, target_key,
					fdt, fop, ctx);
			break;
		case FETCH:
			ret = fi_fetch_atomic(ep, OPERAND, count, local_desc,
					      RESULT, local_desc, self_addr,
					      target_base, target_key, fdt,
					      fop, ctx);
			break;
		default:
			ret = fi_compare_atomic(ep, OPERAND, count,
						local_desc, COMPARE_BUF,
						local_desc, RESULT, local_desc,
						self_addr, target_base,
						target_key, fdt, fop, ctx);
			break;
		}
		if (ret != -FI_EAGAIN)
			break;
		/* drive progress while the transmit queue drains */
		{
			struct fi_cq_entry entry;
			(void)fi_cq_read(cq, &entry, 0);
		}
		if (now_ms() > deadline) {
			fprintf(stderr, "fi_record: call kept returning EAGAIN\n");
			return -FI_ETIMEDOUT;
		}
	}
	if (ret) {
		fprintf(stderr, "fi_record: %s %s %s count %zu: %zd (%s)\n",
			fam_name[fam], op_name[op], dt_name[dt], count, ret,
			fi_strerror((int)-ret));
		return (int)ret;
	}
	return wait_completion(ctx);
}

/* ------------------------------------------------------------------ */
/* values                                                             */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t xorshift64(void)
{
	uint64_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

enum klass { K_INT, K_FLT, K_DBL, K_FC, K_DC, K_LD, K_LDC };

static enum klass klass_of(int dt)
{
	switch (dt) {
	case 8: return K_FLT;
	case 9: return K_DBL;
	case 10: return K_FC;
	case 11: return K_DC;
	case 12: return K_LD;
	case 13: return K_LDC;
	default: return K_INT;
	}
}

static void put_le(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* 80-bit extended in a 16-byte slot: significand, sign+exponent, 6 zero bytes */
static void put_ld(uint8_t *p, uint64_t mant, uint16_t se)
{
	memset(p, 0, 16);
	put_le(p, mant, 8);
	put_le(p + 8, se, 2);
}

/* Edge lists, most important first: the all-pairs cases use a prefix. */
static const uint64_t flt_edges[] = {
	0x00000000, 0x80000000, 0x3f800000, 0xbf800000, /* +-0, +-1 */
	0x7f800000, 0xff800000,                         /* +-inf */
	0x7fc00000, 0xffc00000,                         /* +-qNaN */
	0x7f800001, 0xff800001,                         /* +-sNaN */
	0x00000001, 0x80000001,                         /* +-denormal */
	0x7f7fffff, 0xff7fffff,                         /* +-max */
	0x3f800001, 0x33800000,                         /* 1+ulp, 2^-24 */
	0x4b800000, 0x7fc12345,                         /* 2^24, qNaN payload */
	0x3fc00000, 0x00800000, 0x007fffff,             /* 1.5 min-normal max-denormal */
	0x40000000, 0x34000000, 0xffa00001,             /* 2, 2^-23, -sNaN payload */
};
static const uint64_t dbl_edges[] = {
	0x0000000000000000ull, 0x8000000000000000ull,
	0x3ff0000000000000ull, 0xbff0000000000000ull,
	0x7ff0000000000000ull, 0xfff0000000000000ull,
	0x7ff8000000000000ull, 0xfff8000000000000ull,
	0x7ff0000000000001ull, 0xfff0000000000001ull,
	0x0000000000000001ull, 0x3ff0000000000001ull, /* denormal, 1+ulp */
	0x3ca0000000000000ull, 0x7fefffffffffffffull, /* 2^-53, max */
	0x8000000000000001ull, 0xffefffffffffffffull,
	0x4340000000000000ull, 0x7ff8000000012345ull, /* 2^53, qNaN payload */
	0x3ff8000000000000ull, 0x0010000000000000ull,
	0x000fffffffffffffull, 0x4000000000000000ull,
	0x3cb0000000000000ull, 0xfff4000000000001ull,
};
/* complex edges: index pairs into the scalar lists (re, im) */
static const uint8_t cplx_edges[][2] = {
	{0, 0}, {2, 0}, {0, 2}, {1, 1}, {2, 3}, {4, 0}, {0, 4},
	{6, 0}, {0, 6}, {5, 2}, {4, 4}, {6, 6}, {8, 2}, {2, 9},
	{12, 12}, {10, 11}, {4, 7}, {3, 1}, {18, 21}, {16, 2},
};
struct ldv { uint64_t m; uint16_t se; };
static const struct ldv ld_edges[] = {
	{0, 0}, {0, 0x8000},                                   /* +-0 */
	{0x8000000000000000ull, 0x3fff}, {0x8000000000000000ull, 0xbfff}, /* +-1 */
	{0x8000000000000000ull, 0x7fff}, {0x8000000000000000ull, 0xffff}, /* +-inf */
	{0xc000000000000000ull, 0x7fff}, {0xc000000000000000ull, 0xffff}, /* +-qNaN */
	{0x8000000000000001ull, 0x7fff}, {0x8000000000000001ull, 0xffff}, /* +-sNaN */
	{1, 0}, {0x8000000000000001ull, 0x3fff},              /* denormal, 1+ulp */
	{0x8000000000000000ull, 0x3fbf},                      /* 2^-64 */
	{0xffffffffffffffffull, 0x7ffe}, {1, 0x8000},          /* max, -denormal */
	{0xffffffffffffffffull, 0xfffe},                      /* -max */
	{0x8000000000000000ull, 0x403f},                      /* 2^64 */
	{0xc000000000001234ull, 0x7fff},                      /* qNaN payload */
	{0xc000000000000000ull, 0x3fff},                      /* 1.5 */
	{0x8000000000000000ull, 0x0001},                      /* min normal */
	{0x7fffffffffffffffull, 0},                           /* max denormal */
	{0x8000000000000000ull, 0x4000},                      /* 2 */
	{0x8000000000000000ull, 0x3fc0},                      /* 2^-63 */
	{0xa000000000000001ull, 0xffff},                      /* -sNaN payload */
};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static size_t n_edges(int dt)
{
	switch (klass_of(dt)) {
	case K_INT: return 14;
	case K_FLT: return NELEM(flt_edges);
	case K_DBL: return NELEM(dbl_edges);
	case K_FC: case K_DC: return NELEM(cplx_edges);
	case K_LD: return NELEM(ld_edges);
	case K_LDC: return NELEM(cplx_edges);
	}
	return 0;
}

/* Writes edge value i of datatype dt at p. */
static void edge_value(int dt, size_t i, uint8_t *p)
{
	size_t sz = dt_size[dt];
	uint64_t minv, maxv, ones;

	switch (klass_of(dt)) {
	case K_INT:
		ones = sz == 8 ? ~0ull : ((1ull << (8 * sz)) - 1);
		minv = 1ull << (8 * sz - 1);
		maxv = minv - 1;
		{
			const uint64_t v[14] = {
				0, 1, ones, minv, maxv, 2, minv | 1, maxv - 1,
				0x5555555555555555ull & ones,
				0xaaaaaaaaaaaaaaaaull & ones,
				ones - 1, 3, 0x0f0f0f0f0f0f0f0full & ones,
				0xf0f0f0f0f0f0f0f0ull & ones};
			put_le(p, v[i % 14], sz);
		}
		break;
	case K_FLT:
		put_le(p, flt_edges[i % NELEM(flt_edges)], 4);
		break;
	case K_DBL:
		put_le(p, dbl_edges[i % NELEM(dbl_edges)], 8);
		break;
	case K_FC:
		i %= NELEM(cplx_edges);
		put_le(p, flt_edges[cplx_edges[i][0]], 4);
		put_le(p + 4, flt_edges[cplx_edges[i][1]], 4);
		break;
	case K_DC:
		i %= NELEM(cplx_edges);
		put_le(p, dbl_edges[cplx_edges[i][0]], 8);
		put_le(p + 8, dbl_edges[cplx_edges[i][1]], 8);
		break;
	case K_LD:
		i %= NELEM(ld_edges);
		put_ld(p, ld_edges[i].m, ld_edges[i].se);
		break;
	case K_LDC:
		i %= NELEM(cplx_edges);
		put_ld(p, ld_edges[cplx_edges[i][0]].m, ld_edges[cplx_edges[i][0]].se);
		put_ld(p + 16, ld_edges[cplx_edges[i][1]].m,
		       ld_edges[cplx_edges[i][1]].se);
		break;
	}
}

static uint64_t rand_flt_bits(void)
{
	uint64_t r = xorshift64();
	switch (r & 7) {
	case 0: case 1: case 2:
		return (uint32_t)(r >> 32);                /* any bits */
	case 3:
		return flt_edges[(r >> 8) % NELEM(flt_edges)];
	default: {                                         /* modest values */
		float f = (float)((int64_t)((r >> 16) % 2001) - 1000);
		int e = (int)((r >> 40) % 17) - 8;
		uint32_t u;
		f = e >= 0 ? f * (float)(1u << e) : f / (float)(1u << -e);
		memcpy(&u, &f, 4);
		return u;
	}
	}
}

static uint64_t rand_dbl_bits(void)
{
	uint64_t r = xorshift64();
	switch (r & 7) {
	case 0: case 1: case 2:
		return xorshift64();
	case 3:
		return dbl_edges[(r >> 8) % NELEM(dbl_edges)];
	default: {
		double d = (double)((int64_t)((r >> 16) % 200001) - 100000);
		int e = (int)((r >> 40) % 33) - 16;
		uint64_t u;
		d = e >= 0 ? d * (double)(1u << e) : d / (double)(1u << -e);
		/* add a random low fraction so roundings get exercised */
		d += (double)(xorshift64() >> 11) * 0x1p-53;
		memcpy(&u, &d, 8);
		return u;
	}
	}
}

static void rand_ld(uint8_t *p)
{
	uint64_t r = xorshift64();
	if ((r & 7) == 0) {
		edge_value(12, (r >> 8) % NELEM(ld_edges), p);
		return;
	}
	{
		uint16_t se = (uint16_t)(0x3fff + (int)((r >> 8) % 141) - 70);
		if (r & 0x10000)
			se |= 0x8000;
		put_ld(p, xorshift64() | 0x8000000000000000ull, se);
	}
}

/* Writes a random value of datatype dt at p. */
static void rand_value(int dt, uint8_t *p)
{
	size_t sz = dt_size[dt];
	uint64_t r;

	switch (klass_of(dt)) {
	case K_INT:
		r = xorshift64();
		if ((r & 3) == 0)
			edge_value(dt, (r >> 8) % 14, p);
		else
			put_le(p, xorshift64(), sz);
		break;
	case K_FLT: put_le(p, rand_flt_bits(), 4); break;
	case K_DBL: put_le(p, rand_dbl_bits(), 8); break;
	case K_FC:
		put_le(p, rand_flt_bits(), 4);
		put_le(p + 4, rand_flt_bits(), 4);
		break;
	case K_DC:
		put_le(p, rand_dbl_bits(), 8);
		put_le(p + 8, rand_dbl_bits(), 8);
		break;
	case K_LD: rand_ld(p); break;
	case K_LDC: rand_ld(p); rand_ld(p + 16); break;
	}
}

static int flt_nan(uint64_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }
static int dbl_nan(uint64_t b)
{
	return (b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}
static int ld_nan(const uint8_t *p)
{
	uint64_t m = get_le(p, 8);
	uint16_t se = (uint16_t)get_le(p + 8, 2);
	return (se & 0x7fff) == 0x7fff && (m & 0x7fffffffffffffffull) != 0;
}

static int has_nan(int dt, const uint8_t *p, size_t count)
{
	size_t sz = dt_size[dt];
	for (size_t i = 0; i < count; i++, p += sz) {
		switch (klass_of(dt)) {
		case K_INT: break;
		case K_FLT: if (flt_nan(get_le(p, 4))) return 1; break;
		case K_DBL: if (dbl_nan(get_le(p, 8))) return 1; break;
		case K_FC:
			if (flt_nan(get_le(p, 4)) || flt_nan(get_le(p + 4, 4)))
				return 1;
			break;
		case K_DC:
			if (dbl_nan(get_le(p, 8)) || dbl_nan(get_le(p + 8, 8)))
				return 1;
			break;
		case K_LD: if (ld_nan(p)) return 1; break;
		case K_LDC: if (ld_nan(p) || ld_nan(p + 16)) return 1; break;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* cases                                                              */

struct tally {
	int valid_cells, invalid_cells, cases, nan_cases, failed_calls;
	int read_touched;
};
static struct tally tally;
static FILE *out;

static void put_hex(const uint8_t *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		fputc(digits[p[i] >> 4], out);
		fputc(digits[p[i] & 15], out);
	}
}

static void put_field_hex(const char *name, const uint8_t *p, size_t n)
{
	fprintf(out, ",\"%s\":", name);
	if (!p) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	put_hex(p, n);
	fputc('"', out);
}

/* inputs of the case being built */
static uint8_t in_target[BUFBYTES], in_operand[BUFBYTES], in_compare[BUFBYTES];

/* Runs the case whose inputs are in in_*, writes one record. */
static void run_case(int fam, int op, int dt, size_t count, const char *label)
{
	size_t bytes = count * dt_size[dt];
	int is_read = op_val[op] == FI_ATOMIC_READ;
	int nan;
	int ret;

	memcpy(target_region, in_target, bytes);
	if (is_read)
		memset(OPERAND, 0x5a, bytes); /* dummy buf, recorded as null */
	else
		memcpy(OPERAND, in_operand, bytes);
	if (fam == COMPARE)
		memcpy(COMPARE_BUF, in_compare, bytes);
	else
		memset(COMPARE_BUF, 0, bytes);
	memset(RESULT, 0xee, bytes); /* poison: shows bytes never written */

	ret = run_call(fam, op, dt, count);
	if (ret) {
		tally.failed_calls++;
		fprintf(out,
			"{\"record\":\"error_case\",\"id\":\"%s/%s/%s/%s\","
			"\"family\":\"%s\",\"op\":\"%s\",\"datatype\":\"%s\","
			"\"count\":%zu,\"ret\":%d,\"error\":\"%s\"}\n",
			fam_name[fam], op_name[op], dt_name[dt], label,
			fam_name[fam], op_name[op], dt_name[dt], count, ret,
			fi_strerror(-ret));
		return;
	}
	if (is_read && memcmp(target_region, in_target, bytes))
		tally.read_touched++;

	nan = has_nan(dt, in_target, count) ||
	      (!is_read && has_nan(dt, in_operand, count)) ||
	      (fam == COMPARE && has_nan(dt, in_compare, count));

	fprintf(out,
		"{\"record\":\"case\",\"id\":\"%s/%s/%s/%s\",\"family\":\"%s\","
		"\"op\":\"%s\",\"op_id\":%d,\"datatype\":\"%s\",\"dt_id\":%d,"
		"\"count\":%zu",
		fam_name[fam], op_name[op], dt_name[dt], label, fam_name[fam],
		op_name[op], op_val[op], dt_name[dt], dt_val[dt], count);
	put_field_hex("initial_target", in_target, bytes);
	put_field_hex("operand", is_read ? NULL : in_operand, bytes);
	put_field_hex("compare", fam == COMPARE ? in_compare : NULL, bytes);
	put_field_hex("final_target", target_region, bytes);
	put_field_hex("result", fam == BASE ? NULL : RESULT, bytes);
	fprintf(out, ",\"nan\":%s}\n", nan ? "true" : "false");
	tally.cases++;
	tally.nan_cases += nan;
}

static int is_ordered_cswap(int op)
{
	int v = op_val[op];
	return v == FI_CSWAP_LE || v == FI_CSWAP_LT || v == FI_CSWAP_GE ||
	       v == FI_CSWAP_GT;
}

/* Fills element k of the inputs from edge indices: target a, second b. */
static void fill_pair(int fam, int dt, size_t k, size_t a, size_t b)
{
	size_t sz = dt_size[dt];
	size_t n = n_edges(dt);

	edge_value(dt, a, in_target + k * sz);
	if (fam == COMPARE) {
		/* compare = edge b; the value to swap in differs from both
		 * where it can, so a swap is visible */
		size_t c = (a + b + 1) % n;
		if (c == a || c == b)
			c = (c + 1) % n;
		if (c == a || c == b)
			c = (c + 1) % n;
		edge_value(dt, b, in_compare + k * sz);
		edge_value(dt, c, in_operand + k * sz);
	} else {
		edge_value(dt, b, in_operand + k * sz);
	}
}

/* count-1 edge pairs (target, operand-or-compare), by edge index */
static const uint8_t int_edge_pairs[][2] = {
	/* max+1, min-1, -1+1, min+min, max+max, high bits, 0 vs -1, min vs max,
	 * bit patterns */
	{4, 1}, {3, 2}, {2, 1}, {3, 3}, {4, 4}, {6, 6}, {0, 2}, {3, 4},
	{9, 8},
};
static const uint8_t flt_edge_pairs[][2] = {
	/* index into flt/dbl edge lists */
	{2, 15}, {14, 15}, {16, 2}, {12, 12}, {10, 10}, {20, 19}, {6, 17},
	{17, 6}, {4, 5}, {0, 1}, {1, 0}, {8, 8}, {18, 21}, {23, 9},
};
static const uint8_t dbl_edge_pairs[][2] = {
	{2, 12}, {11, 12}, {16, 2}, {13, 13}, {10, 10}, {20, 19}, {6, 17},
	{17, 6}, {4, 5}, {0, 1}, {1, 0}, {8, 8}, {18, 21}, {23, 9},
};
static const uint8_t ld_edge_pairs[][2] = {
	{2, 12}, {11, 12}, {16, 2}, {13, 13}, {10, 10}, {20, 19}, {6, 17},
	{17, 6}, {4, 5}, {0, 1}, {1, 0}, {8, 8}, {21, 22}, {23, 9},
};
static const uint8_t cplx_edge_pairs[][2] = {
	{1, 2}, {3, 4}, {5, 6}, {10, 2}, {7, 11}, {11, 7}, {14, 14}, {15, 3},
	{9, 1}, {18, 18}, {19, 17}, {12, 13}, {0, 3}, {16, 10},
};

static void run_cell(int fam, int op, int dt, size_t limit)
{
	size_t sz = dt_size[dt];
	size_t n = n_edges(dt);
	size_t lim = limit < MAXCOUNT ? limit : MAXCOUNT;
	size_t npairs_edge, neff, total, k, done, chunk;
	const uint8_t(*ep_list)[2];
	char label[64];
	int is_read = op_val[op] == FI_ATOMIC_READ;
	int m;

	if (lim == 0)
		return;

	/* 1. count-1 edge cases */
	switch (klass_of(dt)) {
	case K_INT: ep_list = int_edge_pairs; npairs_edge = NELEM(int_edge_pairs); break;
	case K_FLT: ep_list = flt_edge_pairs; npairs_edge = NELEM(flt_edge_pairs); break;
	case K_DBL: ep_list = dbl_edge_pairs; npairs_edge = NELEM(dbl_edge_pairs); break;
	case K_LD: ep_list = ld_edge_pairs; npairs_edge = NELEM(ld_edge_pairs); break;
	default: ep_list = cplx_edge_pairs; npairs_edge = NELEM(cplx_edge_pairs); break;
	}
	for (k = 0; k < npairs_edge; k++) {
		if (is_read && k >= 6)
			break;
		fill_pair(fam, dt, 0, ep_list[k][0] % n, ep_list[k][1] % n);
		snprintf(label, sizeof(label), "edge_%zu", k);
		run_case(fam, op, dt, 1, label);
	}
	/* compare family: ordered compares in both directions on one pair,
	 * and compare == target on a plain value */
	if (fam == COMPARE) {
		size_t one = klass_of(dt) == K_INT ? 1 : 2;
		size_t two = klass_of(dt) == K_INT ? 5 :
			     (klass_of(dt) == K_FC || klass_of(dt) == K_DC ||
			      klass_of(dt) == K_LDC) ? 4 : 21;
		fill_pair(fam, dt, 0, one, two);
		run_case(fam, op, dt, 1, "dir_lt");
		fill_pair(fam, dt, 0, two, one);
		run_case(fam, op, dt, 1, "dir_gt");
		fill_pair(fam, dt, 0, two, two);
		run_case(fam, op, dt, 1, "dir_eq");
	}

	/* 2. all pairs over a prefix of the edge list, packed in calls */
	neff = n;
	while (neff > 2 && neff * neff * sz >
				   (klass_of(dt) == K_INT ? PAIR_BUDGET_INT : PAIR_BUDGET_FP))
		neff--;
	if (is_read) {
		/* the operand is unused: one call over every edge value */
		total = n;
		for (done = 0, m = 0; done < total; done += chunk, m++) {
			chunk = total - done < lim ? total - done : lim;
			for (k = 0; k < chunk; k++)
				fill_pair(fam, dt, k, done + k, 0);
			snprintf(label, sizeof(label), "all_%d", m);
			run_case(fam, op, dt, chunk, label);
		}
	} else {
		total = neff * neff;
		for (done = 0, m = 0; done < total; done += chunk, m++) {
			chunk = total - done < lim ? total - done : lim;
			for (k = 0; k < chunk; k++)
				fill_pair(fam, dt, k, (done + k) / neff,
					  (done + k) % neff);
			snprintf(label, sizeof(label), "pairs_%d", m);
			run_case(fam, op, dt, chunk, label);
		}
	}

	/* 3. random cases: four of count 1, then count 5 and count 16 */
	for (m = 0; m < 6; m++) {
		size_t cnt = m < 4 ? 1 : (m == 4 ? 5 : 16);
		if (cnt > lim)
			cnt = lim;
		for (k = 0; k < cnt; k++) {
			rand_value(dt, in_target + k * sz);
			rand_value(dt, in_operand + k * sz);
			if (fam == COMPARE) {
				if (op_val[op] == FI_MSWAP ||
				    (xorshift64() & 1))
					rand_value(dt, in_compare + k * sz);
				else if (is_ordered_cswap(op) && (xorshift64() & 1))
					rand_value(dt, in_compare + k * sz);
				else
					memcpy(in_compare + k * sz,
					       in_target + k * sz, sz);
			}
		}
		snprintf(label, sizeof(label), "rand_%d", m);
		run_case(fam, op, dt, cnt, label);
	}
}

static int ask_valid(int fam, int op, int dt, size_t *count)
{
	enum fi_op fop = (enum fi_op)op_val[op];
	enum fi_datatype fdt = (enum fi_datatype)dt_val[dt];
	*count = 0;
	switch (fam) {
	case BASE: return fi_atomicvalid(ep, fdt, fop, count);
	case FETCH: return fi_fetch_atomicvalid(ep, fdt, fop, count);
	default: return fi_compare_atomicvalid(ep, fdt, fop, count);
	}
}

static void on_alarm(int sig)
{
	static const char msg[] = "fi_record: run timed out\n";
	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

int main(int argc, char **argv)
{
	const char *prov = "sockets";
	const char *path = NULL;
	uint32_t version = fi_version();
	int opt;

	while ((opt = getopt(argc, argv, "p:o:")) != -1) {
		switch (opt) {
		case 'p': prov = optarg; break;
		case 'o': path = optarg; break;
		default:
			fprintf(stderr, "usage: fi_record [-p provider] [-o out.jsonl]\n");
			return 1;
		}
	}
	signal(SIGALRM, on_alarm);
	alarm(RUN_TIMEOUT_S);

	out = stdout;
	if (path) {
		out = fopen(path, "w");
		if (!out) {
			perror(path);
			return 2;
		}
	}

	setup(prov);

	fprintf(out,
		"{\"record\":\"meta\",\"recorder\":\"tools/fi_record/fi_record.c\","
		"\"libfabric\":\"%u.%u\",\"provider\":\"%s\",\"fabric\":\"%s\","
		"\"domain\":\"%s\",\"api\":\"1.17\",\"mr_mode\":%" PRIu64
		",\"seed\":\"0x9e3779b97f4a7c15\"}\n",
		FI_MAJOR(version), FI_MINOR(version),
		info->fabric_attr->prov_name, info->fabric_attr->name,
		info->domain_attr->name, (uint64_t)info->domain_attr->mr_mode);

	for (int fam = 0; fam < NFAM; fam++) {
		for (int op = 0; op < NOP; op++) {
			for (int dt = 0; dt < NDT; dt++) {
				size_t count = 0;
				struct fi_atomic_attr attr;
				uint64_t qflags = fam == FETCH ? FI_FETCH_ATOMIC :
						  fam == COMPARE ? FI_COMPARE_ATOMIC : 0;
				int v = ask_valid(fam, op, dt, &count);
				int q;

				memset(&attr, 0, sizeof(attr));
				q = fi_query_atomic(domain, (enum fi_datatype)dt_val[dt],
						    (enum fi_op)op_val[op], &attr, qflags);
				if (v != 0 || count == 0) {
					tally.invalid_cells++;
					fprintf(out,
						"{\"record\":\"unsupported\",\"family\":\"%s\","
						"\"op\":\"%s\",\"op_id\":%d,\"datatype\":\"%s\","
						"\"dt_id\":%d,\"valid_ret\":%d,\"query_ret\":%d}\n",
						fam_name[fam], op_name[op], op_val[op],
						dt_name[dt], dt_val[dt], v, q);
					if (q == 0)
						fprintf(stderr, "fi_record: %s %s %s: valid says "
							"%d but query says supported\n",
							fam_name[fam], op_name[op], dt_name[dt], v);
					continue;
				}
				tally.valid_cells++;
				fprintf(out,
					"{\"record\":\"valid\",\"family\":\"%s\",\"op\":\"%s\","
					"\"op_id\":%d,\"datatype\":\"%s\",\"dt_id\":%d,"
					"\"count\":%zu,\"query_ret\":%d,\"query_count\":%zu,"
					"\"query_size\":%zu}\n",
					fam_name[fam], op_name[op], op_val[op], dt_name[dt],
					dt_val[dt], count, q, attr.count, attr.size);
				if (q != 0)
					fprintf(stderr, "fi_record: %s %s %s: valid but "
						"query returns %d\n", fam_name[fam],
						op_name[op], dt_name[dt], q);
				run_cell(fam, op, dt, count);
			}
		}
	}

	fflush(out);
	if (path)
		fclose(out);
	teardown();
	fprintf(stderr,
		"fi_record: libfabric %u.%u provider %s: %d valid cells, %d "
		"unsupported cells, %d cases (%d with NaN inputs), %d failed "
		"calls, %d ATOMIC_READs that changed the target\n",
		FI_MAJOR(version), FI_MINOR(version), prov, tally.valid_cells,
		tally.invalid_cells, tally.cases, tally.nan_cases,
		tally.failed_calls, tally.read_touched);
	return tally.failed_calls ? 1 : 0;
}
