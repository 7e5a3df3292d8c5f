/* SPDX-License-Identifier: MIT */
/*
 * mem_int.h — what mem.c (building and sealing the memory) and mem_read.c
 * (reading it) share: the regions' layout and the chunk arithmetic.
 */
#ifndef PT_MEM_INT_H
#define PT_MEM_INT_H

/* The include rule (HACKING.md, "Layers"): internal to core/load. */
#if !defined(PT_LAYER_LOAD) && !defined(PT_TESTING)
#error "mem_int.h is internal to core/load (HACKING.md, Layers)"
#endif

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "pt_mem.h"

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

/* Bytes chunk IDX of region R really holds (the last one may be short). */
static inline uint64_t chunk_len(const struct region *r, uint64_t idx)
{
	uint64_t off = idx << CHUNK_SHIFT;

	return r->size - off < CHUNK_SIZE ? r->size - off : CHUNK_SIZE;
}

/* Index of the first chunk of R whose idx >= IDX (nchunks if none). */
static inline size_t chunk_lower(const struct region *r, uint64_t idx)
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

static inline uint64_t region_last(const struct region *r)
{
	return r->base + (r->size - 1);
}

/*
 * Copies LEN bytes at OFF of region R (all inside it) to OUT; false if
 * mapped bytes vanished or a reader failed (mem_read.c; the seal compares
 * overlapping regions through it).
 */
bool pt_mem_region_copy(const struct region *r, uint64_t off, uint8_t *out, size_t len);

#endif
