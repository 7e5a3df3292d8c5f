/* SPDX-License-Identifier: MIT */
/*
 * fmt_smmuv3.h — what fmt_smmuv3.c (the [smmu] context), fmt_smmuv3_info.c
 * (what its info shows) and fmt_smmuv3_enc.c (its encoder and build keys,
 * ptfs-tool build) share.
 * Nothing else includes this but the tests.
 */
#ifndef PT_FMT_SMMUV3_H
#define PT_FMT_SMMUV3_H

/* The include rule (HACKING.md, "Layers"): internal to core/formats, and the tests. */
#if !defined(PT_LAYER_FORMATS) && !defined(PT_TESTING)
#error "fmt_smmuv3.h is internal to core/formats (HACKING.md, Layers)"
#endif

#include "fmt_arm64.h"
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

/* ---- the [smmu NAME] context (fmt_smmuv3.c) ---------------------------- */

enum { W_STE0, W_STE1, W_STE2, W_STE3, W_CD0, W_CD1, W_CD2, W_CD3, W__COUNT };
/* The words' key names, by W_*. */
extern const char *const pt_smmuv3_word_names[W__COUNT];

/* STE.Config (IHI 0070 §5.2; Linux STRTAB_STE_0_CFG_*). */
enum { CFG_ABORT = 0, CFG_BYPASS = 4, CFG_S1 = 5, CFG_S2 = 6, CFG_NESTED = 7 };

/* Config's name: abort, reserved, bypass, stage1, stage2, nested. */
const char *pt_smmuv3_config_name(unsigned cfg);

/* The data of an [smmu] context (pt_format.ctx_size): its words and keys, its set-up. */
struct pt_smmuv3_ctx {
	uint64_t w[W__COUNT];
	unsigned line[W__COUNT];
	uint32_t has;               /* BIT(W_*) of the words given */
	unsigned stage_key;         /* `stage`: 0 not given, 1, 2 */
	unsigned half_key;          /* `half`: 0 not given, 1 lower (TTB0), 2 upper (TTB1) */
	uint64_t ssid;              /* `ssid`: the CD of that SubstreamID, read from the CD table */
	unsigned ssid_line;         /* 0: no ssid key (the CD is cd0..cd3, or there is none) */
	bool cd_mem;                /* the CD words were read from memory (at cd_addr) */
	uint64_t cd_addr, l1cd, l1cd_addr;   /* where; the L1CD of a two-level table (l1cd_addr 0: none) */
	unsigned space, output_space;
	bool space_given, output_given;
	/* set-up results */
	unsigned config, stage;     /* stage 0: bypass or abort, no tables */
	uint64_t ttb, ttb_masked;   /* the walk's TTBx or S2TTB field, and its bits masked off */
	struct a64_ctx a;           /* the arm64 set-up: geometry, levels, format copy */
	struct pt_format flat;      /* stage 0: the format copy */
};

/*
 * Its hooks that show it (fmt_smmuv3_info.c): ptfs-tool roots' words for a
 * table at ROOT in SPACE, and the info lines and JSON members.
 */
void pt_smmuv3_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			 struct pt_buf *ini);
void pt_smmuv3_info_text(const struct pt_context *ctx, struct pt_buf *b);
void pt_smmuv3_info_json(const struct pt_context *ctx, struct pt_jobj *o);

/* The hook without a context: 4 KiB granule, 48-bit output, stage 1, pages in sysmem. */
pt_err pt_smmuv3_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
			size_t errlen);

/* The build_keys hook of arm-smmuv3 (fmt_smmuv3_enc.c). */
void pt_smmuv3_build_keys(const struct pt_build_keys *k, struct pt_buf *ini);

#endif
