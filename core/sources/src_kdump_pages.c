/* SPDX-License-Identifier: MIT */
/*
 * src_kdump_pages.c — a kdump file's page descriptors checked at load
 * (docs/design.md §3.2, issue #34 item 8): a page the dumpable bitmap
 * marks as dumped but whose descriptor cannot be read (data past the end
 * of the file, a size of 0 or above the block size, two compressions at
 * once) is no page makedumpfile filtered out: the load warns, naming the
 * page, and walks say "unreadable" (src_kdump.c's why callback).  A bitmap
 * that marks more pages than the file has descriptors for is said with
 * both counts.  Nothing is decompressed: bytes that fail to decompress are
 * found when read.
 *
 * Layout (makedumpfile diskdump_mod.h, QEMU dump/dump.c
 * write_dump_bitmap / write_dump_pages): block 0 the disk_dump_header,
 * then sub_hdr_size blocks of sub-header, then bitmap_blocks blocks of
 * two bitmaps of equal size (the second: pages dumped), then one
 * page_desc_t per dumped page in PFN order ({offset u64, size u32,
 * flags u32, page_flags u64}, 24 bytes), then the page data, which
 * makedumpfile and QEMU both start right after the last descriptor.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_num.h"
#include "pt_src_kdump.h"

#define DESC_SIZE 24
#define SHOWN 8                 /* bad pages named one by one; the rest counted */
/* page_desc_t.flags (makedumpfile diskdump_mod.h DUMP_DH_COMPRESSED_*) */
#define COMP_ZLIB 0x1u
#define COMP_LZO 0x2u
#define COMP_SNAPPY 0x4u
#define COMP_ZSTD 0x20u
#define COMP_ANY (COMP_ZLIB | COMP_LZO | COMP_SNAPPY | COMP_ZSTD)

/* A buffered sequential reader of FD from AT (short at the end of the file). */
struct seq {
	int fd;
	uint64_t at;            /* file offset of buf[0] */
	size_t len, pos;
	uint8_t buf[65536];
};

/* The next N (<= 24) bytes into OUT; false at the end of the file. */
static bool seq_get(struct seq *s, uint8_t *out, size_t n)
{
	if (s->len - s->pos < n) {
		size_t keep = s->len - s->pos;
		ssize_t got;

		memmove(s->buf, s->buf + s->pos, keep);
		s->at += s->pos;
		s->pos = 0;
		got = pread(s->fd, s->buf + keep, sizeof s->buf - keep, (off_t)(s->at + keep));
		s->len = keep + (got > 0 ? (size_t)got : 0);
		if (s->len < n)
			return false;
	}
	memcpy(out, s->buf + s->pos, n);
	s->pos += n;
	return true;
}

/* What is wrong with descriptor D of a file of SIZE bytes whose descriptors start at DESC (NULL: nothing). */
static const char *desc_fault(const uint8_t *d, uint64_t block, uint64_t size, uint64_t desc, char *why,
			      size_t wl)
{
	uint64_t off = pt_le_load(d, 8), len = pt_le_load(d + 8, 4), flags = pt_le_load(d + 12, 4);
	unsigned comp = (unsigned)(flags & COMP_ANY);

	if (len == 0 || len > block)
		snprintf(why, wl, "size 0x%" PRIx64 " (a page holds 0x%" PRIx64 " bytes)", len, block);
	else if (!comp && len != block)
		snprintf(why, wl, "an uncompressed page of 0x%" PRIx64 " bytes (a page holds 0x%" PRIx64 ")",
			 len, block);
	else if (comp & (comp - 1))
		snprintf(why, wl, "flags 0x%" PRIx64 " name two compressions", flags);
	else if (off > size || len > size - off)
		snprintf(why, wl, "0x%" PRIx64 " bytes at 0x%" PRIx64 " run past the end of the file "
			 "(0x%" PRIx64 " bytes)", len, off, size);
	else if (off < desc)
		snprintf(why, wl, "its data at 0x%" PRIx64 " lies in the headers or bitmaps (the descriptors "
			 "start at 0x%" PRIx64 ")", off, desc);
	else
		return NULL;
	return why;
}

/* The layout of the 64-bit disk_dump_header (block_size @428 ...), or false. */
static bool layout(int fd, uint64_t page_size, uint64_t *bitmap2, uint64_t *bmp_bytes, uint64_t *desc)
{
	uint8_t h[448];
	uint64_t block, sub, blocks;

	if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || pt_kdump_detect(h, sizeof h) != PT_KDUMP_RAW)
		return false;
	block = pt_le_load(h + 428, 4);
	sub = pt_le_load(h + 432, 4);
	blocks = pt_le_load(h + 436, 4);
	/* diskdump_fits() bounded the counts by the file size; the other layout is a 32-bit dump's */
	if (block != page_size || blocks < 2 || blocks & 1)
		return false;
	*bmp_bytes = blocks / 2 * block;
	*bitmap2 = (1 + sub) * block + *bmp_bytes;
	*desc = (1 + sub + blocks) * block;
	return true;
}

/* Pages the dumpable bitmap marks below MAX_PFN. */
static uint64_t dumped_pages(struct seq *s, uint64_t bmp_bytes, uint64_t max_pfn)
{
	uint64_t n = 0, pfn = 0;
	uint8_t b;

	while (pfn < max_pfn && pfn / 8 < bmp_bytes && seq_get(s, &b, 1)) {
		if (max_pfn - pfn < 8)
			b &= (uint8_t)((1u << (max_pfn - pfn)) - 1);
		n += (uint64_t)__builtin_popcount(b);
		pfn += 8;
	}
	return n;
}

struct bad {
	struct pt_buf *warn;
	uint64_t page_size, n, first_pfn;
};

static void bad_page(struct bad *b, uint64_t pfn, uint64_t i, uint64_t at, const char *why)
{
	if (!b->n++)
		b->first_pfn = pfn;
	if (b->n <= SHOWN)
		pt_buf_printf(b->warn, "kdump page 0x%" PRIx64 " (pfn 0x%" PRIx64 ") is marked dumped but "
			      "its descriptor %" PRIu64 " at 0x%" PRIx64 " cannot be read: %s: it reads "
			      "unreadable, not filtered\n", pfn * b->page_size, pfn, i, at, why);
}

void pt_kdump_check_pages(int fd, uint64_t page_size, uint64_t max_pfn, struct pt_buf *warn)
{
	static struct seq bm, ds;   /* 128 KiB: off the stack; the load is single-threaded */
	struct bad b = {warn, page_size, 0, 0};
	uint64_t bitmap2, bmp_bytes, desc, n, room, data, i = 0, pfn = 0;
	struct stat st;
	uint8_t byte = 0;
	char why[200];

	if (!page_size || !layout(fd, page_size, &bitmap2, &bmp_bytes, &desc) || fstat(fd, &st))
		return;
	bm = (struct seq){.fd = fd, .at = bitmap2};
	n = dumped_pages(&bm, bmp_bytes, max_pfn);
	/* the descriptors end where the page data starts: the lowest data offset of a sound descriptor */
	data = (uint64_t)st.st_size;
	room = data > desc ? (data - desc) / DESC_SIZE : 0;
	bm = (struct seq){.fd = fd, .at = bitmap2};
	ds = (struct seq){.fd = fd, .at = desc};
	for (; i < n && i < room && pfn < max_pfn && pfn / 8 < bmp_bytes; pfn++) {
		uint8_t d[DESC_SIZE];

		if (pfn % 8 == 0 && !seq_get(&bm, &byte, 1))
			break;
		if (!(byte >> (pfn % 8) & 1))
			continue;
		if (!seq_get(&ds, d, DESC_SIZE))
			break;
		if (desc_fault(d, page_size, (uint64_t)st.st_size, desc, why, sizeof why)) {
			bad_page(&b, pfn, i, desc + i * DESC_SIZE, why);
		} else if (pt_le_load(d, 8) < data) {
			data = pt_le_load(d, 8);
			room = data > desc ? (data - desc) / DESC_SIZE : 0;
		}
		i++;
	}
	if (b.n > SHOWN)
		pt_buf_printf(warn, "%" PRIu64 " more kdump pages marked dumped have descriptors that cannot "
			      "be read (%" PRIu64 " in all): they read unreadable\n", b.n - SHOWN, b.n);
	if (n > room)
		pt_buf_printf(warn, "the kdump bitmap marks %" PRIu64 " pages dumped, but only %" PRIu64
			      " page descriptors fit between 0x%" PRIx64 " and %s at 0x%" PRIx64 ": the other %"
			      PRIu64 " pages have none (they read unreadable)\n", n, room, desc,
			      data < (uint64_t)st.st_size ? "the page data" : "the end of the file", data, n - room);
}
