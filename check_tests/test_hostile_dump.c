/*
 * test_hostile_dump.c — hostile memory dumps through pt_capture_load()
 * (issue #22 item 6; docs/design.md §3.2): every offset and size of an ELF core or
 * a kdump file is checked against the file, so a lying header is one clear
 * line naming the file, nothing loaded, no crash and no read outside the
 * file (this suite runs under ASan in CI).  The cores are built from the
 * gABI layout (elf_util.c), never by the reader.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_util.h"
#include "dumpmem_util.h"
#include "elf_util.h"
#include "pt_capture.h"
#include "pt_mem.h"
#include "pt_walk.h"
#include "testutil.h"

static char *dir;

/* Writes LEN bytes of B as DIR/vmcore and loads it; RC must be WANT, the error MSG (if not NULL). */
static struct pt_capture *load_bytes(const uint8_t *b, size_t len, pt_err want, const char *msg)
{
	struct pt_capture *cap = pt_capture_new();
	char path[4200];
	pt_err rc;

	dir = tu_mkdtemp();
	tu_write(dir, "vmcore", b, len);
	snprintf(path, sizeof path, "%s/vmcore", dir);
	rc = pt_capture_load(cap, path);
	ck_assert_msg(rc == want, "load: %s (%s), want %s", pt_errname(rc), pt_capture_error(cap),
		      pt_errname(want));
	if (rc) {
		/* one line, naming the file, nothing loaded */
		ck_assert_msg(!strncmp(pt_capture_error(cap), "vmcore: ", 8), "%s", pt_capture_error(cap));
		ck_assert_ptr_null(strchr(pt_capture_error(cap), '\n'));
		ck_assert_ptr_null(pt_capture_mem(cap));
		ck_assert_uint_eq(pt_capture_context_count(cap), 0);
	}
	if (msg)
		ck_assert_str_eq(pt_capture_error(cap), msg);
	return cap;
}

static void done(struct pt_capture *cap)
{
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
	dir = NULL;
}

/* Loads B expecting WANT and MSG, and cleans up. */
static void fails(uint8_t *b, size_t len, pt_err want, const char *msg)
{
	done(load_bytes(b, len, want, msg));
	free(b);
}

/* True when some load warning of CAP contains S. */
static bool warned(const struct pt_capture *cap, const char *s)
{
	for (size_t i = 0; i < pt_capture_warning_count(cap); i++)
		if (strstr(pt_capture_warning(cap, i), s))
			return true;
	return false;
}

static uint8_t q[432];
static uint8_t page[0x2000];

/* A valid core: one QEMU note, one 8 KiB PT_LOAD at 0. */
static uint8_t *good(size_t *len)
{
	static struct eu_note n[] = {{"QEMU", 0, q, sizeof q}};
	static struct eu_seg s[] = {{0, page, sizeof page, 0, false}};
	struct eu_core c = {.notes = n, .nnotes = 1, .segs = s, .nsegs = 1};

	eu_qemu_state(q, 0x1000, 0);
	return eu_build(&c, len);
}

/* File offsets inside good()'s output: program header I, the notes. */
#define PH(i) (64 + 56 * (i))
#define NOTES (64 + 56 * 2)

START_TEST(load_past_eof)
{
	size_t len;
	uint8_t *b = good(&len);
	char msg[512];

	eu_put64(b + PH(1) + 32, len);          /* p_filesz: the whole file, from a later offset */
	eu_put64(b + PH(1) + 40, len);
	snprintf(msg, sizeof msg, "vmcore: PT_LOAD 1 (0x%zx bytes at file offset 0x1000) runs past the end "
		 "of the file (0x%zx bytes)", len, len);
	fails(b, len, PT_E_CAPTURE, msg);
	b = good(&len);
	eu_put64(b + PH(1) + 8, UINT64_MAX - 1);  /* p_offset near 2^64: no wrap */
	snprintf(msg, sizeof msg, "vmcore: PT_LOAD 1 (0x2000 bytes at file offset 0xfffffffffffffffe) runs "
		 "past the end of the file (0x%zx bytes)", len);
	fails(b, len, PT_E_CAPTURE, msg);
	b = good(&len);
	eu_put64(b + PH(1) + 40, 0x1000);       /* p_filesz above p_memsz */
	fails(b, len, PT_E_CAPTURE, "vmcore: PT_LOAD 1 has p_filesz 0x2000 above its p_memsz 0x1000");
	b = good(&len);
	eu_put64(b + PH(1) + 24, UINT64_MAX - 0xfff);   /* p_paddr: the segment would end past 2^64 */
	fails(b, len, PT_E_CAPTURE, "vmcore: PT_LOAD 1 (0x2000 bytes at 0xfffffffffffff000) ends past 2^64");
	/* the same through p_memsz (issue #34 item 9): loaded with a warning before */
	b = good(&len);
	eu_put64(b + PH(1) + 24, 0x2000);
	eu_put64(b + PH(1) + 40, UINT64_MAX);
	fails(b, len, PT_E_CAPTURE, "vmcore: PT_LOAD 1 (p_memsz 0xffffffffffffffff at 0x2000) ends past 2^64");
}
END_TEST

START_TEST(note_size_lies)
{
	size_t len;
	uint8_t *b = good(&len);
	char msg[512];

	/* descsz 64 KiB in a PT_NOTE of 452 bytes */
	eu_put32(b + NOTES + 4, 0x10000);
	snprintf(msg, sizeof msg, "vmcore: PT_NOTE 0: the note at 0x%x (name 5 bytes, desc 65536 bytes) runs "
		 "past the end of its 452 bytes of notes", NOTES);
	fails(b, len, PT_E_CAPTURE, msg);
	/* namesz 2^32-1 */
	b = good(&len);
	eu_put32(b + NOTES, 0xffffffff);
	snprintf(msg, sizeof msg, "vmcore: PT_NOTE 0: the note at 0x%x (name 4294967295 bytes, desc 432 bytes) "
		 "runs past the end of its 452 bytes of notes", NOTES);
	fails(b, len, PT_E_CAPTURE, msg);
	/* the PT_NOTE segment itself past the end of the file */
	b = good(&len);
	eu_put64(b + PH(0) + 32, len);
	snprintf(msg, sizeof msg, "vmcore: PT_NOTE 0 (0x%zx bytes at file offset 0x%x) runs past the end of "
		 "the file (0x%zx bytes)", len, NOTES, len);
	fails(b, len, PT_E_CAPTURE, msg);
	/* QEMUCPUState: a later version, and a size field that lies */
	b = good(&len);
	eu_put32(b + NOTES + 12 + 8, 2);
	snprintf(msg, sizeof msg, "vmcore: PT_NOTE 0: QEMU note at 0x%x: QEMUCPUState version 2 (this ptfs "
		 "reads version 1)", NOTES);
	fails(b, len, PT_E_UNSUPPORTED, msg);
	b = good(&len);
	eu_put32(b + NOTES + 12 + 8 + 4, 4096);
	snprintf(msg, sizeof msg, "vmcore: PT_NOTE 0: QEMU note at 0x%x: QEMUCPUState size 4096 in a note of "
		 "432 bytes (version 1 is at least 432, CR3 at 416, CR4 at 424)", NOTES);
	fails(b, len, PT_E_CAPTURE, msg);
	b = good(&len);
	eu_put32(b + NOTES + 4, 8);             /* descsz 8: version and size only */
	snprintf(msg, sizeof msg, "vmcore: PT_NOTE 0: QEMU note at 0x%x: QEMUCPUState size 432 in a note of "
		 "8 bytes (version 1 is at least 432, CR3 at 416, CR4 at 424)", NOTES);
	fails(b, len, PT_E_CAPTURE, msg);
}
END_TEST

START_TEST(headers_lie)
{
	size_t len;
	uint8_t *b = good(&len);
	char msg[512];

	/* e_phnum 60000 in a small file */
	b[56] = 0x60;
	b[57] = 0xea;
	snprintf(msg, sizeof msg, "vmcore: 60000 program headers at 0x40 run past the end of the file "
		 "(0x%zx bytes)", len);
	fails(b, len, PT_E_CAPTURE, msg);
	/* PN_XNUM with no section header */
	b = good(&len);
	b[56] = b[57] = 0xff;
	snprintf(msg, sizeof msg, "vmcore: e_phnum is PN_XNUM but section header 0 (e_shoff 0x0, "
		 "e_shentsize 0) is not in the file (0x%zx bytes)", len);
	fails(b, len, PT_E_CAPTURE, msg);
	/* PN_XNUM, sh_info 2^32-1 */
	{
		struct eu_core c = {.xnum = true};

		b = eu_build(&c, &len);
		eu_put32(b + 64 + 56 + 44, 0xffffffff);
		snprintf(msg, sizeof msg, "vmcore: 4294967295 program headers at 0x40 run past the end of the "
			 "file (0x%zx bytes)", len);
		fails(b, len, PT_E_CAPTURE, msg);
	}
	/* e_phentsize not an Elf64_Phdr */
	b = good(&len);
	b[54] = 32;
	fails(b, len, PT_E_CAPTURE, "vmcore: e_phentsize 32 (an Elf64_Phdr is 56 bytes)");
	/* 32-bit and big-endian cores */
	b = good(&len);
	b[4] = 1;
	fails(b, len, PT_E_UNSUPPORTED, "vmcore: a 32-bit ELF core: this ptfs reads 64-bit little-endian "
	      "(ELFCLASS64, ELFDATA2LSB) cores");
	/* cut inside the ELF header */
	b = good(&len);
	fails(b, 40, PT_E_CAPTURE, "vmcore: not an ELF core file");
}
END_TEST

START_TEST(overlap_differs)
{
	static uint8_t other[0x1000];
	struct eu_seg s[] = {{0, page, sizeof page, 0, false}, {0x1000, other, sizeof other, 0, false}};
	struct eu_note n[] = {{"QEMU", 0, q, sizeof q}};
	struct eu_core c = {.notes = n, .nnotes = 1, .segs = s, .nsegs = 2};
	size_t len;
	uint8_t *b;

	memset(page, 1, sizeof page);
	memset(other, 2, sizeof other);
	eu_qemu_state(q, 0x1000, 0);
	b = eu_build(&c, &len);
	fails(b, len, PT_E_CAPTURE, "vmcore: PT_LOAD 2 (0x1000-0x1fff) overlaps PT_LOAD 1 (0x0-0x1fff) "
	      "with different bytes");
}
END_TEST

START_TEST(many_segments)
{
	/* 65536+ program headers (PN_XNUM): read, bounded, one region each; the load stays fast. */
	enum { N = 70000 };
	struct eu_seg *s = calloc(N, sizeof *s);
	struct eu_note n[] = {{"QEMU", 0, q, sizeof q}};
	struct eu_core c = {.notes = n, .nnotes = 1, .segs = s, .nsegs = N, .xnum = true};
	struct pt_capture *cap;
	size_t len;
	uint8_t *b;

	for (size_t i = 0; i < N; i++)
		s[i] = (struct eu_seg){2 * i * 0x1000, NULL, 8, 0x1000, false};
	eu_qemu_state(q, 0x1000, 0);
	b = eu_build(&c, &len);
	cap = load_bytes(b, len, PT_OK, NULL);
	ck_assert_uint_eq(pt_capture_region_count(cap), N);
	ck_assert_str_eq(pt_capture_region(cap, N - 1)->name, "load70000");
	done(cap);
	free(b);
	free(s);
}
END_TEST

START_TEST(kdump_bitmap_lies)
{
	/* Bitmap 2 claims pages it has no descriptors for: those pages are not captured; nothing crashes. */
	static uint8_t pg[2][4096];
	struct eu_note n[] = {{"QEMU", 0, q, sizeof q}};
	struct eu_page p[] = {{1, pg[0]}, {2, pg[1]}};
	struct eu_kdump k = {"x86_64", n, 1, NULL, p, 2, 64, 5};
	const struct pt_mem *mem;
	struct pt_capture *cap;
	uint8_t buf[16];
	size_t len;
	uint8_t *b;

	memset(pg, 0x33, sizeof pg);
	eu_qemu_state(q, 0x1000, 0);
	b = eu_kdump_build(&k, &len);
	cap = load_bytes(b, len, PT_OK, NULL);
	mem = pt_capture_mem(cap);
	ck_assert(pt_mem_read(mem, 0, 0x1000, buf, sizeof buf));
	ck_assert_uint_eq(buf[0], 0x33);
	for (uint64_t pfn = 3; pfn < 8; pfn++) {
		char why[200];

		ck_assert(!pt_mem_read(mem, 0, pfn * 4096, buf, sizeof buf));
		/* marked dumped, no descriptor of its own: unreadable, not "not captured" */
		ck_assert(pt_mem_unreadable(mem, 0, pfn * 4096, 8, NULL, why, sizeof why));
	}
	ck_assert(!pt_mem_read(mem, 0, 0, buf, sizeof buf));
	done(cap);
	free(b);
}
END_TEST

START_TEST(kdump_bitmap_claims_more)
{
	/*
	 * max_mapnr 2^20 and 5000 bits set past the last page, no descriptors
	 * or data for them: the load says both counts (accepted silently before).
	 */
	static uint8_t pg[4096];
	struct eu_note n[] = {{"QEMU", 0, q, sizeof q}};
	struct eu_page p[] = {{1, pg}};
	struct eu_kdump k = {"x86_64", n, 1, NULL, p, 1, 1u << 20, 5000};
	struct pt_capture *cap;
	char want[300];
	size_t len;
	uint8_t *b;

	eu_qemu_state(q, 0x1000, 0);
	b = eu_kdump_build(&k, &len);
	/* the page data right after the descriptors, as makedumpfile and QEMU write it */
	{
		uint64_t desc = (1 + 1 + 2 * 32) * 4096ull, data = desc + 24;

		memmove(b + data, b + 0x43000, 4096);
		eu_put64(b + desc, data);
		len = (size_t)data + 4096;
		snprintf(want, sizeof want, "the kdump bitmap marks 5001 pages dumped, but only 1 page "
			 "descriptors fit between 0x%" PRIx64 " and the page data at 0x%" PRIx64 ": the other "
			 "5000 pages have none (they read unreadable)", desc, data);
	}
	cap = load_bytes(b, len, PT_OK, NULL);
	ck_assert_msg(warned(cap, want), "no warning '%s'", want);
	ck_assert(pt_mem_read(pt_capture_mem(cap), 0, 0x1000, want, 8));
	ck_assert(pt_mem_unreadable(pt_capture_mem(cap), 0, 0x2000, 8, NULL, want, sizeof want));
	done(cap);
	free(b);
}
END_TEST

/* x86-64 tables for cr3 0x1000: PML4 (pfn 1) -> PDPT (pfn 2) -> PD (pfn 3) with a 2 MiB page at 0x200000. */
static uint8_t tpg[3][4096];

static void tables(void)
{
	memset(tpg, 0, sizeof tpg);
	eu_put64(tpg[0], 0x2003);
	eu_put64(tpg[1], 0x3003);
	eu_put64(tpg[2] + 8, 0x200083);
}

/* File offset of page descriptor I in eu_kdump_build()'s layout (sub-header 1 block, bitmaps 2). */
#define KD_DESC(i) (4 * 4096 + 24 * (i))

static void on_anomaly(void *ud, const struct pt_anomaly *a)
{
	struct pt_anomaly *out = ud;

	if (a->kind == PT_AN_UNREADABLE)
		*out = *a;
}

START_TEST(kdump_page_unreadable)
{
	/*
	 * The root page (PML4, pfn 1) marked dumped, its descriptor over
	 * garbage: compression flags over bytes that are not that compression,
	 * data past the end of the file, a size of 0xffffffff.  Each is
	 * "unreadable" with libkdumpfile's reason in walk and scan, and the
	 * root's load line names the page: never "not captured", 0 anomalies.
	 */
	static const struct {
		uint64_t off;           /* 0: the page's own data */
		uint32_t size, flags;
		const char *reason;     /* libkdumpfile's words */
		const char *warning;    /* the load's, from the descriptor alone (NULL: none) */
	} c[] = {
		{0, 100, 0x1, "Decompresion failed", NULL},                /* zlib (libkdumpfile's spelling) */
		{0, 100, 0x2, "Decompression failed", NULL},               /* lzo */
		{0, 100, 0x4, "Decompression failed", NULL},               /* snappy */
		{0, 100, 0x20, "Decompression failed", NULL},              /* zstd */
		{0x7ffffffffffff000, 4096, 0, "Cannot read page data",
		 "0x1000 bytes at 0x7ffffffffffff000 run past the end of the file"},
		{0, 0xffffffff, 0, "Wrong page size", "size 0xffffffff (a page holds 0x1000 bytes)"},
		{0, 0xffffffff, 0x1, "Wrong compressed size", "size 0xffffffff (a page holds 0x1000 bytes)"},
	};
	struct eu_note n[] = {{"QEMU", 0, q, sizeof q}};
	struct eu_page p[] = {{1, tpg[0]}, {2, tpg[1]}, {3, tpg[2]}};
	struct eu_kdump k = {"x86_64", n, 1, NULL, p, 3, 64, 0};

	eu_qemu_state(q, 0x1000, 0);
	tables();
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct pt_anomaly an = {0};
		struct pt_capture *cap;
		struct pt_walk w;
		struct pt_stats st;
		char why[200], msg[512];
		size_t len;
		uint8_t *b = eu_kdump_build(&k, &len);
		const struct pt_context *ctx;

		if (c[i].off)
			eu_put64(b + KD_DESC(0), c[i].off);
		eu_put32(b + KD_DESC(0) + 8, c[i].size);
		eu_put32(b + KD_DESC(0) + 12, c[i].flags);
		cap = load_bytes(b, len, PT_OK, NULL);
		ctx = pt_capture_context(cap, 0);
		ck_assert_str_eq(ctx->name, "cpu0");
		ck_assert_int_eq(pt_walk_va(ctx, 0x200000, &w), PT_OK);
		ck_assert_msg(w.fault == PT_FAULT_UNREADABLE, "case %zu: fault=%s", i, pt_fault_name(w.fault));
		ck_assert_str_eq(w.steps[0].verdict, "unreadable");
		ck_assert(pt_walk_unreadable(&w, NULL, why, sizeof why));
		ck_assert_msg(strstr(why, "kdump page 0x1000 (pfn 0x1): libkdumpfile: ") && strstr(why, c[i].reason),
			      "case %zu: %s", i, why);
		ck_assert_int_eq(pt_context_scan(ctx, &st, on_anomaly, &an, NULL), PT_OK);
		ck_assert_uint_eq(st.anomalies, 1);
		ck_assert_int_eq(an.kind, PT_AN_UNREADABLE);
		ck_assert_msg(!strncmp(an.detail, "pml4 table sysmem:0x1000: kdump page 0x1000", 43), "%s", an.detail);
		ck_assert(pt_context_root_missing(ctx, msg, sizeof msg));
		ck_assert_msg(strstr(msg, "context 'cpu0': its root table (pml4 at sysmem:0x1000) cannot be read: "
				     "kdump page 0x1000 (pfn 0x1): libkdumpfile: "), "%s", msg);
		if (c[i].warning) {
			snprintf(msg, sizeof msg, "kdump page 0x1000 (pfn 0x1) is marked dumped but its "
				 "descriptor 0 at 0x%x cannot be read: %s", KD_DESC(0), c[i].warning);
			ck_assert_msg(warned(cap, msg), "case %zu: no warning '%s'", i, msg);
		}
		/* the other pages read as before; a page the bitmap leaves out is not captured, not unreadable */
		ck_assert(pt_mem_read(pt_capture_mem(cap), 0, 0x2000, why, 8));
		ck_assert(!pt_mem_unreadable(pt_capture_mem(cap), 0, 0x5000, 8, NULL, why, sizeof why));
		done(cap);
		free(b);
	}
}
END_TEST

START_TEST(kdump_notes_lie)
{
	/* offset_note/note_size of the sub-header past the end of the file */
	static uint8_t pg[4096];
	struct eu_note n[] = {{"QEMU", 0, q, sizeof q}};
	struct eu_page p[] = {{1, pg}};
	struct eu_kdump k = {"x86_64", n, 1, NULL, p, 1, 64, 0};
	char msg[512];
	size_t len;
	uint8_t *b;

	eu_qemu_state(q, 0x1000, 0);
	b = eu_kdump_build(&k, &len);
	eu_put64(b + 4096 + 56, 1u << 30);
	snprintf(msg, sizeof msg, "vmcore: the kdump notes (0x40000000 bytes at 0x1068) run past the end of "
		 "the file (0x%zx bytes)", len);
	fails(b, len, PT_E_CAPTURE, msg);
	/* note_size 2^64-16: libkdumpfile 0.5.1 allocated it before reading (an abort under ASan) */
	b = eu_kdump_build(&k, &len);
	eu_put64(b + 4096 + 56, 0xfffffffffffffff0ull);
	snprintf(msg, sizeof msg, "vmcore: the kdump notes (0xfffffffffffffff0 bytes at 0x1068) run past the "
		 "end of the file (0x%zx bytes)", len);
	fails(b, len, PT_E_CAPTURE, msg);
	/* offset_vmcoreinfo + size_vmcoreinfo past the end, checked before libkdumpfile reads it */
	b = eu_kdump_build(&k, &len);
	eu_put64(b + 4096 + 32, 0x7ffffffffffff000ull);
	eu_put64(b + 4096 + 40, 0x100);
	snprintf(msg, sizeof msg, "vmcore: the kdump VMCOREINFO (0x100 bytes at 0x7ffffffffffff000) run past "
		 "the end of the file (0x%zx bytes)", len);
	fails(b, len, PT_E_CAPTURE, msg);
	b = eu_kdump_build(&k, &len);
	eu_put32(b + 4096 + 104 + 4, 0x100000);         /* the QEMU note's descsz */
	fails(b, len, PT_E_CAPTURE, "vmcore: kdump notes: the note at 0x1068 (name 5 bytes, desc 1048576 "
	      "bytes) runs past the end of its 452 bytes of notes");
}
END_TEST

START_TEST(kdump_flat_lies)
{
	/*
	 * Hostile flattened streams (makedumpfile.h makedumpfile_data_header):
	 * refused in one line before anything is opened, never a read or a
	 * write outside the records, never a file of a size the stream cannot
	 * fill.
	 */
	static uint8_t pg[4096];
	struct eu_note n[] = {{"QEMU", 0, q, sizeof q}};
	struct eu_page p[] = {{1, pg}};
	struct eu_kdump k = {"x86_64", n, 1, NULL, p, 1, 64, 0};
	size_t rlen, len, last;
	uint8_t *raw, *b;
	char msg[512];

	eu_qemu_state(q, 0x1000, 0);
	raw = eu_kdump_build(&k, &rlen);
	/* one record per 4 KiB block, in order: record i at 4096 + i * (16 + 4096) */
#define REC(i) (4096 + (i) * (16 + 4096))
	last = rlen / 4096;                             /* the end record's index */
	/* the whole stream, sound: loads */
	b = eu_flatten(raw, rlen, 4096, 1, &len);
	done(load_bytes(b, len, PT_OK, NULL));
	free(b);
	/* another type or version */
	b = eu_flatten(raw, rlen, 4096, 1, &len);
	eu_put64be(b + 24, 2);
	fails(b, len, PT_E_UNSUPPORTED, "vmcore: a flattened kdump file of type 1, version 2 (this ptfs reads "
	      "type 1, version 1)");
	/* a negative offset (not the end flag), and a negative size */
	b = eu_flatten(raw, rlen, 4096, 1, &len);
	eu_put64be(b + REC(1), (uint64_t)-4096);
	snprintf(msg, sizeof msg, "vmcore: flattened kdump record 1 at 0x%x (0x1000 bytes for offset "
		 "0xfffffffffffff000) runs past the end of the file (0x%zx bytes)", REC(1), len);
	fails(b, len, PT_E_CAPTURE, msg);
	b = eu_flatten(raw, rlen, 4096, 1, &len);
	eu_put64be(b + REC(2) + 8, (uint64_t)-16);
	snprintf(msg, sizeof msg, "vmcore: flattened kdump record 2 at 0x%x (0xfffffffffffffff0 bytes for "
		 "offset 0x2000) runs past the end of the file (0x%zx bytes)", REC(2), len);
	fails(b, len, PT_E_CAPTURE, msg);
	/* a size past the end of the stream */
	b = eu_flatten(raw, rlen, 4096, 1, &len);
	eu_put64be(b + REC(1) + 8, 0x7fff0000);
	snprintf(msg, sizeof msg, "vmcore: flattened kdump record 1 at 0x%x (0x7fff0000 bytes for offset "
		 "0x1000) runs past the end of the file (0x%zx bytes)", REC(1), len);
	fails(b, len, PT_E_CAPTURE, msg);
	/* an offset far past anything the stream could fill: no sparse file of 2^62 bytes */
	b = eu_flatten(raw, rlen, 4096, 1, &len);
	eu_put64be(b + REC(1), 1ull << 62);
	snprintf(msg, sizeof msg, "vmcore: flattened kdump record 1 at 0x%x writes 0x1000 bytes at "
		 "0x4000000000000000, past the 0x%zx bytes a stream of 0x%zx bytes can fill", REC(1),
		 2 * len + (16 << 20), len);
	fails(b, len, PT_E_CAPTURE, msg);
	/* no end record: cut after the last data record, and inside a record header */
	b = eu_flatten(raw, rlen, 4096, 1, &len);
	snprintf(msg, sizeof msg, "vmcore: the flattened kdump stream stops at 0x%zx after %zu records, "
		 "without its end record (a dump cut short?)", (size_t)REC(last), last);
	fails(b, REC(last), PT_E_CAPTURE, msg);
	b = eu_flatten(raw, rlen, 4096, 1, &len);
	fails(b, REC(last) + 8, PT_E_CAPTURE, msg);
	/* a stream of a stream (each reassembling into the other's start): refused, not followed */
	{
		size_t l2;
		uint8_t *inner = eu_flatten(raw, rlen, 4096, 1, &len);

		b = eu_flatten(inner, len, 4096, 1, &l2);
		free(inner);
		fails(b, l2, PT_E_CAPTURE, "vmcore: the flattened kdump file reassembles into no kdump file "
		      "(it must start with \"KDUMP   \" at offset 0)");
	}
	/* records that leave offset 0 unwritten: a hole, not a kdump file */
	b = eu_flatten(raw, rlen, 4096, 1, &len);
	eu_put64be(b + REC(0), 0x1000);
	fails(b, len, PT_E_CAPTURE, "vmcore: the flattened kdump file reassembles into no kdump file "
	      "(it must start with \"KDUMP   \" at offset 0)");
#undef REC
	free(raw);
}
END_TEST

START_TEST(kdump_counts_lie)
{
	/*
	 * Block counts past the end of the file, in either header layout
	 * libkdumpfile may read (fuzz_elf found the 32-bit layout's
	 * bitmap_blocks, at 424, make it allocate 276 GB): refused first.
	 */
	static uint8_t pg[4096];
	struct eu_note n[] = {{"QEMU", 0, q, sizeof q}};
	struct eu_page p[] = {{1, pg}};
	struct eu_kdump k = {"x86_64", n, 1, NULL, p, 1, 64, 0};
	static const unsigned at[] = {424, 436, 420, 432};   /* bitmap_blocks, sub_hdr_size of each */
	size_t len;
	uint8_t *b;

	eu_qemu_state(q, 0x1000, 0);
	for (unsigned i = 0; i < sizeof at / sizeof at[0]; i++) {
		b = eu_kdump_build(&k, &len);
		eu_put32(b + at[i], 0x45);
		fails(b, len, PT_E_CAPTURE, "vmcore: the kdump header's bitmap or sub-header block counts "
		      "run past the end of the file");
	}
}
END_TEST

/*
 * A capture.ini naming a dump as its memory ([memory NAME] dump = FILE;
 * man/ptfs-capture.5, "Memory from a dump"), written wrong: one line
 * naming capture.ini's line, nothing loaded.  Each case runs in a capture
 * directory holding guest.elf (dumpmem_util.c); SETUP adds its file.
 */
static const struct dumpmem_case {
	const char *ini;        /* after "[capture]\nversion = 1\n" */
	char setup;             /* 0, l: link.elf -> guest.elf, d: sub -> . , p: a FIFO, t: a truncated ELF, s: a subdirectory */
	pt_err want;
	const char *msg;        /* the error's start */
} dumpmem_cases[] = {
	{"[memory g]\ndump = missing.elf\n", 0, PT_E_CAPTURE,
	 "capture.ini:4: dump 'missing.elf' of [memory g] is not in capture.ini's directory"},
	{"[memory g]\ndump = ../guest.elf\n", 0, PT_E_CAPTURE,
	 "capture.ini:4: dump '../guest.elf' in [memory g] contains '..': nothing outside capture.ini's directory is read"},
	{"[memory g]\ndump = /etc/passwd\n", 0, PT_E_CAPTURE,
	 "capture.ini:4: dump '/etc/passwd' in [memory g] is absolute: a dump is named from capture.ini's directory"},
	{"[memory g]\ndump =\n", 0, PT_E_VALUE, "capture.ini:4: empty value for 'dump' in [memory g]"},
	{"[memory g]\ndump = capture.ini\n", 0, PT_E_CAPTURE,
	 "capture.ini:4: dump 'capture.ini' of [memory g] is neither an ELF core nor a kdump file"},
	{"[memory g]\ndump = guest.elf\n[memory h]\ndump = guest.elf\n", 0, PT_E_CAPTURE,
	 "capture.ini:6: a second dump 'guest.elf' in [memory h] (the first, 'guest.elf', at line 4)"},
	{"[memory g]\ndump = guest.elf\nbase = 0\n", 0, PT_E_VALUE,
	 "capture.ini:5: 'base' in [memory g]: a section naming a dump takes no other key"},
	{"format = arm64\n[memory g]\ndump = guest.elf\n", 0, PT_E_CAPTURE,
	 "capture.ini:3: format 'arm64' in [capture], but the dump 'guest.elf' is of an x86-64 guest"},
	{"[memory g]\ndump = link.elf\n", 'l', PT_E_CAPTURE,
	 "capture.ini:4: dump 'link.elf' of [memory g] is a symbolic link or under one"},
	{"[memory g]\ndump = sub/guest.elf\n", 'd', PT_E_CAPTURE,
	 "capture.ini:4: dump 'sub/guest.elf' of [memory g] is a symbolic link or under one"},
	{"[memory g]\ndump = fifo\n", 'p', PT_E_CAPTURE, "capture.ini:4: dump 'fifo' of [memory g] is a FIFO"},
	{"[memory g]\ndump = sub\n", 's', PT_E_CAPTURE, "capture.ini:4: dump 'sub' of [memory g] is a directory"},
	{"[memory g]\ndump = bad.elf\n", 't', PT_E_CAPTURE,
	 "capture.ini:4: dump 'bad.elf' of [memory g]: bad.elf: "},
	/* conflicting memory over the dump's: the seal names capture.ini's line and the dump's file */
	{"[memory g]\ndump = guest.elf\n[memory extra]\nspace = sysmem\nbase = 0x8000\nfile = capture.ini\n", 0,
	 PT_E_CAPTURE, "capture.ini:5: [memory extra] (sysmem 0x8000-"},
	/* a context the dump has already */
	{"[memory g]\ndump = guest.elf\n[cpu cpu0]\ncr3 = 0x1000\n", 0, PT_E_VALUE,
	 "capture.ini:5: duplicate section name 'cpu0' in [cpu cpu0] (first at guest.elf)"},
	{"x-dump = mine\n[memory g]\ndump = guest.elf\n", 0, PT_E_VALUE,
	 "capture.ini:3: duplicate key 'x-dump' in [capture] (first at guest.elf)"},
	/* the dump's System.map (system_map =) under the rules of dump = */
	{"[memory g]\ndump = guest.elf\nsystem_map = System.map\n", 0, PT_E_CAPTURE,
	 "capture.ini:5: system_map 'System.map' of [memory g] is not in capture.ini's directory"},
	{"[memory g]\ndump = guest.elf\nsystem_map = ../System.map\n", 0, PT_E_CAPTURE,
	 "capture.ini:5: system_map '../System.map' in [memory g] contains '..': nothing outside capture.ini's "
	 "directory is read"},
	{"[memory g]\ndump = guest.elf\nsystem_map = a/../../b/System.map\n", 0, PT_E_CAPTURE,
	 "capture.ini:5: system_map 'a/../../b/System.map' in [memory g] contains '..'"},
	{"[memory g]\ndump = guest.elf\nsystem_map = /boot/System.map\n", 0, PT_E_CAPTURE,
	 "capture.ini:5: system_map '/boot/System.map' in [memory g] is absolute: it is named from capture.ini's "
	 "directory"},
	{"[memory g]\ndump = guest.elf\nsystem_map =\n", 0, PT_E_VALUE,
	 "capture.ini:5: empty value for 'system_map' in [memory g]"},
	{"[memory g]\nsystem_map = guest.elf\ndump = guest.elf\nsystem_map = guest.elf\n", 0, PT_E_VALUE,
	 "capture.ini:6: duplicate key 'system_map' in [memory g] (first at line 4)"},
	{"format = x86-64\n[memory g]\nspace = sysmem\nbase = 0\nfile = guest.elf\nsystem_map = guest.elf\n", 0,
	 PT_E_VALUE, "capture.ini:8: 'system_map' in [memory g] without 'dump': a System.map names the symbols of a dump's kernel"},
	{"[memory g]\ndump = guest.elf\nsystem_map = link.elf\n", 'l', PT_E_CAPTURE,
	 "capture.ini:5: system_map 'link.elf' of [memory g] is a symbolic link or under one"},
	{"[memory g]\ndump = guest.elf\nsystem_map = sub/capture.ini\n", 'd', PT_E_CAPTURE,
	 "capture.ini:5: system_map 'sub/capture.ini' of [memory g] is a symbolic link or under one"},
	{"[memory g]\ndump = guest.elf\nsystem_map = fifo\n", 'p', PT_E_CAPTURE,
	 "capture.ini:5: system_map 'fifo' of [memory g] is a FIFO"},
	{"[memory g]\ndump = guest.elf\nsystem_map = sub\n", 's', PT_E_CAPTURE,
	 "capture.ini:5: system_map 'sub' of [memory g] is a directory"},
};

START_TEST(dumpmem_hostile)
{
	const struct dumpmem_case *c = &dumpmem_cases[_i];
	struct pt_capture *cap = pt_capture_new();
	char text[1024], path[4200];
	pt_err rc;

	dir = tu_mkdtemp();
	ck_assert(dm_write(dir, "guest.elf", 0));
	snprintf(text, sizeof text, "[capture]\nversion = 1\n%s", c->ini);
	tu_write(dir, "capture.ini", text, strlen(text));
	snprintf(path, sizeof path, "%s/%s", dir, c->setup == 'l' ? "link.elf" : c->setup == 'd' ? "sub"
		 : c->setup == 'p' ? "fifo" : c->setup == 's' ? "sub" : "bad.elf");
	if (c->setup == 'l')
		ck_assert(symlink("guest.elf", path) == 0);
	if (c->setup == 'd')
		ck_assert(symlink(".", path) == 0);
	if (c->setup == 'p')
		ck_assert(mkfifo(path, 0600) == 0);
	if (c->setup == 's')
		ck_assert(mkdir(path, 0700) == 0);
	if (c->setup == 't') {
		unsigned long len;
		unsigned char *b = dm_dump(0, 1, &len);

		tu_write(dir, "bad.elf", b, 100);
		free(b);
	}
	rc = pt_capture_load(cap, dir);
	ck_assert_msg(rc == c->want, "case %d: %s (%s)", _i, pt_errname(rc), pt_capture_error(cap));
	ck_assert_msg(!strncmp(pt_capture_error(cap), c->msg, strlen(c->msg)), "case %d: %s", _i,
		      pt_capture_error(cap));
	ck_assert_ptr_null(strchr(pt_capture_error(cap), '\n'));
	ck_assert_ptr_null(pt_capture_mem(cap));
	ck_assert_uint_eq(pt_capture_context_count(cap), 0);
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
	dir = NULL;
}
END_TEST

/* An archive's capture.ini names a dump: refused (a dump is read in place from a directory). */
START_TEST(dumpmem_in_archive)
{
	static const char ini[] = "[capture]\nversion = 1\n[memory g]\ndump = guest.elf\n";
	struct pt_capture *cap = pt_capture_new();
	unsigned long len;
	unsigned char *b = dm_dump(0, 1, &len);
	struct mspec m[] = {INI(ini), {"guest.elf", 'f', b, len, 0, NULL}};
	char path[4200];

	dir = tu_mkdtemp();
	snprintf(path, sizeof path, "%s/cap.tar", dir);
	au_write(path, AU_PAX, AU_NONE, m, 2);
	free(b);
	ck_assert_int_eq(pt_capture_load(cap, path), PT_E_CAPTURE);
	ck_assert_str_eq(pt_capture_error(cap), "capture.ini:4: dump 'guest.elf' of [memory g]: a dump is read "
			 "in place from a capture directory, not from an archive (unpack it, or put capture.ini "
			 "beside the dump in a directory)");
	ck_assert_ptr_null(pt_capture_mem(cap));
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
	dir = NULL;
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hostile_dump");
	TCase *tc = tcase_create("elf");

	tcase_add_test(tc, load_past_eof);
	tcase_add_test(tc, note_size_lies);
	tcase_add_test(tc, headers_lie);
	tcase_add_test(tc, overlap_differs);
	tcase_add_test(tc, many_segments);
	suite_add_tcase(s, tc);
	tc = tcase_create("kdump");
	tcase_add_test(tc, kdump_bitmap_lies);
	tcase_add_test(tc, kdump_notes_lie);
	tcase_add_test(tc, kdump_page_unreadable);
	tcase_add_test(tc, kdump_bitmap_claims_more);
	tcase_add_test(tc, kdump_flat_lies);
	tcase_add_test(tc, kdump_counts_lie);
	suite_add_tcase(s, tc);
	tc = tcase_create("capture.ini beside a dump");
	tcase_add_loop_test(tc, dumpmem_hostile, 0, (int)(sizeof dumpmem_cases / sizeof *dumpmem_cases));
	tcase_add_test(tc, dumpmem_in_archive);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
