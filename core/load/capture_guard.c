/* SPDX-License-Identifier: MIT */
/*
 * capture_guard.c — leases on the files a capture serves in place
 * (pt_capture_guard(), pt_capture.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_int.h"

/* ---- guarding in-place data --------------------------------------------- */

/* Holes recorded per region at most: past that, zero data is merely read. */
#define MAX_HOLES 4096

/*
 * Tells CAP's memory which bytes of region ID (LEN bytes at file offset
 * OFF of FD) are holes of the file: they read as zero, and a listing
 * passes them without reading (a directory capture or an uncompressed tar
 * may hold terabytes of holes).  The descriptor's offset is shared with
 * the loader's: it is put back.
 */
static pt_err record_holes(struct pt_capture *cap, unsigned id, int fd, off_t off, uint64_t len)
{
	off_t saved = lseek(fd, 0, SEEK_CUR), end = off + (off_t)len, at = off;
	size_t n = 0;
	pt_err rc = PT_OK;

	if (saved < 0)
		return PT_OK;
	while (at < end && n < MAX_HOLES) {
		off_t h = lseek(fd, at, SEEK_HOLE), d;

		if (h < 0 || h >= end)
			break;
		d = lseek(fd, h, SEEK_DATA);
		if (d < 0 || d > end)
			d = end;    /* ENXIO: a hole to the end of the file */
		if (d > h) {
			rc = pt_mem_region_hole(cap->mem, id, (uint64_t)(h - off), (uint64_t)(d - h));
			if (rc)
				break;
			n++;
		}
		at = d;
	}
	lseek(fd, saved, SEEK_SET);
	return rc;
}

pt_err pt_capture_map_use(struct pt_capture *cap, unsigned id, const void *p, uint64_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (size_t i = 0; len && i < cap->nmaps; i++) {
		struct mapping *m = &cap->maps[i];
		const char *base = m->p;
		size_t off, end;

		if ((const char *)p < base || (const char *)p >= base + m->len)
			continue;
		off = (size_t)((const char *)p - base);
		end = len > m->len - off ? m->len : off + (size_t)len;
		off -= off % page;
		/* whole pages (the file's last page may be partial) */
		if (end % page)
			end = m->len - end > page - end % page ? end + (page - end % page) : m->len;
		if (!pt_vec_reserve(&m->used, &m->usedcap, m->nused + 1, sizeof *m->used))
			return PT_E_NOMEM;
		m->used[m->nused].off = off;
		m->used[m->nused].len = end - off;
		m->nused++;
		if (m->fd < 0)
			return PT_OK;
		return record_holes(cap, id, m->fd, (off_t)((const char *)p - base), len);
	}
	return PT_OK;
}

static int cmp_span(const void *a, const void *b)
{
	const struct pt_span *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Sorts M's used ranges and merges those that touch (before any signal can come). */
static void spans_merge(struct mapping *m)
{
	size_t k = 0;

	if (!m->nused)
		return;
	qsort(m->used, m->nused, sizeof *m->used, cmp_span);
	for (size_t i = 1; i < m->nused; i++) {
		struct pt_span *last = &m->used[k];

		if (m->used[i].off <= last->off + last->len) {
			size_t end = m->used[i].off + m->used[i].len;

			if (end > last->off + last->len)
				last->len = end - last->off;
		} else {
			m->used[++k] = m->used[i];
		}
	}
	m->nused = k + 1;
}

/*
 * Copies the pages of [FROM, TO) of mapping M into COPY (which maps M's
 * bytes from OFF), writing only non-zero pages: the fresh mapping reads as
 * zero already.  False when the file no longer holds the bytes.
 */
static bool copy_pages(const struct mapping *m, char *copy, size_t off, size_t from, size_t to)
{
	char page[4096];

	for (size_t at = from; at < to; at += sizeof page) {
		size_t n = to - at < sizeof page ? to - at : sizeof page;

		if (!pt_mem_copy_mapped(page, (const char *)m->p + at, n))
			return false;
		if (page[0] || memcmp(page, page + 1, n - 1))
			memcpy(copy + (at - off), page, n);
	}
	return true;
}

/*
 * Replaces LEN bytes at OFF (page-aligned) of mapping M with an anonymous
 * copy, in one mremap() so readers never see a gap.  Only the file's data
 * is read: its holes (SEEK_DATA/SEEK_HOLE) are zero in the copy without
 * touching them, since reading a hole through the mapping would fill the
 * page cache and RSS with zeros.  False when the file no longer holds the
 * bytes (*LOST) or memory cannot be had.
 */
static bool copy_over(const struct mapping *m, size_t off, size_t len, bool *lost)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), end = off + len;
	struct stat st;
	char *copy;

	/*
	 * The mapping covers the whole file as it was at load: a file now
	 * shorter than the range lost those bytes.  Past its end SEEK_DATA
	 * says "no data" just as for a hole, so without this check the copy
	 * would serve zeros where the capture had bytes: fail closed (lost,
	 * not captured).  fstat is async-signal-safe.
	 */
	if (fstat(m->fd, &st) != 0 || (uint64_t)st.st_size < (uint64_t)end) {
		*lost = true;
		return false;
	}
	copy = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy == MAP_FAILED)
		return false;
	for (size_t pos = off; pos < end;) {
		off_t d = lseek(m->fd, (off_t)pos, SEEK_DATA), h;
		size_t from, to;

		if (d < 0 && errno == ENXIO)
			break;                      /* no data from POS on */
		if (d < 0)
			d = (off_t)pos, h = (off_t)end;   /* no hole support: copy it all */
		else if ((h = lseek(m->fd, d, SEEK_HOLE)) < 0)
			h = (off_t)end;
		if ((size_t)d >= end)
			break;
		from = (size_t)d - (size_t)d % page;
		if (from < pos)
			from = pos;
		to = (size_t)h > end ? end : (size_t)h;
		if (to % page)
			to = end - to > page - to % page ? to + (page - to % page) : end;
		if (to <= from)
			to = from + page < end ? from + page : end;
		if (!copy_pages(m, copy, off, from, to)) {
			munmap(copy, len);
			*lost = true;
			return false;
		}
		pos = to;
	}
	mprotect(copy, len, PROT_READ);
	if (mremap(copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (char *)m->p + off) == MAP_FAILED) {
		munmap(copy, len);
		return false;
	}
	return true;
}

/*
 * Makes mapping M independent of its file: the ranges regions serve are
 * copied into fresh anonymous memory, which mremap() then moves over the
 * file mapping at the same address in one step, so readers on other
 * threads see the same bytes throughout and no pointer into the capture
 * changes; the ranges nobody serves (the rest of a large in-place tar)
 * become anonymous zero pages, which cost nothing, so the copy is the
 * captured bytes, not the archive.  (Dirtying the MAP_PRIVATE pages is not
 * enough: truncating a file unmaps even the private copies past the new
 * end, and the next read is SIGBUS.)  Only system calls and memcpy: usable
 * from a signal handler.  If memory cannot be had, the mapping stays as it
 * is and the lease is kept, so the writer waits for the kernel's
 * lease-break time; after that it may shrink the file, and reads of the
 * lost pages fail as not captured (pt_mem.h).
 */
static void privatize(struct mapping *m)
{
	char *base = m->p;
	size_t at = 0;
	bool lost = false;
	int saved_errno = errno;   /* a signal handler must leave errno as it found it */

	if (m->fd < 0)
		return;
	for (size_t i = 0; i <= m->nused; i++) {
		size_t off = i < m->nused ? m->used[i].off : m->len;

		/* the gap before range I: nobody reads it; drop the file's pages */
		if (off > at)
			(void)mmap(base + at, off - at, PROT_READ,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
		if (i == m->nused)
			break;
		/*
		 * The file may already be shorter than the mapping: the signal
		 * comes late when the process was stopped and the kernel revoked
		 * the lease meanwhile.  Then there is nothing left to save: the
		 * mapping stays (reads of the lost pages fail as not captured,
		 * pt_mem_copy_mapped) and the lease, which the kernel has taken
		 * anyway, is dropped.
		 */
		if (!copy_over(m, off, m->used[i].len, &lost) && !lost) {
			errno = saved_errno;
			return;
		}
		at = off + m->used[i].len;
	}
	fcntl(m->fd, F_SETLEASE, F_UNLCK);
	close(m->fd);
	m->fd = -1;
	errno = saved_errno;
}

pt_err pt_capture_guard(struct pt_capture *cap, int sig)
{
	if (!cap)
		return PT_E_USAGE;
	cap->guarded = true;
	for (size_t i = 0; i < cap->nmaps; i++)
		spans_merge(&cap->maps[i]);
	for (size_t i = 0; i < cap->nmaps; i++) {
		struct mapping *m = &cap->maps[i];

		if (m->fd < 0)
			continue;
		/* The break signal carries the descriptor (si_fd) so the handler knows the file. */
		if (sig > 0 && fcntl(m->fd, F_SETSIG, sig) == 0 &&
		    fcntl(m->fd, F_SETOWN, getpid()) == 0 &&
		    fcntl(m->fd, F_SETLEASE, F_RDLCK) == 0)
			continue;
		/* No lease (not the file's owner, a network file system, a writer
		 * already): copy now rather than serve bytes that may change. */
		privatize(m);
	}
	return PT_OK;
}

void pt_capture_guard_break(struct pt_capture *cap, int fd)
{
	if (!cap || fd < 0 || !cap->guarded)
		return;
	for (size_t i = 0; i < cap->nmaps; i++)
		if (cap->maps[i].fd == fd)
			privatize(&cap->maps[i]);
}

size_t pt_capture_guard_pending(const struct pt_capture *cap)
{
	size_t n = 0;

	for (size_t i = 0; cap && i < cap->nmaps; i++)
		n += cap->maps[i].fd >= 0;
	return n;
}

/* Records mapping P of LEN bytes of the file open as FD (FD is duplicated, not taken). */
pt_err pt_capture_add_mapping(struct pt_capture *cap, void *p, size_t len, int fd)
{
	if (!pt_vec_reserve(&cap->maps, &cap->mapcap, cap->nmaps + 1, sizeof *cap->maps))
		return PT_E_NOMEM;
	memset(&cap->maps[cap->nmaps], 0, sizeof cap->maps[cap->nmaps]);
	cap->maps[cap->nmaps].p = p;
	cap->maps[cap->nmaps].len = len;
	cap->maps[cap->nmaps].used = NULL;
	cap->maps[cap->nmaps].nused = cap->maps[cap->nmaps].usedcap = 0;
	/* No descriptor left: pt_capture_guard() then copies the pages at once. */
	cap->maps[cap->nmaps].fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	cap->nmaps++;
	return PT_OK;
}
