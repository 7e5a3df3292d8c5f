/* SPDX-License-Identifier: MIT */
/*
 * src_kdump.c — kdump-compressed files as capture sources (docs/design.md §3.2)
 * through libkdumpfile: it reads the diskdump header, bitmaps, page
 * descriptors and compressed pages (zlib, lzo, snappy, zstd); ptfs never
 * reads a page itself and decompresses nothing at open.
 *
 * libkdumpfile 0.5.1 keeps the QEMU CPU notes to itself (it parses
 * NT_PRSTATUS and VMCOREINFO only), so the note blob is located from two
 * fields of the KdumpSubHeader64 (offset_note @48, note_size @56; QEMU
 * include/sysemu/dump.h, makedumpfile diskdump_mod.h) and walked with the
 * ELF note walker.  It does not read the flattened format (makedumpfile's
 * stream, what QEMU before 8.2 writes for kdump-zlib|lzo|snappy): the
 * source reassembles such a file first (src_kdump_flat.c), and
 * pt_kdump_open() refuses one given as is.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libkdumpfile/kdumpfile.h>

#include "pt_src_kdump.h"

#define MAX_NOTES (16u << 20)   /* bytes of notes read; QEMU writes about 1 KiB per vCPU */
#define KDUMP_CACHE 64          /* pages libkdumpfile caches (mem.c keeps its own on top) */

struct pt_kdump {
	kdump_ctx_t *ctx;
	int fd;                 /* a duplicate of the caller's, or -1 */
	pthread_mutex_t lock;   /* a kdump_ctx_t is not for concurrent use */
	struct pt_dump_facts facts;
	uint8_t *notes;         /* the note blob, owned */
	char *vmcoreinfo;       /* libkdumpfile's copy when the notes have none, owned */
	uint64_t page_size, max_pfn;
	const char *format;
	struct pt_buf warn;     /* load warnings, one per line (pt_kdump_warnings()) */
};

enum pt_kdump_kind pt_kdump_detect(const void *p, size_t n)
{
	/* signatures: makedumpfile diskdump_mod.h (KDUMP_SIGNATURE, DISK_DUMP_SIGNATURE), makedumpfile.h (MAKEDUMPFILE_SIGNATURE) */
	if (n >= 8 && (!memcmp(p, "KDUMP   ", 8) || !memcmp(p, "DISKDUMP", 8)))
		return PT_KDUMP_RAW;
	if (n >= 13 && !memcmp(p, "makedumpfile", 13))
		return PT_KDUMP_FLAT;
	return PT_KDUMP_NONE;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/*
 * A diskdump header's block_size (at 428: signature 8, header_version 4,
 * utsname 6 x 65, timestamp 16 aligned to 8, status 4; makedumpfile
 * diskdump_mod.h), or 0 when the file is not one or the size is not a
 * power of two up to 16 MiB.
 */
static uint64_t diskdump_block(int fd)
{
	uint8_t h[432];
	uint64_t b;

	if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || pt_kdump_detect(h, sizeof h) != PT_KDUMP_RAW)
		return 0;
	b = (uint64_t)h[428] | (uint64_t)h[429] << 8 | (uint64_t)h[430] << 16 | (uint64_t)h[431] << 24;
	return b && !(b & (b - 1)) && b <= (1u << 24) ? b : 0;
}

/*
 * Before libkdumpfile sees a diskdump header: its bitmaps must fit in the
 * file.  libkdumpfile 0.5.1 reads the header in the 32-bit layout
 * (struct timeval of 8 bytes: block_size at 416, sub_hdr_size 420,
 * bitmap_blocks 424) or the 64-bit one (428, 432, 436; makedumpfile
 * diskdump_mod.h) by the dump's architecture, and allocates the bitmaps
 * from those counts before reading them: a forged count asked it for
 * 276 GB (fuzz_elf).  Each layout's counts, in blocks of at least 4 KiB,
 * must lie within the file, whichever layout it picks.  True when they do
 * (or the file is no diskdump).
 */
static bool diskdump_fits(int fd)
{
	static const unsigned at[2] = {416, 428};   /* block_size in the 32- and 64-bit layouts */
	uint8_t h[448];
	struct stat st;

	if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || pt_kdump_detect(h, sizeof h) != PT_KDUMP_RAW)
		return true;
	if (fstat(fd, &st) != 0)
		return false;
	for (unsigned l = 0; l < 2; l++) {
		const uint8_t *f = h + at[l];
		uint64_t block = (uint64_t)f[0] | (uint64_t)f[1] << 8 | (uint64_t)f[2] << 16 | (uint64_t)f[3] << 24;
		uint64_t sub = (uint64_t)f[4] | (uint64_t)f[5] << 8 | (uint64_t)f[6] << 16 | (uint64_t)f[7] << 24;
		uint64_t bitmap = (uint64_t)f[8] | (uint64_t)f[9] << 8 | (uint64_t)f[10] << 16 |
				  (uint64_t)f[11] << 24;

		if (block < 4096)
			block = 4096;
		if (bitmap > (uint64_t)st.st_size / block || sub > (uint64_t)st.st_size / block)
			return false;
	}
	return true;
}

/*
 * Before libkdumpfile sees the file: the sub-header's VMCOREINFO
 * (offset_vmcoreinfo @32, size_vmcoreinfo @40, header_version >= 3) and
 * notes (offset_note @48, note_size @56, header_version >= 4) must lie in
 * the file (makedumpfile diskdump_mod.h struct kdump_sub_header, 64-bit
 * layout; QEMU include/sysemu/dump.h KdumpSubHeader64).  libkdumpfile
 * 0.5.1 allocates note_size bytes before it reads them: 0xfffffffffffffff0
 * aborted it under ASan.  PT_OK, or the one line in ERR.
 */
static pt_err subheader_fits(int fd, uint64_t block, const char *label, char *err, size_t errlen)
{
	static const struct {
		unsigned at, version;
		const char *what;
	} part[] = {{32, 3, "VMCOREINFO"}, {48, 4, "notes"}};
	uint8_t h[12], sh[64];
	struct stat st;
	int32_t version;

	if (!block || pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || fstat(fd, &st))
		return PT_OK;   /* no 64-bit layout: libkdumpfile's own checks, then read_notes() */
	version = (int32_t)(h[8] | h[9] << 8 | h[10] << 16 | (uint32_t)h[11] << 24);
	if (pread(fd, sh, sizeof sh, (off_t)block) != (ssize_t)sizeof sh)
		return version < 3 ? PT_OK : pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: the kdump sub-header at 0x%"
						   PRIx64 " is past the end of the file", label, block);
	for (unsigned i = 0; i < sizeof part / sizeof part[0]; i++) {
		uint64_t off = rd64(sh + part[i].at), len = rd64(sh + part[i].at + 8);

		if (version < (int32_t)part[i].version || !len)
			continue;
		if (off > (uint64_t)st.st_size || len > (uint64_t)st.st_size - off)
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: the kdump %s (0x%" PRIx64 " bytes at 0x%"
				    PRIx64 ") run past the end of the file (0x%llx bytes)", label, part[i].what,
				    len, off, (unsigned long long)st.st_size);
	}
	return PT_OK;
}

/* The note blob: offset_note and note_size of the sub-header at block 1 (header_version >= 4). */
static pt_err read_notes(struct pt_kdump *k, int fd, const char *label, char *err, size_t errlen)
{
	uint8_t h[12], sh[64];
	uint64_t off, len, block;
	struct stat st;
	int32_t version;

	if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || fstat(fd, &st))
		return pt_err_fmt(err, errlen, PT_E_IO, "%s: cannot read the kdump header", label);
	version = (int32_t)(h[8] | h[9] << 8 | h[10] << 16 | (uint32_t)h[11] << 24);
	if (version < 4)
		return PT_OK;   /* no notes before header version 4 (makedumpfile diskdump_mod.h) */
	/* the sub-header is one block in (the page size: pt_kdump_open) */
	block = k->page_size;
	if (pread(fd, sh, sizeof sh, (off_t)block) != (ssize_t)sizeof sh)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: the kdump sub-header at 0x%" PRIx64
			    " is past the end of the file", label, block);
	off = rd64(sh + 48);
	len = rd64(sh + 56);
	if (!len)
		return PT_OK;
	if (off > (uint64_t)st.st_size || len > (uint64_t)st.st_size - off)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: the kdump notes (0x%" PRIx64 " bytes at 0x%"
			    PRIx64 ") run past the end of the file (0x%llx bytes)", label, len, off,
			    (unsigned long long)st.st_size);
	if (len > MAX_NOTES)
		return pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "%s: the kdump notes (0x%" PRIx64 " bytes) are "
			    "larger than the %u MiB ptfs reads", label, len, MAX_NOTES >> 20);
	k->notes = malloc((size_t)len);
	if (!k->notes)
		return pt_err_fmt(err, errlen, PT_E_NOMEM, "%s: out of memory", label);
	if (pread(fd, k->notes, (size_t)len, (off_t)off) != (ssize_t)len)
		return pt_err_fmt(err, errlen, PT_E_IO, "%s: cannot read the kdump notes", label);
	{
		char where[600];

		snprintf(where, sizeof where, "%s: kdump notes", label);
		return pt_dump_notes(k->notes, len, off, where, &k->facts, err, errlen);
	}
}

/* VMCOREINFO from libkdumpfile (offset_vmcoreinfo) when the notes hold none: makedumpfile's own files. */
static void vmcoreinfo_blob(struct pt_kdump *k)
{
	kdump_attr_t a;
	void *p;
	size_t n;

	if (k->facts.vmcoreinfo || kdump_get_typed_attr(k->ctx, "linux.vmcoreinfo.raw", &a) != KDUMP_OK ||
	    a.type != KDUMP_BLOB)
		return;
	p = kdump_blob_pin(a.val.blob);
	n = kdump_blob_size(a.val.blob);
	if (p && n && (k->vmcoreinfo = malloc(n))) {
		memcpy(k->vmcoreinfo, p, n);
		k->facts.vmcoreinfo = k->vmcoreinfo;
		k->facts.vmcoreinfo_len = n;
	}
	if (p)
		kdump_blob_unpin(a.val.blob);
}

pt_err pt_kdump_open(int fd, const char *label, struct pt_kdump **out, char *err, size_t errlen)
{
	struct pt_kdump *k;
	uint8_t sig[16];
	const char *arch = NULL;
	kdump_num_t num;
	pt_err rc;

	*out = NULL;
	if (pread(fd, sig, sizeof sig, 0) != (ssize_t)sizeof sig)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: not a kdump file", label);
	if (pt_kdump_detect(sig, sizeof sig) == PT_KDUMP_FLAT)
		return pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "%s: a flattened kdump file (makedumpfile's stream "
			    "format, QEMU's kdump-zlib|lzo|snappy before 8.2): libkdumpfile %s does not read it; "
			    "'makedumpfile -R %s.raw < %s' rewrites it as a plain kdump file", label,
			    "0.5.1", label, label);
	k = calloc(1, sizeof *k);
	if (!k || !(k->ctx = kdump_new())) {
		free(k);
		return pt_err_fmt(err, errlen, PT_E_NOMEM, "%s: out of memory", label);
	}
	k->fd = -1;
	pt_buf_init(&k->warn);
	pthread_mutex_init(&k->lock, NULL);
	/* libkdumpfile reads through the descriptor for as long as the dump is used: its own copy */
	k->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (k->fd < 0) {
		rc = pt_err_fmt(err, errlen, PT_E_IO, "%s: %s", label, strerror(errno));
		goto bad;
	}
	/*
	 * read(2), never mmap(2): libkdumpfile 0.5.1 trusts the header's
	 * offsets, and through a mapping a note or page descriptor placed past
	 * the end of the file is SIGBUS (test_hostile_dump kdump_notes_lie);
	 * through read(2) it is a short read, an error.  Its page cache is
	 * KDUMP_CACHE pages (pt_kdump_read() empties it after a failed read).
	 */
	if (kdump_set_number_attr(k->ctx, KDUMP_ATTR_FILE_MMAP_POLICY, KDUMP_MMAP_NEVER) != KDUMP_OK ||
	    kdump_set_number_attr(k->ctx, "cache.size", KDUMP_CACHE) != KDUMP_OK) {
		rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: libkdumpfile: %s", label, kdump_get_err(k->ctx));
		goto bad;
	}
	if (!diskdump_fits(k->fd)) {
		rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: the kdump header's bitmap or sub-header block "
			  "counts run past the end of the file", label);
		goto bad;
	}
	rc = subheader_fits(k->fd, diskdump_block(k->fd), label, err, errlen);
	if (rc)
		goto bad;
	if (kdump_open_fd(k->ctx, k->fd) != KDUMP_OK) {
		rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: libkdumpfile: %s", label, kdump_get_err(k->ctx));
		goto bad;
	}
	if (kdump_get_string_attr(k->ctx, KDUMP_ATTR_FILE_FORMAT, &k->format) != KDUMP_OK)
		k->format = "kdump";
	if (kdump_get_number_attr(k->ctx, KDUMP_ATTR_PAGE_SIZE, &num) != KDUMP_OK || !num || num & (num - 1)) {
		rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: libkdumpfile gives no page size", label);
		goto bad;
	}
	/*
	 * A diskdump's bitmaps and page descriptors count blocks of the
	 * header's block_size; QEMU writes an AArch64 guest in 64 KiB blocks
	 * (target/arm/arch_dump.c page_size) while VMCOREINFO's PAGESIZE says
	 * 4 KiB, and libkdumpfile 0.5.1 then takes 4 KiB and finds every page
	 * out of bounds: the block size is the page size of the file.
	 */
	{
		uint64_t block = diskdump_block(fd);

		if (block && block != num && kdump_set_number_attr(k->ctx, KDUMP_ATTR_PAGE_SIZE, block) == KDUMP_OK)
			num = block;
	}
	k->page_size = num;
	if (kdump_get_number_attr(k->ctx, "max_pfn", &num) != KDUMP_OK || num > UINT64_MAX / k->page_size) {
		rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "%s: libkdumpfile gives no usable max_pfn", label);
		goto bad;
	}
	k->max_pfn = num;
	/*
	 * QEMU's kdump files fill only utsname.machine of the diskdump header
	 * (qemu dump/dump.c create_header64), which libkdumpfile 0.5.1 does not
	 * turn into an architecture: read it there, at 8 (signature) + 4
	 * (header_version) + 4 x 65 (sysname .. version of struct new_utsname).
	 */
	char machine[66] = "";

	if ((kdump_get_string_attr(k->ctx, KDUMP_ATTR_ARCH_NAME, &arch) != KDUMP_OK || !arch) &&
	    pread(fd, machine, 65, 272) == 65) {
		machine[65] = 0;
		arch = machine;
	}
	if (arch)
		k->facts.machine = !strcmp(arch, "x86_64") ? PT_EM_X86_64 : !strcmp(arch, "aarch64") ? PT_EM_AARCH64
			: !strcmp(arch, "ia32") ? PT_EM_386 : 0;
	rc = read_notes(k, fd, label, err, errlen);
	if (rc)
		goto bad;
	pt_kdump_check_pages(fd, k->page_size, k->max_pfn, &k->warn);
	vmcoreinfo_blob(k);
	/*
	 * QEMU names an Arm guest's machine "Unknown" (dump/dump.c: no
	 * ELF_MACHINE_UNAME for target/arm): NUMBER(kimage_voffset) is written
	 * by arm64 kernels only (Linux arch/arm64/kernel/vmcore_info.c).
	 */
	if (!k->facts.machine) {
		char v[32];

		if (pt_vmcoreinfo_get(&k->facts, "NUMBER(kimage_voffset)", v, sizeof v))
			k->facts.machine = PT_EM_AARCH64;
	}
	*out = k;
	return PT_OK;
bad:
	pt_kdump_close(k);
	return rc;
}

void pt_kdump_close(struct pt_kdump *k)
{
	if (!k)
		return;
	/*
	 * Not kdump_free(k->ctx): in libkdumpfile 0.5.1 it reads and writes
	 * freed memory (valgrind: inside kdump_free, on every diskdump file
	 * test_src_elf writes, opened or refused) and crashes on some
	 * (a "KDUMP   " header over 0xff bytes).  The context is left: one
	 * per kdump file loaded, freed when the process ends.
	 */
	pthread_mutex_destroy(&k->lock);
	if (k->fd >= 0)
		close(k->fd);
	free(k->facts.cpu);
	free(k->notes);
	free(k->vmcoreinfo);
	pt_buf_free(&k->warn);
	free(k);
}

const struct pt_dump_facts *pt_kdump_facts(const struct pt_kdump *k)
{
	return &k->facts;
}

uint64_t pt_kdump_size(const struct pt_kdump *k)
{
	return k->max_pfn * k->page_size;
}

uint64_t pt_kdump_page_size(const struct pt_kdump *k)
{
	return k->page_size;
}

const char *pt_kdump_format(const struct pt_kdump *k)
{
	return k->format;
}

bool pt_kdump_read(struct pt_kdump *k, uint64_t pa, void *buf, size_t len)
{
	size_t got = len;
	bool ok;

	if (len && len - 1 > UINT64_MAX - pa)
		return false;
	/* libkdumpfile reads across pages itself; a short read stops at an excluded or bad page */
	pthread_mutex_lock(&k->lock);
	ok = kdump_read(k->ctx, KDUMP_MACHPHYSADDR, pa, buf, &got) == KDUMP_OK && got == len;
	/*
	 * libkdumpfile 0.5.1 corrupts its page cache after failed reads (of
	 * excluded pages) mixed into some thousands of others: later reads
	 * fail as corrupt, then one writes through NULL (the page sequence
	 * ptfs-tool roots makes of the qemu suite's kdump).  Resizing the cache
	 * empties it; the pages mem.c keeps are its own.
	 */
	if (!ok) {
		kdump_set_number_attr(k->ctx, "cache.size", KDUMP_CACHE - 1);
		kdump_set_number_attr(k->ctx, "cache.size", KDUMP_CACHE);
	}
	pthread_mutex_unlock(&k->lock);
	return ok;
}

bool pt_kdump_unreadable(struct pt_kdump *k, uint64_t pa, char *why, size_t len)
{
	uint8_t one;
	size_t got = 1;
	kdump_status st;

	pthread_mutex_lock(&k->lock);
	st = kdump_read(k->ctx, KDUMP_MACHPHYSADDR, pa, &one, &got);
	/* KDUMP_ERR_NODATA: a page the bitmap does not mark dumped (filtered, or past max_pfn) */
	if (st != KDUMP_OK && st != KDUMP_ERR_NODATA)
		snprintf(why, len, "kdump page 0x%" PRIx64 " (pfn 0x%" PRIx64 "): libkdumpfile: %s",
			 pa & ~(k->page_size - 1), pa / k->page_size, kdump_get_err(k->ctx));
	if (st != KDUMP_OK) {
		/* the cache after a failed read: pt_kdump_read() */
		kdump_set_number_attr(k->ctx, "cache.size", KDUMP_CACHE - 1);
		kdump_set_number_attr(k->ctx, "cache.size", KDUMP_CACHE);
	}
	pthread_mutex_unlock(&k->lock);
	return st != KDUMP_OK && st != KDUMP_ERR_NODATA;
}

const char *pt_kdump_warnings(const struct pt_kdump *k)
{
	return k->warn.len ? k->warn.data : "";
}
