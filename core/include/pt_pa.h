/* SPDX-License-Identifier: MIT */
/*
 * pt_pa.h — reverse lookup: which contexts and VAs map a physical byte
 * (aliases within a context and across contexts; gdb-pt-dump's find_alias,
 * WinDbg's !ptov).  pa/SPACE/ADDR in the mount, `ptfs-tool pa`.
 *
 * The index is built on first use, from the runs of `maps` (core/runs.c),
 * so it costs memory per run, not per page, and nothing when never used.
 * It holds at most PT_PA_INDEX_RUNS_MAX runs: past that, or when a
 * context's runs stop at PT_MAPS_RUNS_MAX, answers say they are incomplete
 * rather than pretend nothing else maps the byte.
 *
 * Thread-safe: the one-time build runs under a lock; lookups then only read.
 * A live capture's index is kept while every context's tables sum as they
 * did when it was built (pt_context_tables_sum()), and built again by the
 * first lookup that finds a sum changed; its lookups hold the lock.
 */
#ifndef PT_PA_H
#define PT_PA_H

/* The include rule (HACKING.md, "Layers"): the view layer's, never included below it. */
#if defined(PT_LAYER_UTIL) || defined(PT_LAYER_FORMATS) || defined(PT_LAYER_LOAD) || defined(PT_LAYER_SOURCES) || defined(PT_LAYER_WALK) || defined(PT_LAYER_LINUX)
#error "pt_pa.h belongs to core/view: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_capture.h"
#include "pt_render.h"

/* 32 bytes a run: the index stays under 32 MiB. */
#define PT_PA_INDEX_RUNS_MAX (UINT64_C(1) << 20)

struct pt_pa_index;

/* An empty index of CAP (built on the first lookup); NULL on ENOMEM. */
struct pt_pa_index *pt_pa_index_new(const struct pt_capture *cap);
void pt_pa_index_free(struct pt_pa_index *ix);
/* How many times IX was built (once for a file; a live capture's once per change seen). */
uint64_t pt_pa_index_builds(struct pt_pa_index *ix);

struct pt_pa_hit {
	const struct pt_context *ctx;
	uint64_t va;               /* the VA of the byte itself */
};

/*
 * Every mapping of SPACE:ADDR, sorted by context (capture.ini order) then
 * VA, into *HITS (malloc'd, free() it; NULL when none).  *INCOMPLETE: the
 * index did not hold every run (see above).  PT_E_NOMEM on allocation
 * failure.
 */
pt_err pt_pa_lookup(struct pt_pa_index *ix, unsigned space, uint64_t addr,
		    struct pt_pa_hit **hits, size_t *n, bool *incomplete);

/*
 * The pa/SPACE/ADDR file: one line `CONTEXT VA LEAF-PATH FLAGS` per
 * mapping (VA as va/ names it, the leaf's tree path, the maps flag column),
 * then `# incomplete: ...` when the index is.  JSON: one object with keys
 * addr, complete, mappings (objects context, flags, leaf, va), space.
 * *FOUND (may be NULL): the number of mappings.
 */
pt_err pt_render_pa(struct pt_buf *b, struct pt_pa_index *ix, unsigned space, uint64_t addr,
		    enum pt_out out, size_t *found);

#endif
