/* SPDX-License-Identifier: MIT */
/*
 * mem.c — captured physical memory (pt_mem.h).
 *
 * Regions live in one array in the order they were added (the id is the
 * index).  pt_mem_seal() builds a second array of region ids sorted by
 * (space, base) with a start offset per space, so a read is one binary search
 * and then a walk over adjacent regions.  Nothing changes after the seal, so
 * reads need no lock.
 *
 * A built region keeps only its non-zero chunks, in a array sorted by chunk
 * index: its cost is its non-zero data, never its declared size (a hostile
 * capture may declare terabytes of holes).  The last chunk of a region is
 * allocated at its real length so a small region costs a small allocation.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pt_mem.h"
#include "pt_vec.h"

/*
 * 4 KiB, as in capture_int.h (the loader's chunks are adopted as they are):
 * a lone page-table page in a mostly zero dump costs its own 4 KiB only.
 */
#define CHUNK_SHIFT 12
#define CHUNK_SIZE ((uint64_t)1 << CHUNK_SHIFT)

struct chunk {
	uint64_t idx;      /* offset in the region >> CHUNK_SHIFT */
	uint8_t *data;     /* chunk_len() bytes */
	bool shared;       /* DATA belongs to another region (pt_mem_region_share): never written or freed here */
};

/*
 * A region read through a callback (a compressed page store): the last
 * pages read, so that a table read entry by entry calls the reader once
 * per page.  The lock serialises the reader too (it may keep state).
 */
#define READER_SLOTS 8
struct reader {
	pt_read_fn read;
	pt_why_fn why;             /* NULL: a failed read is never "unreadable" */
	void *ud;
	uint64_t size;             /* bytes of data (the region's size before the seal) */
	pthread_mutex_t lock;
	struct {
		bool valid;
		uint64_t idx;
		uint8_t data[CHUNK_SIZE];
	} slot[READER_SLOTS];
};

struct region {
	unsigned space;
	uint64_t base;
	uint64_t size;
	const uint8_t *borrowed;   /* NULL for a built or a reader region */
	struct reader *reader;     /* a region read on demand, else NULL */
	/*
	 * Bytes of the region's data before BASE: a region whose start
	 * repeated bytes of another (an agreeing overlap) is served from
	 * BASE = its first new byte, at data offset SKIP.
	 */
	uint64_t skip;
	bool built;
	struct chunk *chunks;      /* built: sorted by idx, non-zero chunks only */
	size_t nchunks, chunk_cap;
	/* borrowed: data ranges known to read as zero (file holes), sorted, apart */
	struct { uint64_t off, len; } *holes;
	size_t nholes, hole_cap;
};

struct pt_mem {
	unsigned nspaces;
	bool sealed;
	struct region *regions;
	size_t nregions, cap;
	uint64_t resident;
	/* after seal: ids of the non-empty regions sorted by (space, base) */
	unsigned *sorted;
	size_t *space_start;       /* nspaces + 1 offsets into sorted */
};

struct pt_mem *pt_mem_new(unsigned nspaces)
{
	struct pt_mem *mem = calloc(1, sizeof *mem);

	if (!mem)
		return NULL;
	mem->nspaces = nspaces;
	return mem;
}

void pt_mem_free(struct pt_mem *mem)
{
	if (!mem)
		return;
	for (size_t i = 0; i < mem->nregions; i++) {
		struct region *r = &mem->regions[i];

		for (size_t c = 0; c < r->nchunks; c++)
			if (!r->chunks[c].shared)
				free(r->chunks[c].data);
		free(r->chunks);
		free(r->holes);
		if (r->reader) {
			pthread_mutex_destroy(&r->reader->lock);
			free(r->reader);
		}
	}
	free(mem->regions);
	free(mem->sorted);
	free(mem->space_start);
	free(mem);
}

/* BUILT: chunks; else DATA (borrowed bytes) or, when READER, neither (a callback). */
static pt_err add_region(struct pt_mem *mem, unsigned space, uint64_t base,
			 uint64_t size, const void *data, bool built, bool reader, unsigned *id)
{
	struct region *r;

	if (!mem || mem->sealed || space >= mem->nspaces || (!built && !reader && size && !data))
		return PT_E_USAGE;
	/* The last byte must be addressable: base + size may reach 2^64 but not pass it. */
	if (size && size - 1 > UINT64_MAX - base)
		return PT_E_VALUE;
	if (mem->nregions >= UINT32_MAX)
		return PT_E_NOMEM;
	if (!pt_vec_reserve(&mem->regions, &mem->cap, mem->nregions + 1, sizeof *mem->regions))
		return PT_E_NOMEM;
	r = &mem->regions[mem->nregions];
	memset(r, 0, sizeof *r);
	r->space = space;
	r->base = base;
	r->size = size;
	r->built = built;
	r->borrowed = built || reader ? NULL : data;
	if (id)
		*id = (unsigned)mem->nregions;
	mem->nregions++;
	return PT_OK;
}

pt_err pt_mem_add_borrowed(struct pt_mem *mem, unsigned space, uint64_t base,
			   const void *data, uint64_t size, unsigned *id)
{
	return add_region(mem, space, base, size, data, false, false, id);
}

pt_err pt_mem_add_built(struct pt_mem *mem, unsigned space, uint64_t base,
			uint64_t size, unsigned *id)
{
	return add_region(mem, space, base, size, NULL, true, false, id);
}

pt_err pt_mem_add_reader(struct pt_mem *mem, unsigned space, uint64_t base, uint64_t size,
			 pt_read_fn read, void *ud, unsigned *id)
{
	struct reader *rd;
	unsigned n;
	pt_err rc;

	if (!read)
		return PT_E_USAGE;
	rd = calloc(1, sizeof *rd);
	if (!rd)
		return PT_E_NOMEM;
	if (pthread_mutex_init(&rd->lock, NULL)) {
		free(rd);
		return PT_E_NOMEM;
	}
	rd->read = read;
	rd->ud = ud;
	rd->size = size;
	rc = add_region(mem, space, base, size, NULL, false, true, &n);
	if (rc) {
		pthread_mutex_destroy(&rd->lock);
		free(rd);
		return rc;
	}
	mem->regions[n].reader = rd;
	if (id)
		*id = n;
	return PT_OK;
}

pt_err pt_mem_reader_why(struct pt_mem *mem, unsigned id, pt_why_fn why)
{
	if (!mem || mem->sealed || id >= mem->nregions || !mem->regions[id].reader)
		return PT_E_USAGE;
	mem->regions[id].reader->why = why;
	return PT_OK;
}

/* Bytes chunk IDX of region R really holds (the last one may be short). */
static uint64_t chunk_len(const struct region *r, uint64_t idx)
{
	uint64_t off = idx << CHUNK_SHIFT;

	return r->size - off < CHUNK_SIZE ? r->size - off : CHUNK_SIZE;
}

/* Index of the first chunk of R whose idx >= IDX (nchunks if none). */
static size_t chunk_lower(const struct region *r, uint64_t idx)
{
	size_t lo = 0, hi = r->nchunks;

	/* Streaming writes append: check the end first. */
	if (hi && r->chunks[hi - 1].idx < idx)
		return hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->chunks[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	/* Compare the buffer with itself shifted by one: memcmp is vectorised. */
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

pt_err pt_mem_region_write(struct pt_mem *mem, unsigned id, uint64_t offset,
			   const void *data, size_t len)
{
	struct region *r;
	const uint8_t *src = data;

	if (!mem || mem->sealed || id >= mem->nregions || (len && !data))
		return PT_E_USAGE;
	r = &mem->regions[id];
	if (!r->built || offset > r->size || len > r->size - offset)
		return PT_E_USAGE;
	while (len) {
		uint64_t idx = offset >> CHUNK_SHIFT;
		uint64_t in = offset & (CHUNK_SIZE - 1);
		size_t n = (size_t)(CHUNK_SIZE - in < len ? CHUNK_SIZE - in : len);
		size_t pos = chunk_lower(r, idx);
		bool have = pos < r->nchunks && r->chunks[pos].idx == idx;

		if (!have && !all_zero(src, n)) {
			uint64_t clen = chunk_len(r, idx);
			uint8_t *c = calloc(1, (size_t)clen);

			if (!c)
				return PT_E_NOMEM;
			if (!pt_vec_reserve(&r->chunks, &r->chunk_cap, r->nchunks + 1, sizeof *r->chunks)) {
				free(c);
				return PT_E_NOMEM;
			}
			memmove(&r->chunks[pos + 1], &r->chunks[pos],
				(r->nchunks - pos) * sizeof *r->chunks);
			r->chunks[pos].idx = idx;
			r->chunks[pos].data = c;
			r->chunks[pos].shared = false;
			r->nchunks++;
			mem->resident += clen;
			have = true;
		} else if (have && r->chunks[pos].shared) {
			/* Another region's bytes: this region gets its own copy before writing. */
			uint64_t clen = chunk_len(r, idx);
			uint8_t *c = malloc((size_t)clen);

			if (!c)
				return PT_E_NOMEM;
			memcpy(c, r->chunks[pos].data, (size_t)clen);
			r->chunks[pos].data = c;
			r->chunks[pos].shared = false;
			mem->resident += clen;
		}
		if (have)
			memcpy(r->chunks[pos].data + in, src, n);
		/* else: zero bytes into a chunk that does not exist, which reads as zero */
		src += n;
		offset += n;
		len -= n;
	}
	return PT_OK;
}

/* Puts CHUNK at OFFSET of built region ID; SHARED: it stays another region's. */
static pt_err region_put(struct pt_mem *mem, unsigned id, uint64_t offset,
			 void *chunk, size_t len, bool shared)
{
	struct region *r;
	uint64_t idx;
	size_t pos;

	if (!mem || mem->sealed || id >= mem->nregions || !chunk)
		return PT_E_USAGE;
	r = &mem->regions[id];
	idx = offset >> CHUNK_SHIFT;
	if (!r->built || (offset & (CHUNK_SIZE - 1)) || offset >= r->size ||
	    len < chunk_len(r, idx))
		return PT_E_USAGE;
	pos = chunk_lower(r, idx);
	if (pos < r->nchunks && r->chunks[pos].idx == idx)
		return PT_E_USAGE;
	if (!pt_vec_reserve(&r->chunks, &r->chunk_cap, r->nchunks + 1, sizeof *r->chunks))
		return PT_E_NOMEM;
	memmove(&r->chunks[pos + 1], &r->chunks[pos], (r->nchunks - pos) * sizeof *r->chunks);
	r->chunks[pos].idx = idx;
	r->chunks[pos].data = chunk;
	r->chunks[pos].shared = shared;
	r->nchunks++;
	/* shared bytes are resident once, in the region that owns them */
	if (!shared)
		mem->resident += chunk_len(r, idx);
	return PT_OK;
}

pt_err pt_mem_region_adopt(struct pt_mem *mem, unsigned id, uint64_t offset,
			   void *chunk, size_t len)
{
	return region_put(mem, id, offset, chunk, len, false);
}

pt_err pt_mem_region_share(struct pt_mem *mem, unsigned id, uint64_t offset,
			   const void *chunk, size_t len)
{
	return region_put(mem, id, offset, (void *)chunk, len, true);
}

pt_err pt_mem_region_hole(struct pt_mem *mem, unsigned id, uint64_t offset, uint64_t len)
{
	struct region *r;

	if (!mem || mem->sealed || id >= mem->nregions)
		return PT_E_USAGE;
	r = &mem->regions[id];
	if (r->built || r->reader || offset > r->size || len > r->size - offset ||
	    (r->nholes && offset < r->holes[r->nholes - 1].off + r->holes[r->nholes - 1].len))
		return PT_E_USAGE;
	if (!len)
		return PT_OK;
	/* most regions have one hole or none: the first is allocated alone (70,000 ELF segments) */
	if (!r->hole_cap) {
		r->holes = malloc(sizeof *r->holes);
		if (!r->holes)
			return PT_E_NOMEM;
		r->hole_cap = 1;
	}
	if (!pt_vec_reserve(&r->holes, &r->hole_cap, r->nholes + 1, sizeof *r->holes))
		return PT_E_NOMEM;
	r->holes[r->nholes].off = offset;
	r->holes[r->nholes].len = len;
	r->nholes++;
	return PT_OK;
}

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

static int cmp_sorted(const void *a, const void *b, void *ud)
{
	const struct pt_mem *mem = ud;
	const struct region *x = &mem->regions[*(const unsigned *)a];
	const struct region *y = &mem->regions[*(const unsigned *)b];

	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	/* Equal bases overlap anyway; order by id so the report is stable. */
	return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

static uint64_t region_last(const struct region *r)
{
	return r->base + (r->size - 1);
}

static bool region_copy(const struct region *r, uint64_t off, uint8_t *out, size_t len);

/*
 * Whether regions X and Y hold the same bytes in [LO, HI] (inside both).
 * Compared in chunk-sized pieces so a large overlap needs no large buffer.
 */
static bool overlap_agrees(const struct region *x, const struct region *y, uint64_t lo, uint64_t hi)
{
	/*
	 * Scratch, per thread so that loads on two threads never share it:
	 * nothing outlives the call, so no result depends on it.
	 */
	static _Thread_local uint8_t bx[CHUNK_SIZE], by[CHUNK_SIZE];

	for (uint64_t pa = lo;;) {
		size_t n = hi - pa >= CHUNK_SIZE - 1 ? (size_t)CHUNK_SIZE : (size_t)(hi - pa + 1);

		if (!region_copy(x, pa - x->base, bx, n) || !region_copy(y, pa - y->base, by, n) ||
		    memcmp(bx, by, n))
			return false;
		if (hi - pa < n)
			return true;
		pa += n;
	}
}

pt_err pt_mem_seal(struct pt_mem *mem, unsigned *a, unsigned *b)
{
	size_t n = 0, k = 0;

	if (!mem || mem->sealed)
		return PT_E_USAGE;
	free(mem->sorted);
	free(mem->space_start);
	mem->sorted = malloc((mem->nregions ? mem->nregions : 1) * sizeof *mem->sorted);
	mem->space_start = calloc((size_t)mem->nspaces + 1, sizeof *mem->space_start);
	if (!mem->sorted || !mem->space_start)
		return PT_E_NOMEM;
	/* Empty regions cover nothing: they are listed by the capture but never read. */
	for (size_t i = 0; i < mem->nregions; i++)
		if (mem->regions[i].size)
			mem->sorted[n++] = (unsigned)i;
	qsort_r(mem->sorted, n, sizeof *mem->sorted, cmp_sorted, mem);
	/*
	 * Regions of one space may overlap where their bytes agree (docs/design.md
	 * §3.1: a umr log re-reads entries, gem5 keeps a GART copy): the
	 * later one in (base, id) order keeps only its bytes past the kept
	 * ones, or is dropped when it has none.  Kept regions never overlap,
	 * so reads stay one binary search.  Disagreeing bytes are an error.
	 */
	for (size_t i = 0; i < n; i++) {
		unsigned y = mem->sorted[i];
		struct region *r = &mem->regions[y];
		uint64_t last = region_last(r), covered = 0;
		bool overlap = false;

		for (size_t j = k; j-- > 0;) {
			unsigned x = mem->sorted[j];
			const struct region *p = &mem->regions[x];
			uint64_t hi;

			if (p->space != r->space || region_last(p) < r->base)
				break;
			hi = region_last(p) < last ? region_last(p) : last;
			if (!overlap_agrees(p, r, p->base > r->base ? p->base : r->base, hi)) {
				if (a)
					*a = x < y ? x : y;
				if (b)
					*b = x < y ? y : x;
				return PT_E_CAPTURE;
			}
			if (!overlap)
				covered = region_last(p);
			overlap = true;
		}
		if (overlap) {
			uint64_t d;

			if (covered >= last)
				continue;       /* every byte already captured: dropped */
			d = covered + 1 - r->base;
			r->base += d;
			r->size -= d;
			r->skip += d;
		}
		mem->sorted[k++] = y;
		mem->space_start[r->space + 1] = k;
	}
	/* Spaces without regions start where the previous space ended. */
	for (unsigned s = 1; s <= mem->nspaces; s++)
		if (mem->space_start[s] < mem->space_start[s - 1])
			mem->space_start[s] = mem->space_start[s - 1];
	mem->sealed = true;
	return PT_OK;
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
static bool region_copy(const struct region *r, uint64_t off, uint8_t *out, size_t len)
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
		if (!region_copy(r, off, dst, (size_t)n))
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
