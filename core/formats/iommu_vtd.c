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
#include "pt_num.h"

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
	const uint64_t w[2] = {lo, hi};

	/* ioent.c's legacy root entry: lo 11:1, all of hi */
	return pt_ioent_reserved(PT_IOENT_VTD_ROOT, w, 0) || pt_ioent_reserved(PT_IOENT_VTD_ROOT, w, 1);
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

bool pt_vtd_reads_root(uint64_t rtaddr)
{
	return pt_vtd_ttm(rtaddr) < 2;
}

bool pt_vtd_present(uint64_t e)
{
	return e & 1;
}

uint64_t pt_vtd_root_entry(uint64_t rtaddr, unsigned bus)
{
	return pt_vtd_root_table(rtaddr) + 8ull * PT_VTD_ROOT_WORDS * bus;
}

unsigned pt_vtd_ctx_count(bool sm)
{
	return sm ? 128 : 256;
}

unsigned pt_vtd_ctx_words(bool sm)
{
	return sm ? 4 : 2;
}

unsigned pt_vtd_ctx_half(unsigned devfn, bool sm)
{
	return devfn / pt_vtd_ctx_count(sm);
}

uint64_t pt_vtd_ctx_entry(uint64_t ptr, unsigned devfn, bool sm)
{
	return ptr + 8ull * pt_vtd_ctx_words(sm) * (devfn % pt_vtd_ctx_count(sm));
}

uint64_t pt_vtd_pasiddir_index(uint64_t pasid)
{
	return pasid / PT_VTD_PASID_ENTRIES;
}

uint64_t pt_vtd_pasiddir_entry(uint64_t dir, uint64_t pasid)
{
	return dir + 8 * pt_vtd_pasiddir_index(pasid);
}

uint64_t pt_vtd_pasid_entry(uint64_t table, uint64_t pasid)
{
	return table + 8ull * PT_VTD_PASID_WORDS * (pasid % PT_VTD_PASID_ENTRIES);
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

/* TTM 11: abort-DMA mode (§11.4.5). */
static bool vtd_blocks_all(const uint64_t *v)
{
	return pt_vtd_ttm(v[PT_IK_RTADDR]) == PT_VTD_TTM_ABORT;
}

/* Requester IDs (bus, devfn); 20-bit PASIDs (§9.4-9.6) in scalable mode only. */
static void vtd_id_bits(const uint64_t *v, unsigned *dev, unsigned *sub)
{
	*dev = 16;
	*sub = pt_vtd_ttm(v[PT_IK_RTADDR]) == PT_VTD_TTM_SCALABLE ? 20 : 0;
}

static void vtd_regs_text(const uint64_t *v, char *out, size_t len)
{
	snprintf(out, len, "rtaddr 0x%" PRIx64, v[PT_IK_RTADDR]);
}


/* ---- the traversal (pt_iommu_format.h "The traversal and its visitors") ---- */

/*
 * Device BDF's scalable-mode context entry CW: its PASID directory (2^(PDTS+7)
 * entries, read 512 at a time; at most V's max_ids / 64), each present
 * directory entry's PASID table of 64 entries (VT-d §9.5, §9.6: a PASID's
 * bits 19:6 index the directory, 5:0 the table), each present PASID entry
 * a device.
 */
static pt_err vtd_walk_pasids(struct pt_iommu_visitor *v, uint64_t root, uint64_t bdf,
			      const uint64_t *cw)
{
	uint8_t dir[4096], tbl[8 * PT_VTD_PASID_WORDS * PT_VTD_PASID_ENTRIES];
	const uint64_t per = sizeof dir / 8;   /* directory entries read at a time */
	struct pt_vtd_smctx sc;
	uint64_t n;
	pt_err rc;

	pt_vtd_smctx(cw[0], cw[1], &sc);
	n = sc.ndir;
	if (v->max_ids && n > pt_vtd_pasiddir_index(v->max_ids))
		n = pt_vtd_pasiddir_index(v->max_ids);
	for (uint64_t di = 0; di < n && !v->stop; di++) {
		uint64_t de, tp, p0 = di * PT_VTD_PASID_ENTRIES, da = pt_vtd_pasiddir_entry(sc.dir, p0);
		struct pt_iommu_node e = {.kind = PT_IN_VTD_PASIDDIR, .addr = da, .w = &de, .id = bdf,
					  .index = di, .first = p0, .last = p0 + PT_VTD_PASID_ENTRIES - 1};

		if (di % per == 0) {
			struct pt_iommu_node t = {.kind = PT_IN_VTD_PASIDDIR, .addr = da,
						  .len = (size_t)(n - di < per ? n - di : per) * 8,
						  .id = bdf, .index = di, .loop = da == root};

			if (v->on_table(v, &t, dir) != PT_IOV_OK)
				return PT_OK;
		}
		de = pt_le64_load(dir + (di % per) * 8);
		e.present = pt_vtd_present(de);
		if (!v->on_entry(v, &e))
			continue;
		tp = pt_vtd_ptr(de);
		{
			struct pt_iommu_node t = {.kind = PT_IN_VTD_PASID, .addr = tp, .len = sizeof tbl,
						  .id = bdf, .index = di, .first = e.first,
						  .last = e.last, .loop = tp == root};

			if (v->on_table(v, &t, tbl) != PT_IOV_OK)
				continue;
		}
		for (unsigned ti = 0; ti < PT_VTD_PASID_ENTRIES && !v->stop; ti++) {
			uint64_t pw[PT_VTD_PASID_WORDS], pa = pt_vtd_pasid_entry(tp, p0 + ti);
			struct pt_iommu_node p = {.kind = PT_IN_VTD_PASID, .addr = pa, .w = pw,
						  .id = bdf, .sub = p0 + ti, .rid_pasid = sc.rid_pasid};
			bool descend = false;

			for (unsigned k = 0; k < PT_VTD_PASID_WORDS; k++)
				pw[k] = pt_le64_load(tbl + (pa - tp) + 8 * k);
			p.present = pt_vtd_present(pw[0]);
			if (v->on_entry(v, &p) && (rc = v->on_device(v, &p, &descend)))
				return rc;
		}
	}
	return PT_OK;
}

/* Context table HALF of bus BUS at PTR (legacy: 256 entries of 16 bytes; scalable: 128 of 32). */
static pt_err vtd_walk_ctx(struct pt_iommu_visitor *v, uint64_t root, unsigned bus, unsigned half,
			   bool sm, uint64_t ptr)
{
	uint8_t ct[4096];
	struct pt_iommu_node t = {.kind = PT_IN_VTD_CTX, .addr = ptr, .len = sizeof ct, .id = bus,
				  .half = half, .two = sm, .loop = ptr == root};
	unsigned n = pt_vtd_ctx_count(sm), words = pt_vtd_ctx_words(sm);
	pt_err rc;

	if (v->on_table(v, &t, ct) != PT_IOV_OK)
		return PT_OK;
	for (unsigned devfn = half * n; devfn < (half + 1) * n && !v->stop; devfn++) {
		uint64_t cw[4] = {0}, ea = pt_vtd_ctx_entry(ptr, devfn, sm);
		struct pt_iommu_node e = {.kind = PT_IN_VTD_CTX, .addr = ea, .w = cw,
					  .id = (uint64_t)bus << 8 | devfn, .two = sm};
		bool descend = false;

		for (unsigned k = 0; k < words; k++)
			cw[k] = pt_le64_load(ct + (ea - ptr) + 8 * k);
		e.present = pt_vtd_present(cw[0]);
		if (!v->on_entry(v, &e))
			continue;
		rc = sm ? vtd_walk_pasids(v, root, e.id, cw) : v->on_device(v, &e, &descend);
		if (rc)
			return rc;
	}
	return PT_OK;
}

/*
 * The root table (RTADDR_REG, §11.4.5; TTM 11 abort-DMA: nothing read), 256
 * root entries by bus (§9.1: legacy, lo the context table; scalable, lo
 * devfn 0-127 and hi 128-255), their context tables.
 */
static pt_err vtd_walk(struct pt_iommu_visitor *v, const uint64_t *reg)
{
	uint8_t rt[8 * PT_VTD_ROOT_WORDS * PT_VTD_BUSES];
	uint64_t rtaddr = reg[PT_IK_RTADDR], root = pt_vtd_root_table(rtaddr);
	bool sm = pt_vtd_ttm(rtaddr) == PT_VTD_TTM_SCALABLE;
	struct pt_iommu_node t = {.kind = PT_IN_VTD_ROOT, .addr = root, .len = sizeof rt, .two = sm,
				  .blocked = vtd_blocks_all(reg)};
	int r = v->on_table(v, &t, rt);
	pt_err rc;

	if (t.blocked)
		return PT_OK;
	if (r != PT_IOV_OK)
		return PT_E_CAPTURE;
	for (unsigned bus = 0; bus < PT_VTD_BUSES && !v->stop; bus++) {
		uint64_t ea = pt_vtd_root_entry(rtaddr, bus);
		uint64_t rw[PT_VTD_ROOT_WORDS] = {pt_le64_load(rt + (ea - root)),
						  pt_le64_load(rt + (ea - root) + 8)};
		/* half: a bit for each half whose P is set (legacy: lo alone) */
		struct pt_iommu_node e = {.kind = PT_IN_VTD_ROOT, .addr = ea, .w = rw,
					  .half = (unsigned)pt_vtd_present(rw[0]) |
						  (unsigned)(sm && pt_vtd_present(rw[1])) << 1,
					  .id = bus, .two = sm};
		unsigned halves;

		e.present = e.half != 0;
		halves = v->on_entry(v, &e);

		for (unsigned h = 0; h < (sm ? 2u : 1u) && !v->stop; h++)
			if ((halves >> h & 1) &&
			    (rc = vtd_walk_ctx(v, root, bus, h, sm, pt_vtd_ptr(rw[h]))))
				return rc;
	}
	return PT_OK;
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
	.id_bits = vtd_id_bits,
	.blocks_all = vtd_blocks_all,
	.walk = vtd_walk,
};
