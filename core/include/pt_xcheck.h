/* SPDX-License-Identifier: MIT */
/*
 * pt_xcheck.h — two contexts of one capture compared VA by VA, for mirrored
 * address spaces (HMM/SVM, UVM ATS, KFD SVM): does the GPU's table map what
 * the CPU's maps, to the same physical page, with the same rights?
 *
 * Both contexts' maps runs (pt_runs.h) are read in lockstep: every VA range
 * mapped in either gets one verdict, and neighbouring ranges of one verdict
 * whose physical addresses continue on both sides are one line.  Physical
 * addresses are compared by space NAME, so two formats whose memory is the
 * same space (an x86-64 process and a GPU VM both in `sysmem`) compare.
 * Rights are compared through the leaf summary's PT_PERM_* bits, the words
 * every format decodes into, never through a format's own flag words.
 *
 * Memory is that of two runs iterators; nothing is collected.  No printing:
 * lines go to a callback, and the renderers below write them into a pt_buf.
 */
#ifndef PT_XCHECK_H
#define PT_XCHECK_H

/* The include rule (HACKING.md, "Layers"): the view layer's, never included below it. */
#if defined(PT_LAYER_UTIL) || defined(PT_LAYER_FORMATS) || defined(PT_LAYER_LOAD) || defined(PT_LAYER_SOURCES) || defined(PT_LAYER_WALK) || defined(PT_LAYER_LINUX)
#error "pt_xcheck.h belongs to core/view: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "pt_buf.h"
#include "pt_capture.h"
#include "pt_error.h"
#include "pt_runs.h"

enum pt_xcheck_verdict {
	PT_XC_SAME = 0,        /* both map it, same space and PA, same rights */
	PT_XC_PA_DIFFERS,      /* both map it, to another space or PA */
	PT_XC_PERM_DIFFERS,    /* same page, a right differs (pt_xcheck_rights_diff) */
	PT_XC_ONLY_A,          /* A maps it, B does not */
	PT_XC_ONLY_B,          /* B maps it, A does not */
	PT_XC__COUNT,
};
/* "same", "pa_differs", "perm_differs", "only_a", "only_b". */
const char *pt_xcheck_verdict_name(enum pt_xcheck_verdict v);

/* The rights compared, as what an access may do (not as bits of any format). */
#define PT_XC_WRITABLE   0x1u   /* a write is allowed: neither PT_PERM_READ_ONLY nor PT_PERM_NO_WRITE */
#define PT_XC_USER       0x2u   /* an unprivileged access is allowed: no PT_PERM_PRIVILEGE */
#define PT_XC_EXECUTABLE 0x4u   /* an instruction fetch is allowed: PT_PERM_EXEC */
#define PT_XC_RIGHTS_ALL (PT_XC_WRITABLE | PT_XC_USER | PT_XC_EXECUTABLE)

/* The PT_XC_* rights a leaf's PT_PERM_* bits grant. */
unsigned pt_xcheck_rights(uint32_t perm);
/* The PT_XC_* rights among COMPARE granted on one side only. */
unsigned pt_xcheck_rights_diff(uint32_t perm_a, uint32_t perm_b, unsigned compare);
/* "writable", "user", "executable" for one PT_XC_* bit; NULL otherwise. */
const char *pt_xcheck_right_name(unsigned right);

/* One side of a line: the page there, or why there is none. */
struct pt_xcheck_side {
	bool mapped;
	/*
	 * "mapped"; or "unmapped", or the fault of the range as maps --all
	 * names it ("sparse", "not_captured", "reserved_bits", "unsupported"):
	 * a VA not captured on one side is shown so, not passed off as unmapped.
	 */
	const char *state;
	/* mapped only */
	const char *space;     /* space name (of the context's format) */
	uint64_t pa;           /* PA of the line's first VA */
	uint64_t page_size;
	uint32_t perm;         /* PT_PERM_* */
	char flags[PT_FLAGS_LEN];   /* the maps flag words */
	char kind[64];              /* the maps KIND column (not compared) ... */
	char kind_key[PT_KIND_KEY_LEN];   /* ... and its JSON key in this format (kind_name, mtype_name) */
};

struct pt_xcheck_line {
	uint64_t va, last;     /* [va, last], inclusive: the top page of a space ends at 2^64 */
	enum pt_xcheck_verdict verdict;
	unsigned rights;       /* perm_differs: the PT_XC_* rights that differ; else 0 */
	struct pt_xcheck_side a, b;
};

struct pt_xcheck_opts {
	uint64_t va_lo, va_hi; /* the window compared, inclusive (0, UINT64_MAX: everything) */
	unsigned rights;       /* PT_XC_* rights compared (PT_XC_RIGHTS_ALL) */
};
void pt_xcheck_opts_init(struct pt_xcheck_opts *o);

struct pt_xcheck_result {
	uint64_t lines[PT_XC__COUNT];   /* lines given per verdict */
	uint64_t bytes[PT_XC__COUNT];   /* VA bytes per verdict */
	/*
	 * One side's runs stream was cut (pt_runs_iter.truncated): the lines
	 * given stop before CUT_VA, and nothing past it was compared.
	 */
	bool truncated;
	char cut_side;                  /* 'a' or 'b' */
	uint64_t cut_va, cut_limit;
	const char *cut_what;
	int stopped;                    /* the callback's non-zero return, or 0 */
};

/* Gets each line in VA order; a non-zero return stops the comparison (RES->stopped). */
typedef int (*pt_xcheck_fn)(void *ud, const struct pt_xcheck_line *l);

/*
 * Compares A and B over O's window, handing FN each merged line.  PT_OK,
 * or PT_E_NOMEM before any line.  RES is filled in either way.  Safe to
 * run in several threads at once (one walker per call).  RC (NULL: none)
 * bounds and cancels both sides' reads, as for maps.
 */
pt_err pt_xcheck_run(const struct pt_context *a, const struct pt_context *b,
		     const struct pt_xcheck_opts *o, pt_xcheck_fn fn, void *ud,
		     struct pt_xcheck_result *res, struct pt_readctl *rc);

/*
 * One line as ptfs-tool crosscheck prints it.  Text:
 *   VA_START-VA_END SIZE VERDICT A_SPACE:A_PA A_PAGE A_FLAGS B_SPACE:B_PA B_PAGE B_FLAGS [differs=R,...]
 * with `- - STATE` for a side that does not map the range.  JSON: one
 * object (ptfs-tool(1) JSON).  VA_DIGITS: hex digits of the VAs.
 */
void pt_render_xcheck_line(struct pt_buf *b, const struct pt_xcheck_line *l, unsigned va_digits,
			   enum pt_out out);
/* The last line: counts per verdict (text `# summary: ...`; JSON {"summary": {...}}). */
void pt_render_xcheck_summary(struct pt_buf *b, const struct pt_xcheck_result *r, enum pt_out out);

/*
 * The whole comparison of A and B over every VA, as the mount's
 * CTX_A/vs/CTX_B holds it: the lines, then the summary; the same bytes as
 * ptfs-tool crosscheck CAPTURE CTX_A CTX_B prints.  Where a side's runs
 * were cut, or the text passed PT_MAPS_BYTES_MAX (the file is held in
 * memory), the lines stop there and a last line says so instead of the
 * summary: text `# truncated at VA 0x...: CTX: more than N WHAT`, JSON
 * {"context", "more_than", "truncated_at_va", "what"}.  RC: the caller's
 * cancel and bound (a cancelled render is incomplete: pt_readctl_cancelled()).
 */
pt_err pt_render_xcheck(struct pt_buf *b, const struct pt_context *a, const struct pt_context *bctx,
			enum pt_out out, struct pt_readctl *rc);

#endif
