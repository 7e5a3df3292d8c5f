/* SPDX-License-Identifier: MIT */
/*
 * iommu_seen.c — the bounds of reading an [iommu] section's tables at load
 * (docs/design.md §2.7: work is bounded by contexts made, not only table
 * reads), and what the read found.  The tables are a tree only when the
 * memory says so: a few KiB can name one PASID table from 2^14 directory
 * slots (2^20 contexts), or point a GCR3 L1 table at the device table.
 * So, for each section:
 *
 *  - every table a walker reads (root, context, PASID directory and table,
 *    device table, GCR3 levels, STEs and L1 stream descriptors, L1CD
 *    tables, CDs) goes through pt_iommu_table(), which notes the 8-byte
 *    granules read; a pointer that reaches a granule read before (a table
 *    shared by two pointers, a pointer back at an outer table) is counted
 *    and not followed, and the section gets one warning for all of them.
 *    The contexts made are then at most the entries captured, and the
 *    granule set (a 64-byte bitmap per 4 KiB page read) grows with the
 *    captured tables, not with the pointers to them;
 *  - the device contexts made stop at the section's max_contexts key
 *    (PT_IOMMU_MAX_CONTEXTS) and at what is left of the capture's bound
 *    (pt_load_opts.max_contexts, PT_LOAD_MAX_CONTEXTS): one warning;
 *  - table reads stop at PT_IOMMU_MAX_READS (pt_iommu_read(), iommu.c).
 *
 * The counts (entries read, present, malformed, ...) say what a read of
 * the wrong page looks like: registers that point one page off, or at
 * another IOMMU's tables, read zeros or entries with reserved bits set.
 * No device, or mostly malformed entries, is the section's anomaly
 * (ptfs-tool check, info) and one warning at load that points at
 * `ptfs-tool roots --iommu`, which finds the real tables in the capture.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iommu_int.h"

/* A 4 KiB page read: a bit per 8-byte granule.  KEY: the page number + 1, 0 for a free slot. */
struct seen_page {
	uint64_t key;
	uint64_t bits[8];
};

struct pt_iommu_seen {
	struct seen_page *slot;
	size_t n, cap;          /* pages held; slots, a power of two */
	bool oom;
};

static size_t slot_of(uint64_t pg, size_t cap)
{
	pg ^= pg >> 33;
	pg *= 0xff51afd7ed558ccdull;
	pg ^= pg >> 33;
	return (size_t)pg & (cap - 1);
}

/* Page PG's record, added when ADD; NULL when absent (or out of memory: s->oom). */
static struct seen_page *seen_page(struct pt_iommu_seen *s, uint64_t pg, bool add)
{
	size_t i;

	if (add && (s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 64;
		struct seen_page *ns = calloc(ncap, sizeof *ns);

		if (!ns) {
			s->oom = true;
			return NULL;
		}
		for (size_t k = 0; k < s->cap; k++)
			if (s->slot[k].key) {
				for (i = slot_of(s->slot[k].key - 1, ncap); ns[i].key; i = (i + 1) & (ncap - 1))
					;
				ns[i] = s->slot[k];
			}
		free(s->slot);
		s->slot = ns;
		s->cap = ncap;
	}
	if (!s->cap)
		return NULL;
	for (i = slot_of(pg, s->cap); s->slot[i].key; i = (i + 1) & (s->cap - 1))
		if (s->slot[i].key == pg + 1)
			return &s->slot[i];
	if (!add)
		return NULL;
	s->slot[i].key = pg + 1;
	s->n++;
	return &s->slot[i];
}

/* Whether a granule of [ADDR, ADDR + LEN) is noted; with MARK, notes them all instead. */
static bool seen_range(struct pt_iommu_seen *s, uint64_t addr, size_t len, bool mark)
{
	uint64_t g = addr >> 3, last = (addr + len - 1) >> 3;

	while (g <= last) {
		uint64_t pg = g >> 9, end = (pg << 9) + 511 < last ? (pg << 9) + 511 : last;
		struct seen_page *p = seen_page(s, pg, mark);

		for (; p && g <= end; g++) {
			uint64_t bit = 1ull << (g & 63);

			if (mark)
				p->bits[(g >> 6) & 7] |= bit;
			else if (p->bits[(g >> 6) & 7] & bit)
				return true;
		}
		if (!p && mark)
			return false;  /* out of memory: s->oom */
		g = end + 1;
	}
	return false;
}

enum pt_iommu_table pt_iommu_table(struct pt_iommu_walk *w, uint64_t addr, void *buf, size_t len,
				   const char *what, ...)
{
	va_list ap;

	if (w->stopped || !len || addr + len - 1 < addr)
		return PT_IOMMU_TABLE_MISSING;
	if (seen_range(w->seen, addr, len, false)) {
		if (!w->n.repeats++) {
			va_start(ap, what);
			vsnprintf(w->repeat_first, sizeof w->repeat_first, what, ap);
			va_end(ap);
		}
		return PT_IOMMU_TABLE_REPEAT;
	}
	/* a table not captured is noted too: 2^14 pointers to one cost one warning, not 2^14 */
	if (!pt_iommu_read(w, addr, buf, len)) {
		if (!w->stopped) {
			w->n.uncaptured++;
			seen_range(w->seen, addr, len, true);
		}
		return PT_IOMMU_TABLE_MISSING;
	}
	seen_range(w->seen, addr, len, true);
	if (w->seen->oom) {
		w->stopped = true;
		return PT_IOMMU_TABLE_MISSING;
	}
	return PT_IOMMU_TABLE_OK;
}

pt_err pt_iommu_add(struct pt_iommu_walk *w, const struct pt_iommu_dev *d)
{
	size_t before = w->nmc;
	pt_err rc;

	if (w->stopped)
		return PT_OK;
	/* a blocked device makes no context unless asked: neither bound nor malformed */
	if (d->blocked && !w->cap->all_entries)
		return pt_iommu_device(w, d);
	if (w->nmc >= w->max_ctx) {
		if (w->max_capture)
			pt_iommu_warn(w, "%zu device contexts made, all the capture's bound on device"
				      " contexts left to it (-o max_contexts=, --max-contexts): %s and the"
				      " rest of its tables are not read", w->nmc, d->name);
		else
			pt_iommu_warn(w, "%zu device contexts made, its bound (max_contexts = %zu): %s"
				      " and the rest of its tables are not read", w->nmc, w->max_ctx,
				      d->name);
		w->n.bounded = true;
		w->stopped = true;
		return PT_OK;
	}
	rc = pt_iommu_device(w, d);
	if (!rc && w->nmc == before && !w->stopped)
		w->n.malformed++;
	return rc;
}

pt_err pt_iommu_walk_start(struct pt_iommu_walk *w, size_t rest)
{
	const struct pt_manifest_iommu *io = w->io;
	size_t own = io->vline[PT_IK_MAXCTX] ? (size_t)io->v[PT_IK_MAXCTX] : PT_IOMMU_MAX_CONTEXTS;

	w->max_ctx = rest < own ? rest : own;
	w->max_capture = rest < own;
	w->seen = calloc(1, sizeof *w->seen);
	return w->seen ? PT_OK : PT_E_NOMEM;
}

/*
 * The anomaly of W's counts into ST: no present device entry at all, or
 * more than half of the present entries malformed.  Registers that block
 * every request (pt_iommu_format.blocks_all: VT-d's abort-DMA mode, TTM
 * 11) read no table: nothing to judge.
 */
static void judge(const struct pt_iommu_walk *w, struct pt_iommu_pages *st)
{
	const struct pt_iommu_counts *n = &w->n;
	const struct pt_manifest_iommu *io = w->io;
	char regs[96], what[224];

	if (io->fam->blocks_all && io->fam->blocks_all(io->v))
		return;
	if (n->devices && n->malformed * 2 <= n->present)
		return;
	io->fam->regs_text(io->v, regs, sizeof regs);
	snprintf(what, sizeof what, "%" PRIu64 " entr%s read, %" PRIu64 " present, %" PRIu64
		 " malformed, %" PRIu64 " table%s not captured", n->entries, n->entries == 1 ? "y" :
		 "ies", n->present, n->malformed, n->uncaptured, n->uncaptured == 1 ? "" : "s");
	st->counts.anomaly = n->devices ? "iommu_malformed" : "iommu_no_device";
	snprintf(st->detail, sizeof st->detail, "%s (%s): %s; do its registers point at its"
		     " tables? (`ptfs-tool roots --iommu %s` finds %s tables in the capture)",
		     n->devices ? "most of its present entries are malformed" :
		     "its tables yield no device", what, regs, io->fam->name, io->fam->name);
	st->counts.detail = st->detail;
}

pt_err pt_iommu_walk_end(struct pt_iommu_walk *w, size_t i)
{
	struct pt_capture *cap = w->cap;
	bool oom = !w->seen || w->seen->oom;

	w->n.contexts = w->nmc;
	if (w->n.repeats)
		pt_iommu_warn(w, "%" PRIu64 " table pointer%s reach%s a table reached before, not"
			      " followed (the first: %s): each table is read once", w->n.repeats,
			      w->n.repeats == 1 ? "" : "s", w->n.repeats == 1 ? "es" : "",
			      w->repeat_first);
	if (cap->iopages) {
		struct pt_iommu_pages *st = &cap->iopages[i];

		st->counts = w->n;
		judge(w, st);
		if (st->counts.anomaly)
			pt_iommu_warn(w, "%s", st->detail);
	}
	if (w->seen)
		free(w->seen->slot);
	free(w->seen);
	w->seen = NULL;
	return oom ? PT_E_NOMEM : PT_OK;
}

void pt_capture_iommu_counts(const struct pt_capture *cap, size_t i, struct pt_iommu_counts *out)
{
	memset(out, 0, sizeof *out);
	if (cap && cap->iopages && cap->man && i < cap->man->niommu)
		*out = cap->iopages[i].counts;
}
