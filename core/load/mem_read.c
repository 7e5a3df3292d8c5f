/* SPDX-License-Identifier: MIT */
/*
 * mem_read.c — reading captured memory once it is sealed (pt_mem.h):
 * each read one binary search in the sorted regions, then a walk over
 * adjacent ones; copies from mapped files armed against SIGBUS; regions
 * read on demand through their reader's page cache; what a range covers
 * and where its next data is.  Nothing changes after the seal, so reads
 * take no lock but a reader region's.  Built by mem.c (mem_int.h).
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "mem_int.h"

/* The data offset at or after DOFF of borrowed region R not inside a hole. */
static uint64_t past_holes(const struct region *r, uint64_t doff)
{
	size_t lo = 0, hi = r->nholes;

	/* the first hole ending after DOFF */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->holes[mid].off + r->holes[mid].len <= doff)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->nholes && r->holes[lo].off <= doff)
		doff = r->holes[lo].off + r->holes[lo].len;
	return doff;
}

/*
 * Position in sorted[] of the first region of SPACE whose last byte is >= PA,
 * or the end of the space.  Regions of a space do not overlap, so their last
 * bytes are sorted like their bases.
 */
static size_t find_region(const struct pt_mem *mem, unsigned space, uint64_t pa)
{
	size_t lo = mem->space_start[space], hi = mem->space_start[space + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (region_last(&mem->regions[mem->sorted[mid]]) < pa)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * ---- copies from mapped files that may shrink under us -------------------
 *
 * A borrowed region is an mmap of someone else's file.  If it is truncated
 * (the lease was revoked, or could not be honoured), touching a page past
 * the new end raises SIGBUS.  Every copy from such bytes runs armed: a
 * frame on this thread's stack names the source range and a recovery point,
 * and the SIGBUS handler jumps back to it when the fault is inside that
 * range.  Frames nest, because a lease-break handler that copies a mapping
 * may interrupt a reader that is itself copying.
 */
struct fault_frame {
	sigjmp_buf env;
	const uint8_t *lo, *hi;          /* the armed source range [lo, hi) */
	struct fault_frame *prev;
};

/*
 * Per thread because a signal handler cannot be given an argument: SIGBUS
 * is delivered to the thread that touched the page, and its handler finds
 * that thread's innermost frame here.  Not a parameter of any read: a copy
 * arms and disarms its own frame.
 */
static _Thread_local struct fault_frame *volatile fault_top;

bool pt_mem_copy_mapped(void *dst, const void *src, size_t len)
{
	struct fault_frame f;

	f.lo = src;
	f.hi = f.lo + len;
	f.prev = fault_top;
	/* savemask 0: no system call per read; the handler runs with SA_NODEFER. */
	if (sigsetjmp(f.env, 0)) {
		fault_top = f.prev;
		return false;
	}
	fault_top = &f;
	atomic_signal_fence(memory_order_seq_cst);
	memcpy(dst, src, len);
	atomic_signal_fence(memory_order_seq_cst);
	fault_top = f.prev;
	return true;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	struct fault_frame *f = fault_top;
	const uint8_t *a = si ? (const uint8_t *)si->si_addr : NULL;
	struct sigaction dfl;

	(void)uc;
	if (f && si && si->si_code > 0 && a >= f->lo && a < f->hi)
		siglongjmp(f->env, 1);
	/*
	 * Not a fault of an armed copy: a bug, or a signal someone sent.  The
	 * default action must happen as if we were not here: a hardware fault
	 * re-executes the instruction and faults again; a sent signal is
	 * raised again.
	 */
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (!si || si->si_code <= 0)
		raise(sig);
}

pt_err pt_mem_fault_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGBUS, &sa, NULL) == 0 ? PT_OK : PT_E_IO;
}

/*
 * Copies LEN bytes at data offset OFF of reader RD (all inside it) to OUT
 * through its page slots; false when the reader fails (not captured).
 */
static bool reader_copy(struct reader *rd, uint64_t off, uint8_t *out, size_t len)
{
	bool ok = true;

	pthread_mutex_lock(&rd->lock);
	while (len && ok) {
		uint64_t idx = off >> CHUNK_SHIFT, in = off & (CHUNK_SIZE - 1);
		size_t n = (size_t)(CHUNK_SIZE - in < len ? CHUNK_SIZE - in : len);
		uint64_t start = idx << CHUNK_SHIFT;
		size_t plen = (size_t)(rd->size - start < CHUNK_SIZE ? rd->size - start : CHUNK_SIZE);
		unsigned s = (unsigned)(idx % READER_SLOTS);

		if (!rd->slot[s].valid || rd->slot[s].idx != idx) {
			rd->slot[s].valid = false;
			if (rd->read(rd->ud, start, rd->slot[s].data, plen) != PT_OK) {
				ok = false;
				break;
			}
			rd->slot[s].valid = true;
			rd->slot[s].idx = idx;
		}
		memcpy(out, rd->slot[s].data + in, n);
		out += n;
		off += n;
		len -= n;
	}
	pthread_mutex_unlock(&rd->lock);
	return ok;
}

/* Copies LEN bytes at OFF of region R (all inside it) to OUT; false if mapped bytes vanished. */
bool pt_mem_region_copy(const struct region *r, uint64_t off, uint8_t *out, size_t len)
{
	size_t pos;

	off += r->skip;
	if (r->reader)
		return reader_copy(r->reader, off, out, len);
	if (!r->built)
		return pt_mem_copy_mapped(out, r->borrowed + off, len);
	pos = chunk_lower(r, off >> CHUNK_SHIFT);
	while (len) {
		uint64_t idx = off >> CHUNK_SHIFT;
		uint64_t in = off & (CHUNK_SIZE - 1);
		size_t n = (size_t)(CHUNK_SIZE - in < len ? CHUNK_SIZE - in : len);

		while (pos < r->nchunks && r->chunks[pos].idx < idx)
			pos++;
		if (pos < r->nchunks && r->chunks[pos].idx == idx)
			memcpy(out, r->chunks[pos].data + in, n);
		else
			memset(out, 0, n);
		out += n;
		off += n;
		len -= n;
	}
	return true;
}

bool pt_mem_read(const struct pt_mem *mem, unsigned space, uint64_t pa,
		 void *out, size_t len)
{
	uint8_t *dst = out;
	size_t pos, end;

	if (!mem || !mem->sealed || space >= mem->nspaces)
		return false;
	if (len == 0)
		return true;
	if (len - 1 > UINT64_MAX - pa)
		return false;
	pos = find_region(mem, space, pa);
	end = mem->space_start[space + 1];
	while (len) {
		const struct region *r;
		uint64_t off, n;

		if (pos >= end)
			return false;
		r = &mem->regions[mem->sorted[pos]];
		if (r->base > pa)
			return false;    /* a hole before the next region */
		off = pa - r->base;
		n = r->size - off < len ? r->size - off : len;
		/* Bytes of a file that shrank under us are no longer captured. */
		if (!pt_mem_region_copy(r, off, dst, (size_t)n))
			return false;
		dst += n;
		len -= (size_t)n;
		pa += n;             /* may wrap to 0 only when len reached 0 */
		pos++;
	}
	return true;
}

const uint8_t *pt_mem_direct(const struct pt_mem *mem, unsigned space, uint64_t pa, uint64_t len)
{
	const struct region *r;
	uint64_t off, idx;
	size_t pos;

	if (!mem || !mem->sealed || space >= mem->nspaces || len == 0 || len > CHUNK_SIZE ||
	    len - 1 > UINT64_MAX - pa)
		return NULL;
	pos = find_region(mem, space, pa);
	if (pos >= mem->space_start[space + 1])
		return NULL;
	r = &mem->regions[mem->sorted[pos]];
	if (!r->built || r->base > pa || pa - r->base > r->size - len)
		return NULL;
	off = pa - r->base + r->skip;
	idx = off >> CHUNK_SHIFT;
	if ((off + len - 1) >> CHUNK_SHIFT != idx)
		return NULL;
	pos = chunk_lower(r, idx);
	if (pos >= r->nchunks || r->chunks[pos].idx != idx)
		return NULL;
	return r->chunks[pos].data + (off & (CHUNK_SIZE - 1));
}

/*
 * Whether page IDX of reader RD fails to read although its source holds
 * it: a read through the page slots first (a page read a moment ago is
 * readable), then, only when that fails, the source's own answer.
 */
static bool reader_unreadable(struct reader *rd, uint64_t idx, char *why, size_t wlen)
{
	uint8_t one;
	bool bad;

	if (reader_copy(rd, idx << CHUNK_SHIFT, &one, 1))
		return false;
	pthread_mutex_lock(&rd->lock);
	bad = rd->why(rd->ud, idx << CHUNK_SHIFT, why, wlen);
	pthread_mutex_unlock(&rd->lock);
	return bad;
}

bool pt_mem_unreadable(const struct pt_mem *mem, unsigned space, uint64_t pa, uint64_t len,
		       uint64_t *bad, char *why, size_t wlen)
{
	uint64_t last;
	size_t pos, end;

	if (!mem || !mem->sealed || space >= mem->nspaces || len == 0)
		return false;
	last = len - 1 > UINT64_MAX - pa ? UINT64_MAX : pa + (len - 1);
	end = mem->space_start[space + 1];
	for (pos = find_region(mem, space, pa); pos < end; pos++) {
		const struct region *r = &mem->regions[mem->sorted[pos]];
		uint64_t lo, hi;

		if (r->base > last)
			break;
		if (!r->reader || !r->reader->why)
			continue;
		lo = (r->base > pa ? r->base : pa) - r->base + r->skip;
		hi = (region_last(r) < last ? region_last(r) : last) - r->base + r->skip;
		for (uint64_t idx = lo >> CHUNK_SHIFT; idx <= hi >> CHUNK_SHIFT; idx++) {
			if (!reader_unreadable(r->reader, idx, why, wlen))
				continue;
			if (bad) {
				uint64_t at = idx << CHUNK_SHIFT;

				*bad = r->base + (at > r->skip ? at - r->skip : 0);
				if (*bad < pa)
					*bad = pa;
			}
			return true;
		}
	}
	return false;
}

enum pt_cover pt_mem_cover(const struct pt_mem *mem, unsigned space,
			   uint64_t pa, uint64_t len)
{
	uint64_t last, got = 0;
	bool wraps;
	size_t pos, end;

	if (!mem || !mem->sealed || space >= mem->nspaces || len == 0)
		return PT_COVER_NONE;
	/* Bytes past 2^64 exist in no space: a wrapping range is at best partial. */
	wraps = len - 1 > UINT64_MAX - pa;
	last = wraps ? UINT64_MAX : pa + (len - 1);
	end = mem->space_start[space + 1];
	for (pos = find_region(mem, space, pa); pos < end; pos++) {
		const struct region *r = &mem->regions[mem->sorted[pos]];
		uint64_t lo, hi;

		if (r->base > last)
			break;
		lo = r->base > pa ? r->base : pa;
		hi = region_last(r) < last ? region_last(r) : last;
		got += hi - lo + 1;
	}
	if (got == 0)
		return PT_COVER_NONE;
	if (!wraps && got == len)
		return PT_COVER_FULL;
	return PT_COVER_PARTIAL;
}

bool pt_mem_next(const struct pt_mem *mem, unsigned space, uint64_t pa, uint64_t *next)
{
	size_t pos;

	if (!mem || !mem->sealed || space >= mem->nspaces)
		return false;
	pos = find_region(mem, space, pa);
	if (pos >= mem->space_start[space + 1])
		return false;
	/* The first region whose last byte is >= pa: pa itself, or its base. */
	*next = mem->regions[mem->sorted[pos]].base > pa ? mem->regions[mem->sorted[pos]].base : pa;
	return true;
}

bool pt_mem_next_nonzero(const struct pt_mem *mem, unsigned space, uint64_t pa, uint64_t *next)
{
	size_t pos, end;

	if (!mem || !mem->sealed || space >= mem->nspaces)
		return false;
	end = mem->space_start[space + 1];
	for (pos = find_region(mem, space, pa); pos < end; pos++) {
		const struct region *r = &mem->regions[mem->sorted[pos]];
		uint64_t from = r->base > pa ? r->base : pa;
		/* offsets in the region's data, which starts SKIP bytes before BASE */
		uint64_t off = from - r->base + r->skip;
		size_t c;

		if (!r->built) {
			off = past_holes(r, off);
			if (off - r->skip >= r->size)
				continue;    /* the rest of this region is a hole */
			*next = r->base + (off - r->skip);
			return true;
		}
		c = chunk_lower(r, off >> CHUNK_SHIFT);
		if (c >= r->nchunks)
			continue;    /* the rest of this region is zero */
		if (r->chunks[c].idx > off >> CHUNK_SHIFT)
			off = r->chunks[c].idx << CHUNK_SHIFT;
		if (off - r->skip >= r->size)
			continue;
		*next = r->base + (off - r->skip);
		return true;
	}
	return false;
}

uint64_t pt_mem_resident(const struct pt_mem *mem)
{
	return mem ? mem->resident : 0;
}
