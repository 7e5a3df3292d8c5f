/* test_mem: regions per space, overlap and adjacency, not-captured reads, zero chunks. */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pt_mem.h"
#include "testutil.h"

static uint8_t pattern(uint64_t pa)
{
	return (uint8_t)(pa * 7 + (pa >> 8) + 1);
}

static uint8_t *pattern_buf(uint64_t base, size_t len)
{
	uint8_t *b = malloc(len);

	for (size_t i = 0; i < len; i++)
		b[i] = pattern(base + i);
	return b;
}

/* A borrowed region for mem_of(). */
struct breg {
	unsigned space;
	uint64_t base;
	const void *data;
	size_t len;
};

/* A sealed pt_mem of NSPACES spaces holding the N borrowed regions R (in that order). */
static struct pt_mem *mem_of(unsigned nspaces, const struct breg *r, size_t n)
{
	struct pt_mem *m = pt_mem_new(nspaces);

	ck_assert_ptr_nonnull(m);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(pt_mem_add_borrowed(m, r[i].space, r[i].base, r[i].data, r[i].len, NULL),
				 PT_OK);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	return m;
}

/* A read of LEN bytes at SPACE:PA succeeds exactly when OK says so. */
struct read_case {
	unsigned space;
	uint64_t pa;
	size_t len;
	bool ok;
	const char *what;
};

static void check_reads(const struct pt_mem *m, const struct read_case *c, size_t n)
{
	uint8_t out[64];

	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_le(c[i].len, sizeof out);
		ck_assert_msg(pt_mem_read(m, c[i].space, c[i].pa, out, c[i].len) == c[i].ok,
			      "read of %zu at %u:0x%llx (%s): want %s", c[i].len, c[i].space,
			      (unsigned long long)c[i].pa, c[i].what, c[i].ok ? "captured" : "not captured");
	}
}

/* pt_mem_cover() of LEN bytes at SPACE:PA is WANT. */
struct cover_case {
	unsigned space;
	uint64_t pa, len;
	enum pt_cover want;
	const char *what;
};

static void check_covers(const struct pt_mem *m, const struct cover_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		enum pt_cover got = pt_mem_cover(m, c[i].space, c[i].pa, c[i].len);

		ck_assert_msg(got == c[i].want, "cover of 0x%llx at %u:0x%llx (%s): %d, want %d",
			      (unsigned long long)c[i].len, c[i].space, (unsigned long long)c[i].pa,
			      c[i].what, (int)got, (int)c[i].want);
	}
}

START_TEST(borrowed_read)
{
	struct pt_mem *m = pt_mem_new(2);
	uint8_t *d = pattern_buf(0x1000, 0x2000), out[16];
	unsigned id = 99;

	ck_assert_int_eq(pt_mem_add_borrowed(m, 1, 0x1000, d, 0x2000, &id), PT_OK);
	ck_assert_uint_eq(id, 0);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert(pt_mem_read(m, 1, 0x1ff8, out, 16));
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(out[i], pattern(0x1ff8 + i));
	/* Same address in the other space: nothing there. */
	ck_assert(!pt_mem_read(m, 0, 0x1ff8, out, 8));
	/* Space out of range. */
	ck_assert(!pt_mem_read(m, 2, 0x1000, out, 8));
	/* First and last bytes. */
	ck_assert(pt_mem_read(m, 1, 0x1000, out, 1));
	ck_assert_uint_eq(out[0], pattern(0x1000));
	ck_assert(pt_mem_read(m, 1, 0x2fff, out, 1));
	ck_assert_uint_eq(out[0], pattern(0x2fff));
	pt_mem_free(m);
	free(d);
}
END_TEST

START_TEST(not_captured)
{
	static const uint8_t d[0x100] = {1};
	static const struct breg r[] = {{0, 0x1000, d, sizeof d}};
	static const struct read_case reads[] = {
		{0, 0xff8, 8, false, "before"},
		{0, 0xffc, 8, false, "straddles the start"},
		{0, 0x10fc, 8, false, "straddles the end"},
		{0, 0x1100, 8, false, "just after"},
		{0, 0x10f8, 8, true, "last 8 bytes"},
		{0, UINT64_MAX - 3, 8, false, "wraps"},
	};
	struct pt_mem *m = mem_of(1, r, 1);

	check_reads(m, reads, sizeof reads / sizeof *reads);
	pt_mem_free(m);
}
END_TEST

START_TEST(read_before_seal)
{
	struct pt_mem *m = pt_mem_new(1);
	uint8_t d[16] = {0}, out[8];

	ck_assert_int_eq(pt_mem_add_borrowed(m, 0, 0, d, sizeof d, NULL), PT_OK);
	ck_assert(!pt_mem_read(m, 0, 0, out, 8));
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert(pt_mem_read(m, 0, 0, out, 8));
	/* Sealed: no more building. */
	ck_assert_int_eq(pt_mem_add_borrowed(m, 0, 0x100, d, sizeof d, NULL), PT_E_USAGE);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_E_USAGE);
	pt_mem_free(m);
}
END_TEST

START_TEST(bad_args)
{
	struct pt_mem *m = pt_mem_new(2);
	uint8_t d[16] = {0};
	unsigned id;

	ck_assert_int_eq(pt_mem_add_borrowed(m, 2, 0, d, sizeof d, NULL), PT_E_USAGE);
	ck_assert_int_eq(pt_mem_add_borrowed(m, 0, UINT64_MAX - 7, d, 16, NULL), PT_E_VALUE);
	/* A region may end at the very top of the address space. */
	ck_assert_int_eq(pt_mem_add_borrowed(m, 0, UINT64_MAX - 15, d, 16, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_add_built(m, 1, 0, 100, &id), PT_OK);
	ck_assert_int_eq(pt_mem_region_write(m, id, 90, d, 11), PT_E_USAGE);
	ck_assert_int_eq(pt_mem_region_write(m, id, 101, d, 0), PT_E_USAGE);
	ck_assert_int_eq(pt_mem_region_write(m, 0, 0, d, 1), PT_E_USAGE);   /* borrowed */
	ck_assert_int_eq(pt_mem_region_write(m, 7, 0, d, 1), PT_E_USAGE);   /* no such id */
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert(pt_mem_read(m, 0, UINT64_MAX - 7, d, 8));
	ck_assert_int_eq(pt_mem_region_write(m, id, 0, d, 1), PT_E_USAGE);  /* sealed */
	pt_mem_free(m);
	pt_mem_free(NULL);
}
END_TEST

START_TEST(overlap_rejected)
{
	struct pt_mem *m = pt_mem_new(2);
	uint8_t d[0x2000] = {0}, e[0x10] = {1};
	unsigned a = 99, b = 99;

	ck_assert_int_eq(pt_mem_add_borrowed(m, 0, 0x10000, d, 0x1000, NULL), PT_OK);   /* 0 */
	ck_assert_int_eq(pt_mem_add_borrowed(m, 1, 0x10800, d, 0x1000, NULL), PT_OK);   /* 1: other space */
	ck_assert_int_eq(pt_mem_add_borrowed(m, 0, 0x8000, d, 0x1000, NULL), PT_OK);    /* 2 */
	ck_assert_int_eq(pt_mem_add_borrowed(m, 0, 0x10fff, e, 0x10, NULL), PT_OK);     /* 3: last byte of 0, differs */
	ck_assert_int_eq(pt_mem_seal(m, &a, &b), PT_E_CAPTURE);
	ck_assert_uint_eq(a, 0);
	ck_assert_uint_eq(b, 3);
	pt_mem_free(m);

	/* Same base, both ids reported lowest first. */
	m = pt_mem_new(1);
	ck_assert_int_eq(pt_mem_add_built(m, 0, 0x4000, 0x10, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_add_built(m, 0, 0x4000, 0x1000, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_region_write(m, 1, 0xf, e, 1), PT_OK);
	ck_assert_int_eq(pt_mem_seal(m, &a, &b), PT_E_CAPTURE);
	ck_assert_uint_eq(a, 0);
	ck_assert_uint_eq(b, 1);
	pt_mem_free(m);
}
END_TEST

/* docs/design.md §3.1: overlapping regions whose bytes agree merge (umr re-reads, gem5's GART copy). */
START_TEST(overlap_agreeing_merges)
{
	struct pt_mem *m = pt_mem_new(1);
	uint8_t d[0x3000], out[0x3000];

	for (size_t i = 0; i < sizeof d; i++)
		d[i] = (uint8_t)(i * 7 + 1);
	/* a 0x1000-0x2fff, b 0x2000-0x3fff (its first half repeats a), c inside a, e 0x2800-0x37ff inside a+b */
	ck_assert_int_eq(pt_mem_add_borrowed(m, 0, 0x1000, d, 0x2000, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_add_built(m, 0, 0x2000, 0x2000, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_region_write(m, 1, 0, d + 0x1000, 0x2000), PT_OK);
	ck_assert_int_eq(pt_mem_add_borrowed(m, 0, 0x1100, d + 0x100, 0x10, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_add_borrowed(m, 0, 0x2800, d + 0x1800, 0x1000, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert(pt_mem_read(m, 0, 0x1000, out, 0x3000));
	ck_assert_mem_eq(out, d, 0x3000);
	ck_assert(!pt_mem_read(m, 0, 0x3fff, out, 2));
	ck_assert(pt_mem_read(m, 0, 0x2ffe, out, 4));
	ck_assert_mem_eq(out, d + 0x1ffe, 4);
	ck_assert_int_eq(pt_mem_cover(m, 0, 0x1000, 0x3000), PT_COVER_FULL);
	pt_mem_free(m);
}
END_TEST

START_TEST(adjacent_join)
{
	struct pt_mem *m = pt_mem_new(1);
	uint8_t *lo = pattern_buf(0x1000, 0x1000), out[32];
	uint8_t *hi = pattern_buf(0x2000, 0x800);
	unsigned id;
	static const struct cover_case covers[] = {
		{0, 0x1000, 0x1800, PT_COVER_FULL, "both regions"},
		{0, 0x1000, 0x1801, PT_COVER_PARTIAL, "one byte past them"},
	};

	/* Added out of order: a borrowed high part and a built low part. */
	ck_assert_int_eq(pt_mem_add_borrowed(m, 0, 0x2000, hi, 0x800, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_add_built(m, 0, 0x1000, 0x1000, &id), PT_OK);
	ck_assert_int_eq(pt_mem_region_write(m, id, 0, lo, 0x1000), PT_OK);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	/* A read spanning both regions. */
	ck_assert(pt_mem_read(m, 0, 0x1ff0, out, 32));
	for (int i = 0; i < 32; i++)
		ck_assert_uint_eq(out[i], pattern(0x1ff0 + i));
	check_covers(m, covers, sizeof covers / sizeof *covers);
	pt_mem_free(m);
	free(lo);
	free(hi);
}
END_TEST

START_TEST(gap_not_joined)
{
	static const uint8_t d[0x100];
	static const struct breg r[] = {{0, 0x1000, d, 0x100}, {0, 0x1101, d, 0x100}};
	static const struct read_case reads[] = {
		{0, 0x10f8, 16, false, "one byte missing at 0x1100"},
		{0, 0x1101, 16, true, "the second region"},
	};
	static const struct cover_case covers[] = {
		{0, 0x10f8, 16, PT_COVER_PARTIAL, "across the gap"},
	};
	struct pt_mem *m = mem_of(1, r, 2);

	check_reads(m, reads, sizeof reads / sizeof *reads);
	check_covers(m, covers, sizeof covers / sizeof *covers);
	pt_mem_free(m);
}
END_TEST

START_TEST(cover)
{
	static const uint8_t d[0x1000];
	static const struct breg r[] = {{0, 0x10000, d, 0x1000}, {0, 0x12000, d, 0x1000}};
	static const struct cover_case covers[] = {
		{0, 0x10000, 0x1000, PT_COVER_FULL, "the first region"},
		{0, 0x10000, 0x3000, PT_COVER_PARTIAL, "a table in part"},
		{0, 0xf000, 0x1000, PT_COVER_NONE, "before"},
		{0, 0x11000, 0x1000, PT_COVER_NONE, "the hole"},
		{0, 0x11800, 0x1000, PT_COVER_PARTIAL, "half hole, half region"},
		{0, 0x10000, 0, PT_COVER_NONE, "length 0"},
		{1, 0x10000, 0x1000, PT_COVER_NONE, "the other space"},
		{5, 0x10000, 0x1000, PT_COVER_NONE, "no such space"},
		{0, 0x12000, UINT64_MAX, PT_COVER_PARTIAL, "wraps"},
	};
	struct pt_mem *m = mem_of(2, r, 2);

	check_covers(m, covers, sizeof covers / sizeof *covers);
	pt_mem_free(m);
}
END_TEST

START_TEST(zero_chunks_free)
{
	struct pt_mem *m = pt_mem_new(1);
	static uint8_t buf[1 << 20];
	uint8_t out[16];
	unsigned id;

	/* 1 GiB region, all zero: no chunk at all. */
	ck_assert_int_eq(pt_mem_add_built(m, 0, 0, 1ull << 30, &id), PT_OK);
	memset(buf, 0, sizeof buf);
	for (uint64_t off = 0; off < (64u << 20); off += sizeof buf)
		ck_assert_int_eq(pt_mem_region_write(m, id, off, buf, sizeof buf), PT_OK);
	ck_assert_uint_eq(pt_mem_resident(m), 0);
	/* One non-zero byte costs one 4 KiB chunk. */
	buf[5] = 0xaa;
	ck_assert_int_eq(pt_mem_region_write(m, id, 0x300000, buf, 16), PT_OK);
	ck_assert_uint_eq(pt_mem_resident(m), 4096);
	/* A zero write into an existing chunk changes bytes, no new chunk. */
	memset(buf, 0, 16);
	ck_assert_int_eq(pt_mem_region_write(m, id, 0x300004, buf, 2), PT_OK);
	ck_assert_uint_eq(pt_mem_resident(m), 4096);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert(pt_mem_read(m, 0, 0x300000, out, 8));
	ck_assert_uint_eq(out[4], 0);
	ck_assert_uint_eq(out[5], 0);      /* overwritten by the zero write */
	ck_assert(pt_mem_read(m, 0, (1ull << 30) - 8, out, 8));
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(out[i], 0);
	pt_mem_free(m);
}
END_TEST

START_TEST(short_last_chunk)
{
	struct pt_mem *m = pt_mem_new(1);
	uint8_t d[100], out[100];
	unsigned id;

	memset(d, 0x5a, sizeof d);
	/* A region of 64 KiB + 100 bytes: the tail chunk costs 100 bytes. */
	ck_assert_int_eq(pt_mem_add_built(m, 0, 0x1000, 65536 + 100, &id), PT_OK);
	ck_assert_int_eq(pt_mem_region_write(m, id, 65536, d, 100), PT_OK);
	ck_assert_uint_eq(pt_mem_resident(m), 100);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert(pt_mem_read(m, 0, 0x1000 + 65536, out, 100));
	ck_assert_mem_eq(out, d, 100);
	pt_mem_free(m);
}
END_TEST

START_TEST(built_across_chunks)
{
	struct pt_mem *m = pt_mem_new(1);
	size_t len = 300000;
	uint8_t *d = pattern_buf(0x40000, len), *out = malloc(len);
	unsigned id;

	ck_assert_int_eq(pt_mem_add_built(m, 0, 0x40000, len, &id), PT_OK);
	/* Written backwards in odd pieces: chunks are inserted in order. */
	for (size_t end = len; end > 0;) {
		size_t n = end > 7777 ? 7777 : end;

		ck_assert_int_eq(pt_mem_region_write(m, id, end - n, d + end - n, n), PT_OK);
		end -= n;
	}
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert(pt_mem_read(m, 0, 0x40000, out, len));
	ck_assert_mem_eq(out, d, len);
	ck_assert(pt_mem_read(m, 0, 0x40000 + 65530, out, 20));
	ck_assert_mem_eq(out, d + 65530, 20);
	ck_assert_uint_eq(pt_mem_resident(m), len);
	pt_mem_free(m);
	free(d);
	free(out);
}
END_TEST

/* pt_mem_direct: a pointer only inside one non-zero heap chunk, after seal. */
START_TEST(direct_pointer)
{
	struct pt_mem *m = pt_mem_new(2);
	size_t len = 0x30000;
	uint8_t *d = pattern_buf(0x40000, len), *b = pattern_buf(0x1000, 0x2000);
	const uint8_t *p;
	unsigned id, bid;

	ck_assert_int_eq(pt_mem_add_built(m, 0, 0x40000, len, &id), PT_OK);
	/* [0x10000, 0x20000) stays zero: never written, no chunk */
	ck_assert_int_eq(pt_mem_region_write(m, id, 0, d, 0x10000), PT_OK);
	ck_assert_int_eq(pt_mem_region_write(m, id, 0x20000, d + 0x20000, 0x10000), PT_OK);
	ck_assert_int_eq(pt_mem_add_borrowed(m, 1, 0x1000, b, 0x2000, &bid), PT_OK);
	ck_assert_ptr_null(pt_mem_direct(m, 0, 0x40000, 8));   /* not sealed yet */
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	p = pt_mem_direct(m, 0, 0x40000 + 0x1000, 0x1000);
	ck_assert_ptr_nonnull(p);
	ck_assert_mem_eq(p, d + 0x1000, 0x1000);
	p = pt_mem_direct(m, 0, 0x40000 + 0x2fff8, 8);   /* the last 8 bytes */
	ck_assert_ptr_nonnull(p);
	ck_assert_mem_eq(p, d + 0x2fff8, 8);
	ck_assert_ptr_null(pt_mem_direct(m, 0, 0x40000 + 0xfff8, 16));    /* across chunks */
	ck_assert_ptr_null(pt_mem_direct(m, 0, 0x40000 + 0x10000, 8));    /* a zero chunk */
	ck_assert_ptr_null(pt_mem_direct(m, 0, 0x40000 + 0x2fff8, 16));   /* past the region */
	ck_assert_ptr_null(pt_mem_direct(m, 0, 0x3fff8, 16));             /* before it */
	ck_assert_ptr_null(pt_mem_direct(m, 1, 0x40000, 8));              /* other space */
	ck_assert_ptr_null(pt_mem_direct(m, 1, 0x1000, 8));               /* borrowed */
	ck_assert_ptr_null(pt_mem_direct(m, 2, 0x40000, 8));              /* no such space */
	ck_assert_ptr_null(pt_mem_direct(m, 0, 0x40000, 0));
	ck_assert_ptr_null(pt_mem_direct(m, 0, UINT64_MAX - 3, 8));      /* wraps */
	pt_mem_free(m);
	free(d);
	free(b);
}
END_TEST

START_TEST(empty_region)
{
	/* An empty region covers nothing, so it overlaps nothing: the seal succeeds. */
	static const uint8_t d[16];
	static const struct breg r[] = {{0, 0x1000, d, 0}, {0, 0x1000, d, 16}};
	static const struct read_case reads[] = {{0, 0x1000, 1, true, "the non-empty region"}};
	struct pt_mem *m = mem_of(1, r, 2);

	check_reads(m, reads, 1);
	pt_mem_free(m);
}
END_TEST

START_TEST(many_regions)
{
	struct pt_mem *m = pt_mem_new(3);
	static uint8_t d[4096];
	static const struct read_case reads[] = {
		{0, 0x2000ull * 1234 + 8, 8, true, "an even page in space 0"},
		{2, 0x2000ull * 1234 + 8, 8, false, "an even page in space 2"},
		{2, 0x2000ull * 1235 + 8, 8, true, "an odd page in space 2"},
		{0, 0x2000ull * 1234 + 0x1000, 8, false, "the gap after a page"},
		{1, 0, 8, false, "space 1 holds nothing"},
	};

	for (unsigned i = 0; i < 10000; i++) {
		/* Every other page, in reverse, spread over spaces 0 and 2. */
		unsigned k = 9999 - i;

		ck_assert_int_eq(pt_mem_add_borrowed(m, (k % 2) * 2, (uint64_t)k * 0x2000, d, 4096, NULL),
				 PT_OK);
	}
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	check_reads(m, reads, sizeof reads / sizeof *reads);
	pt_mem_free(m);
}
END_TEST

/* A loader's chunk handed over whole reads back, counts as resident, and is freed by pt_mem_free. */
START_TEST(adopt_chunk)
{
	struct pt_mem *m = pt_mem_new(1);
	uint8_t *c = malloc(0x1000), *d = malloc(0x1000), out[8];
	unsigned id;

	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(d);
	memset(c, 0xab, 0x1000);
	memset(d, 0xcd, 0x1000);
	/* 4 KiB chunks: a region of one and a half */
	ck_assert_int_eq(pt_mem_add_built(m, 0, 0x100000, 0x1800, &id), PT_OK);
	ck_assert_int_eq(pt_mem_region_adopt(m, id, 0x800, c, 0x1000), PT_E_USAGE);   /* misaligned */
	ck_assert_int_eq(pt_mem_region_adopt(m, id, 0x1000, c, 0x400), PT_E_USAGE);   /* short */
	ck_assert_int_eq(pt_mem_region_adopt(m, id, 0x2000, c, 0x1000), PT_E_USAGE);  /* past the end */
	ck_assert_int_eq(pt_mem_region_adopt(m, id, 0x1000, c, 0x1000), PT_OK);       /* last chunk: 0x800 used */
	ck_assert_int_eq(pt_mem_region_adopt(m, id, 0x1000, d, 0x1000), PT_E_USAGE);  /* taken */
	ck_assert_uint_eq(pt_mem_resident(m), 0x800);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert(pt_mem_read(m, 0, 0x101000, out, sizeof out));
	ck_assert_uint_eq(out[0], 0xab);
	ck_assert_uint_eq(out[7], 0xab);
	ck_assert(pt_mem_read(m, 0, 0x100ffc, out, sizeof out));   /* zero chunk, then adopted */
	ck_assert_uint_eq(out[3], 0);
	ck_assert_uint_eq(out[4], 0xab);
	ck_assert(!pt_mem_read(m, 0, 0x1017fc, out, sizeof out));
	free(d);
	pt_mem_free(m);
}
END_TEST

/*
 * Issue #16.3: a borrowed region is an mmap of a file someone else may
 * truncate.  Three pages of a temporary file, mapped and borrowed, then cut
 * to one page: with the handler installed a read of a lost page is "not
 * captured" and the process lives; the page that is left still reads.
 */
static uint8_t *shrunk_map(size_t *len)
{
	char path[] = "/tmp/ptfs-test-mem-XXXXXX";
	int fd = mkstemp(path);
	uint8_t *d = pattern_buf(0, 3 * 4096), *p;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, d, 3 * 4096), 3 * 4096);
	p = mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(ftruncate(fd, 4096), 0);
	close(fd);
	unlink(path);
	free(d);
	*len = 3 * 4096;
	return p;
}

START_TEST(shrunk_file_read)
{
	size_t len;
	uint8_t *p = shrunk_map(&len), out[16], one;
	struct pt_mem *m = pt_mem_new(1);

	ck_assert_int_eq(pt_mem_fault_install(), PT_OK);
	ck_assert_int_eq(pt_mem_add_borrowed(m, 0, 0x100000, p, len, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert(pt_mem_read(m, 0, 0x100010, out, sizeof out));
	ck_assert_uint_eq(out[0], pattern(0x10));
	ck_assert(!pt_mem_read(m, 0, 0x102000, out, sizeof out));       /* lost page */
	ck_assert(!pt_mem_read(m, 0, 0x100ff8, out, sizeof out));       /* straddles the new end */
	ck_assert(!pt_mem_copy_mapped(&one, p + 2 * 4096 + 5, 1));
	/* Recovered more than once, and reads go on working. */
	ck_assert(!pt_mem_read(m, 0, 0x101000, out, 1));
	ck_assert(pt_mem_read(m, 0, 0x100fff, out, 1));
	ck_assert_uint_eq(out[0], pattern(0xfff));
	pt_mem_free(m);
	munmap(p, len);
}
END_TEST

/* A lost page touched outside an armed copy keeps SIGBUS's default action. */
START_TEST(unarmed_fault_kills)
{
	size_t len;
	const volatile uint8_t *p = shrunk_map(&len);

	ck_assert_int_eq(pt_mem_fault_install(), PT_OK);
	printf("%u\n", p[2 * 4096]);
}
END_TEST

/* So does a SIGBUS someone sends. */
START_TEST(sent_sigbus_kills)
{
	ck_assert_int_eq(pt_mem_fault_install(), PT_OK);
	kill(getpid(), SIGBUS);
}
END_TEST

/* ---- regions read on demand (pt_mem_add_reader) ---- */

/* A reader over a pattern: byte i of the data is (i * 7 + 3) & 0xff; FAIL_PAGE fails. */
struct pat {
	uint64_t size;
	unsigned calls;
	uint64_t fail_page;     /* UINT64_MAX: none */
	uint64_t last_off;
	size_t last_len;
};

static pt_err pat_read(void *ud, uint64_t off, void *buf, size_t len)
{
	struct pat *p = ud;
	uint8_t *b = buf;

	p->calls++;
	p->last_off = off;
	p->last_len = len;
	ck_assert_uint_le(off + len, p->size);
	if (off >> 12 == p->fail_page)
		return PT_E_IO;
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)((off + i) * 7 + 3);
	return PT_OK;
}

START_TEST(reader_read)
{
	struct pat p = {.size = 3 * 4096 + 100, .fail_page = UINT64_MAX};
	struct pt_mem *m = pt_mem_new(2);
	uint8_t out[8192];
	unsigned id;

	ck_assert_int_eq(pt_mem_add_reader(m, 1, 0x10000, p.size, pat_read, &p, &id), PT_OK);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert_uint_eq(p.calls, 0);    /* nothing read at load */
	/* across a page boundary: two whole pages read, once each */
	ck_assert(pt_mem_read(m, 1, 0x10000 + 4000, out, 200));
	for (size_t i = 0; i < 200; i++)
		ck_assert_uint_eq(out[i], (uint8_t)((4000 + i) * 7 + 3));
	ck_assert_uint_eq(p.calls, 2);
	ck_assert(pt_mem_read(m, 1, 0x10000 + 4100, out, 8));
	ck_assert_uint_eq(p.calls, 2);    /* kept: no second read of page 1 */
	/* the short last page is read at its length, never past the data */
	ck_assert(pt_mem_read(m, 1, 0x10000 + 3 * 4096 + 90, out, 10));
	ck_assert_uint_eq(p.last_off, 3 * 4096);
	ck_assert_uint_eq(p.last_len, 100);
	ck_assert_uint_eq(out[9], (uint8_t)((3 * 4096 + 99) * 7 + 3));
	/* past the end, and another space: not captured, no call */
	p.calls = 0;
	ck_assert(!pt_mem_read(m, 1, 0x10000 + 3 * 4096 + 90, out, 11));
	ck_assert(!pt_mem_read(m, 0, 0x10000, out, 1));
	ck_assert_int_eq(pt_mem_cover(m, 1, 0x10000, p.size), PT_COVER_FULL);
	ck_assert_ptr_null(pt_mem_direct(m, 1, 0x10000, 8));    /* never a pointer into a reader */
	ck_assert_uint_eq(pt_mem_resident(m), 0);
	pt_mem_free(m);
}
END_TEST

START_TEST(reader_fails_closed)
{
	struct pat p = {.size = 4 * 4096, .fail_page = 2};
	struct pt_mem *m = pt_mem_new(1);
	uint8_t out[16];

	ck_assert_int_eq(pt_mem_add_reader(m, 0, 0, p.size, pat_read, &p, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_add_reader(m, 0, 0, 4096, NULL, &p, NULL), PT_E_USAGE);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert(pt_mem_read(m, 0, 4096, out, 16));
	/* a failing page is not captured, every time (a failure is never kept) */
	ck_assert(!pt_mem_read(m, 0, 2 * 4096 + 8, out, 8));
	p.calls = 0;
	ck_assert(!pt_mem_read(m, 0, 2 * 4096 + 8, out, 8));
	ck_assert_uint_eq(p.calls, 1);
	/* a read that ends in it fails whole */
	ck_assert(!pt_mem_read(m, 0, 2 * 4096 - 8, out, 16));
	ck_assert(pt_mem_read(m, 0, 3 * 4096, out, 16));
	pt_mem_free(m);
}
END_TEST

/* The pattern reader's why: its failing page is held but unreadable; any other is not. */
static bool pat_why(void *ud, uint64_t off, char *why, size_t len)
{
	struct pat *p = ud;

	if (off >> 12 != p->fail_page)
		return false;
	snprintf(why, len, "page %u is corrupt", (unsigned)(off >> 12));
	return true;
}

START_TEST(reader_unreadable)
{
	/* a page the source holds but cannot read is told apart from one it does not hold */
	struct pat p = {.size = 4 * 4096, .fail_page = 2};
	struct pt_mem *m = pt_mem_new(1);
	char why[64] = "";
	uint64_t bad = 0;
	unsigned id;

	ck_assert_int_eq(pt_mem_add_reader(m, 0, 0x100000, p.size, pat_read, &p, &id), PT_OK);
	ck_assert_int_eq(pt_mem_reader_why(m, id, pat_why), PT_OK);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_reader_why(m, id, pat_why), PT_E_USAGE);   /* sealed */
	ck_assert(pt_mem_unreadable(m, 0, 0x100000 + 2 * 4096 + 8, 8, &bad, why, sizeof why));
	ck_assert_uint_eq(bad, 0x100000 + 2 * 4096 + 8);
	ck_assert_str_eq(why, "page 2 is corrupt");
	/* a range across it names its first unreadable byte */
	ck_assert(pt_mem_unreadable(m, 0, 0x100000 + 4096, 3 * 4096, &bad, why, sizeof why));
	ck_assert_uint_eq(bad, 0x100000 + 2 * 4096);
	/* a page that reads, and memory outside the region: never unreadable, and not asked */
	ck_assert(!pt_mem_unreadable(m, 0, 0x100000, 4096, &bad, why, sizeof why));
	ck_assert(!pt_mem_unreadable(m, 0, 0, 0x1000, &bad, why, sizeof why));
	pt_mem_free(m);
	/* a reader without WHY: a failed read is only not captured */
	m = pt_mem_new(1);
	ck_assert_int_eq(pt_mem_add_reader(m, 0, 0, p.size, pat_read, &p, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	ck_assert(!pt_mem_unreadable(m, 0, 2 * 4096, 8, &bad, why, sizeof why));
	pt_mem_free(m);
}
END_TEST

START_TEST(reader_overlap_checked)
{
	struct pat p = {.size = 8192, .fail_page = UINT64_MAX};
	struct pt_mem *m = pt_mem_new(1);
	uint8_t same[4096], other[4096];
	unsigned id, a = 9, b = 9;

	for (size_t i = 0; i < sizeof same; i++)
		same[i] = (uint8_t)((4096 + i) * 7 + 3);
	/* a built copy of the reader's second page agrees: merged */
	ck_assert_int_eq(pt_mem_add_reader(m, 0, 0, p.size, pat_read, &p, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_add_built(m, 0, 4096, 4096, &id), PT_OK);
	ck_assert_int_eq(pt_mem_region_write(m, id, 0, same, sizeof same), PT_OK);
	ck_assert_int_eq(pt_mem_seal(m, NULL, NULL), PT_OK);
	pt_mem_free(m);
	/* one byte differs: refused, naming both */
	memcpy(other, same, sizeof other);
	other[100] ^= 1;
	m = pt_mem_new(1);
	ck_assert_int_eq(pt_mem_add_reader(m, 0, 0, p.size, pat_read, &p, NULL), PT_OK);
	ck_assert_int_eq(pt_mem_add_built(m, 0, 4096, 4096, &id), PT_OK);
	ck_assert_int_eq(pt_mem_region_write(m, id, 0, other, sizeof other), PT_OK);
	ck_assert_int_eq(pt_mem_seal(m, &a, &b), PT_E_CAPTURE);
	ck_assert_uint_eq(a, 0);
	ck_assert_uint_eq(b, 1);
	pt_mem_free(m);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("mem");
	TCase *tc;

	tc = tcase_create("read");
	tcase_add_test(tc, borrowed_read);
	tcase_add_test(tc, not_captured);
	tcase_add_test(tc, read_before_seal);
	tcase_add_test(tc, bad_args);
	tcase_add_test(tc, many_regions);
	suite_add_tcase(s, tc);

	tc = tcase_create("regions");
	tcase_add_test(tc, overlap_rejected);
	tcase_add_test(tc, overlap_agreeing_merges);
	tcase_add_test(tc, adjacent_join);
	tcase_add_test(tc, gap_not_joined);
	tcase_add_test(tc, cover);
	tcase_add_test(tc, empty_region);
	suite_add_tcase(s, tc);

	tc = tcase_create("chunks");
	tcase_add_test(tc, zero_chunks_free);
	tcase_add_test(tc, short_last_chunk);
	tcase_add_test(tc, built_across_chunks);
	tcase_add_test(tc, direct_pointer);
	tcase_add_test(tc, adopt_chunk);
	suite_add_tcase(s, tc);

	tc = tcase_create("reader");
	tcase_add_test(tc, reader_read);
	tcase_add_test(tc, reader_fails_closed);
	tcase_add_test(tc, reader_unreadable);
	tcase_add_test(tc, reader_overlap_checked);
	suite_add_tcase(s, tc);

	tc = tcase_create("fault");
	tcase_add_test(tc, shrunk_file_read);
	tcase_add_test_raise_signal(tc, unarmed_fault_kills, SIGBUS);
	tcase_add_test_raise_signal(tc, sent_sigbus_kills, SIGBUS);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
