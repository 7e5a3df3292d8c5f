/* SPDX-License-Identifier: MIT */
/*
 * fmt_ctx.h — what the formats whose geometry a context's registers choose
 * share (x86-64, intel-vtd/intel-ept, amd-vi, amd-gpuvm): hook variants,
 * the space keys, set-up messages and the plain root of a context.
 *
 * The decode and encode hooks take no context (pt_format.h), so such a
 * format has one hook per value of the registers that change a decode:
 * each a wrapper that calls one function with those values as constants,
 * and ctx_setup points its per-context descriptor at the right one.  The
 * macros below write the wrappers and their tables, so that every format
 * spells them the same way.
 */
#ifndef PT_FMT_CTX_H
#define PT_FMT_CTX_H

/* The include rule (HACKING.md, "Layers"): internal to core/formats, and the tests. */
#if !defined(PT_LAYER_FORMATS) && !defined(PT_TESTING)
#error "fmt_ctx.h is internal to core/formats (HACKING.md, Layers)"
#endif

#include <stddef.h>
#include <stdint.h>

#include "pt_capture.h"
#include "pt_format.h"

typedef pt_err (*pt_fmt_decode_fn)(unsigned level, unsigned page_shift, const uint8_t *raw,
				   unsigned flags, struct pt_entry *out);
typedef pt_err (*pt_fmt_encode_fn)(unsigned level, const struct pt_entry *e, uint8_t *raw,
				   char *err, size_t errlen);

/* FN_A_B: the decode hook FN(A, B, level, page_shift, raw, flags, out). */
#define PT_FMT_DECODER(FN, A, B)                                                             \
	static pt_err FN##_##A##_##B(unsigned level, unsigned ps, const uint8_t *raw,          \
				     unsigned flags, struct pt_entry *out)                     \
	{                                                                                      \
		return FN(A, B, level, ps, raw, flags, out);                                   \
	}
/* FN_A_B: the encode hook FN(A, B, level, e, raw, err, errlen). */
#define PT_FMT_ENCODER(FN, A, B)                                                             \
	static pt_err FN##_##A##_##B(unsigned level, const struct pt_entry *e, uint8_t *raw,   \
				     char *err, size_t errlen)                                 \
	{                                                                                      \
		return FN(A, B, level, e, raw, err, errlen);                                   \
	}
/* The wrapper FN_A_B as a table element. */
#define PT_FMT_REF(FN, A, B) FN##_##A##_##B,

/* M(FN, A, B) for B = 0 .. N-1: one row of variants. */
#define PT_FMT_B2(M, FN, A) M(FN, A, 0) M(FN, A, 1)
#define PT_FMT_B3(M, FN, A) PT_FMT_B2(M, FN, A) M(FN, A, 2)
#define PT_FMT_B4(M, FN, A) PT_FMT_B3(M, FN, A) M(FN, A, 3)
/* ROW(M, FN, A) for A = 0 .. N-1 (ROW one of the PT_FMT_Bn): every variant. */
#define PT_FMT_A3(ROW, M, FN) ROW(M, FN, 0) ROW(M, FN, 1) ROW(M, FN, 2)
#define PT_FMT_A4(ROW, M, FN) PT_FMT_A3(ROW, M, FN) ROW(M, FN, 3)
/* The table rows {FN_A_0, FN_A_1, ...} for A = 0 .. N-1. */
#define PT_FMT_ROWS3(ROW, FN) {ROW(PT_FMT_REF, FN, 0)}, {ROW(PT_FMT_REF, FN, 1)}, {ROW(PT_FMT_REF, FN, 2)},
#define PT_FMT_ROWS4(ROW, FN) PT_FMT_ROWS3(ROW, FN) {ROW(PT_FMT_REF, FN, 3)},

/*
 * A `space` or `output_space` key (K) naming one of SPACES (the format's,
 * NULL-terminated): its id in *OUT, else PT_E_VALUE with the message the
 * [memory] sections give, "... is not a space of FORMAT (a, b)".
 */
pt_err pt_fmt_space_key(const struct pt_ctx_key *k, const char *format, const char *const *spaces,
			unsigned *out);

/* A ctx_setup failure: the message in ERR (no "capture.ini:LINE:" prefix), RC returned. */
pt_err pt_fmt_setup_fail(char *err, size_t errlen, pt_err rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * The root of a context whose table is one root of ENTRIES entries at ADDR
 * in SPACE, its VAs from 0, no bias in any space.
 */
void pt_fmt_ctx_root(struct pt_context *ctx, unsigned space, uint64_t addr, uint64_t entries);

/*
 * The level table of a context that uses the last N rows of ALL (a format's
 * deepest table, NTOTAL rows): depths from 0, each row's child the next,
 * a {NULL} sentinel at LV[N].
 */
void pt_fmt_levels_tail(struct pt_level *lv, const struct pt_level *all, unsigned ntotal,
			unsigned n);

/*
 * A VT-d scalable-mode PASID entry (VT-d spec §9.6; Linux
 * drivers/iommu/intel/pasid.h, QEMU hw/i386/intel_iommu_internal.h): the
 * fields of its first three 64-bit words.  QW0: P 0, FPD 1, AW 4:2,
 * PGTT 8:6, SLADE 9, SLPTPTR 63:12; QW1: DID 15:0, PWSNP 23, PGSNP 24;
 * QW2: SRE 0, FLPM 3:2, WPE 4, EAFE 7, FLPTR 63:12.
 */
struct pt_pasid {
	uint64_t qw[8];          /* as written; words not given are 0 */
	unsigned nqw;
	unsigned p, fpd, aw, pgtt, slade, did, pwsnp, pgsnp, sre, flpm, wpe, eafe;
	uint64_t slptptr, flptr;
};
enum { PT_PGTT_FIRST = 1, PT_PGTT_SECOND = 2, PT_PGTT_NESTED = 3, PT_PGTT_PASS = 4 };

/* A `pasid_entry` key: 1 to 8 numbers (QW0 first) decoded into *OUT; PT_E_VALUE with a message. */
pt_err pt_fmt_pasid_key(const struct pt_ctx_key *k, struct pt_pasid *out);
/* The N words QW (QW0 first, at most 8) of a PASID entry decoded into *OUT (a walk's entry). */
void pt_fmt_pasid_words(const uint64_t *qw, unsigned n, struct pt_pasid *out);
/*
 * The space and output_space names of IOMMU device entry E (NULL: not
 * given) as a section's keys of those names: their ids in *SPACE, *OUTPUT,
 * else PT_E_VALUE with pt_fmt_space_key()'s message.
 */
pt_err pt_fmt_entry_spaces(const struct pt_ctx_entry *e, const char *format,
			   const char *const *spaces, unsigned *space, unsigned *output, char *err,
			   size_t errlen);
/* PGTT's name: first-level, second-level, nested, pass-through, or "reserved". */
const char *pt_fmt_pgtt_name(unsigned pgtt);

#endif
