/* SPDX-License-Identifier: MIT */
/*
 * pa.c — the reverse index (physical byte -> contexts and VAs).
 *
 * Built once from the unfiltered runs of every context, sorted by space and
 * PA.  Runs may overlap (aliases), so a lookup scans back from the last run
 * starting at or below ADDR as far as the longest run could reach.  The
 * leaf path and flags of each hit come from walking its VA: the walker is
 * the one truth, and a hit the walk does not confirm is dropped.
 *
 * A live capture's tables change under it: its index is kept with the sum
 * of every context's tables (pt_context_tables_sum(), what a live mount's
 * `# changed while read` compares) and built again only when a lookup
 * finds that sum changed (issue #39 item 10: it was built again for every
 * lookup, 1.7-2.9 s each on a 512 MiB guest).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pt_vec.h"
#include "pt_pa.h"
#include "pt_runs.h"

struct pa_run {
	uint64_t pa, len, va;
	uint32_t ctx;
	uint32_t space;
};

struct pt_pa_index {
	const struct pt_capture *cap;
	pthread_mutex_t lock;
	bool built;
	pt_err build_err;
	struct pa_run *r;
	size_t n;
	uint64_t max_len;
	bool incomplete;
	uint64_t *sums;       /* live: each context's tables' sum when the index was built */
	uint64_t builds;      /* times the index was built (pt_pa_index_builds()) */
};

struct pt_pa_index *pt_pa_index_new(const struct pt_capture *cap)
{
	struct pt_pa_index *ix = calloc(1, sizeof *ix);

	if (!ix)
		return NULL;
	ix->cap = cap;
	pthread_mutex_init(&ix->lock, NULL);
	return ix;
}

void pt_pa_index_free(struct pt_pa_index *ix)
{
	if (!ix)
		return;
	pthread_mutex_destroy(&ix->lock);
	free(ix->sums);
	free(ix->r);
	free(ix);
}

static int run_cmp(const void *a, const void *b)
{
	const struct pa_run *x = a, *y = b;

	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	if (x->pa != y->pa)
		return x->pa < y->pa ? -1 : 1;
	if (x->ctx != y->ctx)
		return x->ctx < y->ctx ? -1 : 1;
	return x->va < y->va ? -1 : x->va > y->va;
}

/* One more entry of the index; false when it is full (ix->incomplete) or out of memory (*ERR). */
static bool add_run(struct pt_pa_index *ix, size_t *cap, const struct pa_run *r, pt_err *err)
{
	if (ix->n == PT_PA_INDEX_RUNS_MAX) {
		ix->incomplete = true;
		return false;
	}
	if (!pt_vec_reserve(&ix->r, cap, ix->n + 1, sizeof *ix->r)) {
		*err = PT_E_NOMEM;
		return false;
	}
	ix->r[ix->n++] = *r;
	if (r->len > ix->max_len)
		ix->max_len = r->len;
	return true;
}

static pt_err build(struct pt_pa_index *ix)
{
	size_t cap = 0;
	pt_err err = PT_OK;

	for (size_t c = 0; c < pt_capture_context_count(ix->cap); c++) {
		const struct pt_context *ctx = pt_capture_context(ix->cap, c);
		struct pt_runs_filter f;
		struct pt_runs_iter it;
		struct pt_run run;

		pt_runs_filter_init(&f);
		/*
		 * Not cancellable (NULL): the index is built once and kept, so a
		 * cancelled build would leave it short for every later reader;
		 * the runs bound it (PT_SCAN_ENTRIES_MAX per context).
		 */
		pt_runs_init(&it, ctx, &f, NULL);
		while (pt_runs_next(&it, &run)) {
			struct pa_run r = {
				.pa = run.pa, .len = run.end - run.va, .va = run.va,
				.ctx = (uint32_t)c, .space = pt_context_space(ctx, run.space),
			};

			if (!add_run(ix, &cap, &r, &err))
				break;
			/*
			 * A run in a translated space is found at its final address
			 * too (docs/design.md §2.8).  Maps runs end where a stage-2
			 * translation stops holding (runs.c cuts a page into its
			 * stage-2 pieces), so the run's FINAL holds for all of it.
			 */
			if (run.translated && run.final_fault == PT_FAULT_NONE) {
				r.pa = run.final_pa;
				r.space = run.final_space;
				if (!add_run(ix, &cap, &r, &err))
					break;
			}
		}
		if (err != PT_OK)
			return err;
		if (it.truncated)
			ix->incomplete = true;
	}
	if (ix->n > 1)
		qsort(ix->r, ix->n, sizeof *ix->r, run_cmp);
	return PT_OK;
}

static int hit_cmp(const void *a, const void *b)
{
	const struct pt_pa_hit *x = a, *y = b;

	if (x->ctx->index != y->ctx->index)
		return x->ctx->index < y->ctx->index ? -1 : 1;
	return x->va < y->va ? -1 : x->va > y->va;
}

/* The hits of (SPACE, ADDR) in IX's built runs. */
static pt_err lookup_built(struct pt_pa_index *ix, unsigned space, uint64_t addr,
			   struct pt_pa_hit **hits, size_t *n)
{
	struct pt_pa_hit *h = NULL;
	size_t lo = 0, hi, nh = 0, caph = 0;

	/* First run after (space, addr). */
	hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pa_run *r = &ix->r[mid];

		if (r->space < space || (r->space == space && r->pa <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct pa_run *r = &ix->r[i];

		if (r->space != space || addr - r->pa >= ix->max_len)
			break;
		if (addr - r->pa >= r->len)
			continue;
		if (!pt_vec_reserve(&h, &caph, nh + 1, sizeof *h)) {
			free(h);
			return PT_E_NOMEM;
		}
		h[nh].ctx = pt_capture_context(ix->cap, r->ctx);
		h[nh].va = r->va + (addr - r->pa);
		nh++;
	}
	if (nh > 1)
		qsort(h, nh, sizeof *h, hit_cmp);
	*hits = h;
	*n = nh;
	return PT_OK;
}

/*
 * A live capture: whether IX's index still holds (every context's tables
 * sum as when it was built); if not, the sums now go to IX->sums and the
 * index is dropped, to be built again.  Under IX's lock.
 */
static void live_revalidate(struct pt_pa_index *ix)
{
	size_t nc = pt_capture_context_count(ix->cap);
	uint64_t *now = calloc(nc ? nc : 1, sizeof *now);
	bool same = ix->built && ix->sums && now;

	for (size_t c = 0; now && c < nc; c++)
		if (pt_context_tables_sum(pt_capture_context(ix->cap, c), &now[c], NULL) != PT_OK) {
			free(now);
			now = NULL;    /* no sum: nothing to keep the index by */
			same = false;
		}
	if (same && !memcmp(now, ix->sums, nc * sizeof *now)) {
		free(now);
		return;
	}
	free(ix->sums);
	ix->sums = now;
	free(ix->r);
	ix->r = NULL;
	ix->n = 0;
	ix->max_len = 0;
	ix->incomplete = false;
	ix->built = false;
}

pt_err pt_pa_lookup(struct pt_pa_index *ix, unsigned space, uint64_t addr,
		    struct pt_pa_hit **hits, size_t *n, bool *incomplete)
{
	/*
	 * A live capture's index may be built again by any lookup: the lookup
	 * stays under the lock throughout, so that no reader sees runs freed
	 * by another's rebuild.
	 */
	bool live = pt_capture_is_live(ix->cap);
	pt_err err;

	*hits = NULL;
	*n = 0;
	pthread_mutex_lock(&ix->lock);
	if (live)
		live_revalidate(ix);
	if (!ix->built) {
		ix->builds++;
		ix->build_err = build(ix);
		if (ix->build_err != PT_OK) {
			free(ix->r);
			ix->r = NULL;
			ix->n = 0;
		}
		/* An allocation failure is retried on the next lookup. */
		ix->built = ix->build_err == PT_OK;
	}
	err = ix->build_err;
	if (live) {
		if (err == PT_OK) {
			*incomplete = ix->incomplete;
			err = lookup_built(ix, space, addr, hits, n);
		}
		pthread_mutex_unlock(&ix->lock);
		return err;
	}
	pthread_mutex_unlock(&ix->lock);
	if (err != PT_OK)
		return err;
	*incomplete = ix->incomplete;
	return lookup_built(ix, space, addr, hits, n);
}

uint64_t pt_pa_index_builds(struct pt_pa_index *ix)
{
	uint64_t n;

	pthread_mutex_lock(&ix->lock);
	n = ix->builds;
	pthread_mutex_unlock(&ix->lock);
	return n;
}

/*
 * The processes among the contexts that map the byte: a Linux process's
 * context pidN (core/linux, docs/design.md §3.3) carries its pid and comm
 * as x-pid and x-comm.  Text `pid50 (worker)`, JSON {comm, context, pid};
 * once per context (the hits come by context).  Only a mapping the process
 * can reach from user mode counts (LEAF's U/S bit, where the format has
 * one): every pidN holds the kernel's half too, whose direct map maps every
 * frame, so counting it named every process for every page (the qemu
 * suite's ptfs-family: a frame the guest's pagemap gives one process).
 */
static void proc_add(struct pt_buf *txt, struct pt_jarr *js, const struct pt_context *ctx,
		     const struct pt_entry *leaf, const struct pt_context **last)
{
	const char *pid = pt_context_annotation(ctx, "x-pid"), *comm = pt_context_annotation(ctx, "x-comm");
	struct pt_jobj o = {0};

	if (ctx == *last || !pid || !comm || !pt_entry_get(leaf, "user", 1))
		return;
	*last = ctx;
	pt_buf_printf(txt, "%s%s (%s)", txt->len ? ", " : "", ctx->name, comm);
	pt_jobj_str(&o, "comm", comm);
	pt_jobj_str(&o, "context", ctx->name);
	pt_jobj_u(&o, "pid", strtoull(pid, NULL, 10));
	pt_jarr_obj(js, &o);
}

pt_err pt_render_pa(struct pt_buf *b, struct pt_pa_index *ix, unsigned space, uint64_t addr,
		    enum pt_out out, size_t *found)
{
	struct pt_pa_hit *h;
	size_t n, shown = 0;
	bool incomplete = false;
	pt_err err = pt_pa_lookup(ix, space, addr, &h, &n, &incomplete);
	const struct pt_context *last = NULL;
	struct pt_buf procs;
	struct pt_jarr pj = {0};

	if (err != PT_OK)
		return err;
	pt_buf_init(&procs);
	if (out == PT_OUT_JSON)
		pt_buf_printf(b, "{\"complete\": %s, \"mappings\": [", incomplete ? "false" : "true");
	for (size_t i = 0; i < n; i++) {
		const struct pt_context *ctx = h[i].ctx;
		struct pt_walk w;
		char va[40], path[256], flags[PT_FLAGS_LEN] = "";

		if (pt_walk_va(ctx, h[i].va, &w) != PT_OK || w.fault != PT_FAULT_NONE ||
		    ((pt_context_space(ctx, w.space) != space || w.pa != addr) &&
		     (!w.translated || w.final_space != space || w.final_pa != addr)))
			continue;   /* the walker is the truth: never show what it does not confirm */
		pt_va_name(ctx->fmt, h[i].va, va, sizeof va);
		pt_node_path(&w.node, path, sizeof path);
		pt_format_flags(ctx->fmt, &w.steps[w.leaf_step].entry, flags, sizeof flags);
		if (out == PT_OUT_JSON) {
			pt_buf_puts(b, shown ? ", {\"context\": " : "{\"context\": ");
			pt_json_escape(b, ctx->name);
			pt_buf_puts(b, ", \"flags\": ");
			pt_json_flags(b, flags);
			pt_buf_puts(b, ", \"path\": ");
			pt_json_escape(b, path);
			pt_buf_printf(b, ", \"va\": \"0x%" PRIx64 "\"}", h[i].va);
		} else {
			pt_buf_printf(b, "%s %s %s %s\n", ctx->name, va, path, flags);
		}
		proc_add(&procs, &pj, ctx, &w.steps[w.leaf_step].entry, &last);
		shown++;
	}
	if (out == PT_OUT_JSON) {
		pt_buf_printf(b, "], \"pa\": \"0x%" PRIx64 "\"", addr);
		/* only where a process maps it: the answer of a capture without processes is as it was */
		if (pj.n)
			pt_buf_printf(b, ", \"processes\": [%s]", pj.b.data);
		pt_buf_puts(b, ", \"space\": ");
		pt_json_escape(b, pt_capture_space_name(ix->cap, space));
		pt_buf_puts(b, "}\n");
	} else if (procs.len) {
		pt_buf_printf(b, "# processes: %s\n", procs.data);
	}
	if (out != PT_OUT_JSON && incomplete) {
		pt_buf_printf(b, "# incomplete: the reverse index holds at most %" PRIu64
			      " runs of %" PRIu64 " per context; other mappings may exist\n",
			      PT_PA_INDEX_RUNS_MAX, PT_MAPS_RUNS_MAX);
	}
	free(h);
	b->oom |= procs.oom || pj.b.oom;
	pt_buf_free(&procs);
	pt_buf_free(&pj.b);
	if (found)
		*found = shown;
	return b->oom ? PT_E_NOMEM : PT_OK;
}
