/* SPDX-License-Identifier: MIT */
/*
 * iommu_vtd.c — Intel VT-d as an IOMMU of the family (pt_iommu_format.h):
 * its register, its checks and the fields of its tables' entries.  Layouts
 * restated, no code copied: VT-d spec §11.4.5 RTADDR_REG (root table 63:12,
 * TTM 11:10: 00 legacy, 01 scalable (Linux drivers/iommu/intel/iommu.h
 * DMA_RTADDR_SMT), 10 reserved, 11 abort-DMA); §9.1 root entry (lo P 0,
 * context-table pointer 63:12, lo 11:1 and hi reserved; scalable: hi the
 * upper context table); §9.4 scalable-mode context entry (PDTS 11:9,
 * 2^(PDTS+7) directory entries, PASID directory 63:12, RID_PASID qw1
 * 19:0); §9.5 PASID directory entry (P 0, PASID table 63:12); §9.6 PASID
 * entry (PGTT 8:6) — Linux drivers/iommu/intel/pasid.h, QEMU
 * hw/i386/intel_iommu_internal.h.  Named fields through ioent.c.
 */
#include <inttypes.h>
#include <stdio.h>

#include "pt_ioent.h"
#include "pt_iommu_format.h"

#define MASK(hi, lo) ((~0ull >> (63 - (hi))) & ~((1ull << (lo)) - 1))

uint64_t pt_vtd_root_table(uint64_t rtaddr)
{
	return rtaddr & MASK(51, 12);
}

unsigned pt_vtd_ttm(uint64_t rtaddr)
{
	return (unsigned)(rtaddr >> 10) & 3;
}

uint64_t pt_vtd_ptr(uint64_t e)
{
	return e & MASK(51, 12);
}

bool pt_vtd_root_reserved(uint64_t lo, uint64_t hi)
{
	return (lo & MASK(11, 1)) || hi;
}

int pt_vtd_root_half(uint64_t e)
{
	if (!(e & 1))
		return e ? -1 : 0;
	return (e & (MASK(11, 1) | MASK(63, 52))) ? -1 : 1;
}

void pt_vtd_smctx(uint64_t q0, uint64_t q1, struct pt_vtd_smctx *out)
{
	uint64_t w[2] = {q0, q1};

	out->dir = pt_vtd_ptr(q0);
	out->ndir = 1ull << (pt_ioent_field(PT_IOENT_VTD_SMCTX, w, "pdts") + 7);
	out->rid_pasid = pt_ioent_field(PT_IOENT_VTD_SMCTX, w, "rid_pasid");
}

unsigned pt_vtd_pgtt(uint64_t q0)
{
	return (unsigned)pt_ioent_field(PT_IOENT_VTD_PASID, (uint64_t[1]){q0}, "pgtt");
}

static unsigned vtd_check(const uint64_t *v, const unsigned *line, const char *label, char *msg,
			  size_t len)
{
	uint64_t r = v[PT_IK_RTADDR];

	if (!line[PT_IK_RTADDR])
		return 0;
	if (pt_vtd_ttm(r) == 2)
		snprintf(msg, len, "rtaddr 0x%" PRIx64 " in %s: TTM (bits 11:10) 10 is reserved (00"
			 " legacy, 01 scalable, 11 abort-DMA; VT-d spec §11.4.5 RTADDR_REG)", r, label);
	else if (r & 0x3ff)
		snprintf(msg, len, "rtaddr 0x%" PRIx64 " in %s has reserved bits 9:0 set (VT-d spec"
			 " §11.4.5 RTADDR_REG)", r, label);
	else if (r >> 52)
		snprintf(msg, len, "rtaddr 0x%" PRIx64 " in %s: the root table address is above 52"
			 " bits", r, label);
	else
		return 0;
	return line[PT_IK_RTADDR];
}

static void vtd_regs_text(const uint64_t *v, char *out, size_t len)
{
	snprintf(out, len, "rtaddr 0x%" PRIx64, v[PT_IK_RTADDR]);
}

const struct pt_iommu_format pt_iommu_vtd_format = {
	.name = "intel-vtd",
	.kind = PT_IOMMU_KIND_VTD,
	.device_format = "intel-vtd",
	.guest_format = "x86-64",
	/* segment: VT-d's DRHD names one (ACPI DMAR) */
	.keys = 1u << PT_IK_RTADDR | 1u << PT_IK_SEGMENT | 1u << PT_IK_MAXCTX,
	.required = 1u << PT_IK_RTADDR,
	.check = vtd_check,
	.regs_text = vtd_regs_text,
};
