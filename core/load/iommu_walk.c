/* SPDX-License-Identifier: MIT */
/*
 * iommu_walk.c — an IOMMU's own tables, read from the capture once memory
 * is loaded (iommu.c): every present device handed to pt_iommu_device()
 * (through pt_iommu_add(), which bounds the contexts) as the section its
 * format reads.  Every table is read through pt_iommu_table() (iommu_seen.c):
 * once, a pointer to a table read already counted and not followed, and
 * the walkers count the entries they look at (present, malformed, devices)
 * for the IOMMU's anomaly.  Layouts restated, no code copied:
 *
 *  - Intel VT-d (VT-d spec §11.4.5 RTADDR_REG: root table 63:12, TTM 11:10
 *    00 legacy, 01 scalable (Linux drivers/iommu/intel/iommu.h
 *    DMA_RTADDR_SMT), 10 reserved, 11 abort-DMA (VirtualBox
 *    include/VBox/iommu-intel.h VTD_TTM_*); §9.1 root entry: lo P 0,
 *    context-table pointer 63:12 (scalable: lo for devfn 0-127, hi for
 *    128-255); §9.3 legacy context entry (16 B, by devfn); §9.4 scalable
 *    context entry (32 B, 128 per table): P 0, PDTS 11:9 (2^(PDTS+7)
 *    directory entries), PASID directory 63:12, RID_PASID qw1 19:0;
 *    §9.5 PASID directory entry (8 B): P 0, PASID table 63:12, indexed by
 *    PASID 19:6; §9.6 PASID entry (64 B, 64 per table, by PASID 5:0):
 *    P 0, PGTT 8:6 — Linux drivers/iommu/intel/pasid.h, QEMU
 *    hw/i386/intel_iommu_internal.h);
 *  - AMD-Vi (AMD IOMMU spec 48882 §3.3.1 Device Table Base Address
 *    Register: base 51:12, Size 8:0 = 4 KiB pages − 1; §2.2.2 DTE, 32 B
 *    by DeviceID: V 0, TV 1, Mode 11:9, GIoV 54, GV 55 (GCR3 table: amd_dte()) — Linux
 *    drivers/iommu/amd/amd_iommu_types.h, Xen iommu-defs.h);
 *  - Arm SMMUv3 (IHI 0070 §6.3.23/24 STRTAB_BASE: ADDR 51:6, RA 62;
 *    STRTAB_BASE_CFG: LOG2SIZE 5:0, SPLIT 10:6, FMT 17:16; §5.1 L1STD:
 *    Span 4:0 (2^(Span−1) STEs, 0 invalid), L2Ptr 51:6; §5.2 STE 64 B:
 *    V 0, Config 3:1, S1Fmt 5:4, S1ContextPtr 51:6, S1CDMax 63:59, S1DSS
 *    word 1 1:0; §5.3
 *    L1CD: V 0, L2Ptr 51:12; §5.4 CD: V 31 — Linux
 *    drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "iommu_int.h"
#include "pt_ioent.h"
#include "pt_num.h"

static void dev_key(struct pt_iommu_dev *d, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void dev_key(struct pt_iommu_dev *d, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (d->nkeys == PT_IOMMU_MAX_KEYS)
		return;
	va_start(ap, fmt);
	vsnprintf(d->val[d->nkeys], sizeof d->val[0], fmt, ap);
	va_end(ap);
	d->key[d->nkeys++] = key;
}

/* D for a context of FORMAT whose ENTRY is at ADDR, with the section's space keys. */
static void dev_init(struct pt_iommu_walk *w, struct pt_iommu_dev *d, const char *format,
		     const char *entry, uint64_t addr, bool output)
{
	d->format = format;
	d->nkeys = 0;
	d->blocked = false;
	memset(&d->origin, 0, sizeof d->origin);
	d->origin.iommu = w->io->name;
	d->origin.type = w->io->fam->name;
	d->origin.entry = entry;
	d->origin.entry_addr = addr;
	if (w->io->space)
		dev_key(d, "space", "%s", w->io->space);
	if (w->io->output_space && output)
		dev_key(d, "output_space", "%s", w->io->output_space);
}

/* "NAME.BB:DD.F" (lspci's hex; "NAME.SSSS:BB:DD.F" off segment 0) + SUFFIX. */
static void bdf_name(struct pt_iommu_walk *w, struct pt_iommu_dev *d, unsigned bdf,
		     const char *suffix)
{
	unsigned seg = (unsigned)w->io->v[PT_IK_SEGMENT];

	if (seg)
		snprintf(d->name, sizeof d->name, "%s.%04x:%02x:%02x.%x%s", w->io->name, seg, bdf >> 8,
			 (bdf >> 3) & 31, bdf & 7, suffix);
	else
		snprintf(d->name, sizeof d->name, "%s.%02x:%02x.%x%s", w->io->name, bdf >> 8,
			 (bdf >> 3) & 31, bdf & 7, suffix);
	d->origin.has_bdf = true;
	d->origin.segment = seg;
	d->origin.bdf = bdf;
}

/* ---- Intel VT-d -------------------------------------------------------------- */

/*
 * The 4 KiB table at PTR of bus BUS's root entry into BUF.  A pointer to the
 * root table itself is a loop (VT-d has two fixed levels): malformed.
 */
static bool vtd_table(struct pt_iommu_walk *w, uint64_t ptr, const char *what, unsigned bus,
		      uint8_t *buf)
{
	uint64_t root = pt_vtd_root_table(w->io->v[PT_IK_RTADDR]);

	if (ptr == root) {
		pt_iommu_warn(w, "bus %02x: its %s is the root table at %s 0x%" PRIx64 ": not read",
			      bus, what, w->space_name, ptr);
		w->n.malformed++;
		return false;
	}
	switch (pt_iommu_table(w, ptr, buf, 4096, "bus %02x's %s at %s 0x%" PRIx64, bus, what,
			       w->space_name, ptr)) {
	case PT_IOMMU_TABLE_OK:
		return true;
	case PT_IOMMU_TABLE_MISSING:
		if (!w->stopped)
			pt_iommu_warn(w, "bus %02x: its %s at %s 0x%" PRIx64 " is not captured", bus,
				      what, w->space_name, ptr);
		return false;
	default:
		return false;
	}
}

static pt_err vtd_legacy_bus(struct pt_iommu_walk *w, unsigned bus, uint64_t ctp)
{
	uint8_t ct[4096];
	struct pt_iommu_dev d;
	pt_err rc;

	if (!vtd_table(w, ctp, "context table", bus, ct))
		return PT_OK;
	for (unsigned devfn = 0; devfn < 256 && !w->stopped; devfn++) {
		uint64_t lo = pt_le64_load(ct + 16 * devfn), hi = pt_le64_load(ct + 16 * devfn + 8);

		w->n.entries++;
		if (!(lo & 1))
			continue;
		w->n.present++;
		w->n.devices++;
		dev_init(w, &d, w->io->fam->device_format, "context entry", ctp + 16 * devfn, true);
		bdf_name(w, &d, bus << 8 | devfn, "");
		dev_key(&d, "context", "0x%016" PRIx64 "%016" PRIx64, hi, lo);
		if ((rc = pt_iommu_add(w, &d)))
			return rc;
	}
	return PT_OK;
}

/* Device context SFX of device BDF's PASID entry PE at ADDR, in format FMT; SPACE: its space. */
static pt_err vtd_pasid_dev(struct pt_iommu_walk *w, const char *fmt, unsigned bdf, uint64_t pasid,
			    const char *sfx, const uint8_t *pe, uint64_t addr, const char *space)
{
	struct pt_iommu_dev d;

	dev_init(w, &d, fmt, "PASID entry", addr, fmt == w->io->fam->device_format);
	if (space) {
		d.nkeys = 0;
		dev_key(&d, "space", "%s", space);
	}
	bdf_name(w, &d, bdf, sfx);
	d.origin.has_pasid = true;
	d.origin.pasid = pasid;
	dev_key(&d, "pasid_entry", "0x%016" PRIx64 " 0x%016" PRIx64 " 0x%016" PRIx64, pt_le64_load(pe),
		pt_le64_load(pe + 8), pt_le64_load(pe + 16));
	return pt_iommu_add(w, &d);
}

/*
 * One present PASID entry PE (64 bytes at ADDR) of device BDF: PGTT 1 is
 * a first-level (x86-64) table, 2 second-level, 4 pass-through; the format
 * refuses the others.  The device's RID_PASID entry (the one requests
 * without a PASID use, VT-d spec §9.4) is the device context itself, the
 * others `.pasidN`.  PGTT 3 is nested (VT-d spec §3.8, §9.6; Linux
 * drivers/iommu/intel/pasid.h PASID_ENTRY_PGTT_NESTED): the first-level
 * table (FLPTR, FLPM) translates the request, and every address it gives —
 * its tables' and its pages' — is an input of the same entry's second level
 * (SLPTPTR).  The second level alone is the context `….s2`; a translated
 * space named as it (':' made '-') is read through it, and the device (or
 * `.pasidN`) context is the first level in that space, as a hand-written
 * [space] translate = … and [cpu] pasid_entry, space = … would be.
 */
static pt_err vtd_pasid(struct pt_iommu_walk *w, unsigned bdf, uint64_t pasid, uint64_t rid_pasid,
			const uint8_t *pe, uint64_t addr)
{
	unsigned pgtt = pt_vtd_pgtt(pt_le64_load(pe));
	const char *dev = w->io->fam->device_format, *guest = w->io->fam->guest_format;
	char sfx[32] = "", s2[40];
	const char *xs;
	size_t before = w->nmc;
	pt_err rc;

	if (pasid != rid_pasid)
		snprintf(sfx, sizeof sfx, ".pasid%" PRIu64, pasid);
	if (pgtt != PT_VTD_PGTT_NESTED)
		return vtd_pasid_dev(w, pgtt == PT_VTD_PGTT_FIRST ? guest : dev, bdf, pasid, sfx, pe,
				     addr, NULL);
	snprintf(s2, sizeof s2, "%s.s2", sfx);
	if ((rc = vtd_pasid_dev(w, dev, bdf, pasid, s2, pe, addr, NULL)) || w->nmc == before)
		return rc;
	if ((rc = pt_iommu_xspace(w, &xs)) || !xs)
		return rc;
	before = w->nmc;
	rc = vtd_pasid_dev(w, guest, bdf, pasid, sfx, pe, addr, xs);
	if (!rc && w->nmc == before)
		pt_iommu_xspace_drop(w);
	return rc;
}

/*
 * Device BDF's scalable-mode context entry CE (32 bytes): its PASID
 * directory, read 512 entries at a time, and tables.  A directory or a
 * table reached before through another pointer is not read again
 * (iommu_seen.c): 8 devices sharing a directory of 2^14 entries that all
 * name one PASID table make that table's contexts once.
 */
static pt_err vtd_sm_device(struct pt_iommu_walk *w, unsigned bdf, const uint8_t *ce)
{
	uint8_t dir[4096], tbl[4096];
	struct pt_vtd_smctx sc;
	uint64_t dirp, rid, n;
	unsigned b = bdf >> 8, dv = (bdf >> 3) & 31, fn = bdf & 7;
	enum pt_iommu_table t;
	pt_err rc;

	pt_vtd_smctx(pt_le64_load(ce), pt_le64_load(ce + 8), &sc);
	dirp = sc.dir;
	rid = sc.rid_pasid;
	n = sc.ndir;
	if (dirp == pt_vtd_root_table(w->io->v[PT_IK_RTADDR])) {
		pt_iommu_warn(w, "%02x:%02x.%x: its PASID directory is the root table: not read",
			      b, dv, fn);
		w->n.malformed++;
		return PT_OK;
	}
	for (uint64_t di = 0; di < n && !w->stopped; di++) {
		uint64_t de, tp;

		if (di % 512 == 0) {
			t = pt_iommu_table(w, dirp + di * 8, dir, (size_t)(n - di < 512 ? n - di : 512) * 8,
					   "%02x:%02x.%x's PASID directory at %s 0x%" PRIx64, b, dv, fn,
					   w->space_name, dirp + di * 8);
			if (t == PT_IOMMU_TABLE_MISSING && !w->stopped)
				pt_iommu_warn(w, "%02x:%02x.%x: its PASID directory at %s 0x%" PRIx64
					      " is not captured", b, dv, fn, w->space_name, dirp + di * 8);
			if (t != PT_IOMMU_TABLE_OK)
				return PT_OK;
		}
		de = pt_le64_load(dir + (di % 512) * 8);
		w->n.entries++;
		if (!(de & 1))
			continue;
		w->n.present++;
		tp = pt_vtd_ptr(de);
		t = pt_iommu_table(w, tp, tbl, 4096, "the PASID table of %02x:%02x.%x's PASIDs 0x%" PRIx64
				   "-0x%" PRIx64 " at %s 0x%" PRIx64, b, dv, fn, di * 64, di * 64 + 63,
				   w->space_name, tp);
		if (t == PT_IOMMU_TABLE_MISSING && !w->stopped)
			pt_iommu_warn(w, "%02x:%02x.%x: the PASID table of PASIDs 0x%" PRIx64 "-0x%" PRIx64
				      " at %s 0x%" PRIx64 " is not captured", b, dv, fn, di * 64,
				      di * 64 + 63, w->space_name, tp);
		if (t != PT_IOMMU_TABLE_OK)
			continue;
		for (unsigned ti = 0; ti < 64 && !w->stopped; ti++) {
			w->n.entries++;
			if (!(pt_le64_load(tbl + 64 * ti) & 1))
				continue;
			w->n.present++;
			if ((rc = vtd_pasid(w, bdf, di * 64 + ti, rid, tbl + 64 * ti, tp + 64 * ti)))
				return rc;
		}
	}
	return PT_OK;
}

static pt_err vtd_sm_bus(struct pt_iommu_walk *w, unsigned bus, uint64_t lo, uint64_t hi)
{
	uint8_t ct[4096];
	pt_err rc;

	for (unsigned half = 0; half < 2 && !w->stopped; half++) {
		uint64_t e = half ? hi : lo;

		if (!(e & 1) || !vtd_table(w, pt_vtd_ptr(e), half ? "upper context table" :
					   "lower context table", bus, ct))
			continue;
		for (unsigned i = 0; i < 128 && !w->stopped; i++) {
			w->n.entries++;
			if (!(pt_le64_load(ct + 32 * i) & 1))
				continue;
			w->n.present++;
			w->n.devices++;
			if ((rc = vtd_sm_device(w, bus << 8 | half << 7 | i, ct + 32 * i)))
				return rc;
		}
	}
	return PT_OK;
}

pt_err pt_iommu_vtd(struct pt_iommu_walk *w)
{
	uint8_t rt[4096];
	uint64_t reg = w->io->v[PT_IK_RTADDR], root = pt_vtd_root_table(reg);
	unsigned ttm = pt_vtd_ttm(reg);
	pt_err rc;

	if (ttm == PT_VTD_TTM_ABORT) {
		pt_iommu_warn(w, "rtaddr 0x%" PRIx64 ": TTM 11 is abort-DMA mode: every DMA request is"
			      " blocked and no table is read (VT-d spec §11.4.5)", reg);
		return PT_OK;
	}
	if (pt_iommu_table(w, root, rt, sizeof rt, "the root table at %s 0x%" PRIx64, w->space_name,
			   root) != PT_IOMMU_TABLE_OK) {
		pt_capture_set_error(w->cap, "capture.ini:%u: [iommu %s]: its root table at %s 0x%"
				     PRIx64 " (rtaddr 0x%" PRIx64 ") is not captured", w->io->line,
				     w->io->name, w->space_name, root, reg);
		return PT_E_CAPTURE;
	}
	for (unsigned bus = 0; bus < 256 && !w->stopped; bus++) {
		uint64_t lo = pt_le64_load(rt + 16 * bus), hi = pt_le64_load(rt + 16 * bus + 8);

		w->n.entries++;
		if (!(lo & 1) && !(ttm == PT_VTD_TTM_SCALABLE && (hi & 1)))
			continue;
		w->n.present++;
		if (ttm == PT_VTD_TTM_LEGACY && pt_vtd_root_reserved(lo, hi)) {
			w->n.malformed++;
			pt_iommu_warn(w, "bus %02x: root entry 0x%016" PRIx64 "%016" PRIx64 " at %s 0x%"
				      PRIx64 " has reserved bits set (lo 11:1, hi: VT-d spec §9.1):"
				      " not read", bus, hi, lo, w->space_name, root + 16 * bus);
			continue;
		}
		rc = ttm ? vtd_sm_bus(w, bus, lo, hi) : vtd_legacy_bus(w, bus, pt_vtd_ptr(lo));
		if (rc)
			return rc;
	}
	return PT_OK;
}

/* ---- AMD-Vi ---------------------------------------------------------------- */

/*
 * DTE GV = 1 (AMD IOMMU spec 48882 §2.2.2 DTE, §2.2.6 GCR3 table; Linux
 * drivers/iommu/amd/amd_iommu_types.h DTE_FLAG_GV 55, DTE_FLAG_GIOV 54,
 * DTE_GLX 57:56, DTE_GCR3_14_12 qword 0 60:58, DTE_GCR3_30_15 qword 1
 * 31:16, DTE_GCR3_51_31 qword 1 63:43, DTE_GPT_LEVEL_SHIFT qword 2 55:54
 * with GUEST_PGTABLE_4_LEVEL 0 and _5_LEVEL 1; drivers/iommu/amd/iommu.c
 * __get_gcr3_pte(): GLX + 1 levels of 512 8-byte entries, each level
 * indexed by 9 bits of the PASID, GCR3_VALID bit 0, the guest CR3 51:12).
 * A valid GCR3 entry is an x86-64 guest context `.pasidN` (long-mode
 * tables: 4 or 5 levels by the DTE's guest paging level).  With Mode 1-6
 * its addresses go through the DTE's host (v1) tables: the host context is
 * made first and a translated space through it holds the guest contexts.
 * With Mode 0 there is no host translation (Linux's v2 page table mode,
 * amd_iommu=pgtbl_v2): the guest tables and pages are system addresses.
 * GIoV = 1 (Linux sets it in v2 mode, set_dte_gcr3_table()) makes requests
 * without a PASID use PASID 0's guest table: PASID 0 is then the device
 * context itself, and the host tables alone `.s2`.
 */
struct amd_dte {
	unsigned devid, glx, gpt, mode;
	bool giov;
	uint64_t addr, root;
	const char *xs;          /* the translated space of the host tables, NULL: none */
};

static pt_err amd_guest(struct pt_iommu_walk *w, const struct amd_dte *t, unsigned pasid,
			uint64_t e, uint64_t eaddr)
{
	struct pt_iommu_dev d;
	char sfx[32] = "";

	dev_init(w, &d, w->io->fam->guest_format, "GCR3 entry", eaddr, false);
	if (t->xs) {
		d.nkeys = 0;
		dev_key(&d, "space", "%s", t->xs);
	}
	if (!(t->giov && pasid == 0))
		snprintf(sfx, sizeof sfx, ".pasid%u", pasid);
	bdf_name(w, &d, t->devid, sfx);
	d.origin.has_pasid = true;
	d.origin.pasid = pasid;
	dev_key(&d, "cr3", "0x%" PRIx64, pt_amd_gcr3_ptr(e));
	dev_key(&d, "la57", "%u", t->gpt);
	return pt_iommu_add(w, &d);
}

/* The 512 entries of GCR3 table TBL at TP, PASIDs from P0: a guest context each valid one. */
static pt_err amd_gcr3_l0(struct pt_iommu_walk *w, const struct amd_dte *t, const uint8_t *tbl,
			  uint64_t tp, unsigned p0)
{
	pt_err rc;

	for (unsigned i0 = 0; i0 < 512 && !w->stopped; i0++) {
		uint64_t e = pt_le64_load(tbl + 8 * i0);

		w->n.entries++;
		if (!pt_amd_gcr3_valid(e))
			continue;
		w->n.present++;
		if ((rc = amd_guest(w, t, p0 + i0, e, tp + 8 * i0)))
			return rc;
	}
	return PT_OK;
}

/*
 * The valid entries of T's GCR3 table: a guest context each.  A GCR3 table
 * reached before (another DTE's, the device table itself) is not read
 * again (iommu_seen.c): an L1 table whose 512 entries name one L0 table
 * makes that table's guests once.
 */
static pt_err amd_gcr3(struct pt_iommu_walk *w, const struct amd_dte *t)
{
	uint8_t top[4096], l0[4096];
	enum pt_iommu_table r;
	pt_err rc;

	r = pt_iommu_table(w, t->root, top, sizeof top, "DeviceID 0x%04x's GCR3 table at %s 0x%"
			   PRIx64, t->devid, w->space_name, t->root);
	if (r == PT_IOMMU_TABLE_MISSING && !w->stopped)
		pt_iommu_warn(w, "DeviceID 0x%04x: its GCR3 table at %s 0x%" PRIx64 " is not"
			      " captured", t->devid, w->space_name, t->root);
	if (r != PT_IOMMU_TABLE_OK)
		return PT_OK;
	if (!t->glx)
		return amd_gcr3_l0(w, t, top, t->root, 0);
	for (unsigned i1 = 0; i1 < 512 && !w->stopped; i1++) {
		uint64_t e = pt_le64_load(top + 8 * i1), tp = pt_amd_gcr3_ptr(e);

		w->n.entries++;
		if (!pt_amd_gcr3_valid(e))
			continue;
		w->n.present++;
		if (tp == t->root) {
			pt_iommu_warn(w, "DeviceID 0x%04x: GCR3 entry %u points at its own table"
				      " at %s 0x%" PRIx64 ": not read", t->devid, i1,
				      w->space_name, tp);
			w->n.malformed++;
			continue;
		}
		r = pt_iommu_table(w, tp, l0, sizeof l0, "the GCR3 table of DeviceID 0x%04x's PASIDs"
				   " 0x%x-0x%x at %s 0x%" PRIx64, t->devid, i1 * 512, i1 * 512 + 511,
				   w->space_name, tp);
		if (r == PT_IOMMU_TABLE_MISSING && !w->stopped)
			pt_iommu_warn(w, "DeviceID 0x%04x: the GCR3 table of PASIDs 0x%x-0x%x at %s 0x%"
				      PRIx64 " is not captured", t->devid, i1 * 512, i1 * 512 + 511,
				      w->space_name, tp);
		if (r == PT_IOMMU_TABLE_OK && (rc = amd_gcr3_l0(w, t, l0, tp, i1 * 512)))
			return rc;
	}
	return PT_OK;
}

/* DTE Q (32 bytes at ADDR) of DEVID: its host context, and its guests when GV = 1. */
static pt_err amd_dte(struct pt_iommu_walk *w, unsigned devid, const uint8_t *q, uint64_t addr)
{
	uint64_t q0 = pt_le64_load(q), w4[4] = {q0, pt_le64_load(q + 8), pt_le64_load(q + 16), pt_le64_load(q + 24)};
	struct pt_amd_dte f;
	struct amd_dte t;
	bool gv;
	struct pt_iommu_dev d;
	size_t before = w->nmc, guests;
	pt_err rc;

	pt_amd_dte(w4, &f);
	t = (struct amd_dte){.devid = devid, .addr = addr, .mode = f.mode, .giov = f.giov,
			     .glx = f.glx, .gpt = f.gpt, .root = f.gcr3};
	gv = f.gv;
	if (gv && (t.glx > 1 || t.gpt > 1)) {
		pt_iommu_warn(w, "DeviceID 0x%04x: its DTE at %s 0x%" PRIx64 " has GV = 1 with %s %u"
			      " reserved: its GCR3 table is not read", devid, w->space_name, addr,
			      t.glx > 1 ? "GLX" : "guest paging level", t.glx > 1 ? t.glx : t.gpt);
		w->n.malformed++;
		gv = false;
	}
	if (!gv || t.mode || !t.giov) {
		dev_init(w, &d, w->io->fam->device_format, "DTE", addr, true);
		bdf_name(w, &d, devid, gv && t.giov ? ".s2" : "");
		dev_key(&d, "dte", "0x%016" PRIx64, q0);
		/* Mode 0, IR = IW = 0: blocked (§2.2.2; Linux's every unused DTE is V, TV alone) */
		d.blocked = !gv && !t.mode && !f.ir && !f.iw;
		if ((rc = pt_iommu_add(w, &d)) || !gv || w->nmc == before)
			return rc;
		if (t.mode && ((rc = pt_iommu_xspace(w, &t.xs)) || !t.xs))
			return rc;
	}
	guests = w->nmc;
	rc = amd_gcr3(w, &t);
	if (!rc && t.xs && w->nmc == guests)
		pt_iommu_xspace_drop(w);
	return rc;
}

pt_err pt_iommu_amdvi(struct pt_iommu_walk *w)
{
	uint8_t page[4096];
	uint64_t reg = w->io->v[PT_IK_DTB], base = pt_amd_dtb_base(reg);
	unsigned pages = pt_amd_dtb_pages(reg);
	pt_err rc;

	for (unsigned p = 0; p < pages && !w->stopped; p++) {
		enum pt_iommu_table t = pt_iommu_table(w, base + (uint64_t)4096 * p, page, sizeof page,
						       "the device table's page %u at %s 0x%" PRIx64,
						       p, w->space_name, base + (uint64_t)4096 * p);

		if (t != PT_IOMMU_TABLE_OK) {
			if (t == PT_IOMMU_TABLE_MISSING && !w->stopped)
				pt_iommu_warn(w, "the device table's page %u (DeviceIDs 0x%04x-0x%04x) at"
					      " %s 0x%" PRIx64 " is not captured (Size %u: %u pages)", p,
					      p * 128, p * 128 + 127, w->space_name,
					      base + (uint64_t)4096 * p, pages - 1, pages);
			continue;
		}
		for (unsigned i = 0; i < 128 && !w->stopped; i++) {
			w->n.entries++;
			/* a device: V and TV (V alone, on a wrong page, is any odd word) */
			w->n.present += pt_le64_load(page + 32 * i) & 1;
			w->n.devices += pt_amd_dte_device(pt_le64_load(page + 32 * i));
			/* V = 1, TV = 1: the DTE's translation fields are valid (§2.2.2) */
			if (pt_amd_dte_device(pt_le64_load(page + 32 * i)) &&
			    (rc = amd_dte(w, p * 128 + i, page + 32 * i,
					  base + (uint64_t)4096 * p + 32 * i)))
				return rc;
		}
	}
	return PT_OK;
}

/* ---- Arm SMMUv3 ------------------------------------------------------------ */

/*
 * The COUNT CDs at BASE, SubstreamIDs from SSID0, of stream SID's stage-1
 * STE: a context per valid one (V, CD word 0 bit 31).  With STE.S1DSS 10
 * (Linux STRTAB_STE_1_S1DSS_SSID0) a transaction without a SubstreamID
 * uses CD 0: that CD is the stream's own context, `.sidN`, as a VT-d
 * device's RID_PASID entry is; the other CDs are `.sidN.ssidM`.  A CD not
 * captured ends the stream's CD walk (*END); a CD read before through
 * another pointer ends this table's.
 */
static pt_err smmu_cd_table(struct pt_iommu_walk *w, struct pt_iommu_dev *d, uint64_t sid,
			    unsigned s1dss, uint64_t base, uint64_t ssid0, uint64_t count, bool *end)
{
	unsigned base_keys = d->nkeys;
	uint8_t raw[64];
	pt_err rc;

	for (uint64_t k = 0; k < count && !w->stopped; k++) {
		uint64_t ssid = ssid0 + k, cd = base + 64 * k;
		enum pt_iommu_table t = pt_iommu_table(w, cd, raw, sizeof raw, "sid %" PRIu64 "'s CD of"
						       " SSID %" PRIu64 " at %s 0x%" PRIx64, sid,
						       ssid, w->space_name, cd);

		if (t == PT_IOMMU_TABLE_MISSING) {
			if (!w->stopped)
				pt_iommu_warn(w, "sid %" PRIu64 ": the CD of SSID %" PRIu64 " at %s 0x%"
					      PRIx64 " is not captured: its CD table is read up to there",
					      sid, ssid, w->space_name, cd);
			*end = true;
			return PT_OK;
		}
		if (t == PT_IOMMU_TABLE_REPEAT)
			return PT_OK;
		w->n.entries++;
		if (!pt_smmu_cd_valid(pt_le64_load(raw)))
			continue;
		w->n.present++;
		d->nkeys = base_keys;
		if (ssid == 0 && s1dss == PT_SMMU_S1DSS_SSID0)
			snprintf(d->name, sizeof d->name, "%s.sid%" PRIu64, w->io->name, sid);
		else
			snprintf(d->name, sizeof d->name, "%s.sid%" PRIu64 ".ssid%" PRIu64, w->io->name,
				 sid, ssid);
		d->origin.has_ssid = true;
		d->origin.ssid = ssid;
		dev_key(d, "ssid", "%" PRIu64, ssid);
		if ((rc = pt_iommu_add(w, d)))
			return rc;
	}
	return PT_OK;
}

/*
 * The CDs of stream SID's stage-1 STE (S1CDMax > 0: SubstreamIDs, §5.2):
 * S1Fmt 00 a linear table of 2^S1CDMax CDs; 01 and 10 an L1CD table whose
 * descriptors (V 0, L2Ptr 51:12, §5.3) each name a leaf of 2^6 (01) or
 * 2^10 (10) CDs.  An L1CD not captured ends the walk with a warning, as a
 * CD does; an L1CD table or leaf read before through another pointer is
 * not read again (iommu_seen.c).
 */
static pt_err smmu_cds(struct pt_iommu_walk *w, struct pt_iommu_dev *d, uint64_t sid,
		       const struct pt_smmu_ste *ste)
{
	unsigned fmt = ste->s1fmt, split = pt_smmu_cd_split(fmt);
	uint64_t ptr = ste->s1ctx, n = 1ull << ste->s1cdmax, leaf = 1ull << split;
	bool end = false;
	uint8_t raw[8];
	pt_err rc = PT_OK;

	if (fmt != 1 && fmt != 2)
		return smmu_cd_table(w, d, sid, ste->s1dss, ptr, 0, n, &end);
	for (uint64_t i = 0; i * leaf < n && !end && !rc && !w->stopped; i++) {
		uint64_t l1 = ptr + 8 * i, l1cd, s0 = i * leaf, s1 = (n - s0 < leaf ? n : s0 + leaf) - 1;
		enum pt_iommu_table t = pt_iommu_table(w, l1, raw, 8, "sid %" PRIu64 "'s L1CD %" PRIu64
						       " at %s 0x%" PRIx64, sid, i, w->space_name, l1);

		if (t == PT_IOMMU_TABLE_MISSING && !w->stopped)
			pt_iommu_warn(w, "sid %" PRIu64 ": the L1CD of SSIDs %" PRIu64 "-%" PRIu64 " at %s"
				      " 0x%" PRIx64 " is not captured: its CD table is read up to there",
				      sid, s0, s1, w->space_name, l1);
		if (t != PT_IOMMU_TABLE_OK)
			break;
		l1cd = pt_le64_load(raw);
		w->n.entries++;
		/* V = 0: the whole leaf is absent */
		if (!pt_smmu_l1cd_valid(l1cd))
			continue;
		w->n.present++;
		rc = smmu_cd_table(w, d, sid, ste->s1dss, pt_smmu_l1cd_ptr(l1cd), s0, s1 - s0 + 1, &end);
	}
	return rc;
}

static pt_err smmu_ste(struct pt_iommu_walk *w, uint64_t sid, uint64_t addr, const uint8_t *ste)
{
	uint64_t sw[4] = {pt_le64_load(ste), pt_le64_load(ste + 8), pt_le64_load(ste + 16), pt_le64_load(ste + 24)};
	struct pt_smmu_ste e;
	unsigned cfg;
	struct pt_iommu_dev d;

	pt_smmu_ste(sw, &e);
	cfg = e.config;
	w->n.entries++;
	if (!e.v)
		return PT_OK;
	w->n.present++;
	w->n.devices++;
	dev_init(w, &d, w->io->fam->device_format, "STE", addr, true);
	snprintf(d.name, sizeof d.name, "%s.sid%" PRIu64, w->io->name, sid);
	d.origin.has_sid = true;
	d.origin.sid = sid;
	d.blocked = cfg == PT_SMMU_CFG_ABORT;   /* Config 000: abort (§5.2; Linux's unused STEs with disable_bypass) */
	for (unsigned i = 0; i < 4; i++)
		dev_key(&d, i == 0 ? "ste0" : i == 1 ? "ste1" : i == 2 ? "ste2" : "ste3",
			"0x%016" PRIx64, pt_le64_load(ste + 8 * i));
	/* nested (Config 111): the STE's stage 2; its CDs' tables are IPAs of that stage */
	if (cfg == PT_SMMU_CFG_NESTED) {
		dev_key(&d, "stage", "2");
		w->nested++;
	}
	if (cfg == PT_SMMU_CFG_S1 && e.s1cdmax)
		return smmu_cds(w, &d, sid, &e);
	if (cfg == PT_SMMU_CFG_S1) {
		uint8_t cd[64];

		dev_key(&d, "ssid", "0");
		/*
		 * The format's ctx_memory hook reads this CD; read here too, so that
		 * its page is among the IOMMU's (pt_capture_iommu_pages(): a snapshot
		 * copies it).  Not captured: the hook says so for the device.
		 */
		(void)pt_iommu_read(w, e.s1ctx, cd, sizeof cd);
	}
	return pt_iommu_add(w, &d);
}

pt_err pt_iommu_smmuv3(struct pt_iommu_walk *w)
{
	uint64_t base = pt_smmu_strtab_base(w->io->v[PT_IK_STRTAB]), cfg = w->io->v[PT_IK_STRCFG];
	unsigned log2 = pt_smmu_log2size(cfg), split = pt_smmu_split(cfg);
	bool two = pt_smmu_two_level(cfg);
	uint64_t nl1 = two ? (log2 > split ? 1ull << (log2 - split) : 1) : 1;
	uint8_t ste[64], raw[8];
	pt_err rc;

	for (uint64_t i = 0; i < nl1 && !w->stopped; i++) {
		uint64_t l2 = base, n = 1ull << log2, l1d = 0, sid0 = 0;

		if (two) {
			enum pt_iommu_table t = pt_iommu_table(w, base + 8 * i, raw, 8, "L1STD %" PRIu64
							       " at %s 0x%" PRIx64, i, w->space_name,
							       base + 8 * i);

			if (t != PT_IOMMU_TABLE_OK) {
				if (t == PT_IOMMU_TABLE_MISSING && !w->stopped)
					pt_iommu_warn(w, "L1STD %" PRIu64 " at %s 0x%" PRIx64 " is not"
						      " captured: the stream table is read up to there",
						      i, w->space_name, base + 8 * i);
				break;
			}
			l1d = pt_le64_load(raw);
			w->n.entries++;
			if (!pt_smmu_l1_span(l1d))
				continue;
			w->n.present++;
			if (pt_smmu_l1_span(l1d) > split + 1 || pt_smmu_l1_reserved(l1d)) {
				w->n.malformed++;
				pt_iommu_warn(w, "L1STD %" PRIu64 " 0x%016" PRIx64 " at %s 0x%" PRIx64
					      ": %s (IHI 0070 §5.1): its StreamIDs are not read", i,
					      l1d, w->space_name, base + 8 * i, pt_smmu_l1_span(l1d) > split + 1 ?
					      "Span is above SPLIT + 1" : "reserved bits are set");
				continue;
			}
			l2 = pt_smmu_l1_ptr(l1d);
			n = 1ull << (pt_smmu_l1_span(l1d) - 1);
			sid0 = i << split;
		}
		for (uint64_t j = 0; j < n && !w->stopped; j++) {
			enum pt_iommu_table t = pt_iommu_table(w, l2 + 64 * j, ste, sizeof ste, "the STE of"
							       " StreamID %" PRIu64 " at %s 0x%" PRIx64,
							       sid0 + j, w->space_name, l2 + 64 * j);

			if (t != PT_IOMMU_TABLE_OK) {
				if (t == PT_IOMMU_TABLE_MISSING && !w->stopped)
					pt_iommu_warn(w, "the STE of StreamID %" PRIu64 " at %s 0x%" PRIx64
						      " is not captured: the stream table (%s) is read up"
						      " to there", sid0 + j, w->space_name, l2 + 64 * j,
						      two ? "its L2 table" : "linear");
				break;
			}
			if ((rc = smmu_ste(w, sid0 + j, l2 + 64 * j, ste)))
				return rc;
		}
	}
	if (w->nested)
		pt_iommu_warn(w, "%u STEs are nested (Config 111): each context is their stage 2;"
			      " their CDs' stage-1 tables are not made contexts", w->nested);
	return PT_OK;
}
