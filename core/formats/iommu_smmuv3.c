/* SPDX-License-Identifier: MIT */
/*
 * iommu_smmuv3.c — Arm SMMUv3 as an IOMMU of the family
 * (pt_iommu_format.h).  Layouts restated, no code copied: IHI 0070
 * §6.3.23 SMMU_STRTAB_BASE (ADDR 51:6, RA 62), §6.3.24
 * SMMU_STRTAB_BASE_CFG (LOG2SIZE 5:0, SPLIT 10:6, FMT 17:16); §5.1 L1STD
 * (Span 4:0, 2^(Span−1) STEs, 0 invalid; L2Ptr 51:6; 5 and 63:52
 * reserved); §5.2 STE, 64 B (V 0, Config 3:1, S1Fmt 5:4, S1ContextPtr
 * 51:6, S1CDMax 63:59, S1DSS word 1 1:0); §5.3 L1CD (V 0, L2Ptr 51:12);
 * §5.4 CD (V 31) — Linux drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.h.
 * Named fields through ioent.c.
 */
#include <inttypes.h>
#include <stdio.h>

#include "pt_ioent.h"
#include "pt_iommu_format.h"
#include "pt_num.h"

#define MASK(hi, lo) ((~0ull >> (63 - (hi))) & ~((1ull << (lo)) - 1))

uint64_t pt_smmu_strtab_base(uint64_t reg)
{
	return reg & MASK(51, 6);
}

unsigned pt_smmu_log2size(uint64_t cfg)
{
	return (unsigned)cfg & 63;
}

unsigned pt_smmu_split(uint64_t cfg)
{
	return (unsigned)(cfg >> 6) & 31;
}

bool pt_smmu_two_level(uint64_t cfg)
{
	return ((cfg >> 16) & 3) != 0;
}

unsigned pt_smmu_l1_span(uint64_t d)
{
	return (unsigned)pt_ioent_field(PT_IOENT_SMMU_L1STD, &d, "span");
}

uint64_t pt_smmu_l1_ptr(uint64_t d)
{
	return d & MASK(51, 6);
}

bool pt_smmu_l1_reserved(uint64_t d)
{
	return pt_ioent_reserved(PT_IOENT_SMMU_L1STD, &d, 0) != 0;
}

int pt_smmu_l1_check(uint64_t d, unsigned split)
{
	unsigned span = pt_smmu_l1_span(d);

	if (!span)
		return 0;
	if (pt_smmu_l1_reserved(d) || !pt_smmu_l1_ptr(d) || span > split + 1)
		return -1;
	return 1;
}

bool pt_smmu_ste_valid(uint64_t w0)
{
	return w0 & 1;
}

void pt_smmu_ste(const uint64_t *w, struct pt_smmu_ste *out)
{
	out->v = pt_smmu_ste_valid(w[0]);
	out->config = (unsigned)pt_ioent_field(PT_IOENT_SMMU_STE, w, "config");
	out->s1fmt = (unsigned)pt_ioent_field(PT_IOENT_SMMU_STE, w, "s1fmt");
	out->s1cdmax = (unsigned)pt_ioent_field(PT_IOENT_SMMU_STE, w, "s1cdmax");
	out->s1dss = (unsigned)pt_ioent_field(PT_IOENT_SMMU_STE, w, "s1dss");
	out->s1ctx = w[0] & MASK(51, 6);
}

/*
 * Config 001-011 (reserved), word 0 58:52 or S2TTB's 3:0 and 63:52 (word
 * 3) set (RES0); and, for abort and bypass, any field of a stage: Linux
 * builds those STEs from zero (arm_smmu_make_abort_ste(),
 * arm_smmu_make_bypass_ste() in drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c).
 */
bool pt_smmu_ste_bad(const uint64_t *w)
{
	unsigned cfg = (unsigned)(w[0] >> 1) & 7;

	if ((cfg >= 1 && cfg <= 3) || (w[0] & MASK(58, 52)) || (w[3] & (MASK(63, 52) | MASK(3, 0))))
		return true;
	return (cfg == 0 || cfg == 4) && ((w[0] & MASK(63, 4)) || w[2] || w[3]);
}

bool pt_smmu_l1cd_valid(uint64_t d)
{
	return d & 1;
}

uint64_t pt_smmu_l1cd_ptr(uint64_t d)
{
	return d & MASK(51, 12);
}

bool pt_smmu_l1cd_reserved(uint64_t d)
{
	return (d & ~(MASK(51, 12) | 1)) != 0;
}

bool pt_smmu_cd_valid(uint64_t w0)
{
	return (w0 >> 31) & 1;
}

unsigned pt_smmu_cd_split(unsigned s1fmt)
{
	return s1fmt == 1 ? 6 : 10;
}

unsigned pt_smmu_sid_bits(uint64_t cfg)
{
	unsigned l = pt_smmu_log2size(cfg);

	return l > 32 ? 32 : l;
}

uint64_t pt_smmu_l1_count(uint64_t cfg)
{
	unsigned l = pt_smmu_sid_bits(cfg), s = pt_smmu_split(cfg);

	return l > s ? 1ull << (l - s) : 1;
}

uint64_t pt_smmu_l1_addr(uint64_t strtab_base, uint64_t n)
{
	return pt_smmu_strtab_base(strtab_base) + 8 * n;
}

uint64_t pt_smmu_l2_count(unsigned span)
{
	return 1ull << (span - 1);
}

uint64_t pt_smmu_entry64(uint64_t table, uint64_t i)
{
	return table + 64 * i;
}

bool pt_smmu_ste_cdtab(const struct pt_smmu_ste *e)
{
	return e->v && e->config == PT_SMMU_CFG_S1 && e->s1fmt != 3;
}

uint64_t pt_smmu_cd_count(const struct pt_smmu_ste *e, unsigned maxbits)
{
	return 1ull << (e->s1cdmax > maxbits ? maxbits : e->s1cdmax);
}

uint64_t pt_smmu_l1cd_addr(uint64_t table, uint64_t ssid, unsigned fmt)
{
	return table + 8 * (ssid >> pt_smmu_cd_split(fmt));
}

bool pt_smmu_cd_two_level(unsigned s1fmt)
{
	return s1fmt == 1 || s1fmt == 2;
}

uint64_t pt_smmu_cd_addr(uint64_t table, uint64_t ssid, unsigned fmt)
{
	if (!pt_smmu_cd_two_level(fmt))
		return pt_smmu_entry64(table, ssid);
	return pt_smmu_entry64(table, ssid & ((1ull << pt_smmu_cd_split(fmt)) - 1));
}

uint64_t pt_smmu_linear_count(uint64_t cfg)
{
	return 1ull << pt_smmu_sid_bits(cfg);
}

uint64_t pt_smmu_l1_index(uint64_t cfg, uint64_t sid)
{
	return sid >> pt_smmu_split(cfg);
}

uint64_t pt_smmu_l2_index(uint64_t cfg, uint64_t sid)
{
	return sid & ((1ull << pt_smmu_split(cfg)) - 1);
}

uint64_t pt_smmu_l1_first_sid(uint64_t cfg, uint64_t n)
{
	return n << pt_smmu_split(cfg);
}

static unsigned smmu_check(const uint64_t *v, const unsigned *line, const char *label, char *msg,
			   size_t len)
{
	uint64_t c = v[PT_IK_STRCFG], fmt = (c >> 16) & 3, split = pt_smmu_split(c);

	if (line[PT_IK_STRTAB] && (v[PT_IK_STRTAB] & ~(0xfffffffffffc0ull | 1ull << 62))) {
		snprintf(msg, len, "strtab_base 0x%" PRIx64 " in %s has reserved bits set (ADDR 51:6,"
			 " RA 62: IHI 0070 §6.3.23 SMMU_STRTAB_BASE)", v[PT_IK_STRTAB], label);
		return line[PT_IK_STRTAB];
	}
	if (!line[PT_IK_STRCFG])
		return 0;
	if (c & ~0x307ffull || fmt > 1)
		snprintf(msg, len, "strtab_base_cfg 0x%" PRIx64 " in %s: %s (LOG2SIZE 5:0, SPLIT 10:6,"
			 " FMT 17:16 0 linear or 1 2-level: IHI 0070 §6.3.24 SMMU_STRTAB_BASE_CFG)",
			 c, label, fmt > 1 ? "FMT is reserved" : "reserved bits are set");
	else if (pt_smmu_log2size(c) > 32)
		snprintf(msg, len, "strtab_base_cfg 0x%" PRIx64 " in %s: LOG2SIZE %u is above 32"
			 " (StreamIDs are at most 32 bits)", c, label, pt_smmu_log2size(c));
	else if (fmt == 1 && split != 6 && split != 8 && split != 10)
		snprintf(msg, len, "strtab_base_cfg 0x%" PRIx64 " in %s: SPLIT %u is reserved (6, 8 or"
			 " 10: IHI 0070 §6.3.24)", c, label, (unsigned)split);
	else
		return 0;
	return line[PT_IK_STRCFG];
}

/* StreamIDs (LOG2SIZE, at most 32); SubstreamIDs of at most 20 bits (SMMU_IDR1.SSIDSIZE). */
static void smmu_id_bits(const uint64_t *v, unsigned *dev, unsigned *sub)
{
	*dev = pt_smmu_sid_bits(v[PT_IK_STRCFG]);
	*sub = 20;
}

static void smmu_regs_text(const uint64_t *v, char *out, size_t len)
{
	snprintf(out, len, "strtab_base 0x%" PRIx64 ", strtab_base_cfg 0x%" PRIx64, v[PT_IK_STRTAB],
		 v[PT_IK_STRCFG]);
}


/* ---- the traversal (pt_iommu_format.h "The traversal and its visitors") ---- */

/*
 * COUNT CDs at BASE, SubstreamIDs from SSID0, of stream SID's stage-1 STE
 * SW (at STE): each valid one (§5.4: word 0 bit 31) a device.  A CD not
 * there ends the stream's CDs (*END); one read before, this table's.
 */
static pt_err smmu_walk_cdt(struct pt_iommu_visitor *v, uint64_t sid, uint64_t ste,
			    const uint64_t *sw, uint64_t base, uint64_t ssid0, uint64_t count,
			    bool *end)
{
	uint8_t raw[64];
	pt_err rc;

	for (uint64_t k = 0; k < count && !v->stop; k++) {
		uint64_t w0, ca = pt_smmu_entry64(base, k);
		struct pt_iommu_node t = {.kind = PT_IN_SMMU_CD, .addr = ca, .len = sizeof raw,
					  .id = sid, .sub = ssid0 + k};
		struct pt_iommu_node d = {.kind = PT_IN_SMMU_CD, .addr = ca, .w = sw, .id = sid,
					  .sub = ssid0 + k, .parent = ste};
		bool descend = false;
		int r = v->on_table(v, &t, raw);

		if (r != PT_IOV_OK) {
			*end = r == PT_IOV_MISSING;
			return PT_OK;
		}
		w0 = pt_le64_load(raw);
		t.w = &w0;
		t.present = pt_smmu_cd_valid(w0);
		if (v->on_entry(v, &t) && (rc = v->on_device(v, &d, &descend)))
			return rc;
	}
	return PT_OK;
}

/*
 * The CDs of stream SID's stage-1 STE E (S1CDMax > 0: 2^S1CDMax
 * SubstreamIDs, at most V's max_ids; §5.2): S1Fmt 00 a linear table; 01 and
 * 10 an L1CD table (§5.3: V 0, L2Ptr 51:12) of leaves of 2^6 or 2^10 CDs.
 */
static pt_err smmu_walk_cds(struct pt_iommu_visitor *v, uint64_t sid, uint64_t ste,
			    const uint64_t *sw, const struct pt_smmu_ste *e)
{
	uint64_t n = pt_smmu_cd_count(e, 32), leaf = 1ull << pt_smmu_cd_split(e->s1fmt);
	bool end = false;
	uint8_t raw[8];
	pt_err rc = PT_OK;

	if (v->max_ids && n > v->max_ids)
		n = v->max_ids;
	if (!pt_smmu_cd_two_level(e->s1fmt))
		return smmu_walk_cdt(v, sid, ste, sw, e->s1ctx, 0, n, &end);
	for (uint64_t i = 0; i * leaf < n && !end && !rc && !v->stop; i++) {
		uint64_t s0 = i * leaf, s1 = (n - s0 < leaf ? n : s0 + leaf) - 1, l1cd;
		struct pt_iommu_node t = {.kind = PT_IN_SMMU_L1CD, .len = 8, .id = sid, .index = i,
					  .addr = pt_smmu_l1cd_addr(e->s1ctx, s0, e->s1fmt),
					  .first = s0, .last = s1};

		if (v->on_table(v, &t, raw) != PT_IOV_OK)
			break;
		l1cd = pt_le64_load(raw);
		t.w = &l1cd;
		t.present = pt_smmu_l1cd_valid(l1cd);
		/* V = 0: the whole leaf is absent */
		if (v->on_entry(v, &t))
			rc = smmu_walk_cdt(v, sid, ste, sw, pt_smmu_l1cd_ptr(l1cd), s0, s1 - s0 + 1,
					   &end);
	}
	return rc;
}

/* The STE of SID at ADDR (RAW): a device, or its CDs' (stage 1 with S1CDMax > 0). */
static pt_err smmu_walk_ste(struct pt_iommu_visitor *v, uint64_t sid, uint64_t addr,
			    const uint8_t *raw, bool two)
{
	uint64_t sw[PT_SMMU_STE_WORDS];
	struct pt_smmu_ste e;
	struct pt_iommu_node n = {.kind = PT_IN_SMMU_STE, .addr = addr, .w = sw, .id = sid,
				  .two = two};
	bool descend = false;

	for (unsigned k = 0; k < PT_SMMU_STE_WORDS; k++)
		sw[k] = pt_le64_load(raw + 8 * k);
	pt_smmu_ste(sw, &e);
	n.present = e.v;
	if (!v->on_entry(v, &n))
		return PT_OK;
	if (e.config == PT_SMMU_CFG_S1 && e.s1cdmax)
		return smmu_walk_cds(v, sid, addr, sw, &e);
	return v->on_device(v, &n, &descend);
}

/*
 * The stream table (STRTAB_BASE, STRTAB_BASE_CFG §6.3.23/24): linear,
 * 2^LOG2SIZE STEs; 2-level, 2^(LOG2SIZE - SPLIT) L1STDs (§5.1: Span 0
 * invalid, else 2^(Span - 1) STEs at L2Ptr for StreamIDs from i << SPLIT).
 * A table part not there ends its level's reading.
 */
static pt_err smmu_walk(struct pt_iommu_visitor *v, const uint64_t *reg)
{
	uint64_t strtab = reg[PT_IK_STRTAB], cfg = reg[PT_IK_STRCFG];
	bool two = pt_smmu_two_level(cfg);
	uint64_t nl1 = two ? pt_smmu_l1_count(cfg) : 1;
	uint8_t ste[64], raw[8];
	pt_err rc;

	for (uint64_t i = 0; i < nl1 && !v->stop; i++) {
		uint64_t l2 = pt_smmu_strtab_base(strtab), n = pt_smmu_linear_count(cfg), sid0 = 0, d;

		if (two) {
			struct pt_iommu_node t = {.kind = PT_IN_SMMU_L1STD, .len = 8, .index = i,
						  .addr = pt_smmu_l1_addr(strtab, i),
						  .first = pt_smmu_l1_first_sid(cfg, i)};

			if (v->on_table(v, &t, raw) != PT_IOV_OK)
				break;
			d = pt_le64_load(raw);
			t.w = &d;
			t.present = pt_smmu_l1_span(d) != 0;
			t.count = pt_smmu_split(cfg);
			if (!v->on_entry(v, &t))
				continue;
			l2 = pt_smmu_l1_ptr(d);
			n = pt_smmu_l2_count(pt_smmu_l1_span(d));
			sid0 = t.first;
		}
		for (uint64_t j = 0; j < n && !v->stop; j++) {
			uint64_t sa = pt_smmu_entry64(l2, j);
			struct pt_iommu_node t = {.kind = PT_IN_SMMU_STE, .addr = sa, .len = sizeof ste,
						  .id = sid0 + j, .two = two};

			if (v->on_table(v, &t, ste) != PT_IOV_OK)
				break;
			if ((rc = smmu_walk_ste(v, sid0 + j, sa, ste, two)))
				return rc;
		}
	}
	return PT_OK;
}

const struct pt_iommu_format pt_iommu_smmuv3_format = {
	.name = "arm-smmuv3",
	.kind = PT_IOMMU_KIND_SMMUV3,
	.device_format = "arm-smmuv3",
	.guest_format = NULL,
	.keys = 1u << PT_IK_STRTAB | 1u << PT_IK_STRCFG | 1u << PT_IK_MAXCTX,
	.required = 1u << PT_IK_STRTAB | 1u << PT_IK_STRCFG,
	.check = smmu_check,
	.regs_text = smmu_regs_text,
	.id_bits = smmu_id_bits,
	.walk = smmu_walk,
};
