/* SPDX-License-Identifier: MIT */
/*
 * iommu_walk.c — the loader's visitor of an IOMMU's one traversal
 * (pt_iommu_format.walk, core/formats/iommu_*.c; pt_iommu_format.h "The
 * traversal and its visitors"), run once memory is loaded (iommu.c): every
 * device the traversal hands it made a device context through
 * pt_iommu_add() (which bounds the contexts) as the section its format
 * reads.  Every table is read through pt_iommu_table() (iommu_seen.c):
 * once, a pointer to a table read already counted and not followed; the
 * visitor counts the entries it is shown (present, malformed, devices) for
 * the IOMMU's anomaly, and says in a warning each table not captured and
 * each entry it refuses.  Its own choices (not the scan's, roots_iotab.c):
 * a legacy root entry with reserved bits, an L1STD whose Span or reserved
 * bits are wrong, a GCR3 L1 entry naming its own table, a context table or
 * PASID directory at the root table are malformed (a warning, not read);
 * bits 63:52 of a root entry are not checked (the pointer is 51:12, and
 * Linux and QEMU read it so).  Layouts restated, no code copied:
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
#include <stdio.h>
#include <string.h>

#include "iommu_int.h"
#include "pt_ioent.h"
#include "pt_num.h"

/*
 * D for a context of FORMAT whose ENTRY (of kind KIND) is at ADDR, in the
 * section's spaces (OUTPUT: its output space too, a format that has one).
 */
static void dev_init(struct pt_iommu_walk *w, struct pt_iommu_dev *d, const char *format,
		     enum pt_ctx_entry_kind kind, const char *entry, uint64_t addr, bool output)
{
	d->format = format;
	d->blocked = false;
	memset(&d->e, 0, sizeof d->e);
	d->e.kind = kind;
	d->e.space = w->io->space;
	d->e.output_space = output ? w->io->output_space : NULL;
	memset(&d->origin, 0, sizeof d->origin);
	d->origin.iommu = w->io->name;
	d->origin.type = w->io->fam->name;
	d->origin.entry = entry;
	d->origin.entry_addr = addr;
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

/* ---- the visitor's callbacks --------------------------------------------- */

/* "bus 03's context table at sysmem 0x…" (a table read again) and its not-captured warning. */
static void describe(const struct pt_iommu_walk *w, const struct pt_iommu_node *n, char *what,
		     size_t wlen, char *miss, size_t mlen)
{
	const char *sp = w->space_name;
	unsigned b = (unsigned)(n->id >> 8), dv = (unsigned)(n->id >> 3) & 31, fn = (unsigned)n->id & 7;
	const char *ct = !n->two ? "context table" : n->half ? "upper context table" :
			 "lower context table";

	switch (n->kind) {
	case PT_IN_VTD_CTX:
		snprintf(what, wlen, "bus %02x's %s at %s 0x%" PRIx64, (unsigned)n->id, ct, sp, n->addr);
		snprintf(miss, mlen, "bus %02x: its %s at %s 0x%" PRIx64 " is not captured",
			 (unsigned)n->id, ct, sp, n->addr);
		break;
	case PT_IN_VTD_PASIDDIR:
		snprintf(what, wlen, "%02x:%02x.%x's PASID directory at %s 0x%" PRIx64, b, dv, fn, sp,
			 n->addr);
		snprintf(miss, mlen, "%02x:%02x.%x: its PASID directory at %s 0x%" PRIx64 " is not"
			 " captured", b, dv, fn, sp, n->addr);
		break;
	case PT_IN_VTD_PASID:
		snprintf(what, wlen, "the PASID table of %02x:%02x.%x's PASIDs 0x%" PRIx64 "-0x%" PRIx64
			 " at %s 0x%" PRIx64, b, dv, fn, n->first, n->last, sp, n->addr);
		snprintf(miss, mlen, "%02x:%02x.%x: the PASID table of PASIDs 0x%" PRIx64 "-0x%" PRIx64
			 " at %s 0x%" PRIx64 " is not captured", b, dv, fn, n->first, n->last, sp,
			 n->addr);
		break;
	case PT_IN_AMD_DTPAGE:
		snprintf(what, wlen, "the device table's page %u at %s 0x%" PRIx64, (unsigned)n->index,
			 sp, n->addr);
		snprintf(miss, mlen, "the device table's page %u (DeviceIDs 0x%04x-0x%04x) at %s 0x%"
			 PRIx64 " is not captured (Size %u: %u pages)", (unsigned)n->index,
			 (unsigned)n->first, (unsigned)n->last, sp, n->addr, (unsigned)n->count - 1,
			 (unsigned)n->count);
		break;
	case PT_IN_AMD_GCR3:
		snprintf(what, wlen, "DeviceID 0x%04x's GCR3 table at %s 0x%" PRIx64, (unsigned)n->id,
			 sp, n->addr);
		snprintf(miss, mlen, "DeviceID 0x%04x: its GCR3 table at %s 0x%" PRIx64 " is not"
			 " captured", (unsigned)n->id, sp, n->addr);
		break;
	case PT_IN_AMD_GCR3_L0:
		snprintf(what, wlen, "the GCR3 table of DeviceID 0x%04x's PASIDs 0x%x-0x%x at %s 0x%"
			 PRIx64, (unsigned)n->id, (unsigned)n->first, (unsigned)n->last, sp, n->addr);
		snprintf(miss, mlen, "DeviceID 0x%04x: the GCR3 table of PASIDs 0x%x-0x%x at %s 0x%"
			 PRIx64 " is not captured", (unsigned)n->id, (unsigned)n->first,
			 (unsigned)n->last, sp, n->addr);
		break;
	case PT_IN_SMMU_L1STD:
		snprintf(what, wlen, "L1STD %" PRIu64 " at %s 0x%" PRIx64, n->index, sp, n->addr);
		snprintf(miss, mlen, "L1STD %" PRIu64 " at %s 0x%" PRIx64 " is not captured: the stream"
			 " table is read up to there", n->index, sp, n->addr);
		break;
	case PT_IN_SMMU_STE:
		snprintf(what, wlen, "the STE of StreamID %" PRIu64 " at %s 0x%" PRIx64, n->id, sp,
			 n->addr);
		snprintf(miss, mlen, "the STE of StreamID %" PRIu64 " at %s 0x%" PRIx64 " is not"
			 " captured: the stream table (%s) is read up to there", n->id, sp, n->addr,
			 n->two ? "its L2 table" : "linear");
		break;
	case PT_IN_SMMU_L1CD:
		snprintf(what, wlen, "sid %" PRIu64 "'s L1CD %" PRIu64 " at %s 0x%" PRIx64, n->id,
			 n->index, sp, n->addr);
		snprintf(miss, mlen, "sid %" PRIu64 ": the L1CD of SSIDs %" PRIu64 "-%" PRIu64 " at %s"
			 " 0x%" PRIx64 " is not captured: its CD table is read up to there", n->id,
			 n->first, n->last, sp, n->addr);
		break;
	case PT_IN_SMMU_CD:
		snprintf(what, wlen, "sid %" PRIu64 "'s CD of SSID %" PRIu64 " at %s 0x%" PRIx64, n->id,
			 n->sub, sp, n->addr);
		snprintf(miss, mlen, "sid %" PRIu64 ": the CD of SSID %" PRIu64 " at %s 0x%" PRIx64
			 " is not captured: its CD table is read up to there", n->id, n->sub, sp,
			 n->addr);
		break;
	default:
		snprintf(what, wlen, "the table at %s 0x%" PRIx64, sp, n->addr);
		snprintf(miss, mlen, "the table at %s 0x%" PRIx64 " is not captured", sp, n->addr);
	}
}

/* The root table's: TTM abort-DMA (nothing read), and not captured (the section fails). */
static int ld_root(struct pt_iommu_walk *w, const struct pt_iommu_node *n, void *buf)
{
	uint64_t reg = w->io->v[PT_IK_RTADDR];
	int r;

	if (n->blocked) {
		pt_iommu_warn(w, "rtaddr 0x%" PRIx64 ": TTM 11 is abort-DMA mode: every DMA request is"
			      " blocked and no table is read (VT-d spec §11.4.5)", reg);
		return PT_IOV_REFUSED;
	}
	r = pt_iommu_table(w, n->addr, buf, n->len, "the root table at %s 0x%" PRIx64, w->space_name,
			   n->addr);
	if (r != PT_IOV_OK)
		pt_capture_set_error(w->cap, "capture.ini:%u: [iommu %s]: its root table at %s 0x%"
				     PRIx64 " (rtaddr 0x%" PRIx64 ") is not captured", w->io->line,
				     w->io->name, w->space_name, n->addr, reg);
	return r;
}

/*
 * A table through pt_iommu_table().  A VT-d context table or PASID
 * directory at the root table is a loop (VT-d has two fixed levels):
 * malformed, not read.  A PASID table there is read as any table reached
 * again (the root table's granules were noted: counted, not followed).
 */
static int ld_table(struct pt_iommu_visitor *v, const struct pt_iommu_node *n, void *buf)
{
	struct pt_iommu_walk *w = v->opaque;
	char what[224], miss[320];
	int r;

	if (n->kind == PT_IN_VTD_ROOT)
		r = ld_root(w, n, buf);
	else if (n->loop && n->kind == PT_IN_VTD_CTX) {
		pt_iommu_warn(w, "bus %02x: its %s is the root table at %s 0x%" PRIx64 ": not read",
			      (unsigned)n->id, !n->two ? "context table" : n->half ?
			      "upper context table" : "lower context table", w->space_name, n->addr);
		w->n.malformed++;
		r = PT_IOV_REFUSED;
	} else if (n->loop && n->kind == PT_IN_VTD_PASIDDIR && n->index == 0) {
		pt_iommu_warn(w, "%02x:%02x.%x: its PASID directory is the root table: not read",
			      (unsigned)(n->id >> 8), (unsigned)(n->id >> 3) & 31, (unsigned)n->id & 7);
		w->n.malformed++;
		r = PT_IOV_REFUSED;
	} else {
		describe(w, n, what, sizeof what, miss, sizeof miss);
		r = pt_iommu_table(w, n->addr, buf, n->len, "%s", what);
		if (r == PT_IOV_MISSING && !w->stopped)
			pt_iommu_warn(w, "%s", miss);
	}
	v->stop = w->stopped;
	return r;
}

/* An L1STD the loader refuses: Span above SPLIT + 1 (at most 2^SPLIT STEs) or reserved bits. */
static bool ld_l1std_bad(struct pt_iommu_walk *w, const struct pt_iommu_node *n)
{
	uint64_t d = n->w[0];
	bool span = pt_smmu_l1_span(d) > n->count + 1;

	if (!span && !pt_smmu_l1_reserved(d))
		return false;
	w->n.malformed++;
	pt_iommu_warn(w, "L1STD %" PRIu64 " 0x%016" PRIx64 " at %s 0x%" PRIx64 ": %s (IHI 0070 §5.1):"
		      " its StreamIDs are not read", n->index, d, w->space_name, n->addr,
		      span ? "Span is above SPLIT + 1" : "reserved bits are set");
	return true;
}

/* Counts every entry shown; follows the present ones it does not refuse. */
static unsigned ld_entry(struct pt_iommu_visitor *v, const struct pt_iommu_node *n)
{
	struct pt_iommu_walk *w = v->opaque;
	bool dev;

	w->n.entries++;
	if (n->kind == PT_IN_AMD_DTE) {
		/* a device: V and TV (V alone, on a wrong page, is any odd word; §2.2.2) */
		dev = pt_amd_dte_device(n->w[0]);
		w->n.present += n->present;
		w->n.devices += dev;
		return dev;
	}
	if (!n->present)
		return 0;
	w->n.present++;
	switch (n->kind) {
	case PT_IN_VTD_ROOT:
		/* legacy: lo 11:1 and all of hi reserved (§9.1) */
		if (!n->two && pt_vtd_root_reserved(n->w[0], n->w[1])) {
			w->n.malformed++;
			pt_iommu_warn(w, "bus %02x: root entry 0x%016" PRIx64 "%016" PRIx64 " at %s 0x%"
				      PRIx64 " has reserved bits set (lo 11:1, hi: VT-d spec §9.1):"
				      " not read", (unsigned)n->id, n->w[1], n->w[0], w->space_name,
				      n->addr);
			return 0;
		}
		return n->half;
	case PT_IN_VTD_CTX:
	case PT_IN_SMMU_STE:
		w->n.devices++;
		return 1;
	case PT_IN_AMD_GCR3:
		if (!n->loop)
			return 1;
		pt_iommu_warn(w, "DeviceID 0x%04x: GCR3 entry %u points at its own table at %s 0x%"
			      PRIx64 ": not read", (unsigned)n->id, (unsigned)n->index, w->space_name,
			      pt_amd_gcr3_ptr(n->w[0]));
		w->n.malformed++;
		return 0;
	case PT_IN_SMMU_L1STD:
		return !ld_l1std_bad(w, n);
	default:
		return 1;
	}
}

/* ---- Intel VT-d -------------------------------------------------------------- */

/* Device context SFX of device BDF's PASID entry PE at ADDR, in format FMT; SPACE: its space. */
static pt_err vtd_pasid_dev(struct pt_iommu_walk *w, const char *fmt, unsigned bdf, uint64_t pasid,
			    const char *sfx, const uint64_t *pe, uint64_t addr, const char *space)
{
	struct pt_iommu_dev d;

	dev_init(w, &d, fmt, PT_CE_VTD_PASID, "PASID entry", addr, fmt == w->io->fam->device_format);
	if (space) {
		d.e.space = space;
		d.e.output_space = NULL;
	}
	bdf_name(w, &d, bdf, sfx);
	d.origin.has_pasid = true;
	d.origin.pasid = pasid;
	for (unsigned i = 0; i < 3; i++)
		d.e.w[i] = pe[i];
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
			const uint64_t *pe, uint64_t addr)
{
	unsigned pgtt = pt_vtd_pgtt(pe[0]);
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
static pt_err amd_guest(struct pt_iommu_walk *w, unsigned pasid, uint64_t e, uint64_t eaddr)
{
	struct pt_iommu_dev d;
	char sfx[32] = "";

	dev_init(w, &d, w->io->fam->guest_format, PT_CE_GCR3, "GCR3 entry", eaddr, false);
	if (w->dte.xs)
		d.e.space = w->dte.xs;
	if (!(w->dte.giov && pasid == 0))
		snprintf(sfx, sizeof sfx, ".pasid%u", pasid);
	bdf_name(w, &d, w->dte.devid, sfx);
	d.origin.has_pasid = true;
	d.origin.pasid = pasid;
	d.e.cr3 = pt_amd_gcr3_ptr(e);
	d.e.la57 = w->dte.gpt;
	return pt_iommu_add(w, &d);
}

/*
 * DTE N (at N->addr) of DeviceID N->id: its host context, and *DESCEND
 * (its GCR3 table walked, a guest context each valid entry) when GV = 1.
 * GV = 1 with GLX or the guest paging level reserved: malformed, its GCR3
 * table not read (the loader's choice; the scan reads no GCR3 table).
 */
static pt_err amd_dte(struct pt_iommu_walk *w, const struct pt_iommu_node *n, bool *descend)
{
	struct pt_amd_dte f;
	struct pt_iommu_dev d;
	size_t before = w->nmc;
	bool gv;
	pt_err rc;

	pt_amd_dte(n->w, &f);
	gv = f.gv;
	w->dte = (struct pt_iommu_dte){.devid = (unsigned)n->id, .giov = f.giov, .gpt = f.gpt};
	if (gv && (f.glx > 1 || f.gpt > 1)) {
		pt_iommu_warn(w, "DeviceID 0x%04x: its DTE at %s 0x%" PRIx64 " has GV = 1 with %s %u"
			      " reserved: its GCR3 table is not read", (unsigned)n->id, w->space_name,
			      n->addr, f.glx > 1 ? "GLX" : "guest paging level",
			      f.glx > 1 ? f.glx : f.gpt);
		w->n.malformed++;
		gv = false;
	}
	if (!gv || f.mode || !f.giov) {
		dev_init(w, &d, w->io->fam->device_format, PT_CE_AMD_DTE, "DTE", n->addr, true);
		bdf_name(w, &d, (unsigned)n->id, gv && f.giov ? ".s2" : "");
		d.e.w[0] = n->w[0];
		/* Mode 0, IR = IW = 0: blocked (§2.2.2; Linux's every unused DTE is V, TV alone) */
		d.blocked = !gv && !f.mode && !f.ir && !f.iw;
		if ((rc = pt_iommu_add(w, &d)) || !gv || w->nmc == before)
			return rc;
		if (f.mode && ((rc = pt_iommu_xspace(w, &w->dte.xs)) || !w->dte.xs))
			return rc;
	}
	w->dte.guests = w->nmc;
	*descend = true;
	return PT_OK;
}

/* After a DTE's guests: the translated space made for them taken back when none was made. */
static void ld_leave(struct pt_iommu_visitor *v, const struct pt_iommu_node *n)
{
	struct pt_iommu_walk *w = v->opaque;

	(void)n;
	if (w->dte.xs && w->nmc == w->dte.guests)
		pt_iommu_xspace_drop(w);
}

/* ---- Arm SMMUv3 ------------------------------------------------------------ */

/*
 * The device of the STE SW at ADDR of stream SID, as [smmu] ste0..3: a
 * stream with S1DSS 10 (Linux STRTAB_STE_1_S1DSS_SSID0) and its CD 0 is
 * `.sidN`, as a VT-d device's RID_PASID entry is; its other CDs are
 * `.sidN.ssidM` (pt_iommu_format.walk hands each valid CD).
 */
static void smmu_dev(struct pt_iommu_walk *w, struct pt_iommu_dev *d, uint64_t sid, uint64_t addr,
		     const uint64_t *sw, const struct pt_smmu_ste *e)
{
	dev_init(w, d, w->io->fam->device_format, PT_CE_SMMU_STE, "STE", addr, true);
	snprintf(d->name, sizeof d->name, "%s.sid%" PRIu64, w->io->name, sid);
	d->origin.has_sid = true;
	d->origin.sid = sid;
	d->blocked = e->config == PT_SMMU_CFG_ABORT;   /* Config 000: abort (§5.2; Linux's unused STEs with disable_bypass) */
	for (unsigned i = 0; i < PT_SMMU_STE_WORDS; i++)
		d->e.w[i] = sw[i];
}

static pt_err smmu_device(struct pt_iommu_walk *w, const struct pt_iommu_node *n)
{
	struct pt_smmu_ste e;
	struct pt_iommu_dev d;

	pt_smmu_ste(n->w, &e);
	if (n->kind == PT_IN_SMMU_CD) {
		smmu_dev(w, &d, n->id, n->parent, n->w, &e);
		if (n->sub != 0 || e.s1dss != PT_SMMU_S1DSS_SSID0)
			snprintf(d.name, sizeof d.name, "%s.sid%" PRIu64 ".ssid%" PRIu64, w->io->name,
				 n->id, n->sub);
		d.origin.has_ssid = true;
		d.origin.ssid = n->sub;
		d.e.has_ssid = true;
		d.e.ssid = n->sub;
		return pt_iommu_add(w, &d);
	}
	smmu_dev(w, &d, n->id, n->addr, n->w, &e);
	/* nested (Config 111): the STE's stage 2; its CDs' tables are IPAs of that stage */
	if (e.config == PT_SMMU_CFG_NESTED) {
		d.e.stage2 = true;
		w->nested++;
	}
	if (e.config == PT_SMMU_CFG_S1) {
		uint8_t cd[64];

		d.e.has_ssid = true;
		/*
		 * The format's ctx_memory hook reads this CD; read here too, so that
		 * its page is among the IOMMU's (pt_capture_iommu_pages(): a snapshot
		 * copies it).  Not captured: the hook says so for the device.
		 */
		(void)pt_iommu_read(w, e.s1ctx, cd, sizeof cd);
	}
	return pt_iommu_add(w, &d);
}

/* ---- the devices, and the walk ----------------------------------------------- */

static pt_err ld_device(struct pt_iommu_visitor *v, const struct pt_iommu_node *n, bool *descend)
{
	struct pt_iommu_walk *w = v->opaque;
	struct pt_iommu_dev d;
	pt_err rc;

	switch (n->kind) {
	case PT_IN_VTD_CTX:
		dev_init(w, &d, w->io->fam->device_format, PT_CE_VTD_CONTEXT, "context entry", n->addr,
			 true);
		bdf_name(w, &d, (unsigned)n->id, "");
		d.e.w[0] = n->w[0];
		d.e.w[1] = n->w[1];
		rc = pt_iommu_add(w, &d);
		break;
	case PT_IN_VTD_PASID:
		rc = vtd_pasid(w, (unsigned)n->id, n->sub, n->rid_pasid, n->w, n->addr);
		break;
	case PT_IN_AMD_DTE:
		rc = amd_dte(w, n, descend);
		break;
	case PT_IN_AMD_GCR3_L0:
		rc = amd_guest(w, (unsigned)n->sub, n->w[0], n->addr);
		break;
	default:
		rc = smmu_device(w, n);
	}
	v->stop = w->stopped;
	return rc;
}

pt_err pt_iommu_walk_tables(struct pt_iommu_walk *w)
{
	pt_err rc;

	w->v = (struct pt_iommu_visitor){.opaque = w, .on_table = ld_table, .on_entry = ld_entry,
					 .on_device = ld_device, .on_leave = ld_leave};
	rc = w->io->fam->walk(&w->v, w->io->v);
	if (!rc && w->nested)
		pt_iommu_warn(w, "%u STEs are nested (Config 111): each context is their stage 2;"
			      " their CDs' stage-1 tables are not made contexts", w->nested);
	return rc;
}
