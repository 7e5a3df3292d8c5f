/* SPDX-License-Identifier: MIT */
/*
 * mem.c — captured physical memory (pt_mem.h): its regions built (copied,
 * borrowed from a mapped file, or read on demand) and sealed.  Reading
 * the sealed memory is mem_read.c; the layout both share is mem_int.h.
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
#include <stdlib.h>
#include <string.h>

#include "mem_int.h"
#include "pt_num.h"
#include "pt_vec.h"

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

		if (!have && !pt_bytes_zero(src, n)) {
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

		if (!pt_mem_region_copy(x, pa - x->base, bx, n) || !pt_mem_region_copy(y, pa - y->base, by, n) ||
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
