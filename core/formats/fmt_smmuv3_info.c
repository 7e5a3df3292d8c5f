/* SPDX-License-Identifier: MIT */
/*
 * fmt_smmuv3_info.c — what an [smmu] context (fmt_smmuv3.c) shows: its
 * info lines and JSON members (the STE and CD words given or read, every
 * field of them the walk reads by its specification name, where a CD was
 * read, the geometry), and the words `ptfs-tool roots` writes for a table
 * it found.  Field positions: IHI 0070 §5.2 (STE) and §5.4 (CD) through
 * Linux drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.h and QEMU
 * hw/arm/smmuv3-internal.h, as fmt_smmuv3.c cites them.
 */
#include <inttypes.h>
#include <stdio.h>

#include "fmt_arm64.h"
#include "fmt_smmuv3.h"
#include "pt_buf.h"

const char *const pt_smmuv3_word_names[W__COUNT] = {
	"ste0", "ste1", "ste2", "ste3", "cd0", "cd1", "cd2", "cd3",
};

const char *pt_smmuv3_config_name(unsigned cfg)
{
	static const char *const n[8] = {
		"abort", "reserved", "reserved", "reserved", "bypass", "stage1", "stage2", "nested",
	};

	return n[cfg & 7];
}

/* ---- info: every STE/CD field the walk reads, by the spec's name ------------ */

enum { F_ALL, F_S1, F_S2 };
struct sm_field {
	const char *name;
	uint8_t word, hi, lo, when;
	bool addr;      /* printed in place, as hex */
};
/* IHI 0070 §5.2 (STE) and §5.4 (CD) through Linux arm-smmu-v3.h and QEMU smmuv3-internal.h. */
static const struct sm_field sm_fields[] = {
	{"ste_v", W_STE0, 0, 0, F_ALL, false},
	{"ste_config", W_STE0, 3, 1, F_ALL, false},
	{"ste_s1fmt", W_STE0, 5, 4, F_S1, false},
	{"ste_s1_context_ptr", W_STE0, 51, 6, F_S1, true},
	{"ste_s1cdmax", W_STE0, 63, 59, F_S1, false},
	{"ste_s2vmid", W_STE2, 15, 0, F_S2, false},
	{"ste_s2t0sz", W_STE2, 37, 32, F_S2, false},
	{"ste_s2sl0", W_STE2, 39, 38, F_S2, false},
	{"ste_s2ir0", W_STE2, 41, 40, F_S2, false},
	{"ste_s2or0", W_STE2, 43, 42, F_S2, false},
	{"ste_s2sh0", W_STE2, 45, 44, F_S2, false},
	{"ste_s2tg", W_STE2, 47, 46, F_S2, false},
	{"ste_s2ps", W_STE2, 50, 48, F_S2, false},
	{"ste_s2aa64", W_STE2, 51, 51, F_S2, false},
	{"ste_s2endi", W_STE2, 52, 52, F_S2, false},
	{"ste_s2affd", W_STE2, 53, 53, F_S2, false},
	{"ste_s2ptw", W_STE2, 54, 54, F_S2, false},
	{"ste_s2hd", W_STE2, 55, 55, F_S2, false},
	{"ste_s2ha", W_STE2, 56, 56, F_S2, false},
	{"ste_s2s", W_STE2, 57, 57, F_S2, false},
	{"ste_s2r", W_STE2, 58, 58, F_S2, false},
	{"ste_s2ttb", W_STE3, 51, 4, F_S2, true},
	{"cd_t0sz", W_CD0, 5, 0, F_S1, false},
	{"cd_tg0", W_CD0, 7, 6, F_S1, false},
	{"cd_irgn0", W_CD0, 9, 8, F_S1, false},
	{"cd_orgn0", W_CD0, 11, 10, F_S1, false},
	{"cd_sh0", W_CD0, 13, 12, F_S1, false},
	{"cd_epd0", W_CD0, 14, 14, F_S1, false},
	{"cd_endi", W_CD0, 15, 15, F_S1, false},
	{"cd_t1sz", W_CD0, 21, 16, F_S1, false},
	{"cd_tg1", W_CD0, 23, 22, F_S1, false},
	{"cd_epd1", W_CD0, 30, 30, F_S1, false},
	{"cd_v", W_CD0, 31, 31, F_S1, false},
	{"cd_ips", W_CD0, 34, 32, F_S1, false},
	{"cd_affd", W_CD0, 35, 35, F_S1, false},
	{"cd_tbi", W_CD0, 39, 38, F_S1, false},
	{"cd_aa64", W_CD0, 41, 41, F_S1, false},
	{"cd_hd", W_CD0, 42, 42, F_S1, false},
	{"cd_ha", W_CD0, 43, 43, F_S1, false},
	{"cd_s", W_CD0, 44, 44, F_S1, false},
	{"cd_r", W_CD0, 45, 45, F_S1, false},
	{"cd_a", W_CD0, 46, 46, F_S1, false},
	{"cd_aset", W_CD0, 47, 47, F_S1, false},
	{"cd_asid", W_CD0, 63, 48, F_S1, false},
	{"cd_nscfg0", W_CD1, 0, 0, F_S1, false},
	{"cd_had0", W_CD1, 1, 1, F_S1, false},
	{"cd_ttb0", W_CD1, 51, 4, F_S1, true},
	{"cd_nscfg1", W_CD2, 0, 0, F_S1, false},
	{"cd_had1", W_CD2, 1, 1, F_S1, false},
	{"cd_ttb1", W_CD2, 51, 4, F_S1, true},
};

static bool field_shown(const struct pt_smmuv3_ctx *c, const struct sm_field *f)
{
	return (c->has & BIT(f->word)) &&
	       (f->when == F_ALL || (f->when == F_S1 && c->stage == 1) ||
		(f->when == F_S2 && c->stage == 2));
}

static uint64_t field_value(const struct pt_smmuv3_ctx *c, const struct sm_field *f)
{
	return f->addr ? c->w[f->word] & span(f->hi, f->lo) : bits(c->w[f->word], f->hi, f->lo);
}

/*
 * ptfs-tool roots: words that walk as CTX from the table at ROOT.  Stage
 * 2: Config 110 (IHI 0070 5.2), CTX's STE word 2 (the VTCR image) and
 * S2TTB = ROOT.  Stage 1: Config 101 and CTX's CD words (given, or read
 * from its CD table) with the walked half's TTB = ROOT, so no CD table is
 * needed.  Its spaces.
 */
void pt_smmuv3_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			 struct pt_buf *ini)
{
	const struct pt_smmuv3_ctx *c = ctx->priv;

	if (c->stage == 2) {
		pt_buf_printf(ini, "ste0 = 0x%x\nste2 = 0x%" PRIx64 "\nste3 = 0x%" PRIx64 "\n", 1u | CFG_S2 << 1,
			      c->w[W_STE2], (c->w[W_STE3] & ~span(51, 4)) | (root & span(51, 4)));
	} else if (c->stage == 1) {
		unsigned ttb = c->a.upper ? W_CD2 : W_CD1;

		pt_buf_printf(ini, "ste0 = 0x%x\nhalf = %s\n", 1u | CFG_S1 << 1, c->a.upper ? "upper" : "lower");
		for (unsigned w = W_CD0; w <= W_CD3; w++)
			if ((c->has & BIT(w)) || w == ttb)
				pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", pt_smmuv3_word_names[w], w != ttb ? c->w[w] :
					      (c->w[w] & ~span(51, 4)) | (root & span(51, 4)));
	}
	pt_buf_printf(ini, "space = %s\noutput_space = %s\n", pt_smmuv3_spaces[space],
		      pt_smmuv3_spaces[c->output_space]);
}

void pt_smmuv3_info_text(const struct pt_context *ctx, struct pt_buf *b)
{
	const struct pt_smmuv3_ctx *c = ctx->priv;

	if (!c)
		return;
	pt_buf_printf(b, "config: %u (%s)\nstage: %u\n", c->config, pt_smmuv3_config_name(c->config), c->stage);
	for (unsigned i = 0; i < W__COUNT; i++)
		if (c->has & BIT(i))
			pt_buf_printf(b, "%s: 0x%016" PRIx64 "\n", pt_smmuv3_word_names[i], c->w[i]);
	for (size_t i = 0; i < sizeof sm_fields / sizeof sm_fields[0]; i++) {
		const struct sm_field *f = &sm_fields[i];

		if (field_shown(c, f))
			pt_buf_printf(b, f->addr ? "%s: 0x%" PRIx64 "\n" : "%s: %" PRIu64 "\n", f->name,
				      field_value(c, f));
	}
	if (c->cd_mem) {
		pt_buf_printf(b, "ssid: %" PRIu64 "\n", c->ssid);
		if (c->l1cd_addr)
			pt_buf_printf(b, "l1cd_address: 0x%" PRIx64 "\nl1cd: 0x%016" PRIx64 "\n", c->l1cd_addr,
				      c->l1cd);
		pt_buf_printf(b, "cd_address: 0x%" PRIx64 "\n", c->cd_addr);
	}
	pt_buf_printf(b, "space: %s\noutput_space: %s\n", pt_smmuv3_spaces[c->space], pt_smmuv3_spaces[c->output_space]);
	if (!c->stage) {
		pt_buf_printf(b, "tables: none (%s)\n", c->config == CFG_BYPASS ?
			      "bypass: every address is its own output" : "abort: every address faults");
		return;
	}
	if (c->stage == 1)
		pt_buf_printf(b, "half: %s (TTB%d)\n", c->a.upper ? "upper" : "lower", c->a.upper);
	pt_buf_printf(b, "granule: %u\n%s: %u\npa_bits: %u\n", 1u << c->a.grain,
		      c->stage == 2 ? "ipa_bits" : "va_bits", c->a.va, c->a.pa);
	pt_buf_printf(b, "start_level: %s (%u index bits%s)\n", c->a.levels[0].name, c->a.root_bits,
		      c->a.root_bits > c->a.grain - 3 ? ", concatenated tables" : "");
	pt_buf_printf(b, "%s: 0x%" PRIx64 "\n", c->stage == 2 ? "vtcr" : "tcr",
		      c->a.v[c->stage == 2 ? K_VTCR : K_TCR]);
	pt_buf_printf(b, "ttb_masked: 0x%" PRIx64 "\n", c->ttb_masked);
}

void pt_smmuv3_info_json(const struct pt_context *ctx, struct pt_jobj *o)
{
	const struct pt_smmuv3_ctx *c = ctx->priv;

	if (!c)
		return;
	pt_jobj_u(o, "config", c->config);
	pt_jobj_str(o, "config_name", pt_smmuv3_config_name(c->config));
	pt_jobj_u(o, "stage", c->stage);
	for (unsigned i = 0; i < W__COUNT; i++)
		if (c->has & BIT(i))
			pt_jobj_hex(o, pt_smmuv3_word_names[i], c->w[i]);
	for (size_t i = 0; i < sizeof sm_fields / sizeof sm_fields[0]; i++) {
		const struct sm_field *f = &sm_fields[i];

		if (!field_shown(c, f))
			continue;
		if (f->addr)
			pt_jobj_hex(o, f->name, field_value(c, f));
		else
			pt_jobj_u(o, f->name, field_value(c, f));
	}
	if (c->cd_mem) {
		pt_jobj_u(o, "ssid", c->ssid);
		if (c->l1cd_addr) {
			pt_jobj_hex(o, "l1cd_address", c->l1cd_addr);
			pt_jobj_hex(o, "l1cd", c->l1cd);
		}
		pt_jobj_hex(o, "cd_address", c->cd_addr);
	}
	pt_jobj_str(o, "space", pt_smmuv3_spaces[c->space]);
	pt_jobj_str(o, "output_space", pt_smmuv3_spaces[c->output_space]);
	if (!c->stage)
		return;
	pt_jobj_str(o, "half", c->stage == 1 ? (c->a.upper ? "upper" : "lower") : NULL);
	pt_jobj_u(o, "granule", 1u << c->a.grain);
	pt_jobj_u(o, "va_bits", c->a.va);
	pt_jobj_u(o, "pa_bits", c->a.pa);
	pt_jobj_str(o, "start_level", c->a.levels[0].name);
	pt_jobj_u(o, "root_index_bits", c->a.root_bits);
	pt_jobj_hex(o, c->stage == 2 ? "vtcr" : "tcr", c->a.v[c->stage == 2 ? K_VTCR : K_TCR]);
	pt_jobj_hex(o, "ttb_masked", c->ttb_masked);
}

