/* SPDX-License-Identifier: MIT */
/*
 * iommu_int.h — what iommu.c (the [iommu] section, device contexts) and
 * iommu_walk.c (reading an IOMMU's tables) share (internal to core/load).
 */
#ifndef PT_IOMMU_INT_H
#define PT_IOMMU_INT_H

#if !defined(PT_LAYER_LOAD) && !defined(PT_TESTING)
#error "iommu_int.h is internal to core/load (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture_int.h"

/*
 * Table entries one [iommu] section reads at most (root, context, PASID
 * directory and table entries, DTEs, STEs, L1 descriptors, CDs): more than
 * any real IOMMU's tables (65,536 devices, a PASID table per device), so
 * that loops and sizes past the capture are bounded work.
 */
#define PT_IOMMU_MAX_READS (1u << 24)

/*
 * One device context: its format and its decoded entry (what the section
 * its format would read says, pt_format.h struct pt_ctx_entry).
 */
struct pt_iommu_dev {
	const char *format;
	char name[PT_INI_MAX_NAME + 1];
	struct pt_ctx_entry e;
	struct pt_ctx_iommu origin;
	/* every request is blocked or aborted: a context only with pt_load_opts.all_entries */
	bool blocked;
};

struct pt_iommu_seen;

/* The DTE whose GCR3 table is walked (iommu_walk.c amd_dte()). */
struct pt_iommu_dte {
	unsigned devid, gpt;
	bool giov;
	const char *xs;            /* the translated space of its host tables, NULL: none */
	size_t guests;             /* contexts made before its guests */
};

/* The state of reading one [iommu] section's tables. */
struct pt_iommu_walk {
	struct pt_capture *cap;
	const struct pt_manifest_iommu *io;
	const char *space_name, *output_name;
	unsigned space_id;          /* capture space id of space_name */
	unsigned reads;
	bool stopped;               /* PT_IOMMU_MAX_READS reached: nothing more is read */
	unsigned nested;            /* nested entries (SMMUv3 Config 111): stage 2 only */
	size_t blocked, made;       /* entries that block every request; contexts made */
	/*
	 * The translated spaces made for nested entries and not yet committed:
	 * space id, and the index in ctx of the stage 2 it is translated through
	 * (cap->xlate points into ctx until commit moves them to cap->ctx).
	 */
	unsigned nxs;
	unsigned xs_id[PT_CAPTURE_SPACES];
	size_t xs_k[PT_CAPTURE_SPACES];
	struct pt_iommu_pages *pages; /* the pages read (for ptfs-tool snapshot); NULL: not kept */
	bool pages_oom;
	struct pt_manifest_ctx *mc; /* the device contexts so far */
	struct pt_context *ctx;
	size_t nmc, mccap, ctxcap;
	/* the bounds and the counts of this walk (iommu_seen.c) */
	size_t max_ctx;             /* contexts it may make: its max_contexts, the capture's rest */
	bool max_capture;           /* max_ctx is the capture's rest, not the section's bound */
	struct pt_iommu_seen *seen; /* the table granules read so far */
	struct pt_iommu_counts n;
	char repeat_first[224];     /* the first table reached again, described */
	struct pt_iommu_visitor v;  /* the loader's visitor of the IOMMU's traversal (iommu_walk.c) */
	struct pt_iommu_dte dte;
};

/* ---- iommu_dev.c: below the visitors, calling none of them back ---- */

/* LEN bytes at ADDR of the IOMMU's space into BUF: false when not captured or past the bound. */
bool pt_iommu_read(struct pt_iommu_walk *w, uint64_t addr, void *buf, size_t len);
/* One warning "capture.ini:LINE: [iommu NAME]: MESSAGE". */
void pt_iommu_warn(struct pt_iommu_walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Sets up device context D (a warning and no context when its entry is refused). */
pt_err pt_iommu_device(struct pt_iommu_walk *w, const struct pt_iommu_dev *d);
/*
 * A translated space through the last device context made (a nested entry's
 * stage 2), named as it with ':' made '-': *NAME, or NULL (one warning) when
 * the capture has no space left.  PT_E_NOMEM only when out of memory.
 */
pt_err pt_iommu_xspace(struct pt_iommu_walk *w, const char **name);
/* Takes back the last space pt_iommu_xspace() made (its first stage was refused). */
void pt_iommu_xspace_drop(struct pt_iommu_walk *w);
/* Sorts P's pages and drops repeats (pt_capture_iommu_pages() gives them sorted). */
void pt_iommu_pages_compact(struct pt_iommu_pages *p);

/*
 * The bounds (iommu_seen.c, docs/design.md §2.7): before a walk, its
 * context bound (the section's max_contexts, at most REST, the capture's
 * bound less what earlier sections made); after it, one warning for the
 * tables reached again, one for an IOMMU whose tables yield no device or
 * mostly malformed entries, and section I's counts kept for
 * pt_capture_iommu_counts().  PT_E_NOMEM only when out of memory.
 */
pt_err pt_iommu_walk_start(struct pt_iommu_walk *w, size_t rest);
pt_err pt_iommu_walk_end(struct pt_iommu_walk *w, size_t i);
/*
 * What a walker reads a table (or a part of one) with: LEN bytes at ADDR
 * into BUF.  PT_IOMMU_TABLE_OK: read, its 8-byte granules noted;
 * _MISSING: not captured (counted, noted), or past a bound; _REPEAT: a
 * granule of it was noted before, through another pointer: not read
 * again, counted,
 * the first described by WHAT (printf) in the walk's one warning.
 */
enum pt_iommu_table { PT_IOMMU_TABLE_OK, PT_IOMMU_TABLE_MISSING, PT_IOMMU_TABLE_REPEAT };
enum pt_iommu_table pt_iommu_table(struct pt_iommu_walk *w, uint64_t addr, void *buf, size_t len,
				   const char *what, ...) __attribute__((format(printf, 5, 6)));
/*
 * Device context D through pt_iommu_device(), unless the walk's context
 * bound is reached (then one warning, and the walk stops); a device
 * entry its format refuses is counted malformed.
 */
pt_err pt_iommu_add(struct pt_iommu_walk *w, const struct pt_iommu_dev *d);

/*
 * The IOMMU's traversal (pt_iommu_format.walk) with the loader's visitor
 * (iommu_walk.c): every present device through pt_iommu_add().
 */
pt_err pt_iommu_walk_tables(struct pt_iommu_walk *w);

#endif
