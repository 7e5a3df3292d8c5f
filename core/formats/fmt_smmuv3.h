/* SPDX-License-Identifier: MIT */
/*
 * fmt_smmuv3.h — what fmt_smmuv3.c (the [smmu] context) and
 * fmt_smmuv3_enc.c (its encoder and build keys, ptfs-tool build) share.
 * Nothing else includes this but the tests.
 */
#ifndef PT_FMT_SMMUV3_H
#define PT_FMT_SMMUV3_H

/* The include rule (HACKING.md, "Layers"): internal to core/formats, and the tests. */
#if !defined(PT_LAYER_FORMATS) && !defined(PT_TESTING)
#error "fmt_smmuv3.h is internal to core/formats (HACKING.md, Layers)"
#endif

#include "fmt_ctx.h"

/* The format's spaces (index = space id): sysmem, hpa, gpa. */
extern const char *const pt_smmuv3_spaces[];
#define PT_SMMUV3_NSPACES 3

/*
 * The encode hook of the arm64 descriptor configuration (granule G 0 4K,
 * 1 16K, 2 64K; output size index P into pa_sizes; stage 2 S2) whose
 * pages are in space OS (the context's output_space): the arm64 encoder,
 * refusing a page in another space (the walk could not give it back).
 */
pt_fmt_encode_fn pt_smmuv3_encoder(unsigned g, unsigned p, unsigned s2, unsigned os);

/* The hook without a context: 4 KiB granule, 48-bit output, stage 1, pages in sysmem. */
pt_err pt_smmuv3_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
			size_t errlen);

/* The build_keys hook of arm-smmuv3 (fmt_smmuv3_enc.c). */
void pt_smmuv3_build_keys(const struct pt_build_keys *k, struct pt_buf *ini);

#endif
