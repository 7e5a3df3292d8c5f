/* SPDX-License-Identifier: MIT */
/*
 * pt_src_kdump.h — kdump-compressed files (makedumpfile, QEMU
 * dump-guest-memory -z|-l|-s) through libkdumpfile (docs/design.md §3.2).
 * Internal to core/.  Pages are read on demand through libkdumpfile and
 * never decompressed at open; the notes (QEMU CPU state, VMCOREINFO) go
 * through the ELF note walker of pt_src_dump.h.
 */
#ifndef PT_SRC_KDUMP_H
#define PT_SRC_KDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_buf.h"
#include "pt_error.h"
#include "pt_src_dump.h"

/* The kinds of file pt_kdump_detect() tells apart. */
enum pt_kdump_kind {
	PT_KDUMP_NONE = 0,
	PT_KDUMP_RAW,           /* "KDUMP   " (or the older "DISKDUMP") at 0: the seekable layout */
	PT_KDUMP_FLAT,          /* "makedumpfile" at 0: the flattened stream (QEMU before 8.2's kdump-*) */
};

struct pt_kdump;

/* What the N bytes at P start (at least 16 are needed). */
enum pt_kdump_kind pt_kdump_detect(const void *p, size_t n);

/*
 * src_kdump_flat.c: the flattened kdump file FD (PT_KDUMP_FLAT) written
 * back to its seekable layout in an unlinked temporary file in DIR: its
 * descriptor in *OUT (the caller's to close) and its size in *SIZE.  Every
 * record is checked against the file (offsets and sizes, the end record,
 * a result that is a plain kdump file); errors are one line in ERR
 * naming LABEL.
 */
pt_err pt_kdump_unflatten(int fd, const char *label, const char *dir, int *out, uint64_t *size,
			  char *err, size_t errlen);

/*
 * Opens the kdump file open as FD (which stays the caller's: K reads
 * through a duplicate) and reads its notes.  LABEL names it in errors.
 */
pt_err pt_kdump_open(int fd, const char *label, struct pt_kdump **out, char *err, size_t errlen);
void pt_kdump_close(struct pt_kdump *k);

/* Its facts: the machine (from libkdumpfile's arch.name), QEMU notes, VMCOREINFO. */
const struct pt_dump_facts *pt_kdump_facts(const struct pt_kdump *k);
/* Bytes of physical memory it describes: (max_pfn) x page size. */
uint64_t pt_kdump_size(const struct pt_kdump *k);
/* The page size (the diskdump block size). */
uint64_t pt_kdump_page_size(const struct pt_kdump *k);
/* libkdumpfile's name of the format ("diskdump") and its description. */
const char *pt_kdump_format(const struct pt_kdump *k);

/*
 * Reads LEN bytes at physical address PA into BUF.  True when every byte
 * is in the dump; false for a page the dump excludes (filtered, or never
 * dumped) or one libkdumpfile cannot read (a corrupt descriptor), which
 * is then not captured.  Safe from any thread.
 */
bool pt_kdump_read(struct pt_kdump *k, uint64_t pa, void *buf, size_t len);

/*
 * Whether the page holding PA is in the dump (the bitmap marks it dumped)
 * but libkdumpfile cannot read it (a corrupt descriptor or compressed
 * bytes): true with one line in WHY naming the page and libkdumpfile's
 * reason; false for a page it reads, or one the dump excludes.
 */
bool pt_kdump_unreadable(struct pt_kdump *k, uint64_t pa, char *why, size_t len);

/* The load's warnings about the file (src_kdump_pages.c), one per line; "" for none. */
const char *pt_kdump_warnings(const struct pt_kdump *k);

/*
 * src_kdump_pages.c: the page descriptors of the kdump file FD (PAGE_SIZE
 * blocks, MAX_PFN pages) checked without decompressing: one line per page
 * the bitmap marks dumped whose descriptor cannot be read (the first few,
 * then a count), and one when the bitmap marks more pages than the file
 * has descriptors for, appended to WARN.
 */
void pt_kdump_check_pages(int fd, uint64_t page_size, uint64_t max_pfn, struct pt_buf *warn);

#endif
