/* SPDX-License-Identifier: MIT */
/*
 * ioent.c — the entries of an IOMMU's own tables as named fields
 * (pt_ioent.h).  Layouts restated from the specifications, no code copied
 * (facts also in Linux drivers/iommu/intel/iommu.h and pasid.h,
 * drivers/iommu/amd/amd_iommu_types.h, drivers/iommu/arm/arm-smmu-v3/
 * arm-smmu-v3.h; QEMU hw/i386/intel_iommu_internal.h):
 *
 *  - Intel VT-d (Intel VT for Directed I/O spec, rev. 3.x/4.x): §9.1 root
 *    entry, §9.2 scalable-mode root entry, §9.3 context entry, §9.4
 *    scalable-mode context entry, §9.5 scalable-mode PASID directory entry,
 *    §9.6 scalable-mode PASID table entry.  Words 3-7 of a PASID table
 *    entry hold no field a DMA remapping walk reads: shown as raw words.
 *  - AMD-Vi (AMD I/O Virtualization Technology (IOMMU) Specification
 *    48882, §2.2.2.1 Device Table Entry Format, Table 7).  Its word 3 holds
 *    only fields of later revisions (vIOMMU, snoop attributes): raw.
 *  - Arm SMMUv3 (IHI 0070, §5.1 Level-1 Stream Table Descriptor, §5.2
 *    Stream Table Entry, §5.4 Context Descriptor).  Words 4-7 of an STE
 *    (stage-2 VTTBR of secure/realm streams, implementation defined) and of
 *    a CD (AMAIR, IMPDEF, PARTID): raw.
 *
 * Field names are the specifications' names in lower case; a field that
 * one word cuts in two (AMD-Vi's GCR3 table root pointer) is named with
 * the bits of the whole it holds (gcr3_trp_30_15).
 */
#include <inttypes.h>
#include <string.h>

#include "pt_ioent.h"

#define F(n, w, h, l) {n, w, h, l, false}
/* an address field: shown in place (its bits, not shifted down), as the tables it points at are named */
#define A(n, w, h, l) {n, w, h, l, true}

static const struct pt_iofield vtd_root[] = {
	/* §9.1: lo P 0, CTP 63:12; hi reserved */
	F("p", 0, 0, 0), A("ctp", 0, 63, 12),
};
static const struct pt_iofield vtd_smroot[] = {
	/* §9.2: lo LP 0, LCTP 63:12 (devfn 0-127); hi UP 0, UCTP 63:12 (devfn 128-255) */
	F("lp", 0, 0, 0), A("lctp", 0, 63, 12), F("up", 1, 0, 0), A("uctp", 1, 63, 12),
};
static const struct pt_iofield vtd_ctx[] = {
	/* §9.3: lo P 0, FPD 1, TT 3:2, SLPTPTR 63:12; hi AW 2:0, AVAIL 6:3, DID 23:8 */
	F("p", 0, 0, 0), F("fpd", 0, 1, 1), F("tt", 0, 3, 2), A("slptptr", 0, 63, 12),
	F("aw", 1, 2, 0), F("avail", 1, 6, 3), F("did", 1, 23, 8),
};
static const struct pt_iofield vtd_smctx[] = {
	/* §9.4: P 0, FPD 1, DTE 2, PASIDE 3, PRE 4, PDTS 11:9, PASIDDIRPTR 63:12; RID_PASID 83:64, RID_PRIV 84 */
	F("p", 0, 0, 0), F("fpd", 0, 1, 1), F("dte", 0, 2, 2), F("paside", 0, 3, 3),
	F("pre", 0, 4, 4), F("pdts", 0, 11, 9), A("pasiddirptr", 0, 63, 12),
	F("rid_pasid", 1, 19, 0), F("rid_priv", 1, 20, 20),
};
static const struct pt_iofield vtd_pasiddir[] = {
	/* §9.5: P 0, FPD 1, SMPTBLPTR 63:12 */
	F("p", 0, 0, 0), F("fpd", 0, 1, 1), A("smptblptr", 0, 63, 12),
};
static const struct pt_iofield vtd_pasid[] = {
	/* §9.6 QW0: P 0, FPD 1, AW 4:2, PGTT 8:6, SLADE 9, SLPTPTR 63:12 */
	F("p", 0, 0, 0), F("fpd", 0, 1, 1), F("aw", 0, 4, 2), F("pgtt", 0, 8, 6),
	F("slade", 0, 9, 9), A("slptptr", 0, 63, 12),
	/* QW1: DID 15:0, PWSNP 23, PGSNP 24, CD 25, EMTE 26, EMT 29:27, PWT 30, PCD 31, PAT 63:32 */
	F("did", 1, 15, 0), F("pwsnp", 1, 23, 23), F("pgsnp", 1, 24, 24), F("cd", 1, 25, 25),
	F("emte", 1, 26, 26), F("emt", 1, 29, 27), F("pwt", 1, 30, 30), F("pcd", 1, 31, 31),
	F("pat", 1, 63, 32),
	/* QW2: SRE 0, FLPM 3:2, WPE 4, EAFE 7, FLPTR 63:12 */
	F("sre", 2, 0, 0), F("flpm", 2, 3, 2), F("wpe", 2, 4, 4), F("eafe", 2, 7, 7),
	A("flptr", 2, 63, 12),
};
static const struct pt_iofield amd_dte[] = {
	/* Table 7, bits 63:0 */
	F("v", 0, 0, 0), F("tv", 0, 1, 1), F("had", 0, 8, 7), F("mode", 0, 11, 9),
	A("host_pt_root", 0, 51, 12), F("ppr", 0, 52, 52), F("gprp", 0, 53, 53),
	F("giov", 0, 54, 54), F("gv", 0, 55, 55), F("glx", 0, 57, 56),
	F("gcr3_trp_14_12", 0, 60, 58), F("ir", 0, 61, 61), F("iw", 0, 62, 62),
	/* bits 127:64 */
	F("domain_id", 1, 15, 0), F("gcr3_trp_30_15", 1, 31, 16), F("i", 1, 32, 32),
	F("se", 1, 33, 33), F("sa", 1, 34, 34), F("ioctl", 1, 36, 35), F("cache", 1, 37, 37),
	F("sd", 1, 38, 38), F("ex", 1, 39, 39), F("sys_mgt", 1, 41, 40),
	F("gcr3_trp_51_31", 1, 63, 43),
	/* bits 191:128: the interrupt remapping fields */
	F("iv", 2, 0, 0), F("int_tab_len", 2, 4, 1), F("ig", 2, 5, 5),
	A("int_table_root_ptr", 2, 51, 6), F("init_pass", 2, 56, 56), F("eint_pass", 2, 57, 57),
	F("nmi_pass", 2, 58, 58), F("int_ctl", 2, 61, 60), F("lint0_pass", 2, 62, 62),
	F("lint1_pass", 2, 63, 63),
};
static const struct pt_iofield smmu_l1std[] = {
	/* §5.1: Span 4:0, L2Ptr 51:6 */
	F("span", 0, 4, 0), A("l2ptr", 0, 51, 6),
};
static const struct pt_iofield smmu_ste[] = {
	/* §5.2 word 0 */
	F("v", 0, 0, 0), F("config", 0, 3, 1), F("s1fmt", 0, 5, 4), A("s1contextptr", 0, 51, 6),
	F("s1cdmax", 0, 63, 59),
	/* word 1 */
	F("s1dss", 1, 1, 0), F("s1cir", 1, 3, 2), F("s1cor", 1, 5, 4), F("s1csh", 1, 7, 6),
	F("s1stalld", 1, 27, 27), F("eats", 1, 29, 28), F("strw", 1, 31, 30),
	F("shcfg", 1, 45, 44),
	/* word 2 */
	F("s2vmid", 2, 15, 0), F("s2t0sz", 2, 37, 32), F("s2sl0", 2, 39, 38), F("s2ir0", 2, 41, 40),
	F("s2or0", 2, 43, 42), F("s2sh0", 2, 45, 44), F("s2tg", 2, 47, 46), F("s2ps", 2, 50, 48),
	F("s2aa64", 2, 51, 51), F("s2endi", 2, 52, 52), F("s2affd", 2, 53, 53),
	F("s2ptw", 2, 54, 54), F("s2hd", 2, 55, 55), F("s2ha", 2, 56, 56), F("s2s", 2, 57, 57),
	F("s2r", 2, 58, 58),
	/* word 3 */
	A("s2ttb", 3, 51, 4),
};
static const struct pt_iofield smmu_cd[] = {
	/* §5.4 word 0 */
	F("t0sz", 0, 5, 0), F("tg0", 0, 7, 6), F("irgn0", 0, 9, 8), F("orgn0", 0, 11, 10),
	F("sh0", 0, 13, 12), F("epd0", 0, 14, 14), F("endi", 0, 15, 15), F("t1sz", 0, 21, 16),
	F("tg1", 0, 23, 22), F("irgn1", 0, 25, 24), F("orgn1", 0, 27, 26), F("sh1", 0, 29, 28),
	F("epd1", 0, 30, 30), F("v", 0, 31, 31), F("ips", 0, 34, 32), F("affd", 0, 35, 35),
	F("wxn", 0, 36, 36), F("uwxn", 0, 37, 37), F("tbi", 0, 39, 38), F("pan", 0, 40, 40),
	F("aa64", 0, 41, 41), F("hd", 0, 42, 42), F("ha", 0, 43, 43), F("s", 0, 44, 44),
	F("r", 0, 45, 45), F("a", 0, 46, 46), F("aset", 0, 47, 47), F("asid", 0, 63, 48),
	/* word 1, word 2 */
	F("nscfg0", 1, 0, 0), F("had0", 1, 1, 1), A("ttb0", 1, 51, 4),
	F("nscfg1", 2, 0, 0), F("had1", 2, 1, 1), A("ttb1", 2, 51, 4),
	/* word 3 */
	F("mair0", 3, 31, 0), F("mair1", 3, 63, 32),
};

#define MASK(hi, lo) ((~0ull >> (63 - (hi))) & ~((1ull << (lo)) - 1))

static const struct {
	const char *name;
	unsigned words;
	const struct pt_iofield *f;
	size_t n;
	/* reserved bits of words 0 and 1 (the ones a walk checks; §9.1-9.5, §5.1) */
	uint64_t rsvd[2];
} types[PT_IOENT__COUNT] = {
	[PT_IOENT_VTD_ROOT] = {"root entry", 2, vtd_root, sizeof vtd_root / sizeof vtd_root[0],
			       {MASK(11, 1), ~0ull}},
	[PT_IOENT_VTD_SMROOT] = {"scalable-mode root entry", 2, vtd_smroot,
				 sizeof vtd_smroot / sizeof vtd_smroot[0], {MASK(11, 1), MASK(11, 1)}},
	[PT_IOENT_VTD_CTX] = {"context entry", 2, vtd_ctx, sizeof vtd_ctx / sizeof vtd_ctx[0],
			      {MASK(11, 4), MASK(63, 24) | 1ull << 7}},
	[PT_IOENT_VTD_SMCTX] = {"scalable-mode context entry", 4, vtd_smctx,
				sizeof vtd_smctx / sizeof vtd_smctx[0], {MASK(8, 5), MASK(63, 21)}},
	[PT_IOENT_VTD_PASIDDIR] = {"PASID directory entry", 1, vtd_pasiddir,
				   sizeof vtd_pasiddir / sizeof vtd_pasiddir[0], {MASK(11, 2), 0}},
	[PT_IOENT_VTD_PASID] = {"PASID table entry", 8, vtd_pasid,
				sizeof vtd_pasid / sizeof vtd_pasid[0], {MASK(11, 10) | 1ull << 5, 0}},
	[PT_IOENT_AMD_DTE] = {"device table entry", 4, amd_dte, sizeof amd_dte / sizeof amd_dte[0],
			      {MASK(6, 2) | 1ull << 63, 1ull << 42}},
	[PT_IOENT_SMMU_L1STD] = {"level-1 stream table descriptor", 1, smmu_l1std,
				 sizeof smmu_l1std / sizeof smmu_l1std[0], {MASK(63, 52) | 1ull << 5, 0}},
	[PT_IOENT_SMMU_STE] = {"stream table entry", 8, smmu_ste, sizeof smmu_ste / sizeof smmu_ste[0],
			       {0, 0}},
	[PT_IOENT_SMMU_CD] = {"context descriptor", 8, smmu_cd, sizeof smmu_cd / sizeof smmu_cd[0],
			      {0, 0}},
};

const char *pt_ioent_name(enum pt_ioent_type t)
{
	return (unsigned)t < PT_IOENT__COUNT ? types[t].name : "?";
}

unsigned pt_ioent_words(enum pt_ioent_type t)
{
	return (unsigned)t < PT_IOENT__COUNT ? types[t].words : 0;
}

const struct pt_iofield *pt_ioent_fields(enum pt_ioent_type t, size_t *n)
{
	*n = (unsigned)t < PT_IOENT__COUNT ? types[t].n : 0;
	return *n ? types[t].f : NULL;
}

uint64_t pt_ioent_get(const uint64_t *w, const struct pt_iofield *f)
{
	return (w[f->word] & MASK(f->hi, f->lo)) >> f->lo;
}

uint64_t pt_ioent_field(enum pt_ioent_type t, const uint64_t *w, const char *name)
{
	size_t n;
	const struct pt_iofield *f = pt_ioent_fields(t, &n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return pt_ioent_get(w, &f[i]);
	return UINT64_MAX;
}

bool pt_ioent_present(enum pt_ioent_type t, const uint64_t *w)
{
	switch (t) {
	case PT_IOENT_VTD_SMROOT:
		return (w[0] | w[1]) & 1;   /* LP or UP */
	case PT_IOENT_SMMU_L1STD:
		return (w[0] & 31) != 0;    /* Span 0: no L2 table (§5.1) */
	case PT_IOENT_SMMU_CD:
		return (w[0] >> 31) & 1;
	default:
		return (unsigned)t < PT_IOENT__COUNT && (w[0] & 1);
	}
}

const char *pt_ioent_translation(enum pt_ioent_type t, const uint64_t *w)
{
	static const char *const tt[] = {"second-level", "second-level+device-tlb", "pass-through",
					 "reserved"};
	static const char *const pgtt[] = {"reserved", "first-level", "second-level", "nested",
					   "pass-through", "reserved", "reserved", "reserved"};
	static const char *const config[] = {"abort", "reserved", "reserved", "reserved", "bypass",
					     "stage1", "stage2", "nested"};
	uint64_t mode;

	switch (t) {
	case PT_IOENT_VTD_CTX:
		return tt[(w[0] >> 2) & 3];          /* §9.3 TT */
	case PT_IOENT_VTD_SMCTX:
		return "pasid-table";                /* the PASID entries say (§9.4) */
	case PT_IOENT_VTD_PASID:
		return pgtt[(w[0] >> 6) & 7];        /* §9.6 PGTT */
	case PT_IOENT_AMD_DTE:
		/* §2.2.2.1: TV = 0, no translation information; Mode 0: untranslated (pass-through) */
		if (!((w[0] >> 1) & 1))
			return "no-translation-info";
		mode = (w[0] >> 9) & 7;
		if (mode == 7)
			return "reserved";
		if (mode == 0)   /* IR = IW = 0: every request refused (Linux's unused DTEs) */
			return (w[0] >> 55) & 1 || (w[0] >> 61) & 3 ? "pass-through" : "blocked";
		return (w[0] >> 55) & 1 ? "nested" : "host";
	case PT_IOENT_SMMU_STE:
		return config[(w[0] >> 1) & 7];      /* §5.2 Config */
	case PT_IOENT_SMMU_CD:
		return "stage1";
	default:
		return NULL;
	}
}

uint64_t pt_ioent_reserved(enum pt_ioent_type t, const uint64_t *w, unsigned i)
{
	if ((unsigned)t >= PT_IOENT__COUNT || i >= 2 || i >= types[t].words)
		return 0;
	return w[i] & types[t].rsvd[i];
}

void pt_ioent_render(struct pt_buf *b, enum pt_ioent_type t, const uint64_t *w)
{
	size_t n;
	const struct pt_iofield *f = pt_ioent_fields(t, &n);
	const char *tr;
	bool any = false;

	pt_buf_printf(b, "type: %s\n", pt_ioent_name(t));
	for (unsigned i = 0; i < pt_ioent_words(t); i++)
		pt_buf_printf(b, "word%u: 0x%016" PRIx64 "\n", i, w[i]);
	pt_buf_printf(b, "present: %u\n", pt_ioent_present(t, w) ? 1 : 0);
	for (size_t i = 0; i < n; i++)
		pt_buf_printf(b, "%s: 0x%" PRIx64 "\n", f[i].name,
			      f[i].addr ? pt_ioent_get(w, &f[i]) << f[i].lo : pt_ioent_get(w, &f[i]));
	pt_buf_puts(b, "reserved:");
	for (unsigned i = 0; i < 2; i++) {
		uint64_t r = pt_ioent_reserved(t, w, i);

		if (r) {
			pt_buf_printf(b, " word%u 0x%" PRIx64, i, r);
			any = true;
		}
	}
	pt_buf_puts(b, any ? "\n" : " none\n");
	tr = pt_ioent_present(t, w) ? pt_ioent_translation(t, w) : NULL;
	if (tr)
		pt_buf_printf(b, "translation: %s\n", tr);
}
