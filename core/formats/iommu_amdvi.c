/* SPDX-License-Identifier: MIT */
/*
 * iommu_amdvi.c — AMD-Vi as an IOMMU of the family (pt_iommu_format.h).
 * Layouts restated, no code copied: AMD IOMMU spec 48882 §3.3.1 Device
 * Table Base Address Register (base 51:12, Size 8:0 = 4 KiB pages − 1);
 * §2.2.2 DTE, 32 B by DeviceID (V 0, TV 1, 6:2 reserved, Mode 11:9 with 7
 * reserved, GIoV 54, GV 55, GLX 57:56, IR 61, IW 62; the GCR3 table root
 * pointer q0 60:58, q1 31:16 and 63:43; the guest paging level q2 55:54);
 * §2.2.6 GCR3 table (valid 0, pointer 51:12) — Linux
 * drivers/iommu/amd/amd_iommu_types.h (DTE_FLAG_GV, DTE_GLX, DTE_GCR3_*,
 * DTE_GPT_LEVEL_SHIFT), Xen iommu-defs.h.  Named fields through ioent.c.
 */
#include <inttypes.h>
#include <stdio.h>

#include "pt_ioent.h"
#include "pt_iommu_format.h"
#include "pt_num.h"

#define MASK(hi, lo) ((~0ull >> (63 - (hi))) & ~((1ull << (lo)) - 1))

uint64_t pt_amd_dtb_base(uint64_t reg)
{
	return reg & MASK(51, 12);
}

unsigned pt_amd_dtb_pages(uint64_t reg)
{
	return (unsigned)(reg & 0x1ff) + 1;
}

bool pt_amd_dte_valid(uint64_t q0)
{
	return q0 & 1;
}

bool pt_amd_dte_device(uint64_t q0)
{
	return (q0 & 3) == 3;
}

uint64_t pt_amd_dte_count(uint64_t reg)
{
	return (uint64_t)pt_amd_dtb_pages(reg) * PT_AMD_DTE_PAGE;
}

uint64_t pt_amd_dte_addr(uint64_t reg, uint64_t devid)
{
	return pt_amd_dtb_base(reg) + 8ull * PT_AMD_DTE_WORDS * devid;
}

void pt_amd_dte(const uint64_t *q, struct pt_amd_dte *out)
{
	uint64_t w[3] = {q[0], q[1], q[2]};

	out->mode = (unsigned)pt_ioent_field(PT_IOENT_AMD_DTE, w, "mode");
	out->giov = pt_ioent_field(PT_IOENT_AMD_DTE, w, "giov");
	out->gv = pt_ioent_field(PT_IOENT_AMD_DTE, w, "gv");
	out->glx = (unsigned)pt_ioent_field(PT_IOENT_AMD_DTE, w, "glx");
	out->ir = pt_ioent_field(PT_IOENT_AMD_DTE, w, "ir");
	out->iw = pt_ioent_field(PT_IOENT_AMD_DTE, w, "iw");
	/* the guest paging level, q2 55:54 (Linux DTE_GPT_LEVEL_SHIFT): not in ioent's table */
	out->gpt = (unsigned)(q[2] >> 54) & 3;
	out->gcr3 = pt_ioent_field(PT_IOENT_AMD_DTE, w, "gcr3_trp_14_12") << 12 |
		    pt_ioent_field(PT_IOENT_AMD_DTE, w, "gcr3_trp_30_15") << 15 |
		    pt_ioent_field(PT_IOENT_AMD_DTE, w, "gcr3_trp_51_31") << 31;
}

/*
 * Reserved 6:2, Mode 7; Mode 0 with a Page Table Root Pointer (Linux
 * set_dte_entry() writes the root only for a mode other than
 * PAGE_MODE_NONE); GV = 0 with a GCR3 Table Root Pointer (Linux writes
 * those only with GV).
 */
bool pt_amd_dte_bad(uint64_t q0, uint64_t q1)
{
	unsigned mode = (unsigned)(q0 >> 9) & 7;

	if ((q0 & MASK(6, 2)) || mode == 7)
		return true;
	if (!mode && (q0 & MASK(51, 12)))
		return true;
	return !((q0 >> 55) & 1) && ((q0 & MASK(60, 58)) || (q1 & (MASK(31, 16) | MASK(63, 43))));
}

bool pt_amd_gcr3_valid(uint64_t e)
{
	return e & 1;
}

uint64_t pt_amd_gcr3_ptr(uint64_t e)
{
	return e & MASK(51, 12);
}

uint64_t pt_amd_gcr3_entry(uint64_t table, uint64_t i)
{
	return table + 8 * i;
}

static unsigned amd_check(const uint64_t *v, const unsigned *line, const char *label, char *msg,
			  size_t len)
{
	if (!line[PT_IK_DTB] || !(v[PT_IK_DTB] & (0xe00ull | ~0ull << 52)))
		return 0;
	snprintf(msg, len, "dev_table_base 0x%" PRIx64 " in %s has reserved bits set (11:9 or 63:52;"
		 " base 51:12, Size 8:0: AMD IOMMU spec §3.3.1 Device Table Base Address Register)",
		 v[PT_IK_DTB], label);
	return line[PT_IK_DTB];
}

/* DeviceIDs; a DTE's guest PASIDs are contexts, not ids of its table. */
static void amd_id_bits(const uint64_t *v, unsigned *dev, unsigned *sub)
{
	(void)v;
	*dev = 16;
	*sub = 0;
}

static void amd_regs_text(const uint64_t *v, char *out, size_t len)
{
	snprintf(out, len, "dev_table_base 0x%" PRIx64, v[PT_IK_DTB]);
}


/* ---- the traversal (pt_iommu_format.h "The traversal and its visitors") ---- */

/* The entries of GCR3 leaf table TBL at TP, PASIDs from P0 (each valid one a guest device). */
static pt_err amd_walk_leaf(struct pt_iommu_visitor *v, uint64_t devid, const uint8_t *tbl,
			    uint64_t tp, uint64_t p0)
{
	pt_err rc;

	for (unsigned i = 0; i < PT_AMD_GCR3_ENTRIES && !v->stop; i++) {
		uint64_t ea = pt_amd_gcr3_entry(tp, i), e = pt_le64_load(tbl + (ea - tp));
		struct pt_iommu_node n = {.kind = PT_IN_AMD_GCR3_L0, .addr = ea, .w = &e,
					  .present = pt_amd_gcr3_valid(e), .id = devid, .sub = p0 + i};
		bool descend = false;

		if (v->on_entry(v, &n) && (rc = v->on_device(v, &n, &descend)))
			return rc;
	}
	return PT_OK;
}

/*
 * DTE F's GCR3 table (§2.2.6; Linux drivers/iommu/amd/iommu.c
 * __get_gcr3_pte()): GLX + 1 levels of 512 entries, each indexed by 9 bits
 * of the PASID; an L1 entry naming its own table is a loop (n.loop).
 */
static pt_err amd_walk_gcr3(struct pt_iommu_visitor *v, uint64_t devid, const struct pt_amd_dte *f)
{
	uint8_t top[8 * PT_AMD_GCR3_ENTRIES], l0[8 * PT_AMD_GCR3_ENTRIES];
	struct pt_iommu_node t = {.kind = PT_IN_AMD_GCR3, .addr = f->gcr3, .len = sizeof top,
				  .id = devid};
	pt_err rc;

	if (v->on_table(v, &t, top) != PT_IOV_OK)
		return PT_OK;
	if (!f->glx)
		return amd_walk_leaf(v, devid, top, f->gcr3, 0);
	for (unsigned i = 0; i < PT_AMD_GCR3_ENTRIES && !v->stop; i++) {
		uint64_t ea = pt_amd_gcr3_entry(f->gcr3, i), e = pt_le64_load(top + (ea - f->gcr3));
		uint64_t tp = pt_amd_gcr3_ptr(e), p0 = (uint64_t)i * PT_AMD_GCR3_ENTRIES;
		struct pt_iommu_node n = {.kind = PT_IN_AMD_GCR3, .addr = ea, .w = &e,
					  .present = pt_amd_gcr3_valid(e), .id = devid, .index = i,
					  .loop = tp == f->gcr3};
		struct pt_iommu_node l = {.kind = PT_IN_AMD_GCR3_L0, .addr = tp, .len = sizeof l0,
					  .id = devid, .index = i, .first = p0,
					  .last = p0 + PT_AMD_GCR3_ENTRIES - 1};

		if (!v->on_entry(v, &n))
			continue;
		if (v->on_table(v, &l, l0) == PT_IOV_OK && (rc = amd_walk_leaf(v, devid, l0, tp, p0)))
			return rc;
	}
	return PT_OK;
}

/*
 * The device table (Device Table Base Address Register, §3.3.1), page by
 * page, 128 DTEs of 32 bytes each by DeviceID (§2.2.2); a DTE the visitor
 * takes is a device, its GCR3 table walked when the visitor asks.
 */
static pt_err amd_walk(struct pt_iommu_visitor *v, const uint64_t *reg)
{
	uint8_t page[8 * PT_AMD_DTE_WORDS * PT_AMD_DTE_PAGE];
	uint64_t dtb = reg[PT_IK_DTB];
	unsigned pages = pt_amd_dtb_pages(dtb);
	pt_err rc;

	for (unsigned p = 0; p < pages && !v->stop; p++) {
		uint64_t d0 = (uint64_t)p * PT_AMD_DTE_PAGE, pa = pt_amd_dte_addr(dtb, d0);
		struct pt_iommu_node t = {.kind = PT_IN_AMD_DTPAGE, .addr = pa, .len = sizeof page,
					  .index = p, .count = pages, .first = d0,
					  .last = d0 + PT_AMD_DTE_PAGE - 1};

		if (v->on_table(v, &t, page) != PT_IOV_OK)
			continue;
		for (unsigned i = 0; i < PT_AMD_DTE_PAGE && !v->stop; i++) {
			uint64_t q[PT_AMD_DTE_WORDS], ea = pt_amd_dte_addr(dtb, d0 + i);
			struct pt_iommu_node e = {.kind = PT_IN_AMD_DTE, .w = q, .id = d0 + i, .addr = ea};
			struct pt_amd_dte f;
			bool descend = false;

			for (unsigned k = 0; k < PT_AMD_DTE_WORDS; k++)
				q[k] = pt_le64_load(page + (ea - pa) + 8 * k);
			/* V alone (a device is V and TV: pt_amd_dte_device()) */
			e.present = pt_amd_dte_valid(q[0]);
			if (!v->on_entry(v, &e))
				continue;
			if ((rc = v->on_device(v, &e, &descend)))
				return rc;
			if (!descend)
				continue;
			pt_amd_dte(q, &f);
			if ((rc = amd_walk_gcr3(v, e.id, &f)))
				return rc;
			if (v->on_leave)
				v->on_leave(v, &e);
		}
	}
	return PT_OK;
}

const struct pt_iommu_format pt_iommu_amdvi_format = {
	.name = "amd-vi",
	.kind = PT_IOMMU_KIND_AMDVI,
	.device_format = "amd-vi",
	.guest_format = "x86-64",
	/* segment: AMD-Vi's IVHD names one (ACPI IVRS) */
	.keys = 1u << PT_IK_DTB | 1u << PT_IK_SEGMENT | 1u << PT_IK_MAXCTX,
	.required = 1u << PT_IK_DTB,
	.check = amd_check,
	.regs_text = amd_regs_text,
	.id_bits = amd_id_bits,
	.walk = amd_walk,
};
