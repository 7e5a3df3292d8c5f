/* SPDX-License-Identifier: MIT */
/*
 * fmt_arm64.h — what fmt_arm64.c (the decoder and the context) and
 * fmt_arm64_enc.c (the encoder, ptfs-tool build) share, and what
 * fmt_smmuv3.c reuses (the set-up, the decoder, the level table: SMMUv3
 * tables are VMSAv8-64 tables).  Nothing else includes this: the rest of
 * ptfs reaches the formats through struct pt_format.
 */
#ifndef PT_FMT_ARM64_H
#define PT_FMT_ARM64_H

/* The include rule (HACKING.md, "Layers"): internal to core/formats, and the tests. */
#if !defined(PT_LAYER_FORMATS) && !defined(PT_TESTING)
#error "fmt_arm64.h is internal to core/formats (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_format.h"

#define BIT(n) (1ull << (n))

static inline uint64_t bits(uint64_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & ((1ull << (hi - lo + 1)) - 1);
}

/* Bits HI:LO set (HI >= LO). */
static inline uint64_t span(unsigned hi, unsigned lo)
{
	return ((hi >= 63 ? 0 : BIT(hi + 1)) - 1) & ~(BIT(lo) - 1);
}

/* Output sizes TCR.IPS / VTCR.PS 0..6 give (QEMU ptw.c pamax_map). */
static const uint8_t pa_sizes[] = {32, 36, 40, 42, 44, 48, 52};
#define NPA (sizeof pa_sizes)

/* One decoder's (and encoder's) fixed choices. */
struct a64_cfg {
	unsigned g;      /* granule: 0 4K, 1 16K, 2 64K */
	unsigned ds;     /* TCR.DS (LPA2; 4K and 16K only) */
	unsigned pa;     /* index into pa_sizes */
	unsigned s2;     /* stage 2 */
	unsigned xnx;    /* stage 2 XN[1:0] as FEAT_XNX reads it */
};

/* The encode hook of configuration C (fmt_arm64_enc.c): the inverse of its decoder. */
pt_err pt_a64_encode_with(const struct a64_cfg *c, const struct pt_entry *e, uint8_t *raw,
			  char *err, size_t errlen);
/* The build_keys hook of the arm64 format (fmt_arm64_enc.c). */
void pt_a64_build_keys(const struct pt_build_keys *k, struct pt_buf *ini);

/* The keys of an [arm64] section (fmt_arm64.c key_names), and its context. */
enum {
	K_STAGE, K_TTBR, K_TCR, K_HALF, K_GRANULE, K_VA_BITS, K_PA_BITS, K_DS, K_VTTBR, K_VTCR,
	K_XNX, K_TBI, K__COUNT
};

struct a64_ctx {
	uint64_t v[K__COUNT];
	uint32_t has;           /* BIT(K_*) of the keys given */
	bool upper;             /* half = upper: TTBR1 */
	const char *space_name; /* `space = NAME` (capture.ini's string), NULL: sysmem */
	/* set-up results */
	unsigned grain, va, pa, ds, start_lvl, root_bits, hpd, xnx;
	bool tbi;               /* TCR.TBI0/TBI1 of the half: the top byte is ignored */
	bool tbi_unknown;       /* `tbi = unknown`: no TCR says (a dump); walked as TBI clear, and said */
	uint64_t root, ttbr_ignored;
	struct pt_level levels[6];
	struct pt_format fmt;
};

/*
 * The set-up of an [arm64] context from C's keys (C->v, C->has, C->upper):
 * the geometry, C's own level table and format copy (C->fmt, the decoder of
 * that geometry), and CTX's root.  Another format whose tables are VMSAv8-64
 * tables (arm-smmuv3: the CD's TTBx/TCR fields, the STE's S2TTB/VTCR image)
 * fills a struct a64_ctx with the register images and calls this: one
 * decoder, two context set-ups.  A message in ERR on failure.
 */
pt_err pt_a64_setup(struct a64_ctx *c, struct pt_context *ctx, char *err, size_t errlen);
/* The descriptor decoder of configuration C (the decode hooks call it with constants). */
pt_err pt_a64_decode_with(const struct a64_cfg *c, unsigned level, unsigned page_shift,
			  const uint8_t *raw, unsigned flags, struct pt_entry *e);
/* Levels without a context (ptfs-tool decode): 4 KiB granule, 48-bit VA, l0..l3. */
extern const struct pt_level pt_a64_levels[];
extern const struct pt_format pt_format_arm64;
/* The stage-1 maps FLAGS and KIND hooks (a stage-2 context's copy has its own flags). */
void pt_a64_flags(const struct pt_entry *e, char *buf, size_t len);
void pt_a64_kind(const struct pt_entry *e, char *buf, size_t len);
/* A stage-2 context's maps FLAGS hook. */
void pt_a64_s2_flags(const struct pt_entry *e, char *buf, size_t len);
/* The spaces of the format: sysmem alone. */
extern const char *const pt_a64_spaces[];
/*
 * Whether configuration C has block descriptors at level LVL (Arm ARM
 * D8.2: level 2 always, 1 and 0 by granule, DS and output size).
 */
bool pt_a64_block_ok(const struct a64_cfg *c, int lvl);
/*
 * The decode and encode hooks per configuration, [G][DS][PA][S2][XNX] as
 * struct a64_cfg: the decode hook has no context, so each context's format
 * copy takes the one of its geometry.
 */
typedef pt_err (*pt_a64_decode_fn)(unsigned, unsigned, const uint8_t *, unsigned, struct pt_entry *);
typedef pt_err (*pt_a64_encode_fn)(unsigned, const struct pt_entry *, uint8_t *, char *, size_t);
extern const pt_a64_decode_fn pt_a64_decoders[3][2][NPA][2][2];
extern const pt_a64_encode_fn pt_a64_encoders[3][2][NPA][2][2];
/* The hooks of the format without a context (ptfs-tool decode, build): 4K, 48-bit output, stage 1. */
pt_err pt_a64_decode_4k(unsigned level, unsigned ps, const uint8_t *raw, unsigned flags,
			struct pt_entry *out);
pt_err pt_a64_encode_4k(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
			size_t len);

#endif
