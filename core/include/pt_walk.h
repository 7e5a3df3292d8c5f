/* SPDX-License-Identifier: MIT */
/*
 * pt_walk.h — tables, the tree of entries, the walker, page enumeration and
 * the anomaly scan of one context.
 *
 * Everything here reads the context's memory through the level table of its
 * format; nothing names a chip.  A pointer is followed level by level (the
 * target of an entry of level L is always read as a table of L's child
 * level, even when it is the root table again), so every path has at most PT_MAX_DEPTH tables and every
 * walk and enumeration ends.
 *
 * All functions are pure readers of an immutable capture: thread-safe.
 */
#ifndef PT_WALK_H
#define PT_WALK_H

/* The include rule (HACKING.md, "Layers"): the walk layer's, never included below it. */
#if defined(PT_LAYER_UTIL) || defined(PT_LAYER_FORMATS) || defined(PT_LAYER_LOAD) || defined(PT_LAYER_SOURCES)
#error "pt_walk.h belongs to core/walk: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "pt_capture.h"
#include "pt_format.h"

/*
 * Read control: how long a read of many entries may run, passed by the
 * caller to every loop over tables (pt_table_next(), the page iterator, the
 * scan, and the tree, entries and runs above them).  A program that serves
 * requests (ptfs) makes one per request with a cancel check; the loops
 * count one unit per entry read, ask the check every 4096 units and, once
 * it said stop or the work bound ran out, end early as if there were
 * nothing more.  The caller then treats what it got as incomplete: CANCELLED
 * or CUT says which (both sticky for the life of the struct).  Each call's
 * struct is its own: two reads on one thread never share a bound or a
 * cancel.  A NULL read control: never cancelled, no bound.
 */
typedef bool (*pt_cancel_fn)(void *ud);
struct pt_readctl {
	pt_cancel_fn cancel;   /* true: stop (NULL: never asked) */
	void *cancel_ud;
	uint64_t work_left;    /* units left before the reads are cut (UINT64_MAX: no bound) */
	unsigned polls;        /* units counted, so that CANCEL is asked every 4096 */
	bool cut;              /* WORK_LEFT ran out */
	bool cancelled;        /* CANCEL said stop */
};
/* CANCEL NULL: never cancelled; WORK 0: no bound. */
void pt_readctl_init(struct pt_readctl *rc, pt_cancel_fn cancel, void *cancel_ud, uint64_t work);
/* Counts one unit of work; true when RC says stop (false for NULL). */
bool pt_readctl_poll(struct pt_readctl *rc);
/* Whether RC's cancel check said stop (false for NULL). */
bool pt_readctl_cancelled(const struct pt_readctl *rc);

/* One table as seen from the entry that points at it (or the root). */
struct pt_table {
	const struct pt_context *ctx;
	int8_t level;          /* index into ctx->fmt->levels */
	unsigned space;        /* space id */
	uint64_t addr;         /* physical address of entry 0 */
	uint64_t entries;      /* number of entries */
	uint64_t va_base;      /* slot (pt_va_slot()) of the VA entry 0 covers */
	unsigned page_shift;   /* log2 of one entry's span */
	enum pt_cover cover;   /* how much of the table is captured */
	/*
	 * The small table of a dual entry knows its big sibling (present only
	 * then): the big entry over a small-page leaf decides whether that leaf is
	 * reached at all (state shadowed).
	 */
	struct pt_target big;
	/* Reached through a pointer with reserved bits: the walker never gets here. */
	bool reserved_above;
	/*
	 * Rights the pointers above pass down (pt_format.perm_or_down,
	 * perm_and_down): set in and cleared from every leaf read from here.
	 */
	uint32_t perm_set, perm_clear;
	/* Reached through a pointer with rel_children: child pointers are relative to this table. */
	bool rel_children;
	/* The table's bytes where one heap chunk holds them all (pt_table_direct()), else NULL. */
	const uint8_t *direct;
};

/*
 * Resolves T's bytes for direct reads (pt_mem_direct()) where it is fully
 * captured in one heap chunk; a loop that reads many entries of T calls it
 * first, a walk that reads one entry per table does not.
 */
void pt_table_direct(struct pt_table *t);

/* The root table of CTX. */
void pt_table_root(const struct pt_context *ctx, struct pt_table *out);
/*
 * The table that entry INDEX of PARENT (decoded as E) points at; WHICH picks
 * target[0] or target[1].  False when E has no such target.
 */
bool pt_table_child(const struct pt_table *parent, uint64_t index, const struct pt_entry *e,
		    unsigned which, struct pt_table *out);
/* Physical address of entry INDEX. */
uint64_t pt_table_entry_pa(const struct pt_table *t, uint64_t index);
/* First VA entry INDEX covers. */
uint64_t pt_table_entry_va(const struct pt_table *t, uint64_t index);
/* The VA just past what entry INDEX covers (0 past the top of the VA space). */
uint64_t pt_table_entry_va_end(const struct pt_table *t, uint64_t index);
/* Reads and decodes entry INDEX.  False: not captured (E untouched); the decode cannot fail otherwise. */
bool pt_table_read(const struct pt_table *t, uint64_t index, struct pt_entry *e);
/*
 * The next listed entry at or after *INDEX: captured, and non-zero unless
 * ALL_ENTRIES, decoded with FLAGS (PT_DECODE_*: a listing that only
 * classifies entries passes PT_DECODE_SUMMARY).  Sets *INDEX and E; false
 * when there is none.  Unlike
 * pt_table_read(), which gives the decoder's state, this (and
 * pt_node_resolve()) applies the states that depend on the entry's place:
 * shadowed, reserved_bits.  RC (may be NULL) counts every entry read.
 */
bool pt_table_next(const struct pt_table *t, uint64_t *index, bool all_entries, unsigned flags,
		   struct pt_entry *e, struct pt_readctl *rc);
/* "yes", "partial" or "no" for a cover. */
const char *pt_cover_name(enum pt_cover c);

/* A path in the tree: step k is entry s[k].index of the table of level s[k].level. */
struct pt_node {
	const struct pt_context *ctx;
	unsigned n;
	struct {
		int8_t level;
		uint64_t index;
	} s[PT_MAX_DEPTH];
};

/* Where a node resolved to: the table holding the last step, and its entry. */
struct pt_loc {
	struct pt_table table;
	uint64_t index;
	struct pt_entry entry;
};

/*
 * Follows NODE from the root table.  PT_E_NOTFOUND when a step is not in the
 * tree (an ancestor is not a pointer to that level, an index is past the
 * table, or the entry is not captured).  N == 0 is invalid (PT_E_USAGE).
 */
pt_err pt_node_resolve(const struct pt_node *node, struct pt_loc *out);
/* "LEVEL/INDEX/LEVEL/INDEX/..." (root first) into BUF; returns the length (snprintf rules). */
int pt_node_path(const struct pt_node *node, char *buf, size_t len);
/*
 * Whether an entry E is shown as a directory (a pointer): true for
 * PT_ST_POINTER.  Its children are `entry` plus one directory per target
 * whose table is at least partly captured.
 */
bool pt_entry_is_dir(const struct pt_entry *e);

/* Faults a walk ends in. */
enum pt_fault {
	PT_FAULT_NONE = 0,       /* resolved to a page */
	PT_FAULT_UNMAPPED,       /* "unmapped": an entry says not mapped (zero, invalid, no_valid_4k) */
	PT_FAULT_SPARSE,         /* "sparse" */
	PT_FAULT_NOT_CAPTURED,   /* "not_captured": an entry on the path is outside captured memory */
	PT_FAULT_RESERVED_BITS,  /* "reserved_bits": an entry on the path has reserved bits set */
	PT_FAULT_UNSUPPORTED,    /* "unsupported": an encoding the format does not allow there */
	PT_FAULT_OUT_OF_RANGE,   /* "out_of_range": the VA is outside the context's VA space */
	PT_FAULT_NONCANONICAL,   /* "noncanonical": not a canonical VA of a va_canonical format */
	PT_FAULT_RIGHTS,         /* "rights": a stage-2 page the reader may not read */
	PT_FAULT_STAGE2,         /* "stage2": a read in a translated space faulted (pt_walk.s2) */
	PT_FAULT_UNREADABLE,     /* "unreadable": an entry on the path is in the dump but cannot be read */
};
const char *pt_fault_name(enum pt_fault f);

struct pt_walk_step {
	struct pt_table table;   /* table read at this step */
	uint64_t index;
	uint64_t entry_pa;
	bool captured;           /* false: the entry was not in captured memory (entry untouched) */
	struct pt_entry entry;
	const char *verdict;     /* "pointer", "mapped", "shadowed", "unmapped", "sparse", ... */
};

struct pt_walk {
	uint64_t va;
	unsigned nsteps;
	struct pt_walk_step steps[PT_MAX_DEPTH + 1];
	enum pt_fault fault;
	int fault_step;          /* step the fault happened at; -1 if none/before any read */
	/* result when fault == PT_FAULT_NONE */
	unsigned space;
	uint64_t pa;             /* PA of va itself (page base + offset) */
	uint64_t page_va;        /* first VA of the page */
	uint64_t page_size;
	uint32_t perm;
	int leaf_step;           /* step holding the leaf */
	struct pt_node node;     /* tree path of the leaf (or of the deepest entry read) */
	/*
	 * fault == PT_FAULT_OUT_OF_RANGE and the format has an out_of_range
	 * hook: where the VA goes instead (name NULL otherwise).
	 */
	struct pt_aperture aperture;
	/*
	 * Translated spaces (docs/design.md §2.8): when the page's space is
	 * translated, TRANSLATED is set and FINAL_SPACE (a capture space id)
	 * and FINAL_PA say where VA lands at the end of the stack; SPACE and
	 * PA stay the stage-1 result (the intermediate address).
	 */
	bool translated;
	unsigned final_space;
	uint64_t final_pa;
	/*
	 * fault == PT_FAULT_STAGE2: the stage-2 walk's fault (unmapped,
	 * not_captured, reserved_bits, rights, ...), the context that faulted,
	 * the address it was asked for and that address's capture space; the
	 * stage-1 step it served is fault_step, or leaf_step for the final page.
	 */
	struct {
		enum pt_fault fault;
		const struct pt_context *ctx;
		uint64_t addr;
		unsigned space;
	} s2;
};

/*
 * True when W's VA is outside the table but inside an aperture the memory
 * controller translates without it (VMID0 FB/AGP, docs/design.md §2.2): a result
 * (aperture.space/pa), not a fault.  W->fault stays PT_FAULT_OUT_OF_RANGE,
 * so va/ and every table listing leave it out.
 */
static inline bool pt_walk_aperture_hit(const struct pt_walk *w)
{
	return w->fault == PT_FAULT_OUT_OF_RANGE && w->aperture.name && w->aperture.hit;
}

/*
 * W faulted unreadable: the first address its source cannot read in *BAD
 * (may be NULL) and the source's reason in WHY ("libkdumpfile: ..."),
 * asked again of the memory (a walk holds no text).
 */
bool pt_walk_unreadable(const struct pt_walk *w, uint64_t *bad, char *why, size_t wlen);

/*
 * True when W reached a stage-1 leaf: no fault, or a stage-2 fault of the
 * final page itself (fault_step == leaf_step).  Such a page is a page of
 * the context (docs/design.md §2.8: va/ and info count stage-1 pages
 * whose stage 2 faults), so its va/ link resolves to the stage-1 leaf
 * like every other; the walk/ file says where stage 2 faulted.
 */
static inline bool pt_walk_has_leaf(const struct pt_walk *w)
{
	return w->fault == PT_FAULT_NONE ||
	       (w->fault == PT_FAULT_STAGE2 && w->leaf_step >= 0 && w->fault_step == w->leaf_step);
}

/* Where an address of a translated space lands (xlate.c). */
struct pt_xlate {
	unsigned space;          /* capture space id of the final address */
	uint64_t pa;
	uint64_t avail;          /* bytes from PA to the end of the last stage's page (UINT64_MAX: none) */
	unsigned stages;         /* translations passed */
	enum pt_fault fault;     /* the stage-2 fault (NONE: translated) */
	const struct pt_context *stage;   /* the context that faulted */
	uint64_t in;             /* its input address */
	unsigned in_space;       /* and that address's capture space */
};
/*
 * Translates ADDR of capture space ID (CTX: any context of the capture)
 * through every translation there is; false with R's fault set when one
 * faults.  Untranslated: R is ID and ADDR.
 */
bool pt_xlate_addr(const struct pt_context *ctx, unsigned id, uint64_t addr, struct pt_xlate *r);
/* Walks VA in CTX.  Always fills W; returns PT_OK (faults are results). */
pt_err pt_walk_va(const struct pt_context *ctx, uint64_t va, struct pt_walk *w);

/*
 * A format's VA space, in one place (the walker, the tree and the mount
 * use these, nothing else computes a VA range).  VAs are ordered unsigned.
 * A VA's slot is what the tables index: the VA itself, or for a
 * va_canonical format its low va_bits bits, so that slots 0 .. 2^va_bits - 1
 * run through the space's VAs in order (the low half, then the high half)
 * and pt_va_at() gives the VA of a slot back.
 */
/* VA is a VA of FMT's space: below 2^va_bits, or canonical. */
bool pt_va_in_space(const struct pt_format *fmt, uint64_t va);
/* The slot of the first VA of FMT's space at or after VA (a VA in the canonical hole: the high half's first). */
uint64_t pt_va_slot(const struct pt_format *fmt, uint64_t va);
/* The VA of SLOT (sign-extended for a va_canonical format). */
uint64_t pt_va_at(const struct pt_format *fmt, uint64_t slot);
/*
 * The address VA stands for: VA itself, or for a va_tbi format (Arm Top
 * Byte Ignore) VA with bits 63:56 replaced by copies of bit 55 (Arm ARM
 * D8.8 "Tagged addresses").  The walker walks this one; a walk's page_va
 * and pa follow from it, its va stays the VA asked.
 */
uint64_t pt_va_untag(const struct pt_format *fmt, uint64_t va);
/*
 * For a format whose TBI is unknown (va_tbi_unknown): whether VA, which
 * faults noncanonical as it is, is a tagged VA that walks with TBI set;
 * the VA it then stands for in *AS.
 */
bool pt_va_tbi_depends(const struct pt_format *fmt, uint64_t va, uint64_t *as);
/* The last slot of FMT's space: 2^va_bits - 1 (UINT64_MAX for 64 bits). */
uint64_t pt_va_slot_last(const struct pt_format *fmt);

/*
 * Parses a VA (or PA) name by the one rule (pt_num.h PT_NUM_RULE): "0x1f",
 * "0X00001f" or decimal "31"; "1f" (hex without 0x) is false, as are junk
 * and overflow.
 */
bool pt_va_parse(const char *s, uint64_t *va);
/* The canonical va/ name: "0x" + fmt->va_digits lowercase hex digits. */
int pt_va_name(const struct pt_format *fmt, uint64_t va, char *buf, size_t len);

/* A resolved page, as the walker would resolve it. */
struct pt_page {
	uint64_t va;
	uint64_t size;
	unsigned space;
	uint64_t pa;
	struct pt_node node;     /* tree path of the leaf */
	struct pt_entry leaf;
};

/*
 * Streams every page the walker resolves, in VA order, shadowed small pages
 * left out, without building a list.  Memory: one table position per level.
 */
struct pt_page_iter {
	const struct pt_context *ctx;
	uint64_t from_va;
	unsigned depth;            /* frames in use */
	bool done;
	/*
	 * Work bound: at most BUDGET entries are read (0: no bound, the
	 * default of pt_pages_init()).  Aliased tables can make ~10^11 pages
	 * out of a few KiB, so a reader that must end in bounded time sets a
	 * budget; when it runs out, CUT is set and CUT_VA is the first VA not
	 * looked at.
	 */
	uint64_t budget, reads;
	bool cut;
	uint64_t cut_va;
	/* The caller's read control (pt_pages_init()); NULL: never cancelled. */
	struct pt_readctl *rc;
	/* PT_DECODE_* for the leaves (0, the default: every field; PT_DECODE_SUMMARY: none) */
	unsigned flags;
	/*
	 * One frame per table on the current path.  A plain frame walks
	 * `table` from `next` to `end`.  A dual frame (below a dual PDE) walks
	 * the big table's entries and, where a big entry lets the small table
	 * decide, the small entries under it — the walker's rule, so that
	 * shadowed small pages are never listed.
	 */
	struct pt_iter_frame {
		struct pt_table table;  /* plain: the table; dual: the small table */
		uint64_t next, end;     /* plain: index range; dual: small sub-range in progress */
		uint64_t cur;           /* plain: index of the entry descended through */
		bool dual;
		bool has_big, has_small;
		struct pt_table big;
		uint64_t big_next, big_end, big_cur;
	} f[PT_MAX_DEPTH + 1];
};
void pt_pages_init(struct pt_page_iter *it, const struct pt_context *ctx, uint64_t from_va,
		   struct pt_readctl *rc);
/* Next page with va >= from_va; false at the end. */
bool pt_pages_next(struct pt_page_iter *it, struct pt_page *out);

/* Anomalies (ptfs-tool check, info). */
enum pt_anomaly_kind {
	PT_AN_RESERVED_BITS = 1,   /* "reserved_bits" */
	PT_AN_ENCRYPTED,           /* "encrypted": a bit documented "set to 0" is set (PT_EA_ZERO_BITS) */
	PT_AN_KIND_UNKNOWN,        /* "kind_unknown": a kind id with no name */
	PT_AN_KIND_NON_NATIVE,     /* "kind_non_native": a named kind outside 0x00-0x0f */
	PT_AN_NOT_CAPTURED,        /* "not_captured": a pointer whose table is not (or only partly) captured */
	PT_AN_UNSUPPORTED,         /* "unsupported": an encoding not allowed at its level */
	PT_AN_TABLE_TWO_LEVELS,    /* "table_two_levels": one table address used at two levels */
	PT_AN_PA_NOT_CAPTURED,     /* "page_outside_capture": a system page outside captured memory (info only) */
	PT_AN_ROOT_NOT_CAPTURED,   /* "root_not_captured": none of the root table is captured */
	PT_AN_UNUSUAL,             /* "unusual": walked as the hardware debugger does, but no driver writes it */
	PT_AN_UNREADABLE,          /* "unreadable": a table the dump holds but cannot be read (a corrupt kdump page) */
};
const char *pt_anomaly_name(enum pt_anomaly_kind k);

struct pt_anomaly {
	enum pt_anomaly_kind kind;
	struct pt_node node;       /* where */
	char detail[160];          /* human detail: "reserved_mask: 0x10" */
};

/*
 * Tables that alias each other (a table whose 512 entries all point at one
 * table of the next level, and so on) can describe ~10^11 pages in 64 KiB.  The page
 * count of a scan and the runs of `maps` therefore stop at these limits and
 * say so (pages_truncated; a last `# truncated` line), so that info, maps
 * and ptfs-tool check end in bounded time and memory on any capture.  A
 * real capture of a whole GPU stays far below them.
 */
#define PT_SCAN_PAGES_MAX (UINT64_C(1) << 23)
/* Entries the page iterator may read for one info scan or one maps render. */
#define PT_SCAN_ENTRIES_MAX (UINT64_C(1) << 23)
/* Bytes one maps render may hold (it is cached for the life of the mount). */
#define PT_MAPS_BYTES_MAX (UINT64_C(64) << 20)
/* Runs the run builder (ptfs-tool maps, pa, diff) produces before it says it was cut. */
#define PT_MAPS_RUNS_MAX (UINT64_C(1) << 22)

/* Counts of one context, for info. */
struct pt_stats {
	uint64_t tables[PT_MAX_LEVELS];        /* distinct tables per level (a table aliased by several pointers counts once) */
	uint64_t entries[PT_MAX_LEVELS];       /* non-zero captured entries per level */
	uint64_t mapped[PT_MAX_LEVELS];        /* mapped leaves per level */
	uint64_t pages;                        /* resolved pages (va/), at most PT_SCAN_PAGES_MAX */
	bool pages_truncated;                  /* counting stopped at PT_SCAN_PAGES_MAX or PT_SCAN_ENTRIES_MAX */
	uint64_t truncated_va;                 /* pages_truncated: the first VA not counted */
	bool tables_truncated;                 /* the table scan stopped after PT_SCAN_ENTRIES_MAX entries */
	uint64_t bytes_by_shift[64];           /* mapped bytes per page shift */
	uint64_t anomalies;
};

/*
 * Whether none of CTX's root table is captured (every VA then reads
 * not_captured), or the dump holds it but cannot read it (unreadable: a
 * corrupt kdump page); if so MSG gets the one line the programs print at
 * load, "context 'NAME': its root table (LEVEL at SPACE:0xADDR) is not
 * captured: ..." or "... cannot be read: page SPACE:0xADDR: REASON: ...".
 */
bool pt_context_root_missing(const struct pt_context *ctx, char *msg, size_t len);

typedef void (*pt_anomaly_fn)(void *ud, const struct pt_anomaly *a);
/*
 * Scans every captured table of CTX; calls FN per anomaly in tree order (FN
 * may be NULL).  RC (may be NULL) is the caller's: its cancel and bound
 * apply, and the scan's own bounds (PT_SCAN_ENTRIES_MAX) come on top.
 */
pt_err pt_context_scan(const struct pt_context *ctx, struct pt_stats *st,
		       pt_anomaly_fn fn, void *ud, struct pt_readctl *rc);

typedef void (*pt_table_fn)(void *ud, const struct pt_table *t);
/*
 * Calls FN once for each (table, level) CTX's tables reach, the root
 * included, in tree order: every table the scan counts whose bytes are at
 * least partly captured (T->cover), a table aliased at one level once.
 * RC (may be NULL) as for the scan, whose bound (PT_SCAN_ENTRIES_MAX
 * entries) applies too: *CUT true when the pass stopped early (bound or
 * cancel), so that FN did not see every table.  PT_E_NOMEM, else PT_OK.
 */
pt_err pt_context_tables(const struct pt_context *ctx, pt_table_fn fn, void *ud, struct pt_readctl *rc,
			 bool *cut);
/*
 * A sum of CTX's tables as they are now: where each table
 * pt_context_tables() reaches lies and its non-zero entries' raw bits.
 * Two sums of a live capture's context that differ: a table changed in
 * between (ptfs's `# changed while read`).  RC as for pt_context_tables().
 */
pt_err pt_context_tables_sum(const struct pt_context *ctx, uint64_t *sum, struct pt_readctl *rc);

#endif
