/* SPDX-License-Identifier: MIT */
/*
 * pt_iommu_format.h — the IOMMUs as a family, as pt_format.h makes the
 * page-table formats one (HACKING.md "Adding an IOMMU: one file plus one
 * line"): one const struct pt_iommu_format per IOMMU
 * (core/formats/iommu_vtd.c, iommu_amdvi.c, iommu_smmuv3.c) and the list
 * core/formats/iommu.c.  Each owns its name, its register keys and their
 * checks, and the decoding of its own tables' entries: every field a
 * reader of those tables (the loader, `ptfs-tool roots --iommu`, the IOMMU
 * tree) takes out of a raw entry or register is decoded here, never by
 * shift-and-mask in the reader (check_tests/check_decode.py).
 */
#ifndef PT_IOMMU_FORMAT_H
#define PT_IOMMU_FORMAT_H

/* The include rule (HACKING.md, "Layers"): the formats layer's, never included below it. */
#if defined(PT_LAYER_UTIL)
#error "pt_iommu_format.h belongs to core/formats: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"

struct pt_iommu_visitor;

/* The IOMMU of an [iommu] section (docs/design.md §2.7): the one enum of the set. */
enum pt_iommu_kind { PT_IOMMU_KIND_VTD = 1, PT_IOMMU_KIND_AMDVI, PT_IOMMU_KIND_SMMUV3 };

/* The register keys of an [iommu] section (and max_contexts), by index. */
enum {
	PT_IK_RTADDR, PT_IK_DTB, PT_IK_SEGMENT, PT_IK_STRTAB, PT_IK_STRCFG, PT_IK_MAXCTX, PT_IK__COUNT,
};
/* Their capture.ini names, by PT_IK_*. */
extern const char *const pt_iommu_key_names[PT_IK__COUNT];
/* The keys that are registers naming its tables (an IOMMU's info shows them, in this order). */
#define PT_IK_TABLE_REGS (1u << PT_IK_RTADDR | 1u << PT_IK_DTB | 1u << PT_IK_STRTAB | 1u << PT_IK_STRCFG)

struct pt_iommu_format {
	const char *name;               /* the [iommu] type value: "intel-vtd" */
	enum pt_iommu_kind kind;
	const char *device_format;      /* the pt_format of its device contexts */
	const char *guest_format;       /* of its first-level / guest tables (x86-64), NULL: none */
	unsigned keys;                  /* the PT_IK_* register keys it takes, one bit each */
	unsigned required;              /* those it must be given */
	/*
	 * Its registers' own checks, V and LINE by PT_IK_* (line 0: not
	 * given): 0, or the line of the first bad one with MSG the problem,
	 * naming LABEL ("[iommu NAME]").
	 */
	unsigned (*check)(const uint64_t *v, const unsigned *line, const char *label, char *msg,
			  size_t len);
	/* The registers that name its tables, as "KEY 0x…" text (an anomaly's detail). */
	void (*regs_text)(const uint64_t *v, char *out, size_t len);
	/*
	 * Whether registers V block every request, no table read (NULL: none
	 * do): its tables then yield no device and that is no anomaly.
	 */
	bool (*blocks_all)(const uint64_t *v);
	/*
	 * The widths of the ids its registers V give: a device (VT-d's
	 * requester ID, AMD-Vi's DeviceID: 16 bits; SMMUv3's StreamID:
	 * LOG2SIZE, at most 32) and the ids below one device (VT-d scalable
	 * mode's PASIDs, SMMUv3's SubstreamIDs: 20 bits; else 0).
	 */
	void (*id_bits)(const uint64_t *v, unsigned *dev, unsigned *sub);
	/*
	 * The one traversal of its tables from registers REG (by PT_IK_*):
	 * every table, entry and device handed to V's callbacks (below).
	 * PT_E_CAPTURE when its first table is not there (on_table said so),
	 * else what a callback returned.
	 */
	pt_err (*walk)(struct pt_iommu_visitor *v, const uint64_t *reg);
};

/*
 * ---- The traversal and its visitors --------------------------------------
 *
 * A walk (pt_iommu_format.walk, one per IOMMU in its file) knows the
 * tables' shape: which table a pointer names, how many entries it has, how
 * ids are numbered, what is a device.  What to do with them is the
 * visitor's: the loader (core/load/iommu_walk.c: device contexts and
 * warnings), `ptfs-tool roots --iommu` (core/walk/roots_iotab.c: one
 * candidate's score).  The walk reads nothing itself (a format does not
 * call the loader): every table comes through on_table, which reads it.
 * The checks that differ are the visitors' own choices, each said where
 * the visitor makes it (a present entry with reserved bits: the loader
 * warns and skips one, the scan counts it against a candidate).
 */
enum pt_iommu_node_kind {
	PT_IN_VTD_ROOT,       /* the root table; a root entry (id: the bus; w: lo, hi) */
	PT_IN_VTD_CTX,        /* a context table (half: scalable upper); an entry or legacy device */
	PT_IN_VTD_PASIDDIR,   /* a part of a PASID directory (index: its first entry); an entry */
	PT_IN_VTD_PASID,      /* a PASID table (first..last: its PASIDs); an entry, a device */
	PT_IN_AMD_DTPAGE,     /* a page of the device table (index: the page; count: pages) */
	PT_IN_AMD_DTE,        /* a DTE: an entry (w: 4 quadwords), the host device */
	PT_IN_AMD_GCR3,       /* a DTE's GCR3 table; an entry of its level 1 (GLX 1) */
	PT_IN_AMD_GCR3_L0,    /* a GCR3 leaf table (first..last: its PASIDs); a guest entry, device */
	PT_IN_SMMU_L1STD,     /* an L1STD: the table (8 bytes, index), the entry */
	PT_IN_SMMU_STE,       /* an STE: the table (64 bytes), the entry, a device (no CD walk) */
	PT_IN_SMMU_L1CD,      /* an L1CD (index; first..last: its SSIDs) */
	PT_IN_SMMU_CD,        /* a CD (64 bytes); the entry; a device (w: its STE's, parent: its address) */
};

/* What on_table, on_entry, on_device are told. */
struct pt_iommu_node {
	enum pt_iommu_node_kind kind;
	uint64_t addr;          /* the table's or entry's address */
	size_t len;             /* a table: the bytes to read */
	const uint64_t *w;      /* an entry, a device: its words (a CD's device: its STE's) */
	bool present;           /* an entry: its present (valid) bit */
	bool loop;              /* a pointer at a table above it (VT-d's root table, a GCR3
				   L1 entry's own table) */
	bool blocked;           /* VT-d root: TTM 11, abort-DMA: nothing is read (VT-d §11.4.5) */
	bool two;               /* SMMUv3: a 2-level stream table; VT-d: scalable mode */
	unsigned half;          /* VT-d scalable: the context table's half (devfn 128-255); a root
				   entry: a bit per half whose P is set */
	uint64_t id;            /* the bus (VT-d root entry, context table), requester ID, DeviceID, StreamID */
	uint64_t sub;           /* the PASID or SubstreamID */
	uint64_t index, count;  /* an L1 entry's (or table part's) index; AMD-Vi: the table's
				   pages; SMMUv3 L1STD: SPLIT */
	uint64_t first, last;   /* the ids a table holds */
	uint64_t parent;        /* a CD's device: its STE's address */
	uint64_t rid_pasid;     /* a VT-d PASID entry: its device's RID_PASID (VT-d §9.4) */
};

/* on_table's answers: read, not captured (or past a bound), read before, not read (refused). */
enum { PT_IOV_OK, PT_IOV_MISSING, PT_IOV_REPEAT, PT_IOV_REFUSED };

struct pt_iommu_visitor {
	void *opaque;
	/* SubstreamIDs and PASIDs read per device at most (0: all the tables hold) */
	uint64_t max_ids;
	/* set by a callback: nothing more is read */
	bool stop;
	/* Table N into BUF (N->len bytes): a PT_IOV_* answer. */
	int (*on_table)(struct pt_iommu_visitor *v, const struct pt_iommu_node *n, void *buf);
	/*
	 * Entry N: 0 to leave it, else to go below it (a device, its table).
	 * A VT-d root entry: bit H to read its half H's context table.
	 */
	unsigned (*on_entry)(struct pt_iommu_visitor *v, const struct pt_iommu_node *n);
	/*
	 * Device N.  *DESCEND (false on entry) true: walk the tables below
	 * it (an AMD-Vi DTE's GCR3 table), then on_leave(N) if set.
	 */
	pt_err (*on_device)(struct pt_iommu_visitor *v, const struct pt_iommu_node *n, bool *descend);
	void (*on_leave)(struct pt_iommu_visitor *v, const struct pt_iommu_node *n);
};

/*
 * A device entry an IOMMU's walk found (core/formats/iommu_*.c), handed
 * to its context's format as it was decoded (pt_format.h ctx_entry), not as
 * text: what a hand-written section's keys would say — [vtd] context,
 * [vtd] or [cpu] pasid_entry, [cpu] cr3 and la57 of a GCR3 entry, [amdvi]
 * dte, [smmu] ste0..3 with ssid and stage.  The walk made the entry's own
 * presence check (P, V, V and TV: it hands no other entry as a device),
 * so the format does not make it again; every other check of the entry
 * is the format's, as for a section.  LINE and LABEL name it in messages
 * as a section's keys would be named.
 */
enum pt_ctx_entry_kind {
	PT_CE_VTD_CONTEXT,   /* w[0] lo, w[1] hi of a legacy context entry (VT-d §9.3) */
	PT_CE_VTD_PASID,     /* w[0..2] QW0-QW2 of a PASID entry (VT-d §9.6) */
	PT_CE_GCR3,          /* a guest's CR3 (cr3) and 5-level paging (la57) from a GCR3 entry */
	PT_CE_AMD_DTE,       /* w[0] DTE word 0 (AMD IOMMU spec §2.2.2) */
	PT_CE_SMMU_STE,      /* w[0..3] STE words 0-3 (IHI 0070 §5.2), ssid, stage2 */
};
struct pt_ctx_entry {
	enum pt_ctx_entry_kind kind;
	uint64_t w[4];
	uint64_t cr3;
	unsigned la57;
	bool has_ssid;            /* the CD of SubstreamID ssid (its STE's CD table) */
	uint64_t ssid;
	bool stage2;              /* a nested STE's stage 2 */
	/* the capture's names of its table and output spaces; NULL: the format's default */
	const char *space, *output_space;
	unsigned line;
	const char *label;
};

extern const struct pt_iommu_format pt_iommu_vtd_format, pt_iommu_amdvi_format,
	pt_iommu_smmuv3_format;
/* The family, NULL-terminated (core/formats/iommu.c). */
extern const struct pt_iommu_format *const pt_iommu_format_list[];
/* By [iommu] type name, or NULL. */
const struct pt_iommu_format *pt_iommu_format_find(const char *name);
/* By kind, or NULL. */
const struct pt_iommu_format *pt_iommu_format_of(enum pt_iommu_kind kind);
/* The name of KIND ("?" for none). */
const char *pt_iommu_kind_name(unsigned kind);
/* The page-table formats every IOMMU's device contexts may have, NULL-terminated (their spaces). */
extern const char *const pt_iommu_device_formats[];

/* ---- Intel VT-d (VT-d spec §9.1-9.6, §11.4.5; iommu_vtd.c) ---------------- */

/* RTADDR_REG: the root table (63:12, below 52 bits), TTM 11:10. */
uint64_t pt_vtd_root_table(uint64_t rtaddr);
unsigned pt_vtd_ttm(uint64_t rtaddr);
#define PT_VTD_TTM_LEGACY 0
#define PT_VTD_TTM_SCALABLE 1
#define PT_VTD_TTM_ABORT 3
/* A pointer of a root, scalable context or PASID directory entry (51:12). */
uint64_t pt_vtd_ptr(uint64_t e);
/* A legacy root entry LO/HI with reserved bits set (lo 11:1, all of hi: §9.1). */
bool pt_vtd_root_reserved(uint64_t lo, uint64_t hi);
/*
 * One half of a root entry as the roots scan judges it: 1 present, 0
 * absent, -1 refused (not present and not zero, or reserved bits 11:1 or
 * 63:52 set).
 */
int pt_vtd_root_half(uint64_t e);
/* Scalable-mode context entry Q0/Q1: PASID directory, its entries (2^(PDTS+7)), RID_PASID. */
struct pt_vtd_smctx {
	uint64_t dir, ndir, rid_pasid;
};
void pt_vtd_smctx(uint64_t q0, uint64_t q1, struct pt_vtd_smctx *out);
/* PASID entry word 0: PGTT 8:6 (1 first-level, 2 second-level, 3 nested, 4 pass-through). */
unsigned pt_vtd_pgtt(uint64_t q0);
#define PT_VTD_PGTT_FIRST 1
#define PT_VTD_PGTT_NESTED 3
/*
 * Where one entry is, for a reader that finds one (core/view/iotab.c):
 * whether RTADDR names a root table to read (TTM 10, 11: no, §11.4.5); a
 * root, context or PASID directory entry's P (bit 0); BUS's root entry
 * (16 bytes); DEVFN's context table half (scalable: devfn 7) and entry in
 * table PTR (legacy 16 bytes by devfn, scalable 32 by devfn 6:0); PASID's
 * directory index (19:6), its directory entry (8 bytes) and its PASID table
 * entry in TABLE (64 bytes by 5:0, §9.4-9.6).
 */
bool pt_vtd_reads_root(uint64_t rtaddr);
bool pt_vtd_present(uint64_t e);
uint64_t pt_vtd_root_entry(uint64_t rtaddr, unsigned bus);
unsigned pt_vtd_ctx_half(unsigned devfn, bool sm);
uint64_t pt_vtd_ctx_entry(uint64_t ptr, unsigned devfn, bool sm);
uint64_t pt_vtd_pasiddir_index(uint64_t pasid);
uint64_t pt_vtd_pasiddir_entry(uint64_t dir, uint64_t pasid);
uint64_t pt_vtd_pasid_entry(uint64_t table, uint64_t pasid);
/*
 * For a reader of whole tables (the walk, the roots scan): the buses of a
 * root table (256 entries of 16 bytes); the devfns a context table half
 * holds (legacy: 256 of 16 bytes, scalable: 128 of 32) and its entries'
 * words; the PASIDs of one PASID table (64 of 64 bytes, 8 words).
 */
#define PT_VTD_BUSES 256u
#define PT_VTD_ROOT_WORDS 2u
unsigned pt_vtd_ctx_count(bool sm);
unsigned pt_vtd_ctx_words(bool sm);
#define PT_VTD_PASID_ENTRIES 64u
#define PT_VTD_PASID_WORDS 8u

/* ---- AMD-Vi (AMD IOMMU spec 48882 §2.2.2, §3.3.1; iommu_amdvi.c) ---------- */

/* Device Table Base Address Register: base 51:12, Size 8:0 (4 KiB pages - 1). */
uint64_t pt_amd_dtb_base(uint64_t reg);
unsigned pt_amd_dtb_pages(uint64_t reg);
/* DTE word 0 V (bit 0); V = 1 and TV = 1: its translation fields are valid, a device. */
bool pt_amd_dte_valid(uint64_t q0);
bool pt_amd_dte_device(uint64_t q0);
/* The device table's DTEs (128 to a 4 KiB page) and DEVID's DTE (32 bytes), from the register. */
#define PT_AMD_DTE_PAGE 128u
#define PT_AMD_DTE_WORDS 4u
uint64_t pt_amd_dte_count(uint64_t reg);
uint64_t pt_amd_dte_addr(uint64_t reg, uint64_t devid);
struct pt_amd_dte {
	unsigned mode, glx, gpt;   /* Mode 11:9, GLX 57:56, guest paging level (q2 55:54) */
	bool gv, giov, ir, iw;
	uint64_t gcr3;             /* the GCR3 table root pointer (q0 60:58, q1 31:16, q1 63:43) */
};
void pt_amd_dte(const uint64_t *q, struct pt_amd_dte *out);
/* A V = 1 DTE the roots scan refuses (roots_iommu.c's comment says why). */
bool pt_amd_dte_bad(uint64_t q0, uint64_t q1);
/* A GCR3 table entry: valid (bit 0), its table or guest CR3 (51:12). */
bool pt_amd_gcr3_valid(uint64_t e);
uint64_t pt_amd_gcr3_ptr(uint64_t e);
/* A GCR3 table level: 512 entries of 8 bytes, each indexed by 9 bits of the PASID (§2.2.6). */
#define PT_AMD_GCR3_ENTRIES 512u
uint64_t pt_amd_gcr3_entry(uint64_t table, uint64_t i);

/* ---- Arm SMMUv3 (IHI 0070 §5.1-5.4, §6.3.23/24; iommu_smmuv3.c) ----------- */

/* STRTAB_BASE ADDR 51:6; STRTAB_BASE_CFG LOG2SIZE 5:0, SPLIT 10:6, FMT 17:16. */
uint64_t pt_smmu_strtab_base(uint64_t reg);
unsigned pt_smmu_log2size(uint64_t cfg);
unsigned pt_smmu_split(uint64_t cfg);
bool pt_smmu_two_level(uint64_t cfg);
/* L1STD: Span 4:0 (0: invalid), L2Ptr 51:6, reserved 63:52 and 5. */
unsigned pt_smmu_l1_span(uint64_t d);
uint64_t pt_smmu_l1_ptr(uint64_t d);
bool pt_smmu_l1_reserved(uint64_t d);
/* 1 a valid L1STD, 0 Span 0, -1 refused (reserved bits, no L2Ptr, Span above SPLIT + 1). */
int pt_smmu_l1_check(uint64_t d, unsigned split);
/* STE word 0 V, Config 3:1 (0 abort, 4 bypass, 5 stage 1, 6 stage 2, 7 nested). */
struct pt_smmu_ste {
	bool v;
	unsigned config, s1fmt, s1cdmax, s1dss;   /* S1Fmt 5:4, S1CDMax 63:59, S1DSS word 1 1:0 */
	uint64_t s1ctx;                           /* S1ContextPtr 51:6 */
};
void pt_smmu_ste(const uint64_t *w, struct pt_smmu_ste *out);
bool pt_smmu_ste_valid(uint64_t w0);
#define PT_SMMU_CFG_ABORT 0
#define PT_SMMU_CFG_S1 5
#define PT_SMMU_CFG_S2 6
#define PT_SMMU_CFG_NESTED 7
#define PT_SMMU_S1DSS_SSID0 2
/* A V = 1 STE the roots scan refuses (RES0, reserved Config, a stage field in abort/bypass). */
bool pt_smmu_ste_bad(const uint64_t *w);
/*
 * Where one entry is (core/view/iotab.c): the StreamID bits LOG2SIZE
 * names (at most 32); the L1STDs (2^(bits - SPLIT), at least 1) and L1STD
 * N (8 bytes); the STEs of a level-2 table of SPAN (2^(Span - 1)); STE or
 * CD I of TABLE (64 bytes); STE E's CD table when it has one (V, Config
 * stage 1, S1Fmt not the reserved 11) and its CDs (2^S1CDMax, S1CDMax at
 * most MAXBITS); the L1CD of SSID under S1Fmt FMT (8 bytes, §5.2-5.4).
 */
unsigned pt_smmu_sid_bits(uint64_t cfg);
uint64_t pt_smmu_l1_count(uint64_t cfg);
uint64_t pt_smmu_l1_addr(uint64_t strtab_base, uint64_t n);
uint64_t pt_smmu_l2_count(unsigned span);
uint64_t pt_smmu_entry64(uint64_t table, uint64_t i);
bool pt_smmu_ste_cdtab(const struct pt_smmu_ste *e);
uint64_t pt_smmu_cd_count(const struct pt_smmu_ste *e, unsigned maxbits);
uint64_t pt_smmu_l1cd_addr(uint64_t table, uint64_t ssid, unsigned fmt);
/*
 * The STEs of a linear stream table (2^LOG2SIZE, at most 2^32); StreamID
 * SID's L1STD and its index in that L1STD's level-2 table (SID >> SPLIT,
 * its bits below SPLIT), and L1STD N's first StreamID; the STE words a
 * walk reads (0-3: V, Config, S1Fmt, S1ContextPtr, S1CDMax, S1DSS, S2TTB).
 */
uint64_t pt_smmu_linear_count(uint64_t cfg);
uint64_t pt_smmu_l1_index(uint64_t cfg, uint64_t sid);
uint64_t pt_smmu_l2_index(uint64_t cfg, uint64_t sid);
uint64_t pt_smmu_l1_first_sid(uint64_t cfg, uint64_t n);
#define PT_SMMU_STE_WORDS 4u
/*
 * A CD table under S1Fmt FMT: two-level (01, 10: L1CDs of leaves of
 * 2^cd_split CDs) or linear (00, and the reserved 11, which behaves as 00:
 * §5.2); SSID's CD in TABLE (linear: the table; two-level: the leaf its
 * L1CD names).
 */
bool pt_smmu_cd_two_level(unsigned s1fmt);
uint64_t pt_smmu_cd_addr(uint64_t table, uint64_t ssid, unsigned fmt);
/* L1CD: V 0, L2Ptr 51:12, the rest RES0 (§5.3); CD: V word 0 bit 31. */
bool pt_smmu_l1cd_valid(uint64_t d);
uint64_t pt_smmu_l1cd_ptr(uint64_t d);
bool pt_smmu_l1cd_reserved(uint64_t d);
bool pt_smmu_cd_valid(uint64_t w0);
/* The CDs of one L1CD leaf under S1Fmt FMT (01: 2^6, 10: 2^10), log2. */
unsigned pt_smmu_cd_split(unsigned s1fmt);

#endif
