/* SPDX-License-Identifier: MIT */
/*
 * fmt_smmuv3.c — Arm SMMUv3 translation, `arm-smmuv3`, [smmu NAME]
 * (docs/design.md §2.7): one stream's Stream Table Entry and the Context
 * Descriptor it points at, given as raw 64-bit words (ste0..ste3,
 * cd0..cd3) or, with `ssid`, the CD of that SubstreamID read from the
 * STE's CD table once memory is loaded (§5.2 S1Fmt, §5.3 L1CD: cd_read,
 * sm_ctx_memory), walked with the arm64 descriptors (fmt_arm64.c): one
 * decoder, two context set-ups.  The encoder and build keys are in
 * fmt_smmuv3_enc.c; what a context's info shows (every STE and CD field
 * the walk reads) in fmt_smmuv3_info.c; the STE and CD table layouts (where
 * a CD is, S1Fmt, S1CDMax) are the IOMMU family's (iommu_smmuv3.c).
 *
 * Sources (restated, no code copied): Arm IHI 0070 (SMMUv3) §5.2 "Stream
 * Table Entry" and §5.4 "Context Descriptor", through Linux
 * drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.h (STRTAB_STE_0_V 0,
 * STRTAB_STE_0_CFG 3:1 with ABORT 0, BYPASS 4, S1_TRANS 5, S2_TRANS 6,
 * NESTED 7; S1FMT 5:4; S1CTXPTR 51:6; S1CDMAX 63:59; STRTAB_STE_2_S2VMID
 * 15:0, STRTAB_STE_2_VTCR 50:32, S2AA64 51, S2ENDI 52, S2PTW 54, S2S 57,
 * S2R 58; STRTAB_STE_3_S2TTB 51:4; CTXDESC_CD_0_TCR_T0SZ 5:0, TG0 7:6,
 * IRGN0 9:8, ORGN0 11:10, SH0 13:12, EPD0 14, EPD1 30, ENDI 15, V 31,
 * IPS 34:32, TBI0 38, AA64 41, HD 42, HA 43, S 44, R 45, A 46, ASET 47,
 * ASID 63:48; CTXDESC_CD_1_TTB0 51:4) and QEMU hw/arm/smmuv3-internal.h
 * (the CD's T1SZ 21:16, TG1 23:22 with TCR_EL1's TG1 code, HAD0/HAD1 bit
 * 1 of words 1/2, TTB1 in word 2; STE S2AFFD 53, S2HD 55, S2HA 56) and
 * hw/arm/smmuv3.c (decode_ste, decode_ste_s2_cfg, decode_cd: what makes an
 * STE or CD ILLEGAL).
 *
 * A context is one translation stage of one stream:
 *  - Config 101 (stage 1): the CD's TTB0 or TTB1 half, the CD's
 *    T0SZ/T1SZ, TG0/TG1, IPS, EPD0/EPD1, HAD0/HAD1 as a TCR_EL1 image
 *    (IHI 0070 §5.4: the CD's TCR fields "have the same meaning as" the
 *    TCR_EL1 fields), TTBx as the TTBR;
 *  - Config 110 (stage 2): the STE's S2T0SZ/S2SL0/S2IR0/S2OR0/S2SH0/
 *    S2TG/S2PS, which are a VTCR_EL2 image in place (Linux
 *    STRTAB_STE_2_VTCR is bits 50:32 of word 2, VTCR_EL2's 18:0), S2TTB
 *    as the VTTBR;
 *  - Config 111 (nested): both stages are enabled, and a stream's
 *    transaction goes through the CD's tables, whose addresses (the CD's
 *    TTBx, every table and the output) are IPAs, then through the STE's
 *    stage 2 (IHI 0070 §3.3 "nested").  A section is one of the two:
 *    `stage = 1` (tables and pages in the IPA space: `space` and
 *    `output_space` default to gpa) or `stage = 2`; without `stage` the
 *    load fails: guessing the stage would walk IPAs as PAs or the reverse;
 *  - Config 100 (bypass): no tables; every input address is its own
 *    output (an `bypass` aperture of the whole 52-bit input range in
 *    output_space); Config 000 (abort): every address faults (an `abort`
 *    aperture that reaches nothing).  Both contexts have an empty root.
 * Reserved or unsupported encodings are load errors (QEMU decode_cd /
 * decode_ste_s2_cfg raise C_BAD_CD / C_BAD_STE for each); the table
 * base's bits below the root table's alignment are masked and warned about
 * (QEMU hw/arm/smmu-common.c smmu_ptw_64_s1/_s2 mask the base to the
 * table's size, as the Arm ARM treats TTBR.BADDR's low bits).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fmt_arm64.h"
#include "fmt_ctx.h"
#include "fmt_smmuv3.h"
#include "pt_buf.h"
#include "pt_iommu_format.h"
#include "pt_num.h"

const char *const pt_smmuv3_spaces[] = {"sysmem", "hpa", "gpa", NULL};
enum { SP_SYSMEM, SP_HPA, SP_GPA, SP__COUNT };

/* The largest input of a bypass stream: IHI 0070 SMMU_IDR5.OAS tops at 52 bits. */
#define SM_BYPASS_BITS 52

/*
 * A decode: the arm64 descriptor of configuration C, its table pointer in
 * space TS and its page in space OS (the hook has no context: one wrapper
 * per (granule, output size, stage, table space, page space); DS and
 * FEAT_XNX are off: the CD and the STE have no DS, and Linux's
 * io-pgtable-arm.c sets both XN bits).
 */
static pt_err sm_decode(const struct a64_cfg *c, unsigned ts, unsigned os, unsigned level,
			unsigned ps, const uint8_t *raw, unsigned flags, struct pt_entry *e)
{
	pt_err rc = pt_a64_decode_with(c, level, ps, raw, flags, e);

	if (rc == PT_OK && e->state == PT_ST_POINTER)
		e->target[0].space = ts;
	if (rc == PT_OK && e->state == PT_ST_MAPPED)
		e->space = os;
	return rc;
}

#define SM_FN(G, P, S, T, O) sm_dec_##G##_##P##_##S##_##T##_##O
#define SM_DEC(G, P, S, T, O)                                                                 \
	static pt_err SM_FN(G, P, S, T, O)(unsigned level, unsigned ps, const uint8_t *raw,     \
					   unsigned flags, struct pt_entry *out)              \
	{                                                                                     \
		static const struct a64_cfg c = {G, 0, P, S, 0};                              \
		return sm_decode(&c, T, O, level, ps, raw, flags, out);                       \
	}
#define SM_PTR(G, P, S, T, O) [G][P][S][T][O] = SM_FN(G, P, S, T, O),
#define SM_O(M, G, P, S, T) M(G, P, S, T, 0) M(G, P, S, T, 1) M(G, P, S, T, 2)
#define SM_T(M, G, P, S) SM_O(M, G, P, S, 0) SM_O(M, G, P, S, 1) SM_O(M, G, P, S, 2)
#define SM_S(M, G, P) SM_T(M, G, P, 0) SM_T(M, G, P, 1)
#define SM_P(M, G) SM_S(M, G, 0) SM_S(M, G, 1) SM_S(M, G, 2) SM_S(M, G, 3) SM_S(M, G, 4) \
	SM_S(M, G, 5) SM_S(M, G, 6)
#define SM_ALL(M) SM_P(M, 0) SM_P(M, 1) SM_P(M, 2)
SM_ALL(SM_DEC)
static const pt_fmt_decode_fn sm_decoders[3][NPA][2][SP__COUNT][SP__COUNT] = {SM_ALL(SM_PTR)};

/* ---- the [smmu NAME] section ------------------------------------------------ */

/* STE0's Config 001-011 (reserved): true, and "ste0 0x… in LABEL: …" in MSG. */
static bool config_reserved(uint64_t ste0, const char *label, char *msg, size_t len)
{
	unsigned cfg = (unsigned)bits(ste0, 3, 1);

	if (cfg < 1 || cfg > 3)
		return false;
	pt_fmt_setup_fail(msg, len, PT_E_VALUE, "ste0 0x%" PRIx64 " in %s: STE.Config (bits 3:1) %u"
			  " is reserved (000 abort, 100 bypass, 101 stage 1, 110 stage 2, 111 nested;"
			  " IHI 0070 §5.2)", ste0, label, cfg);
	return true;
}

static pt_err sm_ctx_key(void *priv, const struct pt_ctx_key *k)
{
	struct pt_smmuv3_ctx *c = priv;
	char msg[512];
	uint64_t v;
	pt_err rc;

	if (!strcmp(k->key, "space")) {
		c->space_given = true;
		return pt_fmt_space_key(k, "arm-smmuv3", pt_smmuv3_spaces, &c->space);
	}
	if (!strcmp(k->key, "output_space")) {
		c->output_given = true;
		return pt_fmt_space_key(k, "arm-smmuv3", pt_smmuv3_spaces, &c->output_space);
	}
	if (!strcmp(k->key, "half")) {
		if (strcmp(k->value, "lower") && strcmp(k->value, "upper"))
			return pt_ctx_key_fail(k, PT_E_VALUE, "half '%s' in %s is not lower (TTB0) or"
					       " upper (TTB1)", k->value, k->label);
		c->half_key = !strcmp(k->value, "upper") ? 2 : 1;
		return PT_OK;
	}
	if (!strcmp(k->key, "ssid")) {
		rc = pt_ctx_key_uint(k, &c->ssid);
		c->ssid_line = k->line;
		return rc;
	}
	if (!strcmp(k->key, "stage")) {
		rc = pt_ctx_key_uint(k, &v);
		if (rc)
			return rc;
		if (v != 1 && v != 2)
			return pt_ctx_key_fail(k, PT_E_VALUE, "stage %s in %s is not 1 or 2", k->value,
					       k->label);
		c->stage_key = (unsigned)v;
		return PT_OK;
	}
	for (unsigned i = 0; i < W__COUNT; i++) {
		if (strcmp(k->key, pt_smmuv3_word_names[i]))
			continue;
		rc = pt_ctx_key_uint(k, &v);
		if (rc)
			return rc;
		if (i == W_STE0 && !(v & 1))
			return pt_ctx_key_fail(k, PT_E_VALUE, "ste0 0x%" PRIx64 " in %s: STE.V (bit 0) is"
					       " 0: the STE is invalid, every transaction of the stream"
					       " is refused (IHI 0070 §5.2, C_BAD_STE)", v, k->label);
		if (i == W_STE0 && config_reserved(v, k->label, msg, sizeof msg))
			return pt_ctx_key_fail(k, PT_E_VALUE, "%s", msg);
		c->w[i] = v;
		c->line[i] = k->line;
		c->has |= (uint32_t)BIT(i);
		return PT_OK;
	}
	return PT_E_NOTFOUND;
}

/*
 * An [iommu] device's STE (pt_format.h struct pt_ctx_entry): ste0..3, the
 * CD's ssid and a nested STE's stage 2, with its spaces.  V was checked by
 * the walk (it makes a device of a valid STE only); a reserved Config is
 * refused here, as for an ste0 key (the walk does not read it).
 */
static pt_err sm_ctx_entry(void *priv, const struct pt_ctx_entry *e, char *err, size_t errlen)
{
	struct pt_smmuv3_ctx *c = priv;
	pt_err rc;

	if (e->kind != PT_CE_SMMU_STE)
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "arm-smmuv3: not an STE");
	c->space_given = e->space != NULL;
	c->output_given = e->output_space != NULL;
	if ((rc = pt_fmt_entry_spaces(e, "arm-smmuv3", pt_smmuv3_spaces, &c->space, &c->output_space,
				      err, errlen)))
		return rc;
	if (config_reserved(e->w[0], e->label, err, errlen))
		return PT_E_VALUE;
	for (unsigned i = 0; i < 4; i++) {
		c->w[W_STE0 + i] = e->w[i];
		c->line[W_STE0 + i] = e->line;
		c->has |= (uint32_t)BIT(W_STE0 + i);
	}
	c->stage_key = e->stage2 ? 2 : 0;
	if (e->has_ssid) {
		c->ssid = e->ssid;
		c->ssid_line = e->line;
	}
	return PT_OK;
}

static const char *sm_ctx_missing(const void *priv)
{
	const struct pt_smmuv3_ctx *c = priv;

	return (c->has & BIT(W_STE0)) ? NULL : "ste0";
}

/* "cd0 0x... (line N)" or "cd0 0x... (ssid N's CD at ADDR)": the word a message is about. */
static const char *word_at(const struct pt_smmuv3_ctx *c, unsigned w, char *buf, size_t len)
{
	if (c->cd_mem && w >= W_CD0)
		snprintf(buf, len, "%s 0x%" PRIx64 " (ssid %" PRIu64 "'s CD at %s 0x%" PRIx64 ")",
			 pt_smmuv3_word_names[w], c->w[w], c->ssid, pt_smmuv3_spaces[c->space], c->cd_addr);
	else
		snprintf(buf, len, "%s 0x%" PRIx64 " (line %u)", pt_smmuv3_word_names[w], c->w[w], c->line[w]);
	return buf;
}

static unsigned pa_eff(unsigned ps, unsigned grain)
{
	/* without DS a 4K/16K walk outputs at most 48 bits (QEMU target/arm/ptw.c; the CD has no DS) */
	return grain != 16 && pa_sizes[ps] > 48 ? 48 : pa_sizes[ps];
}

/*
 * The TTBR image of table base field TTB (bits 51:4 in place, IHI 0070
 * §5.4 CD.TTB0, §5.2 STE.S2TTB): in place, but with a 52-bit output its
 * bits 51:48 go to TTBR bits 5:2 (Linux phys_to_ttbr) and bits 5:4 are
 * below any table's alignment (masked).  Refused when above the output
 * size (QEMU decode_cd / decode_ste_s2_cfg: "ILLEGAL").
 */
static pt_err ttb_image(struct pt_smmuv3_ctx *c, unsigned w, const char *field, unsigned pa,
			uint64_t *ttbr, char *err, size_t errlen)
{
	char at[96];

	c->ttb = c->w[w] & span(51, 4);
	c->ttb_masked = 0;
	if (c->ttb >> pa)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "%s: %s 0x%" PRIx64 " is above the"
					 " %u-bit output size (IHI 0070 §5.4/§5.2: ILLEGAL)",
					 word_at(c, w, at, sizeof at), field, c->ttb, pa);
	if (pa == 52) {
		*ttbr = (c->ttb & span(47, 6)) | (bits(c->ttb, 51, 48) << 2);
		c->ttb_masked = c->ttb & span(5, 4);
	} else {
		*ttbr = c->ttb;
	}
	return PT_OK;
}

/* TxSZ of a GRAIN-bit granule: 16..39, or from 12 with 64K (SMMUv3.1 SMMU_IDR5.VAX; QEMU decode_cd). */
static bool tsz_ok(unsigned tsz, unsigned grain)
{
	return tsz <= 39 && tsz >= (grain == 16 ? 12u : 16u);
}

/* Stage 1: the CD's half as a TCR_EL1 image and its TTBx as the TTBR (IHI 0070 §5.4). */
static pt_err setup_s1(struct pt_smmuv3_ctx *c, char *err, size_t errlen)
{
	static const unsigned tg0[4] = {12, 16, 14, 0}, tg1[4] = {0, 14, 12, 16};
	uint64_t cd0 = c->w[W_CD0], tcr, ttbr;
	unsigned up, tg, tsz, ips = (unsigned)bits(cd0, 34, 32);
	char at[96];
	pt_err rc;

	if (!(c->has & BIT(W_CD0)))
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "STE.Config %u (%s) translates through"
					 " the CD: cd0 and cd1 (or cd2) are missing", c->config,
					 pt_smmuv3_config_name(c->config));
	word_at(c, W_CD0, at, sizeof at);
	if (!(cd0 & BIT(31)))
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "%s: CD.V (bit 31) is 0: the CD is"
					 " invalid (IHI 0070 §5.4, C_BAD_CD)", at);
	if (!(cd0 & BIT(41)))
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "%s: CD.AA64 (bit 41) is 0:"
					 " AArch32 LPAE tables are not supported", at);
	if (cd0 & BIT(15))
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "%s: CD.ENDI (bit 15) is 1:"
					 " big-endian tables are not supported", at);
	if (ips >= NPA)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "%s: CD.IPS (bits 34:32) 7 is"
					 " reserved", at);
	if (c->half_key) {
		up = c->half_key - 1;
	} else if (!(cd0 & BIT(14)) && !(cd0 & BIT(30))) {
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "%s: CD.EPD0 and CD.EPD1 are both 0"
					 " (TTB0 and TTB1 both walk): say half = lower or upper, one"
					 " [smmu] section per half", at);
	} else {
		up = !(cd0 & BIT(30)) && (cd0 & BIT(14));
	}
	if (cd0 & (up ? BIT(30) : BIT(14)))
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "%s: CD.EPD%u (bit %u) is 1:"
					 " walks from TTB%u are disabled (every address of that half"
					 " faults)", at, up, up ? 30 : 14, up);
	tg = up ? tg1[bits(cd0, 23, 22)] : tg0[bits(cd0, 7, 6)];
	tsz = (unsigned)(up ? bits(cd0, 21, 16) : bits(cd0, 5, 0));
	if (!tg)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "%s: CD.TG%u %u is reserved"
					 " (IHI 0070 §5.4, C_BAD_CD)", at, up,
					 (unsigned)(up ? bits(cd0, 23, 22) : bits(cd0, 7, 6)));
	if (!tsz_ok(tsz, tg))
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "%s: CD.T%uSZ %u is outside %u..39"
					 " for the %u KiB granule (IHI 0070 §5.4, C_BAD_CD)", at, up,
					 tsz, tg == 16 ? 12 : 16, 1u << (tg - 10));
	if (!(c->has & BIT(up ? W_CD2 : W_CD1)))
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "the walk from TTB%u needs %s (the"
					 " CD word holding TTB%u)", up, up ? "cd2" : "cd1", up);
	rc = ttb_image(c, up ? W_CD2 : W_CD1, up ? "CD.TTB1" : "CD.TTB0", pa_eff(ips, tg), &ttbr,
		       err, errlen);
	if (rc)
		return rc;
	/*
	 * TCR_EL1 (Linux pgtable-hwdef.h TCR_*): T0SZ 5:0, EPD0 7, TG0 15:14,
	 * T1SZ 21:16, EPD1 23, TG1 31:30, IPS 34:32, TBI0 37, TBI1 38, HPD0 41,
	 * HPD1 42.  CD.TBI 39:38 is TBI1:TBI0 (QEMU smmuv3.c decode_cd: bit i
	 * of CD.TBI for TTBi): a set bit makes the walk of that half ignore a
	 * VA's top byte.
	 */
	tcr = bits(cd0, 5, 0) | bits(cd0, 14, 14) << 7 | bits(cd0, 7, 6) << 14 |
	      bits(cd0, 21, 16) << 16 | bits(cd0, 30, 30) << 23 | bits(cd0, 23, 22) << 30 |
	      (uint64_t)ips << 32 | bits(cd0, 39, 38) << 37 | bits(c->w[W_CD1], 1, 1) << 41 |
	      bits(c->w[W_CD2], 1, 1) << 42;
	c->a.v[K_TCR] = tcr;
	c->a.v[K_TTBR] = ttbr;
	c->a.v[K_HALF] = up;
	c->a.upper = up;
	c->a.has = (uint32_t)(BIT(K_TCR) | BIT(K_TTBR) | BIT(K_HALF));
	return PT_OK;
}

/* Stage 2: the STE's VTCR image (word 2 bits 50:32) and S2TTB as the VTTBR (IHI 0070 §5.2). */
static pt_err setup_s2(struct pt_smmuv3_ctx *c, char *err, size_t errlen)
{
	static const unsigned tg0[4] = {12, 16, 14, 0};
	uint64_t s2 = c->w[W_STE2], vttbr;
	unsigned tg = tg0[bits(s2, 47, 46)], ps = (unsigned)bits(s2, 50, 48);
	unsigned tsz = (unsigned)bits(s2, 37, 32), sl0 = (unsigned)bits(s2, 39, 38);
	char at[96];
	pt_err rc;

	if ((c->has & (BIT(W_STE2) | BIT(W_STE3))) != (BIT(W_STE2) | BIT(W_STE3)))
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "STE.Config %u (%s) translates at"
					 " stage 2: %s is missing", c->config, pt_smmuv3_config_name(c->config),
					 (c->has & BIT(W_STE2)) ? "ste3 (S2TTB)" : "ste2 (the S2 fields)");
	word_at(c, W_STE2, at, sizeof at);
	if (!(s2 & BIT(51)))
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "%s: STE.S2AA64 (bit 51) is 0:"
					 " AArch32 LPAE stage-2 tables are not supported", at);
	if (s2 & BIT(52))
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "%s: STE.S2ENDI (bit 52) is 1:"
					 " big-endian tables are not supported", at);
	if (!tg || ps >= NPA || sl0 == 3)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "%s: STE.%s is reserved (IHI 0070"
					 " §5.2, C_BAD_STE)", at, !tg ? "S2TG (bits 47:46) 3" :
					 ps >= NPA ? "S2PS (bits 50:48) 7" : "S2SL0 (bits 39:38) 3");
	if (!tsz_ok(tsz, tg))
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "%s: STE.S2T0SZ %u is outside %u..39"
					 " for the %u KiB granule (IHI 0070 §5.2, C_BAD_STE)", at, tsz,
					 tg == 16 ? 12 : 16, 1u << (tg - 10));
	rc = ttb_image(c, W_STE3, "STE.S2TTB", pa_eff(ps, tg), &vttbr, err, errlen);
	if (rc)
		return rc;
	c->a.v[K_STAGE] = 2;
	c->a.v[K_VTCR] = bits(s2, 50, 32);
	c->a.v[K_VTTBR] = vttbr;
	c->a.has = (uint32_t)(BIT(K_STAGE) | BIT(K_VTCR) | BIT(K_VTTBR));
	return PT_OK;
}

extern const struct pt_format pt_format_smmuv3;

static unsigned pa_index(unsigned pa)
{
	for (unsigned i = 0; i < NPA; i++)
		if (pa_sizes[i] == pa)
			return i;
	return 5;
}

/* The stage a section walks, from STE.Config and the `stage` key; 0 for none (bypass, abort). */
static pt_err pick_stage(struct pt_smmuv3_ctx *c, char *err, size_t errlen)
{
	struct pt_smmu_ste e;

	pt_smmu_ste(c->w, &e);
	c->config = e.config;
	c->stage = c->config == CFG_S1 ? 1 : c->config == CFG_S2 ? 2 : c->config == CFG_NESTED
		   ? c->stage_key : 0;
	if (c->config == CFG_NESTED && !c->stage_key)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "STE.Config 7 (nested): say stage = 1"
					 " (the CD's tables, in IPAs) or stage = 2 (the STE's), one"
					 " [smmu] section per stage");
	if (c->stage_key && c->stage_key != c->stage)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "stage = %u, but STE.Config %u (%s)"
					 " %s", c->stage_key, c->config, pt_smmuv3_config_name(c->config),
					 c->stage ? "translates at the other stage only" :
					 "translates at no stage");
	if ((c->half_key || c->ssid_line) && c->stage != 1)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "%s is a stage-1 key (%s), and this"
					 " section walks %s", c->half_key ? "half" : "ssid", c->half_key ?
					 "TTB0 or TTB1" : "the CD of a SubstreamID", c->stage == 2 ?
					 "stage 2" : "no tables");
	return PT_OK;
}

/*
 * `ssid = N` (stage 1): the CD of SubstreamID N comes from the CD table at
 * STE.S1ContextPtr, read once memory is loaded (sm_ctx_memory).  IHI 0070
 * §5.2: S1CDMax (63:59) is log2 of the CDs there; with 0 the pointer is one
 * CD (substreams disabled: N must be 0); a SubstreamID at or above
 * 2^S1CDMax is C_BAD_SUBSTREAMID.
 */
static pt_err ssid_check(const struct pt_smmuv3_ctx *c, char *err, size_t errlen)
{
	struct pt_smmu_ste e;
	unsigned max;
	char at[96];

	pt_smmu_ste(c->w, &e);
	max = e.s1cdmax;

	if (c->has & (BIT(W_CD0) | BIT(W_CD1) | BIT(W_CD2) | BIT(W_CD3)))
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "ssid %" PRIu64 " (line %u) reads"
					 " the CD from the CD table: no cd0..cd3 beside it", c->ssid,
					 c->ssid_line);
	if (c->ssid >> max)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "ssid %" PRIu64 " (line %u) is not"
					 " below 2^STE.S1CDMax = %" PRIu64 " (%s; IHI 0070 §5.2:"
					 " C_BAD_SUBSTREAMID)", c->ssid, c->ssid_line, (uint64_t)BIT(max),
					 word_at(c, W_STE0, at, sizeof at));
	return PT_OK;
}

static void sm_out_of_range(const struct pt_context *ctx, uint64_t va, struct pt_aperture *out)
{
	const struct pt_smmuv3_ctx *c = ctx->priv;

	out->name = c->config == CFG_BYPASS ? "bypass" : "abort";
	out->hit = c->config == CFG_BYPASS && !(va >> SM_BYPASS_BITS);
	if (out->hit) {
		out->space = c->output_space;
		out->pa = va;
		out->last = BIT(SM_BYPASS_BITS) - 1;
	}
}

static pt_err walk_setup(struct pt_context *ctx, struct pt_smmuv3_ctx *c, char *err, size_t errlen);
static pt_err cd_read(const struct pt_context *ctx, const struct pt_ctx_reader *rd, struct pt_smmuv3_ctx *c,
		      char *err, size_t errlen);

static pt_err sm_ctx_setup(struct pt_context *ctx, char *err, size_t errlen)
{
	struct pt_smmuv3_ctx *c = ctx->priv;
	pt_err rc = pick_stage(c, err, errlen);

	if (rc)
		return rc;
	if (c->stage == 1 && c->config == CFG_NESTED) {
		/* nested stage 1: the CD's tables and output are IPAs (IHI 0070 §3.3) */
		if (!c->space_given)
			c->space = SP_GPA;
		if (!c->output_given)
			c->output_space = SP_GPA;
	}
	if (!c->stage) {
		c->flat = pt_format_smmuv3;
		c->flat.va_bits = SM_BYPASS_BITS;
		c->flat.va_canonical = false;
		c->flat.va_digits = (SM_BYPASS_BITS + 3) / 4;
		c->flat.out_of_range = sm_out_of_range;
		ctx->fmt = &c->flat;
		pt_fmt_ctx_root(ctx, c->space, 0, 0);
		return PT_OK;
	}
	if (c->stage == 1 && c->ssid_line) {
		/* no geometry before the CD is read (sm_ctx_memory): an empty root until then */
		rc = ssid_check(c, err, errlen);
		c->flat = pt_format_smmuv3;
		ctx->fmt = &c->flat;
		pt_fmt_ctx_root(ctx, c->space, 0, 0);
		return rc;
	}
	return walk_setup(ctx, c, err, errlen);
}

/* The CD read from memory (ssid): the stage-1 set-up ctx_setup left for now. */
static pt_err sm_ctx_memory(struct pt_context *ctx, const struct pt_ctx_reader *rd, char *err,
			    size_t errlen)
{
	struct pt_smmuv3_ctx *c = ctx->priv;
	pt_err rc;

	if (c->stage != 1 || !c->ssid_line)
		return PT_OK;
	rc = cd_read(ctx, rd, c, err, errlen);
	return rc ? rc : walk_setup(ctx, c, err, errlen);
}

/* The walk of stage C->stage: the CD's or the STE's registers as arm64's, and the format copy. */
static pt_err walk_setup(struct pt_context *ctx, struct pt_smmuv3_ctx *c, char *err, size_t errlen)
{
	struct pt_format *f = &c->a.fmt;
	unsigned g;
	pt_err rc = c->stage == 1 ? setup_s1(c, err, errlen) : setup_s2(c, err, errlen);

	if (!rc)
		rc = pt_a64_setup(&c->a, ctx, err, errlen);
	if (rc)
		return rc;
	c->ttb_masked |= c->a.ttbr_ignored;
	g = (c->a.grain - 12) / 2;
	f->name = pt_format_smmuv3.name;
	f->spaces = pt_smmuv3_spaces;
	f->decode = sm_decoders[g][pa_index(c->a.pa)][c->stage == 2][c->space][c->output_space];
	f->encode = pt_smmuv3_encoder(g, pa_index(c->a.pa), c->stage == 2, c->output_space);
	f->build_keys = pt_smmuv3_build_keys;
	f->geom_keys = pt_smmuv3_geom_keys;
	f->blob_kinds = NULL;
	f->ctx_section = pt_format_smmuv3.ctx_section;
	f->ctx_size = pt_format_smmuv3.ctx_size;
	f->ctx_key = pt_format_smmuv3.ctx_key;
	f->ctx_missing = pt_format_smmuv3.ctx_missing;
	f->ctx_setup = pt_format_smmuv3.ctx_setup;
	f->ctx_memory = pt_format_smmuv3.ctx_memory;
	f->info_text = pt_format_smmuv3.info_text;
	f->info_json = pt_format_smmuv3.info_json;
	ctx->root_space = c->space;
	/* tables (and CDs) in `space`, pages in `output_space`: a GPU's IOVA space behind it is no cycle */
	ctx->space_used = 1u << c->space | 1u << c->output_space;
	if (c->ttb_masked && err && errlen)
		snprintf(err, errlen, "%s 0x%" PRIx64 ": %s bits 0x%" PRIx64 " below the root table's"
			 " alignment are masked (QEMU hw/arm/smmu-common.c)", pt_smmuv3_word_names[c->stage == 1 ?
			 (c->a.upper ? W_CD2 : W_CD1) : W_STE3], c->ttb, c->stage == 1 ? (c->a.upper ?
			 "CD.TTB1" : "CD.TTB0") : "STE.S2TTB", c->ttb_masked);
	return PT_OK;
}

/*
 * The CD of SubstreamID c->ssid (IHI 0070 §5.2 STE.S1Fmt, §5.3 L1CD):
 * S1Fmt 00 a linear table of 2^S1CDMax 64-byte CDs at S1ContextPtr (11 is
 * reserved and behaves as 00); 01 and 10 two-level, an L1 table of 8-byte
 * L1CDs indexed by SubstreamID[S1CDMax-1:6] (4 KiB L2 tables of 64 CDs) or
 * [S1CDMax-1:10] (64 KiB L2 tables of 1024 CDs), the L2 table by the bits
 * below.  L1CD: V 0, bits 11:1 RES0, L2Ptr 51:12 (Linux arm-smmu-v3.h
 * CTXDESC_L1_DESC_V, CTXDESC_L1_DESC_L2PTR_MASK), 63:52 RES0 here: an L1CD
 * with V = 0 aborts the stream's transactions (C_BAD_SUBSTREAMID) and one
 * with a RES0 bit set is not a pointer ptfs can follow: both fail the load
 * (fail closed), as a CD or L1CD that is not captured does.  The table is
 * read in `space`: for a nested STE, S1ContextPtr and the L1CDs are IPAs,
 * as its stage-1 tables are.
 */
static pt_err cd_read(const struct pt_context *ctx, const struct pt_ctx_reader *rd, struct pt_smmuv3_ctx *c,
		      char *err, size_t errlen)
{
	struct pt_smmu_ste e;
	uint64_t ptr;
	unsigned fmt, sp = pt_context_space(ctx, c->space);
	const char *sn = pt_smmuv3_spaces[c->space];
	uint8_t raw[32];

	pt_smmu_ste(c->w, &e);
	ptr = e.s1ctx;
	fmt = e.s1fmt;
	c->cd_addr = pt_smmu_entry64(ptr, c->ssid);
	if (e.s1cdmax && pt_smmu_cd_two_level(fmt)) {
		c->l1cd_addr = pt_smmu_l1cd_addr(ptr, c->ssid, fmt);
		if (!rd->read(rd->opaque, sp, c->l1cd_addr, raw, 8))
			return pt_fmt_setup_fail(err, errlen, PT_E_CAPTURE, "ssid %" PRIu64 " (line %u):"
						 " its L1CD at %s 0x%" PRIx64 " (S1Fmt %u, S1ContextPtr"
						 " 0x%" PRIx64 ") is not captured", c->ssid, c->ssid_line,
						 sn, c->l1cd_addr, fmt, ptr);
		c->l1cd = pt_le64_load(raw);
		if (!pt_smmu_l1cd_valid(c->l1cd) || pt_smmu_l1cd_reserved(c->l1cd))
			return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "ssid %" PRIu64 " (line %u): its"
						 " L1CD 0x%" PRIx64 " at %s 0x%" PRIx64 " %s (IHI 0070"
						 " §5.3%s)", c->ssid, c->ssid_line, c->l1cd, sn,
						 c->l1cd_addr, !(c->l1cd & 1) ? "has V (bit 0) 0: no L2"
						 " CD table" : "has RES0 bits set (11:1 or 63:52)",
						 !(c->l1cd & 1) ? ": C_BAD_SUBSTREAMID" : "");
		c->cd_addr = pt_smmu_cd_addr(pt_smmu_l1cd_ptr(c->l1cd), c->ssid, fmt);
	}
	if (!rd->read(rd->opaque, sp, c->cd_addr, raw, sizeof raw))
		return pt_fmt_setup_fail(err, errlen, PT_E_CAPTURE, "ssid %" PRIu64 " (line %u): its CD"
					 " at %s 0x%" PRIx64 " is not captured", c->ssid, c->ssid_line,
					 sn, c->cd_addr);
	for (unsigned i = 0; i < 4; i++) {
		c->w[W_CD0 + i] = pt_le64_load(raw + 8 * i);
		c->line[W_CD0 + i] = c->ssid_line;
		c->has |= (uint32_t)BIT(W_CD0 + i);
	}
	c->cd_mem = true;
	return PT_OK;
}

/*
 * Without a context (ptfs-tool decode): the arm64 levels and a stage-1
 * descriptor of a 4 KiB granule, 48-bit VA and output (Linux's
 * io-pgtable-arm.c ARM_64_LPAE_S1 on a 4K kernel), tables and pages in sysmem.
 */
const struct pt_format pt_format_smmuv3 = {
	.name = "arm-smmuv3",
	.levels = pt_a64_levels,
	.va_bits = 49,
	.va_digits = 16,
	.va_canonical = true,
	.perm_or_down = PT_PERM_NO_WRITE | PT_PERM_PRIVILEGE | PT_PERM_PXN | PT_PERM_UXN | PT_PERM_NS,
	.spaces = pt_smmuv3_spaces,
	.decode = SM_FN(0, 5, 0, 0, 0),
	.encode = pt_smmuv3_encode,
	.build_keys = pt_smmuv3_build_keys,
	.geom_keys = pt_smmuv3_geom_keys,
	.flags = pt_a64_flags,
	.kind_name = pt_a64_kind,
	.kind_field = "attr_index",
	.ctx_section = "smmu",
	.ctx_size = sizeof(struct pt_smmuv3_ctx),
	.ctx_key = sm_ctx_key,
	.ctx_entry = sm_ctx_entry,
	.ctx_missing = sm_ctx_missing,
	.ctx_setup = sm_ctx_setup,
	.ctx_memory = sm_ctx_memory,
	.info_text = pt_smmuv3_info_text,
	.info_json = pt_smmuv3_info_json,
};
