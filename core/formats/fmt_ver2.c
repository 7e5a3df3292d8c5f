/* SPDX-License-Identifier: MIT */
/*
 * fmt_ver2.c — NVIDIA GMMU VER2 (Pascal/Volta/Turing, reference chip TU104):
 * the level table and the entry decoder (docs/design.md §2.1).
 *
 * Bit ranges come from docs/design.md §2.1 and its sources (§7) (NVIDIA open-gpu-doc
 * tu104 dev_mmu.ref.txt, open-gpu-kernel-modules swref/uvm headers, nouveau
 * vmmgp100.c); each mask below names the hardware field it decodes.
 *
 * Output field order is fixed per entry layout (the renderer prints fields
 * in list order, and identical captures must give identical files):
 *
 *   PTE (pte_big, pte_small):
 *     valid aperture aperture_name volatile encrypted privilege read_only
 *     atomic_disable address_sys address_vid peer_id comptagline kind
 *     kind_name kind_known kind_native address address_complete page_size
 *     reserved_bits reserved_mask
 *   PDE (pde3, pde2, pde1):
 *     is_pte is_leaf [is_pde_pointer] aperture aperture_name volatile no_ats
 *     address_sys address_vid peer_id address reserved_bits reserved_mask
 *   dual PDE (pde0, bit 0 clear):
 *     is_pte is_leaf [is_pde_pointer] aperture_big aperture_big_name
 *     volatile_big no_ats address_big_sys address_big_vid peer_id_big
 *     address_big aperture_small aperture_small_name volatile_small
 *     address_small_sys address_small_vid peer_id_small address_small
 *     reserved_bits reserved_mask(128)
 *   2 MiB PTE (pde0, bit 0 set):
 *     is_pte is_leaf [is_pde_pointer] + the PTE list, reserved_mask(128)
 *
 * The _sys/_vid address fields are JSON only: `address` (address_big,
 * address_small) is already the one the aperture selects (0 for an invalid
 * aperture; raw keeps the bits), so a changed PA is one text line.
 * [is_pde_pointer] is JSON only: the seed decoder's name for bit 0, kept for
 * compatibility although its value is IS_PTE, i.e. 0 for a pointer.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fmt_ver2.h"
#include "pt_buf.h"
#include "pt_num.h"

/* Level indices into ver2_levels[]. */
enum {
	L_PDE3 = 0,
	L_PDE2,
	L_PDE1,
	L_PDE0,
	L_PTE_BIG,
	L_PTE_SMALL,
	L_COUNT
};

/* Geometry: RM kgmmuFmtInitLevels_GP10X, UVM num_va_bits 49, nouveau gp100_vmm_desc_16. */
static const struct pt_level ver2_levels[] = {
	/* name         depth va_shift bits size role         leaf_shift child */
	{"pde3",        0,    47,      2,   8,   PT_ROLE_DIR,  0,  {L_PDE2, -1}},
	{"pde2",        1,    38,      9,   8,   PT_ROLE_DIR,  0,  {L_PDE1, -1}},
	{"pde1",        2,    29,      9,   8,   PT_ROLE_DIR,  0,  {L_PDE0, -1}},
	/* PD0 is 16 bytes always: a dual PDE, or a 2 MiB PTE in the low half. */
	{"pde0",        3,    21,      8,   16,  PT_ROLE_DUAL, 21, {L_PTE_BIG, L_PTE_SMALL}},
	/* Only 64 KiB big pages: a 128 KiB big page size is refused at load. */
	{"pte_big",     4,    16,      5,   8,   PT_ROLE_LEAF,  0,  {-1, -1}},
	{"pte_small",   4,    12,      9,   8,   PT_ROLE_LEAF,  0,  {-1, -1}},
	{NULL,          0,    0,       0,   0,   0,            0,  {-1, -1}},
};

/* Space ids: index into this list.  peerN = SP_PEER0 + N. */
enum { SP_VIDMEM = 0, SP_SYSMEM = 1, SP_PEER0 = 2 };
static const char *const ver2_spaces[] = {
	"vidmem", "sysmem",
	"peer0", "peer1", "peer2", "peer3", "peer4", "peer5", "peer6", "peer7",
	NULL
};

/* PTE APERTURE 2:1 values (differ from the PDE's). */
static const char *const pte_aperture_names[4] = {
	"video", "peer", "sys_coherent", "sys_noncoherent"
};
/* PDE / dual PDE APERTURE values: 0 means "no table". */
static const char *const pde_aperture_names[4] = {
	"invalid", "video", "sys_coherent", "sys_noncoherent"
};

/* Bits HI:LO of V, shifted down. */
static inline uint64_t bits(uint64_t v, unsigned hi, unsigned lo)
{
	unsigned w = hi - lo + 1;

	return (v >> lo) & (w >= 64 ? ~0ull : (1ull << w) - 1);
}

/* PTE fields (NV_MMU_VER2_PTE_*). */
#define PTE_VALID(r)          bits(r, 0, 0)    /* VALID */
#define PTE_APERTURE(r)       bits(r, 2, 1)    /* APERTURE */
#define PTE_VOL(r)            bits(r, 3, 3)    /* VOL */
#define PTE_ENCRYPTED(r)      bits(r, 4, 4)    /* ENCRYPTED: "do not use, set to 0" */
#define PTE_PRIVILEGE(r)      bits(r, 5, 5)    /* PRIVILEGE */
#define PTE_READ_ONLY(r)      bits(r, 6, 6)    /* READ_ONLY */
#define PTE_ATOMIC_DISABLE(r) bits(r, 7, 7)    /* ATOMIC_DISABLE */
#define PTE_ADDRESS_SYS(r)    bits(r, 53, 8)   /* ADDRESS_SYS: PA >> 12 */
#define PTE_ADDRESS_VID(r)    bits(r, 32, 8)   /* ADDRESS_VID: PA[36:12] */
#define PTE_PEER(r)           bits(r, 35, 33)  /* ADDRESS_VID_PEER */
#define PTE_COMPTAGLINE(r)    bits(r, 55, 36)  /* COMPTAGLINE (Turing width) */
#define PTE_KIND(r)           bits(r, 63, 56)  /* KIND */

/* PDE fields (NV_MMU_VER2_PDE_*); bits 4, 7:6 and 63:54 are not defined. */
#define PDE_IS_PTE(r)         bits(r, 0, 0)    /* IS_PTE (= VALID, = !IS_PDE) */
#define PDE_APERTURE(r)       bits(r, 2, 1)    /* APERTURE */
#define PDE_VOL(r)            bits(r, 3, 3)    /* VOL */
#define PDE_NO_ATS(r)         bits(r, 5, 5)    /* NO_ATS */
#define PDE_ADDRESS_SYS(r)    bits(r, 53, 8)   /* ADDRESS_SYS: next table >> 12 */
#define PDE_ADDRESS_VID(r)    bits(r, 32, 8)   /* ADDRESS_VID */
#define PDE_PEER(r)           bits(r, 35, 33)  /* ADDRESS_VID_PEER (only PEER_0 defined) */
#define PDE_RESERVED          (0xd0ull | 0xffc0000000000000ull)   /* bits 4, 7:6, 63:54 */

/* Dual PDE, low 8 bytes = big half (NV_MMU_VER2_DUAL_PDE_*_BIG). */
#define DUAL_APERTURE_BIG(lo) bits(lo, 2, 1)   /* APERTURE_BIG */
#define DUAL_VOL_BIG(lo)      bits(lo, 3, 3)   /* VOL_BIG */
#define DUAL_NO_ATS(lo)       bits(lo, 5, 5)   /* NO_ATS (whole entry) */
#define DUAL_ADDR_BIG_SYS(lo) bits(lo, 53, 4)  /* ADDRESS_BIG_SYS: table >> 8 */
#define DUAL_ADDR_BIG_VID(lo) bits(lo, 32, 4)  /* ADDRESS_BIG_VID: table >> 8 */
#define DUAL_PEER_BIG(lo)     bits(lo, 35, 33) /* ADDRESS_BIG_VID_PEER */
/*
 * The big address field starts at bit 4, so raw bit 5 is both NO_ATS and
 * address bit 9: it is reported as no_ats and kept in the address.  nouveau
 * packs 256-byte big tables into 0x100 slots of a page, so a table at
 * page+0x200 or +0x300 sets it (docs/design.md §2.1 and its sources (§7)).
 */
/* Dual PDE, high 8 bytes = small half: entry bit N is bit N-64 here. */
#define DUAL_APERTURE_SMALL(hi) bits(hi, 2, 1)    /* APERTURE_SMALL 66:65 */
#define DUAL_VOL_SMALL(hi)      bits(hi, 3, 3)    /* VOL_SMALL 67 */
#define DUAL_ADDR_SMALL_SYS(hi) bits(hi, 53, 8)   /* ADDRESS_SMALL_SYS 117:72: table >> 12 */
#define DUAL_ADDR_SMALL_VID(hi) bits(hi, 32, 8)   /* ADDRESS_SMALL_VID 96:72 */
#define DUAL_PEER_SMALL(hi)     bits(hi, 35, 33)  /* ADDRESS_SMALL_VID_PEER 99:97 */
#define DUAL_RESERVED_LO        0xffc0000000000000ull                  /* 63:54 */
#define DUAL_RESERVED_HI        (0x1ull | 0xf0ull | 0xffc0000000000000ull) /* 64, 71:68, 127:118 */

/* Bit 0 of a directory entry, under its three names (docs/design.md §2.1). */
static void add_is_pte(struct pt_entry *e, uint64_t bit0)
{
	pt_entry_add(e, "is_pte", PT_FK_BIT, bit0);
	pt_entry_add(e, "is_leaf", PT_FK_BIT, bit0);
	pt_entry_add_flags(e, "is_pde_pointer", PT_FK_BIT, bit0, PT_FF_JSON_ONLY);
}

/*
 * The 8-byte PTE layout of R: state, leaf summary and fields up to
 * page_size.  BIG: the entry sits in a 64 KiB table (no_valid_4k exists
 * only there).  The caller adds the reserved fields.
 */
static void decode_pte(struct pt_entry *e, uint64_t r, bool big, uint64_t page_size)
{
	unsigned ap = (unsigned)PTE_APERTURE(r);
	unsigned kind = (unsigned)PTE_KIND(r);
	const char *kname = pt_ver2_kind_name(kind);
	bool native = pt_ver2_kind_native(kind);
	uint64_t addr;
	unsigned space;
	bool complete;

	switch (ap) {
	case 0: /* VIDEO: PA[36:12] only; Turing may put more address bits in COMPTAGLINE */
		space = SP_VIDMEM;
		addr = PTE_ADDRESS_VID(r) << 12;
		complete = false;
		break;
	case 1:
		/*
		 * PEER (Turing): a discontiguous field, ADDRESS_VID = PA[36:12]
		 * with COMPTAGLINE as the bits above it (RM
		 * kgmmuFmtInitPeerPteFld_TU10X, UVM make_pte_turing), so the
		 * whole PA is here, in peer PEER_ID's memory.
		 */
		space = SP_PEER0 + (unsigned)PTE_PEER(r);
		addr = ((PTE_COMPTAGLINE(r) << 25) | PTE_ADDRESS_VID(r)) << 12;
		complete = true;
		break;
	default: /* SYSTEM_COHERENT / SYSTEM_NON_COHERENT: the whole PA */
		space = SP_SYSMEM;
		addr = PTE_ADDRESS_SYS(r) << 12;
		complete = true;
		break;
	}

	if (r == 0)
		e->state = PT_ST_UNMAPPED;
	else if (PTE_VALID(r))
		e->state = PT_ST_MAPPED;
	else if (PTE_VOL(r))
		e->state = PT_ST_SPARSE;          /* VALID=0, VOL=1 */
	else if (big && PTE_PRIVILEGE(r))
		e->state = PT_ST_NO_VALID_4K;     /* big PTE VALID=0, VOL=0, PRIV=1 */
	else
		e->state = PT_ST_INVALID;

	e->kind = (int)kind;
	e->page_size = page_size;
	e->perm = (PTE_READ_ONLY(r) ? PT_PERM_READ_ONLY : 0) |
		  (PTE_ATOMIC_DISABLE(r) ? PT_PERM_ATOMIC_DISABLE : 0) |
		  (PTE_PRIVILEGE(r) ? PT_PERM_PRIVILEGE : 0) |
		  (PTE_VOL(r) ? PT_PERM_VOLATILE : 0) |
		  (PTE_ENCRYPTED(r) ? PT_PERM_ENCRYPTED : 0);
	/*
	 * ENCRYPTED is documented "set to 0": flag it whatever the state.  The
	 * kind is ignored by the MMU unless VALID, so only a valid PTE's kind
	 * can be an anomaly (unnamed, or not a Turing kind).
	 */
	e->anomaly = PTE_ENCRYPTED(r) ||
		     (e->state == PT_ST_MAPPED && (!kname || !native));
	/*
	 * What the scan reports (check, info) is stricter: any PTE's kind,
	 * valid or not, is reported when unnamed or not native.
	 */
	if (PTE_ENCRYPTED(r))
		e->anomalies |= PT_EA_ZERO_BITS;
	if (!kname)
		e->anomalies |= PT_EA_KIND_UNKNOWN;
	else if (!native)
		e->anomalies |= PT_EA_KIND_NON_NATIVE;
	if (e->state == PT_ST_MAPPED) {
		e->leaf = true;
		e->space = space;
		e->pa = addr;
		e->address_complete = complete;
	}

	pt_entry_add(e, "valid", PT_FK_BIT, PTE_VALID(r));
	pt_entry_add(e, "aperture", PT_FK_UINT, ap);
	pt_entry_add_str(e, "aperture_name", pte_aperture_names[ap]);
	pt_entry_add(e, "volatile", PT_FK_BIT, PTE_VOL(r));
	pt_entry_add(e, "encrypted", PT_FK_BIT, PTE_ENCRYPTED(r));
	pt_entry_add(e, "privilege", PT_FK_BIT, PTE_PRIVILEGE(r));
	pt_entry_add(e, "read_only", PT_FK_BIT, PTE_READ_ONLY(r));
	pt_entry_add(e, "atomic_disable", PT_FK_BIT, PTE_ATOMIC_DISABLE(r));
	pt_entry_add_flags(e, "address_sys", PT_FK_HEX, PTE_ADDRESS_SYS(r), PT_FF_JSON_ONLY);
	pt_entry_add_flags(e, "address_vid", PT_FK_HEX, PTE_ADDRESS_VID(r), PT_FF_JSON_ONLY);
	pt_entry_add(e, "peer_id", PT_FK_UINT, PTE_PEER(r));
	pt_entry_add(e, "comptagline", PT_FK_HEX, PTE_COMPTAGLINE(r));
	pt_entry_add(e, "kind", PT_FK_HEX, kind);
	pt_entry_add_str(e, "kind_name", kname);
	pt_entry_add(e, "kind_known", PT_FK_BOOL, kname != NULL);
	pt_entry_add(e, "kind_native", PT_FK_BOOL, native);
	pt_entry_add(e, "address", PT_FK_HEX, addr);
	pt_entry_add(e, "address_complete", PT_FK_BOOL, complete);
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

/* PD3, PD2, PD1: 8-byte PDE. */
static void decode_pde(struct pt_entry *e, unsigned level, uint64_t r)
{
	unsigned ap = (unsigned)PDE_APERTURE(r);
	uint64_t addr = 0;

	if (ap == 1)
		addr = PDE_ADDRESS_VID(r) << 12;
	else if (ap >= 2)
		addr = PDE_ADDRESS_SYS(r) << 12;

	if (r == 0)
		e->state = PT_ST_UNMAPPED;
	else if (PDE_IS_PTE(r))
		e->state = PT_ST_UNSUPPORTED;   /* VER2 allows a PTE only in PD0 */
	else if (ap != 0) {
		e->state = PT_ST_POINTER;
		set_target(e, 0, ver2_levels[level].child[0], ap, addr);
	} else if (PDE_VOL(r))
		e->state = PT_ST_SPARSE;        /* aperture 0, VOL 1 */
	else
		e->state = PT_ST_INVALID;

	add_is_pte(e, PDE_IS_PTE(r));
	pt_entry_add(e, "aperture", PT_FK_UINT, ap);
	pt_entry_add_str(e, "aperture_name", pde_aperture_names[ap]);
	pt_entry_add(e, "volatile", PT_FK_BIT, PDE_VOL(r));
	pt_entry_add(e, "no_ats", PT_FK_BIT, PDE_NO_ATS(r));
	pt_entry_add_flags(e, "address_sys", PT_FK_HEX, PDE_ADDRESS_SYS(r), PT_FF_JSON_ONLY);
	pt_entry_add_flags(e, "address_vid", PT_FK_HEX, PDE_ADDRESS_VID(r), PT_FF_JSON_ONLY);
	pt_entry_add(e, "peer_id", PT_FK_UINT, PDE_PEER(r));
	pt_entry_add(e, "address", PT_FK_HEX, addr);
	pt_entry_add_reserved(e, r & PDE_RESERVED, 0, false);
}

/* PD0: 16-byte dual PDE, or a 2 MiB PTE in the low half. */
static void decode_dual(struct pt_entry *e, unsigned level, uint64_t lo, uint64_t hi)
{
	const struct pt_level *lv = &ver2_levels[level];
	unsigned apb = (unsigned)DUAL_APERTURE_BIG(lo);
	unsigned aps = (unsigned)DUAL_APERTURE_SMALL(hi);
	uint64_t big = 0, small = 0;

	add_is_pte(e, PDE_IS_PTE(lo));
	if (PDE_IS_PTE(lo)) {
		/* The PTE layout fills all 64 low bits; the high half must be 0. */
		decode_pte(e, lo, false, 1ull << lv->leaf_shift);
		pt_entry_add_reserved(e, 0, hi, true);
		return;
	}

	if (apb == 1)
		big = DUAL_ADDR_BIG_VID(lo) << 8;
	else if (apb >= 2)
		big = DUAL_ADDR_BIG_SYS(lo) << 8;
	if (aps == 1)
		small = DUAL_ADDR_SMALL_VID(hi) << 12;
	else if (aps >= 2)
		small = DUAL_ADDR_SMALL_SYS(hi) << 12;

	if (lo == 0 && hi == 0) {
		e->state = PT_ST_UNMAPPED;
	} else if (apb != 0 || aps != 0) {
		/* Either or both: mixed 64K/4K coverage of one 2 MiB range is legal. */
		e->state = PT_ST_POINTER;
		if (apb != 0)
			set_target(e, 0, lv->child[0], apb, big);
		if (aps != 0)
			set_target(e, 1, lv->child[1], aps, small);
	} else if (DUAL_VOL_BIG(lo)) {
		e->state = PT_ST_SPARSE;   /* both apertures 0, VOL_BIG 1 */
	} else {
		e->state = PT_ST_INVALID;
	}

	pt_entry_add(e, "aperture_big", PT_FK_UINT, apb);
	pt_entry_add_str(e, "aperture_big_name", pde_aperture_names[apb]);
	pt_entry_add(e, "volatile_big", PT_FK_BIT, DUAL_VOL_BIG(lo));
	pt_entry_add(e, "no_ats", PT_FK_BIT, DUAL_NO_ATS(lo));
	pt_entry_add_flags(e, "address_big_sys", PT_FK_HEX, DUAL_ADDR_BIG_SYS(lo), PT_FF_JSON_ONLY);
	pt_entry_add_flags(e, "address_big_vid", PT_FK_HEX, DUAL_ADDR_BIG_VID(lo), PT_FF_JSON_ONLY);
	pt_entry_add(e, "peer_id_big", PT_FK_UINT, DUAL_PEER_BIG(lo));
	pt_entry_add(e, "address_big", PT_FK_HEX, big);
	pt_entry_add(e, "aperture_small", PT_FK_UINT, aps);
	pt_entry_add_str(e, "aperture_small_name", pde_aperture_names[aps]);
	pt_entry_add(e, "volatile_small", PT_FK_BIT, DUAL_VOL_SMALL(hi));
	pt_entry_add_flags(e, "address_small_sys", PT_FK_HEX, DUAL_ADDR_SMALL_SYS(hi), PT_FF_JSON_ONLY);
	pt_entry_add_flags(e, "address_small_vid", PT_FK_HEX, DUAL_ADDR_SMALL_VID(hi), PT_FF_JSON_ONLY);
	pt_entry_add(e, "peer_id_small", PT_FK_UINT, DUAL_PEER_SMALL(hi));
	pt_entry_add(e, "address_small", PT_FK_HEX, small);
	pt_entry_add_reserved(e, lo & DUAL_RESERVED_LO, hi & DUAL_RESERVED_HI, true);
}

static pt_err ver2_decode(unsigned level, unsigned page_shift, const uint8_t *raw, unsigned flags,
			  struct pt_entry *out)
{
	const struct pt_level *lv;

	if (level >= L_COUNT || !raw) {
		pt_entry_reset(out, 0, NULL, flags);
		out->state = PT_ST_UNSUPPORTED;
		return PT_E_UNSUPPORTED;
	}
	lv = &ver2_levels[level];
	pt_entry_reset(out, lv->entry_size, raw, flags);
	switch (lv->role) {
	case PT_ROLE_DIR:
		decode_pde(out, level, out->raw[0]);
		break;
	case PT_ROLE_DUAL:
		decode_dual(out, level, out->raw[0], out->raw[1]);
		break;
	default:
		/* page_shift 0: a loose value whose table (64K or 4K) is unknown. */
		decode_pte(out, out->raw[0], level == L_PTE_BIG,
			   page_shift && page_shift < 64 ? 1ull << page_shift : 0);
		pt_entry_add_reserved(out, 0, 0, false);   /* every PTE bit has a name */
		break;
	}
	return PT_OK;
}

/*
 * maps and walk FLAGS: the entry-file names of the attribute bits that are
 * set, joined by ',' ("-" when none), so that every flag word greps as a
 * field of the entry files (docs/design.md §4 "one vocabulary"):
 *   e.g.  "-"                              plain read-write page
 *         "read_only,atomic_disable"
 *         "read_only,atomic_disable,privilege,volatile,encrypted"  every one set
 * Order: read_only first (the one users filter on), then as before.
 */
static void ver2_flags(const struct pt_entry *e, char *buf, size_t len)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} words[] = {
		{PT_PERM_READ_ONLY, "read_only"},
		{PT_PERM_ATOMIC_DISABLE, "atomic_disable"},
		{PT_PERM_PRIVILEGE, "privilege"},
		{PT_PERM_VOLATILE, "volatile"},
		{PT_PERM_ENCRYPTED, "encrypted"},
	};
	size_t off = 0;

	snprintf(buf, len, "-");
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		if (!(e->perm & words[i].bit) || off >= len)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", words[i].name);
	}
}

/* maps KIND column: the TU10x kind name, or the raw id when it has none. */
static void ver2_kind_name(const struct pt_entry *e, char *buf, size_t len)
{
	const char *n;

	if (e->kind < 0) {
		snprintf(buf, len, "-");
		return;
	}
	n = pt_ver2_kind_name((unsigned)e->kind);
	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "0x%02x", (unsigned)e->kind);
}

/* ---- the [pdb NAME] context --------------------------------------------- */

static const struct pt_blob_kind ver2_blob_kinds[] = {
	{"ver2", 8},
	{"ver2_dual", 16},
	{NULL, 0},
};

pt_err pt_nv_pdb_key(struct pt_ver2_ctx *c, const struct pt_ctx_key *k,
		     const struct pt_format *fmt, const char *gen, bool big_128_known)
{
	uint64_t v;
	pt_err rc;

	if (!strcmp(k->key, "space")) {
		/* A page directory lives in video or system memory, never behind a peer. */
		if (strcmp(k->value, "vidmem") && strcmp(k->value, "sysmem"))
			return pt_ctx_key_fail(k, PT_E_VALUE,
					       "space '%s' in %s is not valid for a page directory base (vidmem, sysmem)",
					       k->value, k->label);
		c->space = (unsigned)pt_format_space(fmt, k->value);
		c->have_space = true;
		return PT_OK;
	}
	if (!strcmp(k->key, "address")) {
		if ((rc = pt_ctx_key_uint(k, &c->address)))
			return rc;
		c->have_address = true;
		if (c->address & 0xfff)
			return pt_ctx_key_fail(k, PT_E_VALUE, "address 0x%llx in %s is not 4 KiB aligned",
					       (unsigned long long)c->address, k->label);
		return PT_OK;
	}
	if (!strcmp(k->key, "big_page_size")) {
		if ((rc = pt_ctx_key_uint(k, &v)))
			return rc;
		c->big_page_size = v;
		if (v == 131072 && big_128_known)
			return pt_ctx_key_fail(k, PT_E_UNSUPPORTED,
					       "big_page_size 128K in %s is not supported (only 64K)", k->label);
		if (v != 65536)
			return pt_ctx_key_fail(k, PT_E_VALUE,
					       "big_page_size '%s' in %s is not a %s big page size (64K)",
					       k->value, k->label, gen);
		return PT_OK;
	}
	return PT_E_NOTFOUND;
}

static pt_err ver2_ctx_key(void *priv, const struct pt_ctx_key *k)
{
	return pt_nv_pdb_key(priv, k, &pt_format_ver2, "VER2", true);
}

static const char *ver2_ctx_missing(const void *priv)
{
	const struct pt_ver2_ctx *c = priv;

	return !c->have_space ? "space" : !c->have_address ? "address" : NULL;
}

static pt_err ver2_ctx_setup(struct pt_context *ctx, char *err, size_t errlen)
{
	struct pt_ver2_ctx *c = ctx->priv;

	(void)err;
	(void)errlen;
	if (!c->big_page_size)
		c->big_page_size = 65536;    /* the default when the key is absent */
	ctx->root_space = c->space;
	ctx->root_addr = c->address;
	ctx->root_entries = (uint64_t)1 << ver2_levels[0].bits;
	ctx->root_page_shift = 0;
	ctx->va_base = 0;
	return PT_OK;
}

const struct pt_ver2_ctx *pt_ver2_of(const struct pt_context *ctx)
{
	return ctx->fmt == &pt_format_ver2 ? ctx->priv : NULL;
}

static void ver2_info_text(const struct pt_context *ctx, struct pt_buf *b)
{
	const struct pt_ver2_ctx *c = ctx->priv;
	char size[24];

	if (c && c->big_page_size) {
		pt_size_str(c->big_page_size, size, sizeof size);
		pt_buf_printf(b, "big_page_size: %s\n", size);
	}
}

static void ver2_info_json(const struct pt_context *ctx, struct pt_jobj *o)
{
	const struct pt_ver2_ctx *c = ctx->priv;

	if (c && c->big_page_size)
		pt_jobj_hex(o, "big_page_size", c->big_page_size);
}

/* ---- encoder (ptfs-tool build): the inverse of the decoder above -------- */

static pt_err enc_fail(char *err, size_t errlen, const char *what, uint64_t addr)
{
	snprintf(err, errlen, "nv-gmmu-ver2: %s 0x%" PRIx64 " does not fit its field", what, addr);
	return PT_E_VALUE;
}

/*
 * A page frame for APERTURE's address fields: PA>>12 into ADDRESS_SYS
 * (46 bits) for the system apertures, ADDRESS_VID (25 bits) for video
 * memory, and for the peer aperture ADDRESS_VID with the bits above it in
 * COMPTAGLINE (kgmmuFmtInitPeerPteFld_TU10X).
 */
static pt_err pte_addr_bits(const struct pt_entry *e, unsigned ap, uint64_t *r, char *err,
			    size_t errlen)
{
	uint64_t pfn = e->pa >> 12;

	if (pt_entry_field(e, "address_sys")) {   /* a decoded entry: its fields as they are */
		*r |= pt_entry_get(e, "address_sys", 0) << 8 | pt_entry_get(e, "address_vid", 0) << 8 |
		      pt_entry_get(e, "peer_id", 0) << 33 | pt_entry_get(e, "comptagline", 0) << 36;
		return PT_OK;
	}
	if (e->state != PT_ST_MAPPED)
		return PT_OK;
	if (e->pa & 0xfff)
		return enc_fail(err, errlen, "a page address that is not 4 KiB aligned,", e->pa);
	if (ap == 1) {
		if (pfn >> 45)
			return enc_fail(err, errlen, "peer address", e->pa);
		*r |= (pfn & 0x1ffffff) << 8 | (pfn >> 25) << 36 |
		      (uint64_t)(e->space - SP_PEER0) << 33;
	} else if (ap == 0) {
		if (pfn >> 25)
			return enc_fail(err, errlen, "video address", e->pa);
		*r |= pfn << 8 | pt_entry_get(e, "peer_id", 0) << 33 |
		      pt_entry_get(e, "comptagline", 0) << 36;
	} else {
		if (pfn >> 46)
			return enc_fail(err, errlen, "system address", e->pa);
		*r |= pfn << 8;
	}
	return PT_OK;
}

/* The 8-byte PTE layout (pte_big, pte_small, a 2 MiB pde0 slot's low half). */
static pt_err encode_pte(const struct pt_entry *e, uint64_t *out, char *err, size_t errlen)
{
	bool mapped = e->state == PT_ST_MAPPED;
	unsigned dflt = !mapped ? 0 : e->space == SP_VIDMEM ? 0 : e->space == SP_SYSMEM ? 2 : 1;
	unsigned ap = (unsigned)pt_entry_get(e, "aperture", dflt) & 3;
	uint64_t r = pt_entry_get(e, "valid", mapped) | (uint64_t)ap << 1 |
		     pt_entry_get(e, "volatile", 0) << 3 | pt_entry_get(e, "encrypted", 0) << 4 |
		     pt_entry_get(e, "privilege", 0) << 5 | pt_entry_get(e, "read_only", 0) << 6 |
		     pt_entry_get(e, "atomic_disable", 0) << 7 |
		     (pt_entry_get(e, "kind", 0) & 0xff) << 56;
	pt_err rc = pte_addr_bits(e, ap, &r, err, errlen);

	*out = r | e->reserved_mask[0];
	return rc;
}

/* A directory half's aperture and address: a table in vidmem is 1, in sysmem 2. */
static pt_err dir_addr(const struct pt_target *t, const char *name, unsigned shift,
		       unsigned vid_bits, unsigned sys_bits, unsigned *ap, uint64_t *field,
		       char *err, size_t errlen)
{
	uint64_t a = t->addr >> shift;

	*ap = t->space == SP_VIDMEM ? 1 : 2;
	if ((t->addr & ((1ull << shift) - 1)) || a >> (*ap == 1 ? vid_bits : sys_bits))
		return enc_fail(err, errlen, name, t->addr);
	*field = a;
	return PT_OK;
}

static pt_err encode_pde(const struct pt_entry *e, uint64_t *out, char *err, size_t errlen)
{
	unsigned ap = 0;
	uint64_t a = 0, r;
	pt_err rc = PT_OK;

	if (e->target[0].present)
		rc = dir_addr(&e->target[0], "table address", 12, 25, 46, &ap, &a, err, errlen);
	if (pt_entry_field(e, "address_sys"))
		a = pt_entry_get(e, "address_sys", 0) | pt_entry_get(e, "address_vid", 0) |
		    pt_entry_get(e, "peer_id", 0) << 25;
	r = pt_entry_get(e, "is_pte", 0) | (pt_entry_get(e, "aperture", ap) & 3) << 1 |
	    pt_entry_get(e, "volatile", 0) << 3 | pt_entry_get(e, "no_ats", 0) << 5 | a << 8;
	*out = r | e->reserved_mask[0];
	return rc;
}

static pt_err encode_dual(const struct pt_entry *e, uint64_t *lo, uint64_t *hi, char *err,
			  size_t errlen)
{
	unsigned apb = 0, aps = 0;
	uint64_t big = 0, small = 0;
	pt_err rc = PT_OK;

	if (pt_entry_get(e, "is_pte", e->state == PT_ST_MAPPED)) {
		rc = encode_pte(e, lo, err, errlen);
		*lo |= 1;                     /* IS_PTE is the PTE's VALID bit */
		*hi = e->reserved_mask[1];
		return rc;
	}
	if (e->target[0].present)
		rc = dir_addr(&e->target[0], "big table address", 8, 29, 50, &apb, &big, err, errlen);
	if (rc == PT_OK && e->target[1].present)
		rc = dir_addr(&e->target[1], "small table address", 12, 25, 46, &aps, &small, err, errlen);
	if (pt_entry_field(e, "address_big_sys")) {
		big = pt_entry_get(e, "address_big_sys", 0) | pt_entry_get(e, "address_big_vid", 0) |
		      pt_entry_get(e, "peer_id_big", 0) << 29;
		small = pt_entry_get(e, "address_small_sys", 0) | pt_entry_get(e, "address_small_vid", 0) |
			pt_entry_get(e, "peer_id_small", 0) << 25;
	}
	*lo = (pt_entry_get(e, "aperture_big", apb) & 3) << 1 | pt_entry_get(e, "volatile_big", 0) << 3 |
	      pt_entry_get(e, "no_ats", 0) << 5 | big << 4 | e->reserved_mask[0];
	*hi = (pt_entry_get(e, "aperture_small", aps) & 3) << 1 |
	      pt_entry_get(e, "volatile_small", 0) << 3 | small << 8 | e->reserved_mask[1];
	return rc;
}

static pt_err ver2_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
			  size_t errlen)
{
	uint64_t lo = 0, hi = 0;
	pt_err rc;

	if (level >= L_COUNT)
		return PT_E_UNSUPPORTED;
	switch (ver2_levels[level].role) {
	case PT_ROLE_DIR:
		rc = encode_pde(e, &lo, err, errlen);
		break;
	case PT_ROLE_DUAL:
		rc = encode_dual(e, &lo, &hi, err, errlen);
		pt_le64_store(raw + 8, hi);
		break;
	default:
		rc = encode_pte(e, &lo, err, errlen);
		break;
	}
	pt_le64_store(raw, lo);
	return rc;
}

/* ptfs-tool build, both NVIDIA formats: the root's space and address, unless the spec gives them. */
void pt_nv_build_keys(const struct pt_build_keys *k, struct pt_buf *ini)
{
	if (!k->get(k->ud, "space"))
		pt_buf_puts(ini, "space = vidmem\n");
	if (!k->get(k->ud, "address"))
		pt_buf_printf(ini, "address = 0x%" PRIx64 "\n", k->root);
}

/* ptfs-tool roots, both NVIDIA formats (a VER3 context's data starts with the [pdb] keys): CTX's space and big page size, ROOT. */
void pt_nv_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini)
{
	const struct pt_ver2_ctx *c = ctx->priv;

	pt_buf_printf(ini, "space = %s\naddress = 0x%" PRIx64 "\nbig_page_size = %" PRIu64 "K\n",
		      ctx->fmt->spaces[space], root, (c->big_page_size ? c->big_page_size : 65536) >> 10);
}

const struct pt_format pt_format_ver2 = {
	.name = "nv-gmmu-ver2",
	.levels = ver2_levels,
	.va_bits = 49,
	.va_digits = 13,
	.spaces = ver2_spaces,
	.decode = ver2_decode,
	.flags = ver2_flags,
	.kind_name = ver2_kind_name,
	.blob_kinds = ver2_blob_kinds,
	.ctx_section = "pdb",
	.ctx_size = sizeof(struct pt_ver2_ctx),
	.ctx_key = ver2_ctx_key,
	.ctx_missing = ver2_ctx_missing,
	.ctx_setup = ver2_ctx_setup,
	.info_text = ver2_info_text,
	.info_json = ver2_info_json,
	.encode = ver2_encode,
	.build_keys = pt_nv_build_keys,
	.geom_keys = pt_nv_geom_keys,
};
