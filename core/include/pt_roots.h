/* SPDX-License-Identifier: MIT */
/*
 * pt_roots.h — candidate root tables found by scanning captured memory
 * (ptfs-tool roots): which pages of a dump could be the root of an address
 * space, how sure that is, and the capture.ini section that makes one a
 * context.
 *
 * Generic for every format, through its level table and decode hook: each
 * captured page of a space is read once and decoded as a root table; a page
 * with no entry the hardware would refuse and at least one valid entry is
 * followed down, table by table, each (table, level) decoded once however
 * many candidates reach it (a Linux kernel half shared by every process is
 * read once, not once per process).  A candidate some other clean candidate
 * points at is an inner table, not a root, and is dropped.  A format may
 * relate candidates to its contexts' roots (pt_format.root_rule: x86-64
 * Linux's shared kernel half), which names what they are.
 *
 * A table found in several geometries (contexts of one format with other
 * registers) is listed once, in the geometry of the context whose root it
 * is, else the one it scores best in; one found in two formats (an x86-64
 * process table decodes as a clean 3-level VT-d table too) once, in the
 * format of the context whose root it is, else of the rule that relates
 * it to a context, else the CPU's rather than an IOMMU's.  Contexts of
 * equal geometry (a VT-d unit's devices) are scanned once, and a memory
 * space's non-zero pages are found once for every geometry.
 *
 * Time: one pass over the captured pages (zero chunks skipped through
 * pt_mem_next_nonzero()) plus one decode per reached (table, level).  No
 * printing: the caller renders the result; progress goes to a callback.
 */
#ifndef PT_ROOTS_H
#define PT_ROOTS_H

/* The include rule (HACKING.md, "Layers"): the walk layer's, never included below it. */
#if defined(PT_LAYER_UTIL) || defined(PT_LAYER_FORMATS) || defined(PT_LAYER_LOAD) || defined(PT_LAYER_SOURCES)
#error "pt_roots.h belongs to core/walk: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_capture.h"
#include "pt_error.h"
#include "pt_walk.h"

/* One candidate root table. */
struct pt_root_cand {
	const struct pt_format *fmt;   /* the geometry it was decoded with */
	const struct pt_context *geom; /* the context whose geometry that is (NULL: the format's own) */
	unsigned geometry;             /* which geometry of the scan, from 0 (ties break on it) */
	unsigned space;                /* space id (of fmt) */
	uint64_t addr;                 /* the table's first byte */
	unsigned valid;                /* valid entries (pointers and leaves) of the root table */
	unsigned levels;               /* levels that decode cleanly from the root down to a leaf */
	unsigned nlevels;              /* levels of the geometry */
	uint64_t tables;               /* captured tables reached below the root, each path counted */
	uint64_t bad_tables;           /* of those: tables with an entry the hardware refuses (not followed) */
	uint64_t bad_entries;          /* refused entries in the tables that passed (not followed) */
	uint64_t leaves;               /* valid leaves reached, root included */
	uint64_t uncaptured;           /* pointers to a table not wholly captured */
	unsigned score;                /* 0..100 (pt_roots_score()) */
	/*
	 * What the format's rule says it is ("process", "process_user"), or
	 * "table" where no rule relates it; REF the context whose root it was
	 * related to; TWIN the other table of its pair (has_twin).
	 */
	const char *kind;
	const struct pt_context *ref;
	bool has_twin;
	uint64_t twin;
	const struct pt_context *root_of; /* a context whose root this table is, or NULL */
	/*
	 * The Linux process (a context pidN, core/linux) whose mm->pgd this
	 * table is, or the PTI user copy of it, pgd + 4 KiB; NULL: none.  It
	 * may also be ROOT_OF, or a vCPU may be ROOT_OF that runs it.
	 */
	const struct pt_context *proc;
};

/* What to scan. */
struct pt_roots_opts {
	const char *format;   /* only this format (NULL: the formats of the capture's contexts) */
	const char *space;    /* only this space, by name (NULL: every space of the format) */
	/* leave out candidates no format rule names (kind "table") scoring below this */
	unsigned min_score;
	pt_progress_fn progress;  /* called now and then with bytes passed and the total (may be NULL) */
	void *progress_ud;
};

struct pt_roots {
	struct pt_root_cand *c;   /* sorted: score descending, then format, space, address */
	size_t n, cap;
	uint64_t pages;           /* captured non-zero pages decoded as a root */
	uint64_t decoded;         /* tables decoded below the roots (the memo's size) */
	unsigned geometries;      /* geometries scanned */
	bool cut;                 /* RC stopped the scan: the list is incomplete */
};

/*
 * Scans CAP as O says into *OUT (free with pt_roots_free()).  PT_E_NOTFOUND
 * with a message in ERR for a --format or --space no context or format has;
 * PT_E_NOMEM.  RC (may be NULL) is polled once per page and per table
 * decoded; a stop leaves OUT->cut set.
 */
pt_err pt_roots_scan(const struct pt_capture *cap, const struct pt_roots_opts *o,
		     struct pt_roots *out, struct pt_readctl *rc, char *err, size_t errlen);
void pt_roots_free(struct pt_roots *r);

/*
 * The score of C's counts, 0..100: the share of the geometry's levels that
 * decode cleanly down to a leaf, times the share of the tables reached that
 * are clean and captured (a pointer into uncaptured memory and a refused
 * entry count against).
 */
unsigned pt_roots_score(const struct pt_root_cand *c);

/*
 * The capture.ini section that makes C a context, into B: a comment line,
 * then `[SECTION NAME]` and, for a candidate decoded in a context's
 * geometry, that context's keys with C's root (pt_format.geom_keys: it
 * walks as that context would from there), else the format's build keys
 * for a root at C's address (pt_format.build_keys); NAME is root-ADDR
 * (root-SPACE-ADDR off the format's first space).  False (B untouched) for a format with no
 * build keys.
 */
bool pt_roots_section(const struct pt_root_cand *c, struct pt_buf *b);
/* The capture's name of C's space (a guest's `space = gpa`), or the format's without a geometry context. */
const char *pt_roots_space_name(const struct pt_root_cand *c);

/*
 * IOMMU tables (ptfs-tool roots --iommu TYPE, roots_iommu.c): pages of
 * captured memory that could be an IOMMU's root table (intel-vtd, legacy
 * or scalable mode), device table (amd-vi) or stream table (arm-smmuv3,
 * linear or 2-level), each with the register values that point at it.
 * Every present device entry is set up as the context an [iommu] section
 * would make of it (its format's own checks) and its page tables decoded
 * as the page-table scan decodes a root (roots_eval.c).
 */
struct pt_iommu_cand {
	const char *type;       /* intel-vtd, amd-vi, arm-smmuv3 */
	const char *mode;       /* legacy, scalable; linear, 2-level; NULL (amd-vi) */
	const char *space;      /* the capture space the tables are in */
	uint64_t addr;          /* the table's first byte */
	uint64_t reg, reg2;     /* rtaddr / dev_table_base / strtab_base; strtab_base_cfg */
	uint64_t bytes;         /* how far the table reaches (the size the registers give) */
	unsigned devices;       /* present device entries (context entries, DTEs, STEs) */
	unsigned contexts;      /* contexts they make (a device's PASIDs and SSIDs each one) */
	unsigned good;          /* contexts set up whose page tables decode (or that have none) */
	unsigned bad;           /* refused: root entries, DTEs, L1 descriptors, contexts, their tables */
	unsigned uncaptured;    /* pointers to tables not captured */
	uint64_t tables;        /* page tables decoded below the devices' roots */
	uint64_t leaves;        /* their valid leaves */
	unsigned score;         /* 0..100: good / (good + bad + uncaptured) */
	const char *root_of;    /* the [iommu] section that reads this table (a device of it), or NULL */
	bool cut;               /* the work bound stopped reading it */
};

struct pt_iommu_roots_opts {
	const char *type;       /* intel-vtd, amd-vi or arm-smmuv3 */
	const char *space;      /* only this space (NULL: sysmem, hpa and gpa, those captured) */
	unsigned min_score;     /* leave out candidates below this unless root_of an [iommu] */
	pt_progress_fn progress;
	void *progress_ud;
};

struct pt_iommu_roots {
	struct pt_iommu_cand *c; /* sorted: score descending, then space, address */
	size_t n, cap;
	uint64_t pages;          /* captured non-zero pages decoded as a table */
	bool cut;                /* RC stopped the scan */
};

/* The IOMMU types --iommu takes: the names of pt_iommu_format_list (pt_iommu_format.h). */

/*
 * Scans CAP for O->type's tables into *OUT (free with pt_roots_iommu_free()).
 * PT_E_NOTFOUND with a message for an unknown type or --space; PT_E_NOMEM.
 */
pt_err pt_roots_iommu_scan(const struct pt_capture *cap, const struct pt_iommu_roots_opts *o,
			   struct pt_iommu_roots *out, struct pt_readctl *rc, char *err, size_t errlen);
void pt_roots_iommu_free(struct pt_iommu_roots *r);
/* The [iommu root-ADDR] section (root-SPACE-ADDR off sysmem) that reads C, into B. */
void pt_roots_iommu_section(const struct pt_iommu_cand *c, struct pt_buf *b);

#endif
