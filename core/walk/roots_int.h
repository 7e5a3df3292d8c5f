/* SPDX-License-Identifier: MIT */
/*
 * roots_int.h — what the roots scan (roots.c: candidate page-table roots;
 * roots_iommu.c: candidate IOMMU root, device and stream tables) shares
 * with roots_eval.c: a table and everything below it decoded once per
 * (space, address, level), remembered in the memo.  Internal to core/walk.
 */
#ifndef PT_ROOTS_INT_H
#define PT_ROOTS_INT_H

#if !defined(PT_LAYER_WALK) && !defined(PT_TESTING)
#error "roots_int.h is internal to core/walk (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_capture.h"
#include "pt_roots.h"

#define PAGE 4096u
/* A table larger than this is not followed (no format has one below the root). */
#define MAX_TABLE_BYTES (16u << 20)

/*
 * A table is given up (not followed, and a root candidate no more) when
 * more than a third as many as its valid entries, or more than TOLERATED_BAD in
 * all, are entries the hardware refuses: a data page decoded as a table
 * has many, a real table one stray entry at most (a fault where it is
 * walked through, not a reason to lose the rest).
 */
#define TOLERATED_BAD 16u

/* What a table and everything below it decode to. */
struct pt_rsub {
	unsigned levels;       /* clean levels down to a leaf; 0: none */
	bool bad;              /* the table itself is refused (too_bad()) */
	unsigned valid;
	uint64_t bad_entries;  /* refused entries in the tables passed */
	uint64_t tables, bad_tables, leaves, uncaptured;
};

/*
 * One decoded (table, level): its struct pt_rsub in 40 bytes, counts held to
 * 32 bits (saturated: only aliasing tables count past 2^32), since there
 * is one per table of every level in a guest's RAM — a 2.3 GiB QEMU dump
 * has millions, and the memo is most of roots' anonymous memory
 * (issue #34 item 9).
 */
struct pt_rmemo {
	uint64_t addr;
	uint32_t key;          /* (space << 8 | level) + 1; 0: empty slot */
	uint8_t levels;        /* sub.levels (at most PT_MAX_LEVELS) */
	bool bad;              /* sub.bad */
	bool inner;            /* below a candidate whose whole tree is clean */
	uint32_t valid, bad_entries, tables, bad_tables, leaves, uncaptured;
};

struct pt_rscan {
	const struct pt_mem *mem;
	const struct pt_format *fmt;
	const struct pt_context *geom;
	unsigned geometry;
	struct pt_readctl *rc;
	/* the memory's id of each of the format's space ids (-1: the capture has no such space) */
	int memsp[PT_CONTEXT_SPACES];
	struct pt_rmemo *memo;
	size_t memo_n, memo_cap;   /* cap: a power of two */
	/*
	 * A zero entry of each level, decoded once (decoding is pure): most
	 * entries of a page are zero, and a zero entry that decodes to
	 * nothing needs no decode (ZERO_SKIP), for the shift ZERO_SHIFT.
	 */
	bool zero_known[PT_MAX_LEVELS], zero_skip[PT_MAX_LEVELS];
	unsigned zero_shift[PT_MAX_LEVELS];
	uint8_t *buf[PT_MAX_LEVELS + 1];
	size_t buf_len[PT_MAX_LEVELS + 1];
	bool nomem;
};

/* Reads in the format's space SPACE (its ids name the capture's spaces by name). */
bool pt_rscan_read(const struct pt_rscan *s, unsigned space, uint64_t pa, void *out, size_t len);
struct pt_rmemo *pt_rscan_memo_find(const struct pt_rscan *s, unsigned space, uint64_t addr,
				    int level);
/* LEN bytes for the table at DEPTH (one per depth: a descent holds one each); NULL: no memory. */
uint8_t *pt_rscan_buf(struct pt_rscan *s, unsigned depth, size_t len);
/*
 * Whether RAW (an entry of LEVEL, page shift SHIFT) is zero and decodes to
 * nothing the scan counts (neither a leaf, a pointer nor refused).
 */
bool pt_rscan_zero(struct pt_rscan *s, const uint8_t *raw, int level, unsigned shift);
/*
 * Decodes the table of LEVEL in RAW (ENTRIES entries, page shift SHIFT) and
 * follows its pointers (not those of refused entries) into OUT.
 */
void pt_rscan_table(struct pt_rscan *s, const uint8_t *raw, int level, uint64_t entries,
		    unsigned shift, unsigned depth, struct pt_rsub *out);
/*
 * The table TG points at, from the memo or decoded now.  False: not wholly
 * captured (or not a table the walker would read: a level not below the
 * parent's, a flat level, a table wider than its level).
 */
bool pt_rscan_child(struct pt_rscan *s, const struct pt_target *tg, unsigned pdepth,
		    struct pt_rsub *out);
/* The geometry's space bias of SPACE (a bus address in a pointer), as the walker applies it. */
bool pt_rscan_unbias(const struct pt_rscan *s, unsigned space, uint64_t *addr);
/* The memo and buffers of S (S itself is the caller's). */
void pt_rscan_free(struct pt_rscan *s);

/* ---- the IOMMU table scan (roots_iommu.c: the pass; roots_iotab.c: reading one candidate) ---- */

#define IO_MAX_READS (1u << 18)
#define IO_MAX_IDS 1024u
#define IO_MAX_DOMS 4096u

/* A context an [iommu] section made: where its entry is, for root_of. */
struct pt_rio_origin {
	uint64_t addr;
	const char *type, *iommu;
};

/* One domain decoded: a device sharing it costs a lookup. */
struct pt_rio_dom {
	const char *fmt;
	unsigned nlevels, space;
	uint64_t root;
	bool captured, good;        /* the root table was read; it and its tables decode */
	unsigned seen;              /* the last candidate (serial) whose counts have it */
	uint64_t tables, leaves;
};

/* A table read below a candidate (BY while it is read); GOOD: the contexts that candidate explains. */
struct pt_rio_reach {
	uint64_t addr;
	unsigned good;
	struct pt_iommu_cand *by;   /* while the candidate is read; GOOD is set once it is scored */
};

struct pt_rio_scan {
	const struct pt_capture *cap;
	const struct pt_mem *mem;
	struct pt_readctl *rc;
	unsigned space_id;
	const char *space;
	const struct pt_rio_origin *org;
	size_t norg;
	struct pt_iommu_cand *c;    /* the candidate being read */
	unsigned reads;
	/* the domains decoded in this space, shared by its candidates; DOMIX their hash (index + 1) */
	struct pt_rio_dom *dom;
	size_t ndom, domcap;
	uint32_t *domix;
	size_t domix_cap;           /* a power of two, at most half full */
	unsigned serial;            /* the candidate being read */
	unsigned cand_doms;         /* domains it decoded (IO_MAX_DOMS) */
	struct pt_rio_reach *reached;  /* tables below candidates (context, PASID, L2, CD tables) */
	size_t nreached, reachedcap;
	bool nomem;
};

uint64_t pt_rio_le64(const uint8_t *p);
/* The page checks: VALID entries and refused ones BAD (a data page has many). */
void pt_rio_vtd_count(const uint8_t *rt, bool sm, unsigned *valid, unsigned *bad);
void pt_rio_amdvi_count(const uint8_t *pg, unsigned *valid, unsigned *bad);
void pt_rio_ste_count(const uint8_t *pg, unsigned *valid, unsigned *bad);
void pt_rio_l1_count(const uint8_t *pg, unsigned split, unsigned *valid, unsigned *bad);
/* L1STD D: 1 valid (under SPLIT), 0 absent, -1 refused. */
int pt_rio_l1std(uint64_t d, unsigned split);
/*
 * Candidate S->c, as FAM with registers REG (by PT_IK_*) whose first page
 * FIRST the scan read, read as an [iommu] section reads it: FAM's
 * traversal with the scan's visitor (roots_iotab.c), every device tried,
 * counted into S->c.
 */
void pt_rio_read(struct pt_rio_scan *s, const struct pt_iommu_format *fam, const uint64_t *reg,
		 const uint8_t *first);

#endif
