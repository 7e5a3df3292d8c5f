/* SPDX-License-Identifier: MIT */
/*
 * fmt_ver3.c — NVIDIA GMMU VER3 (Hopper GH100, Blackwell GB10x/GB20x): the
 * level table, the entry decoder and the chip-family leaf rule (docs/design.md §2.3).
 *
 * Bit ranges come from docs/design.md §2.3 and its sources (§7), whose source is
 * NVIDIA open-gpu-kernel-modules swref/published/hopper/gh100/dev_mmu.h
 * (NV_MMU_VER3_*, identical in UVM's hwref and nouveau's nvhw copy), RM
 * kern_gmmu_fmt_gh10x.c / kern_gmmu_fmt_gb10x.c (levels and field use) and
 * UVM uvm_hopper_mmu.c / uvm_mmu.h (how the fields are written and read).
 * Each mask below names the hardware field it decodes.
 *
 * Output field order is fixed per entry layout (the renderer prints fields
 * in list order, and identical captures must give identical files):
 *
 *   PTE (pte_big, pte_small):
 *     valid aperture aperture_name pcf pcf_name uncached privileged
 *     read_only no_atomic access_counting_disabled kind kind_name kind_known
 *     peer_id address address_complete page_size reserved_bits reserved_mask
 *   PDE (pde4 .. pde1, bit 0 clear, or where no leaf is allowed):
 *     is_pte is_leaf aperture aperture_name pcf pcf_name uncached no_ats
 *     address reserved_bits reserved_mask
 *   dual PDE (pde0, bit 0 clear):
 *     is_pte is_leaf aperture_big aperture_big_name pcf_big pcf_big_name
 *     uncached_big no_ats_big address_big aperture_small aperture_small_name
 *     pcf_small pcf_small_name uncached_small no_ats_small address_small
 *     reserved_bits reserved_mask(128)
 *   leaf PDE (pde2, pde1 with bit 0 set; pde0 with bit 0 set: 128-bit mask):
 *     is_pte is_leaf + the PTE list
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fmt_ver2.h"
#include "fmt_ver3.h"
#include "pt_capture.h"
#include "pt_format.h"
#include "pt_buf.h"
#include "pt_num.h"

/*
 * Geometry: RM kgmmuFmtInitLevels_GH10X ("NUM_VA_BITS = 57"), UVM
 * index_bits_hopper {1, 9, 9, 9, 8, 5|9} and entry_size_hopper (16 at
 * PD0), nouveau gh100_vmm_desc_12/_16.  leaf_shift is the page shift where
 * an entry of the level may be a PTE in any VER3 chip (the superset: PD2's
 * 256 GiB leaf is Blackwell's only); pt_ver3_leaf_allowed() says which family
 * allows which.
 */
const struct pt_level pt_ver3_levels[] = {
	/* name         depth va_shift bits size role         leaf_shift child */
	{"pde4",        0,    56,      1,   8,   PT_ROLE_DIR,  0,  {L_PDE3, -1}},
	{"pde3",        1,    47,      9,   8,   PT_ROLE_DIR,  0,  {L_PDE2, -1}},
	{"pde2",        2,    38,      9,   8,   PT_ROLE_DIR,  38, {L_PDE1, -1}},
	{"pde1",        3,    29,      9,   8,   PT_ROLE_DIR,  29, {L_PDE0, -1}},
	/* PD0 is 16 bytes always: a dual PDE, or a 2 MiB PTE in the low half. */
	{"pde0",        4,    21,      8,   16,  PT_ROLE_DUAL, 21, {L_PTE_BIG, L_PTE_SMALL}},
	/* UVM and nouveau implement only 64 KiB big pages on VER3 (Part A.2). */
	{"pte_big",     5,    16,      5,   8,   PT_ROLE_LEAF,  0,  {-1, -1}},
	{"pte_small",   5,    12,      9,   8,   PT_ROLE_LEAF,  0,  {-1, -1}},
	{NULL,          0,    0,       0,   0,   0,            0,  {-1, -1}},
};

/*
 * Hopper's table: the same geometry without PD2 leaves (RM
 * kgmmuFmtInitLevels_GH10X leaves pLevels[2] bPageTable clear), so that
 * nothing reads a 256 GiB page size off a Hopper context's levels.
 */
static const struct pt_level ver3_levels_hopper[] = {
	{"pde4",        0,    56,      1,   8,   PT_ROLE_DIR,  0,  {L_PDE3, -1}},
	{"pde3",        1,    47,      9,   8,   PT_ROLE_DIR,  0,  {L_PDE2, -1}},
	{"pde2",        2,    38,      9,   8,   PT_ROLE_DIR,  0,  {L_PDE1, -1}},
	{"pde1",        3,    29,      9,   8,   PT_ROLE_DIR,  29, {L_PDE0, -1}},
	{"pde0",        4,    21,      8,   16,  PT_ROLE_DUAL, 21, {L_PTE_BIG, L_PTE_SMALL}},
	{"pte_big",     5,    16,      5,   8,   PT_ROLE_LEAF,  0,  {-1, -1}},
	{"pte_small",   5,    12,      9,   8,   PT_ROLE_LEAF,  0,  {-1, -1}},
	{NULL,          0,    0,       0,   0,   0,            0,  {-1, -1}},
};

/*
 * Whether an entry of LEVEL may be a PTE on FAMILY.  PT 64K/4K always; PD0
 * (2 MiB) and PD1 (512 MiB) on every VER3 chip (GH10X pLevels[4] and [3]
 * bPageTable); PD2 (256 GiB) only on Blackwell: GB10X sets pLevels[2]
 * bPageTable (its comment says "Page directory 1", its code and diagram say
 * PD2 [46:38]; the code is what runs).  RM's table is the rule for the
 * integrated GB10B/GB20B too, although UVM's integrated HAL never writes
 * 512 MiB or 256 GiB leaves.  PD4 and PD3 never hold a PTE.
 */
bool pt_ver3_leaf_allowed(enum ver3_family family, unsigned level)
{
	switch (level) {
	case L_PTE_BIG:
	case L_PTE_SMALL:
	case L_PDE0:
	case L_PDE1:
		return true;
	case L_PDE2:
		return family == VER3_FAMILY_ANY || family == VER3_FAMILY_BLACKWELL;
	default:
		return false;
	}
}

/* Space ids (fmt_ver3.h): index into this list. */
static const char *const ver3_spaces[] = {
	"vidmem", "sysmem",
	"peer0", "peer1", "peer2", "peer3", "peer4", "peer5", "peer6", "peer7",
	NULL
};

/* PTE APERTURE 2:1 values (differ from the PDE's: 0 is video here). */
static const char *const pte_aperture_names[4] = {
	"video", "peer", "sys_coherent", "sys_noncoherent"
};
/* PDE / dual PDE APERTURE values: 0 means "no table"; there is no peer value. */
static const char *const pde_aperture_names[4] = {
	"invalid", "video", "sys_coherent", "sys_noncoherent"
};

/* NV_MMU_VER3_PTE_PCF_* when VALID = 1: all 32 are defined by the hardware. */
static const char *const pte_pcf_valid_names[32] = {
	"REGULAR_RW_ATOMIC_CACHED_ACE", "REGULAR_RW_ATOMIC_UNCACHED_ACE",
	"PRIVILEGE_RW_ATOMIC_CACHED_ACE", "PRIVILEGE_RW_ATOMIC_UNCACHED_ACE",
	"REGULAR_RO_ATOMIC_CACHED_ACE", "REGULAR_RO_ATOMIC_UNCACHED_ACE",
	"PRIVILEGE_RO_ATOMIC_CACHED_ACE", "PRIVILEGE_RO_ATOMIC_UNCACHED_ACE",
	"REGULAR_RW_NO_ATOMIC_CACHED_ACE", "REGULAR_RW_NO_ATOMIC_UNCACHED_ACE",
	"PRIVILEGE_RW_NO_ATOMIC_CACHED_ACE", "PRIVILEGE_RW_NO_ATOMIC_UNCACHED_ACE",
	"REGULAR_RO_NO_ATOMIC_CACHED_ACE", "REGULAR_RO_NO_ATOMIC_UNCACHED_ACE",
	"PRIVILEGE_RO_NO_ATOMIC_CACHED_ACE", "PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACE",
	"REGULAR_RW_ATOMIC_CACHED_ACD", "REGULAR_RW_ATOMIC_UNCACHED_ACD",
	"PRIVILEGE_RW_ATOMIC_CACHED_ACD", "PRIVILEGE_RW_ATOMIC_UNCACHED_ACD",
	"REGULAR_RO_ATOMIC_CACHED_ACD", "REGULAR_RO_ATOMIC_UNCACHED_ACD",
	"PRIVILEGE_RO_ATOMIC_CACHED_ACD", "PRIVILEGE_RO_ATOMIC_UNCACHED_ACD",
	"REGULAR_RW_NO_ATOMIC_CACHED_ACD", "REGULAR_RW_NO_ATOMIC_UNCACHED_ACD",
	"PRIVILEGE_RW_NO_ATOMIC_CACHED_ACD", "PRIVILEGE_RW_NO_ATOMIC_UNCACHED_ACD",
	"REGULAR_RO_NO_ATOMIC_CACHED_ACD", "REGULAR_RO_NO_ATOMIC_UNCACHED_ACD",
	"PRIVILEGE_RO_NO_ATOMIC_CACHED_ACD", "PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACD",
};
/* NV_MMU_VER3_PTE_PCF_* when VALID = 0: only 0..3 are defined (4..31 have no name). */
enum { PCF_INVALID = 0, PCF_SPARSE = 1, PCF_MAPPING_NOWHERE = 2, PCF_NO_VALID_4KB_PAGE = 3 };
static const char *const pte_pcf_invalid_names[4] = {
	"INVALID", "SPARSE", "MAPPING_NOWHERE", "NO_VALID_4KB_PAGE"
};
/* NV_MMU_VER3_PDE_PCF_* (also DUAL_PDE_PCF_BIG/SMALL); the aperture picks the list. */
static const char *const pde_pcf_invalid_names[4] = {
	"INVALID_ATS_ALLOWED", "SPARSE_ATS_ALLOWED",
	"INVALID_ATS_NOT_ALLOWED", "SPARSE_ATS_NOT_ALLOWED"
};
static const char *const pde_pcf_valid_names[4] = {
	"VALID_CACHED_ATS_ALLOWED", "VALID_UNCACHED_ATS_ALLOWED",
	"VALID_CACHED_ATS_NOT_ALLOWED", "VALID_UNCACHED_ATS_NOT_ALLOWED"
};

/* NV_MMU_VER3_PTE_KIND_* (11:8), the same 16 names on gh100, gb202 and gb20b. */
static const char *const ver3_kind_names[16] = {
	"PITCH", "Z16", "S8", "S8Z24", "ZF32_X24S8", "Z24S8", "GENERIC_MEMORY",
	"INVALID", "GENERIC_MEMORY_COMPRESSIBLE",
	"GENERIC_MEMORY_COMPRESSIBLE_DISABLE_PLC", "S8_COMPRESSIBLE_DISABLE_PLC",
	"Z16_COMPRESSIBLE_DISABLE_PLC", "S8Z24_COMPRESSIBLE_DISABLE_PLC",
	"ZF32_X24S8_COMPRESSIBLE_DISABLE_PLC", "Z24S8_COMPRESSIBLE_DISABLE_PLC",
	"SMSKED_MESSAGE",
};

/* Bits HI:LO of V, shifted down. */
static inline uint64_t bits(uint64_t v, unsigned hi, unsigned lo)
{
	unsigned w = hi - lo + 1;

	return (v >> lo) & (w >= 64 ? ~0ull : (1ull << w) - 1);
}

/* PTE fields (NV_MMU_VER3_PTE_*). */
#define PTE_VALID(r)          bits(r, 0, 0)    /* VALID */
#define PTE_APERTURE(r)       bits(r, 2, 1)    /* APERTURE */
#define PTE_PCF(r)            bits(r, 7, 3)    /* PCF: "Permission Control Flags" */
#define PTE_KIND(r)           bits(r, 11, 8)   /* KIND */
#define PTE_ADDRESS(r)        bits(r, 51, 12)  /* ADDRESS: PA >> 12, every aperture */
#define PTE_PEER_ID(r)        bits(r, 63, 61)  /* PEER_ID */
#define PTE_RESERVED          0x1ff0000000000000ull   /* 60:52: not defined */
/* PCF bits of a valid PTE, read off the 32 names (formats-next.md A.5). */
#define PCF_UNCACHED          0x01u
#define PCF_PRIVILEGE         0x02u
#define PCF_RO                0x04u
#define PCF_NO_ATOMIC         0x08u
#define PCF_ACD               0x10u

/* PDE fields (NV_MMU_VER3_PDE_*, PD4..PD1). */
#define PDE_IS_PTE(r)         bits(r, 0, 0)    /* IS_PTE (= VALID) */
#define PDE_APERTURE(r)       bits(r, 2, 1)    /* APERTURE */
#define PDE_PCF(r)            bits(r, 5, 3)    /* PCF: 0..3 defined */
#define PDE_ADDRESS(r)        bits(r, 51, 12)  /* ADDRESS: table >> 12, every aperture */
#define PDE_RESERVED          0xfff0000000000fc0ull   /* 11:6, 63:52 */
/* PDE PCF bits (formats-next.md A.3): bit0 sparse/uncached, bit1 ATS not allowed. */
#define PDE_PCF_BIT0          0x1u
#define PDE_PCF_NO_ATS        0x2u

/* Dual PDE, low 8 bytes = big half (NV_MMU_VER3_DUAL_PDE_*_BIG). */
#define DUAL_APERTURE_BIG(lo) bits(lo, 2, 1)   /* APERTURE_BIG */
#define DUAL_PCF_BIG(lo)      bits(lo, 5, 3)   /* PCF_BIG */
#define DUAL_ADDR_BIG(lo)     bits(lo, 51, 8)  /* ADDRESS_BIG: table >> 8 (256-byte tables) */
/* Dual PDE, high 8 bytes = small half: entry bit N is bit N-64 here. */
#define DUAL_APERTURE_SMALL(hi) bits(hi, 2, 1)   /* APERTURE_SMALL 66:65 */
#define DUAL_PCF_SMALL(hi)      bits(hi, 5, 3)   /* PCF_SMALL 69:67 */
#define DUAL_ADDR_SMALL(hi)     bits(hi, 51, 12) /* ADDRESS_SMALL 115:76: table >> 12 */
#define DUAL_RESERVED_LO        0xfff00000000000c0ull   /* 7:6, 63:52 */
#define DUAL_RESERVED_HI        0xfff0000000000fc1ull   /* 64, 75:70, 127:116 */

/* Bit 0 of a directory entry: IS_PTE, printed also as is_leaf like VER2's. */
static void add_is_pte(struct pt_entry *e, uint64_t bit0)
{
	pt_entry_add(e, "is_pte", PT_FK_BIT, bit0);
	pt_entry_add(e, "is_leaf", PT_FK_BIT, bit0);
}

/*
 * The 8-byte PTE layout of R: state, leaf summary and fields up to
 * page_size.  The caller adds the reserved fields.
 */
static void decode_pte(struct pt_entry *e, uint64_t r, uint64_t page_size)
{
	unsigned ap = (unsigned)PTE_APERTURE(r);
	unsigned pcf = (unsigned)PTE_PCF(r);
	unsigned kind = (unsigned)PTE_KIND(r);
	bool valid = PTE_VALID(r) != 0;
	/* PCF meanings as permissions exist only in a valid PTE; VALID=0 gives states. */
	unsigned perm = valid ? pcf : 0;
	/*
	 * One ADDRESS field (51:12) for VIDEO, PEER and SYS: RM
	 * kgmmuFmtInitPte_GH10X inits fldAddrVidmem/Peer/Sysmem all from
	 * NV_MMU_VER3_PTE_ADDRESS, and that function formats every VER3 chip,
	 * Blackwell included (g_kern_gmmu_nvoc.c).  The narrower
	 * ADDRESS_VID 39:12 of UVM ("unmaintained by HW") and of the removed
	 * blackwell/gb100 hwref is how one driver writes vidmem, not what the
	 * hardware reads, so it is not a separate field here.
	 */
	uint64_t addr = PTE_ADDRESS(r) << 12;
	const char *pcf_name;
	unsigned space;

	if (ap == 1)
		space = SP_PEER0 + (unsigned)PTE_PEER_ID(r);
	else if (ap == 0)
		space = SP_VIDMEM;
	else
		space = SP_SYSMEM;

	if (valid)
		pcf_name = pte_pcf_valid_names[pcf];
	else
		pcf_name = pcf < 4 ? pte_pcf_invalid_names[pcf] : NULL;

	if (r == 0)
		e->state = PT_ST_UNMAPPED;
	else if (valid)
		e->state = PT_ST_MAPPED;
	else if (pcf == PCF_INVALID)
		e->state = PT_ST_INVALID;
	else if (pcf == PCF_SPARSE)
		e->state = PT_ST_SPARSE;
	else if (pcf == PCF_NO_VALID_4KB_PAGE)
		e->state = PT_ST_NO_VALID_4K;
	else
		/*
		 * MAPPING_NOWHERE (2) is a hardware value no source explains and
		 * no driver writes; 4..31 are undefined (RM: NOT_SUPPORTED).  Either
		 * way what the MMU does is unknown: unsupported, never a guess;
		 * pcf_name still says MAPPING_NOWHERE where it is.
		 */
		e->state = PT_ST_UNSUPPORTED;

	e->kind = (int)kind;
	e->page_size = page_size;
	e->perm = ((perm & PCF_RO) ? PT_PERM_READ_ONLY : 0) |
		  ((perm & PCF_NO_ATOMIC) ? PT_PERM_ATOMIC_DISABLE : 0) |
		  ((perm & PCF_PRIVILEGE) ? PT_PERM_PRIVILEGE : 0) |
		  ((perm & PCF_UNCACHED) ? PT_PERM_VOLATILE : 0);
	if (e->state == PT_ST_MAPPED) {
		e->leaf = true;
		e->space = space;
		e->pa = addr;
		e->address_complete = true;
	}

	pt_entry_add(e, "valid", PT_FK_BIT, valid);
	pt_entry_add(e, "aperture", PT_FK_UINT, ap);
	pt_entry_add_str(e, "aperture_name", pte_aperture_names[ap]);
	pt_entry_add(e, "pcf", PT_FK_HEX, pcf);
	pt_entry_add_str(e, "pcf_name", pcf_name);
	pt_entry_add(e, "uncached", PT_FK_BIT, (perm & PCF_UNCACHED) != 0);
	pt_entry_add(e, "privileged", PT_FK_BIT, (perm & PCF_PRIVILEGE) != 0);
	pt_entry_add(e, "read_only", PT_FK_BIT, (perm & PCF_RO) != 0);
	pt_entry_add(e, "no_atomic", PT_FK_BIT, (perm & PCF_NO_ATOMIC) != 0);
	pt_entry_add(e, "access_counting_disabled", PT_FK_BIT, (perm & PCF_ACD) != 0);
	pt_entry_add(e, "kind", PT_FK_HEX, kind);
	pt_entry_add_str(e, "kind_name", ver3_kind_names[kind]);
	pt_entry_add(e, "kind_known", PT_FK_BOOL, 1);
	pt_entry_add(e, "peer_id", PT_FK_UINT, PTE_PEER_ID(r));
	pt_entry_add(e, "address", PT_FK_HEX, addr);
	pt_entry_add(e, "address_complete", PT_FK_BOOL, 1);
	pt_entry_add(e, "page_size", PT_FK_HEX, page_size);
}

/* Where a directory aperture (1 video, 2/3 system) puts its table. */
static unsigned pde_space(unsigned ap)
{
	return ap == 1 ? SP_VIDMEM : SP_SYSMEM;
}

static void set_target(struct pt_entry *e, unsigned which, int level, unsigned ap, uint64_t addr)
{
	e->target[which].present = true;
	e->target[which].level = (int8_t)level;
	e->target[which].space = pde_space(ap);
	e->target[which].addr = addr;
}

/* The upstream name of a PDE PCF under aperture AP; NULL for the undefined 4..7. */
static const char *pde_pcf_name(unsigned ap, unsigned pcf)
{
	if (pcf >= 4)
		return NULL;
	return ap == 0 ? pde_pcf_invalid_names[pcf] : pde_pcf_valid_names[pcf];
}

/*
 * The state of a directory half with aperture AP and PCF: PCF 4..7 are
 * undefined (RM kgmmuTranslatePdePcfFromHw_GH100: NOT_SUPPORTED), so
 * unsupported; with aperture 0, PCF bit 0 is sparse, else invalid.
 */
static enum pt_state pde_state(unsigned ap, unsigned pcf)
{
	if (pcf >= 4)
		return PT_ST_UNSUPPORTED;
	if (ap != 0)
		return PT_ST_POINTER;
	return (pcf & PDE_PCF_BIT0) ? PT_ST_SPARSE : PT_ST_INVALID;
}

/* The PCF meaning fields of one directory half (SUFFIX "" or "_big"/"_small"). */
static void add_pde_pcf(struct pt_entry *e, unsigned ap, unsigned pcf, const char *pcf_key,
			const char *name_key, const char *uncached_key, const char *ats_key)
{
	pt_entry_add(e, pcf_key, PT_FK_HEX, pcf);
	pt_entry_add_str(e, name_key, pde_pcf_name(ap, pcf));
	/* Bit 0 means uncached only for a valid aperture; with aperture 0 it is sparse (the state). */
	pt_entry_add(e, uncached_key, PT_FK_BIT, ap != 0 && (pcf & PDE_PCF_BIT0));
	pt_entry_add(e, ats_key, PT_FK_BIT, (pcf & PDE_PCF_NO_ATS) != 0);
}

/* PD4, PD3, PD2, PD1: 8-byte PDE, or a 512 MiB / 256 GiB PTE where allowed. */
static void decode_pde(struct pt_entry *e, unsigned level, uint64_t r, enum ver3_family family)
{
	const struct pt_level *lv = &pt_ver3_levels[level];
	unsigned ap = (unsigned)PDE_APERTURE(r);
	unsigned pcf = (unsigned)PDE_PCF(r);
	uint64_t addr = PDE_ADDRESS(r) << 12;

	add_is_pte(e, PDE_IS_PTE(r));
	/* Without a context (FAMILY ANY): the superset of the families (see pt_ver3_leaf_allowed()). */
	if (PDE_IS_PTE(r) && lv->leaf_shift && pt_ver3_leaf_allowed(family, level)) {
		decode_pte(e, r, 1ull << lv->leaf_shift);
		pt_entry_add_reserved(e, r & PTE_RESERVED, 0, false);
		return;
	}

	if (r == 0)
		e->state = PT_ST_UNMAPPED;
	else if (PDE_IS_PTE(r))
		e->state = PT_ST_UNSUPPORTED;   /* PD4/PD3 never hold a PTE, Hopper's PD2 neither */
	else
		e->state = pde_state(ap, pcf);
	if (e->state == PT_ST_POINTER)
		set_target(e, 0, lv->child[0], ap, addr);

	pt_entry_add(e, "aperture", PT_FK_UINT, ap);
	pt_entry_add_str(e, "aperture_name", pde_aperture_names[ap]);
	add_pde_pcf(e, ap, pcf, "pcf", "pcf_name", "uncached", "no_ats");
	pt_entry_add(e, "address", PT_FK_HEX, addr);
	/*
	 * A PTE where the level (or the family) allows none is unsupported as a
	 * whole: its bits are no PDE's, so they are not reserved bits of one
	 * (the walk and check then say unsupported, not reserved_bits).
	 */
	pt_entry_add_reserved(e, PDE_IS_PTE(r) ? 0 : r & PDE_RESERVED, 0, false);
}

/* PD0: 16-byte dual PDE, or a 2 MiB PTE in the low half. */
static void decode_dual(struct pt_entry *e, unsigned level, uint64_t lo, uint64_t hi)
{
	const struct pt_level *lv = &pt_ver3_levels[level];
	unsigned apb = (unsigned)DUAL_APERTURE_BIG(lo);
	unsigned aps = (unsigned)DUAL_APERTURE_SMALL(hi);
	unsigned pcfb = (unsigned)DUAL_PCF_BIG(lo);
	unsigned pcfs = (unsigned)DUAL_PCF_SMALL(hi);
	uint64_t big = DUAL_ADDR_BIG(lo) << 8;
	uint64_t small = DUAL_ADDR_SMALL(hi) << 12;

	add_is_pte(e, PDE_IS_PTE(lo));
	if (PDE_IS_PTE(lo)) {
		/*
		 * The whole slot is a 2 MiB PTE in the low half; nouveau
		 * gh100_vmm_pd0_pte writes the high half 0, so any bit there is reserved.
		 */
		decode_pte(e, lo, 1ull << lv->leaf_shift);
		pt_entry_add_reserved(e, lo & PTE_RESERVED, hi, true);
		return;
	}

	if (lo == 0 && hi == 0) {
		e->state = PT_ST_UNMAPPED;
	} else if ((apb != 0 && pcfb >= 4) || (aps != 0 && pcfs >= 4)) {
		e->state = PT_ST_UNSUPPORTED;   /* a table reached through an undefined PCF */
	} else if (apb != 0 || aps != 0) {
		/* Either or both: mixed 64K/4K coverage of one 2 MiB range is legal. */
		e->state = PT_ST_POINTER;
		if (apb != 0)
			set_target(e, 0, lv->child[0], apb, big);
		if (aps != 0)
			set_target(e, 1, lv->child[1], aps, small);
	} else {
		/*
		 * Both apertures INVALID: PCF_BIG bit 0 says sparse (RM
		 * sparsePdeMulti and nouveau gh100_vmm_pd0_sparse set it only
		 * there); an undefined PCF in either half is unsupported.
		 */
		e->state = pcfs >= 4 ? PT_ST_UNSUPPORTED : pde_state(0, pcfb);
	}

	pt_entry_add(e, "aperture_big", PT_FK_UINT, apb);
	pt_entry_add_str(e, "aperture_big_name", pde_aperture_names[apb]);
	add_pde_pcf(e, apb, pcfb, "pcf_big", "pcf_big_name", "uncached_big", "no_ats_big");
	pt_entry_add(e, "address_big", PT_FK_HEX, big);
	pt_entry_add(e, "aperture_small", PT_FK_UINT, aps);
	pt_entry_add_str(e, "aperture_small_name", pde_aperture_names[aps]);
	add_pde_pcf(e, aps, pcfs, "pcf_small", "pcf_small_name", "uncached_small", "no_ats_small");
	pt_entry_add(e, "address_small", PT_FK_HEX, small);
	pt_entry_add_reserved(e, lo & DUAL_RESERVED_LO, hi & DUAL_RESERVED_HI, true);
}

static pt_err decode_family(enum ver3_family family, unsigned level, unsigned page_shift,
			    const uint8_t *raw, unsigned flags, struct pt_entry *out)
{
	const struct pt_level *lv;

	if (level >= L_COUNT || !raw) {
		pt_entry_reset(out, 0, NULL, flags);
		out->state = PT_ST_UNSUPPORTED;
		return PT_E_UNSUPPORTED;
	}
	lv = &pt_ver3_levels[level];
	pt_entry_reset(out, lv->entry_size, raw, flags);
	switch (lv->role) {
	case PT_ROLE_DIR:
		decode_pde(out, level, out->raw[0], family);
		break;
	case PT_ROLE_DUAL:
		decode_dual(out, level, out->raw[0], out->raw[1]);
		break;
	default:
		/* page_shift 0: a loose value whose table (64K or 4K) is unknown. */
		decode_pte(out, out->raw[0],
			   page_shift && page_shift < 64 ? 1ull << page_shift : 0);
		pt_entry_add_reserved(out, out->raw[0] & PTE_RESERVED, 0, false);
		break;
	}
	return PT_OK;
}

/* No context (ptfs-tool decode): what some VER3 chip allows. */
static pt_err ver3_decode(unsigned level, unsigned page_shift, const uint8_t *raw, unsigned flags,
			  struct pt_entry *out)
{
	return decode_family(VER3_FAMILY_ANY, level, page_shift, raw, flags, out);
}

static pt_err ver3_decode_hopper(unsigned level, unsigned page_shift, const uint8_t *raw, unsigned flags,
				 struct pt_entry *out)
{
	return decode_family(VER3_FAMILY_HOPPER, level, page_shift, raw, flags, out);
}

static pt_err ver3_decode_blackwell(unsigned level, unsigned page_shift, const uint8_t *raw, unsigned flags,
				    struct pt_entry *out)
{
	return decode_family(VER3_FAMILY_BLACKWELL, level, page_shift, raw, flags, out);
}

/*
 * maps and walk FLAGS: the entry-file names of the PCF meanings that are
 * set, joined by ',' ("-" when none), in VER2's order (read_only first,
 * the one users filter on), access_counting_disabled last:
 *   e.g.  "-"                     REGULAR_RW_ATOMIC_CACHED_ACE
 *         "read_only,no_atomic"   REGULAR_RO_NO_ATOMIC_CACHED_ACE
 * All five set is 64 characters: a shorter buffer gets whole words only.
 */
static void ver3_flags(const struct pt_entry *e, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} words[] = {
		{PCF_RO, "read_only"},
		{PCF_NO_ATOMIC, "no_atomic"},
		{PCF_PRIVILEGE, "privileged"},
		{PCF_UNCACHED, "uncached"},
		{PCF_ACD, "access_counting_disabled"},
	};
	/* The PCF of every VER3 leaf (PTE, or a PD0/PD1/PD2 PTE) is bits 7:3 of the low word. */
	unsigned pcf = PTE_VALID(e->raw[0]) ? (unsigned)PTE_PCF(e->raw[0]) : 0;
	size_t off = 0;

	if (len == 0)
		return;
	snprintf(buf, len, "-");
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		int n;

		if (!(pcf & words[i].bit))
			continue;
		n = snprintf(buf + off, len - off, "%s%s", off ? "," : "", words[i].name);
		if (n < 0 || (size_t)n >= len - off) {
			buf[off] = 0;   /* never half a word */
			return;
		}
		off += (size_t)n;
	}
}

/* maps KIND column: the VER3 kind name (all 16 ids of the 4-bit field have one). */
static void ver3_kind_name(const struct pt_entry *e, char *buf, size_t len)
{
	if (e->kind < 0 || e->kind > 15) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(buf, len, "%s", ver3_kind_names[e->kind]);
}

/* ---- the [pdb NAME] context --------------------------------------------- */

/*
 * capture.ini `chip` (formats-next.md §S.1/A.1): the chip names the family,
 * and the family which directory levels may hold a page.  gb20x stands for
 * the discrete GB20x parts (GB202..GB207).
 */
static const struct {
	const char *name;
	enum ver3_family family;
} ver3_chips[] = {
	{"gh100", VER3_FAMILY_HOPPER},
	{"gb100", VER3_FAMILY_BLACKWELL},
	{"gb10b", VER3_FAMILY_BLACKWELL},
	{"gb20x", VER3_FAMILY_BLACKWELL},
	{"gb20b", VER3_FAMILY_BLACKWELL},
};
#define VER3_NCHIPS (sizeof ver3_chips / sizeof ver3_chips[0])

/* A [pdb NAME] section of a VER3 capture (the context's priv). */
struct ver3_ctx {
	/*
	 * space, address (of the PD4 table) and big_page_size: the keys of
	 * every NVIDIA [pdb] section, read by VER2's code (pt_nv_pdb_key).
	 * UVM and nouveau implement only 64 KiB big pages on VER3
	 * (formats-next.md A.2), so 64K is the only size.
	 */
	struct pt_ver2_ctx pdb;
	unsigned chip;            /* index into ver3_chips */
	bool have_chip;
	/* The context's descriptor: pt_format_ver3 with the family's levels and decoder. */
	struct pt_format fmt;
};

static const struct pt_blob_kind ver3_blob_kinds[] = {
	{"ver3", 8},
	{"ver3_dual", 16},
	{NULL, 0},
};

static pt_err ver3_ctx_key(void *priv, const struct pt_ctx_key *k)
{
	struct ver3_ctx *c = priv;
	pt_err rc = pt_nv_pdb_key(&c->pdb, k, &pt_format_ver3, "VER3", false);

	if (rc != PT_E_NOTFOUND)
		return rc;
	if (!strcmp(k->key, "chip")) {
		for (unsigned i = 0; i < VER3_NCHIPS; i++)
			if (!strcmp(k->value, ver3_chips[i].name)) {
				c->chip = i;
				c->have_chip = true;
				return PT_OK;
			}
		/* Never a default: the chip decides which leaves exist. */
		return pt_ctx_key_fail(k, PT_E_VALUE,
				       "chip '%s' in %s is not a VER3 chip (gh100, gb100, gb10b, gb20x, gb20b)",
				       k->value, k->label);
	}
	return PT_E_NOTFOUND;
}

static const char *ver3_ctx_missing(const void *priv)
{
	const struct ver3_ctx *c = priv;

	return !c->pdb.have_space ? "space" : !c->pdb.have_address ? "address" : !c->have_chip ? "chip" : NULL;
}

static pt_err ver3_ctx_setup(struct pt_context *ctx, char *err, size_t errlen)
{
	struct ver3_ctx *c = ctx->priv;
	bool hopper = ver3_chips[c->chip].family == VER3_FAMILY_HOPPER;

	(void)err;
	(void)errlen;
	if (!c->pdb.big_page_size)
		c->pdb.big_page_size = 65536;    /* the default when the key is absent */
	c->fmt = pt_format_ver3;
	c->fmt.levels = hopper ? ver3_levels_hopper : pt_ver3_levels;
	c->fmt.decode = hopper ? ver3_decode_hopper : ver3_decode_blackwell;
	ctx->fmt = &c->fmt;
	ctx->root_space = c->pdb.space;
	ctx->root_addr = c->pdb.address;
	ctx->root_entries = (uint64_t)1 << pt_ver3_levels[0].bits;
	ctx->root_page_shift = 0;
	ctx->va_base = 0;
	return PT_OK;
}

static const char *ver3_family_name(enum ver3_family f)
{
	return f == VER3_FAMILY_HOPPER ? "hopper" : "blackwell";
}

static void ver3_info_text(const struct pt_context *ctx, struct pt_buf *b)
{
	const struct ver3_ctx *c = ctx->priv;
	char size[24];

	if (!c || !c->have_chip)
		return;
	pt_buf_printf(b, "chip: %s\n", ver3_chips[c->chip].name);
	pt_buf_printf(b, "family: %s\n", ver3_family_name(ver3_chips[c->chip].family));
	pt_size_str(c->pdb.big_page_size, size, sizeof size);
	pt_buf_printf(b, "big_page_size: %s\n", size);
}

static void ver3_info_json(const struct pt_context *ctx, struct pt_jobj *o)
{
	const struct ver3_ctx *c = ctx->priv;

	if (!c || !c->have_chip)
		return;
	pt_jobj_str(o, "chip", ver3_chips[c->chip].name);
	pt_jobj_str(o, "family", ver3_family_name(ver3_chips[c->chip].family));
	pt_jobj_hex(o, "big_page_size", c->pdb.big_page_size);
}

/* Audit reasons: the PTE field names (decode_pte()) of the PCF meanings. */
static const struct pt_perm_name ver3_perm_names[] = {
	{PT_PERM_READ_ONLY, "read_only"},
	{PT_PERM_ATOMIC_DISABLE, "no_atomic"},
	{PT_PERM_PRIVILEGE, "privileged"},
	{PT_PERM_VOLATILE, "uncached=1"},
	{0, NULL},
};

/* ptfs-tool roots: the [pdb] keys of CTX (pt_nv_geom_keys: struct ver3_ctx starts with them) and its chip. */
static void ver3_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini)
{
	const struct ver3_ctx *c = ctx->priv;

	pt_nv_geom_keys(ctx, space, root, ini);
	pt_buf_printf(ini, "chip = %s\n", ver3_chips[c->chip].name);
}

const struct pt_format pt_format_ver3 = {
	.name = "nv-gmmu-ver3",
	.levels = pt_ver3_levels,
	.va_bits = 57,
	.va_digits = 15,
	.spaces = ver3_spaces,
	.decode = ver3_decode,
	.flags = ver3_flags,
	.kind_name = ver3_kind_name,
	.blob_kinds = ver3_blob_kinds,
	.ctx_section = "pdb",
	.ctx_size = sizeof(struct ver3_ctx),
	.ctx_key = ver3_ctx_key,
	.ctx_missing = ver3_ctx_missing,
	.ctx_setup = ver3_ctx_setup,
	.info_text = ver3_info_text,
	.info_json = ver3_info_json,
	.perm_names = ver3_perm_names,
	.encode = pt_ver3_encode,
	.build_keys = pt_nv_build_keys,
	.geom_keys = ver3_geom_keys,
};
