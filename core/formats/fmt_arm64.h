/* SPDX-License-Identifier: MIT */
/*
 * fmt_arm64.h — what fmt_arm64.c (the decoder and the context) and
 * fmt_arm64_enc.c (the encoder, ptfs-tool build) share.  Nothing else
 * includes this: the rest of ptfs reaches the format through struct
 * pt_format.
 */
#ifndef PT_FMT_ARM64_H
#define PT_FMT_ARM64_H

/* The include rule (HACKING.md, "Layers"): internal to core/formats, and the tests. */
#if !defined(PT_LAYER_FORMATS) && !defined(PT_TESTING)
#error "fmt_arm64.h is internal to core/formats (HACKING.md, Layers)"
#endif

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

#endif
