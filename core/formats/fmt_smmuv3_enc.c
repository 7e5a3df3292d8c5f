/* SPDX-License-Identifier: MIT */
/*
 * fmt_smmuv3_enc.c — the arm-smmuv3 encoder and build keys, for ptfs-tool
 * build (issue #23 item 6): SMMUv3 tables are VMSAv8-64 tables (Arm IHI
 * 0070 §3.4 / §5.4: CD.AA64 = 1, STE.S2AA64 = 1), so a descriptor is
 * written by the arm64 encoder (fmt_arm64_enc.c) of the context's
 * geometry; what is SMMUv3's own is the STE and CD words that make a
 * context walk the tables the builder allocated, written as [smmu]
 * keys (ste0, cd0, cd1 or cd2; ste2, ste3 at stage 2).
 *
 * Field positions (IHI 0070 §5.2 STE, §5.4 CD, as Linux
 * drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.h names them; fmt_smmuv3.c
 * cites each): STE word 0 V 0, Config 3:1; word 2 S2T0SZ 37:32, S2SL0
 * 39:38, S2TG 47:46, S2PS 50:48, S2AA64 51; word 3 S2TTB 51:4; CD word 0
 * T0SZ 5:0, TG0 7:6, EPD0 14, T1SZ 21:16, TG1 23:22 (TCR_EL1's TG1 code:
 * 2 is 4 KiB), EPD1 30, V 31, IPS 34:32, AA64 41; word 1 TTB0 51:4; word
 * 2 TTB1 51:4.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fmt_arm64.h"
#include "fmt_smmuv3.h"
#include "pt_buf.h"
#include "pt_num.h"

static pt_err sm_encode(const struct a64_cfg *c, unsigned os, const struct pt_entry *e,
			uint8_t *raw, char *err, size_t errlen)
{
	if (e->state == PT_ST_MAPPED && e->space != os) {
		snprintf(err, errlen, "arm-smmuv3: a page in %s, but the context's pages are in %s"
			 " (output_space)", e->space < PT_SMMUV3_NSPACES ? pt_smmuv3_spaces[e->space] :
			 "?", pt_smmuv3_spaces[os]);
		return PT_E_VALUE;
	}
	return pt_a64_encode_with(c, e, raw, err, errlen);
}

#define SE_FN(G, P, S, O) sm_enc_##G##_##P##_##S##_##O
#define SE_ENC(G, P, S, O)                                                                    \
	static pt_err SE_FN(G, P, S, O)(unsigned level, const struct pt_entry *e, uint8_t *raw, \
					char *err, size_t errlen)                               \
	{                                                                                     \
		static const struct a64_cfg c = {G, 0, P, S, 0};                              \
		(void)level;                                                                  \
		return sm_encode(&c, O, e, raw, err, errlen);                                 \
	}
#define SE_PTR(G, P, S, O) [G][P][S][O] = SE_FN(G, P, S, O),
#define SE_O(M, G, P, S) M(G, P, S, 0) M(G, P, S, 1) M(G, P, S, 2)
#define SE_S(M, G, P) SE_O(M, G, P, 0) SE_O(M, G, P, 1)
#define SE_P(M, G) SE_S(M, G, 0) SE_S(M, G, 1) SE_S(M, G, 2) SE_S(M, G, 3) SE_S(M, G, 4) \
	SE_S(M, G, 5) SE_S(M, G, 6)
#define SE_ALL(M) SE_P(M, 0) SE_P(M, 1) SE_P(M, 2)
SE_ALL(SE_ENC)
static const pt_fmt_encode_fn sm_encoders[3][NPA][2][PT_SMMUV3_NSPACES] = {SE_ALL(SE_PTR)};

pt_err pt_smmuv3_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
			size_t errlen)
{
	return SE_FN(0, 5, 0, 0)(level, e, raw, err, errlen);
}

pt_fmt_encode_fn pt_smmuv3_encoder(unsigned g, unsigned p, unsigned s2, unsigned os)
{
	return g < 3 && p < NPA && s2 < 2 && os < PT_SMMUV3_NSPACES ? sm_encoders[g][p][s2][os] : NULL;
}

/* KEY's value as a number, or false (not given, or not a number: the loader says why). */
static bool key_num(const struct pt_build_keys *k, const char *key, uint64_t *v)
{
	const char *s = k->get(k->ud, key);

	return s && pt_num_parse(s, PT_NUM_INI, v);
}

/* Stage 2: STE.V, Config 110; the VTCR image of a 4 KiB granule, 48-bit IPA and output; S2TTB. */
static void keys_s2(const struct pt_build_keys *k, struct pt_buf *ini)
{
	/* S2T0SZ 16 (48 bits), S2SL0 2 (start level 0 with 4K), S2TG 0 (4K), S2PS 5 (48 bits), S2AA64 */
	uint64_t ste2 = 16ull << 32 | 2ull << 38 | 5ull << 48 | BIT(51);

	if (!k->get(k->ud, "ste0"))
		pt_buf_printf(ini, "ste0 = 0x%x\n", 1u | 6u << 1);
	if (!k->get(k->ud, "ste2"))
		pt_buf_printf(ini, "ste2 = 0x%" PRIx64 "\n", ste2);
	if (!k->get(k->ud, "ste3"))
		pt_buf_printf(ini, "ste3 = 0x%" PRIx64 "\n", k->root & span(51, 4));
}

/*
 * Stage 1: STE.V, Config 101; a CD for the half the spec's VAs are in:
 * 4 KiB granule, 48-bit VA (TxSZ 16) and output (IPS 5), the other half's
 * walks disabled (EPDn), V, AA64; the root as that half's TTB.
 */
static void keys_s1(const struct pt_build_keys *k, struct pt_buf *ini)
{
	bool lo = !(k->va_lo >> 63), hi = (k->va_hi >> 63) != 0, up = hi && !lo;
	const char *half = k->get(k->ud, "half");
	uint64_t cd0 = BIT(31) | 5ull << 32 | BIT(41);

	if (half)
		up = !strcmp(half, "upper");
	cd0 |= up ? (16ull << 16 | 2ull << 22 | BIT(14)) : (16ull | BIT(30));
	if (!k->get(k->ud, "ste0"))
		pt_buf_printf(ini, "ste0 = 0x%x\n", 1u | 5u << 1);
	if (!half) {
		if (lo && hi)
			pt_buf_puts(ini, "half = both (the map lines have VAs in the lower (TTB0) and the"
				    " upper (TTB1) half: one [smmu] section per half)\n");
		else
			pt_buf_printf(ini, "half = %s\n", up ? "upper" : "lower");
	}
	if (!k->get(k->ud, "cd0"))
		pt_buf_printf(ini, "cd0 = 0x%" PRIx64 "\n", cd0);
	if (!k->get(k->ud, up ? "cd2" : "cd1"))
		pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", up ? "cd2" : "cd1", k->root & span(51, 4));
}

/*
 * ptfs-tool build: the stage is the spec's `stage`, else its ste0's
 * Config (110: stage 2), else stage 2 where the spec gives ste2 or ste3,
 * else stage 1.  A Config without tables (abort, bypass) or a nested one
 * without `stage` gets no keys: the loader then says why it cannot walk.
 */
void pt_smmuv3_build_keys(const struct pt_build_keys *k, struct pt_buf *ini)
{
	uint64_t stage = 0, ste0 = 0;
	bool s2;

	if (key_num(k, "stage", &stage) && (stage == 1 || stage == 2)) {
		s2 = stage == 2;
	} else if (key_num(k, "ste0", &ste0)) {
		unsigned cfg = (unsigned)bits(ste0, 3, 1);

		if (cfg != 5 && cfg != 6)
			return;
		s2 = cfg == 6;
	} else {
		s2 = k->get(k->ud, "ste2") || k->get(k->ud, "ste3");
	}
	if (s2)
		keys_s2(k, ini);
	else
		keys_s1(k, ini);
}
