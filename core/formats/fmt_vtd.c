/* SPDX-License-Identifier: MIT */
/*
 * fmt_vtd.c — Intel VT-d second-level tables (`intel-vtd`, [vtd NAME]) and
 * the x86 EPT tables that share their layout (`intel-ept`, [ept NAME]):
 * docs/design.md §2.7.  Two formats, one level table, one set of helpers.
 *
 * Sources (restated, no code copied): Linux drivers/iommu/intel/iommu.h
 * (DMA_PTE_READ/WRITE, dma_pte_present = bits 1:0, context-entry layout),
 * drivers/iommu/generic_pt/fmt/vtdss.h (levels, A 8, D 9, SNP 11, "no
 * designated present bit"), QEMU hw/i386/intel_iommu_internal.h (the
 * reserved-bit masks VTD_SPTE_*: PS in an L4 entry, 20:12 of a 2 MiB leaf,
 * 29:12 of a 1 GiB leaf, TM 62 without ECAP.DT, bit 11), the VT-d spec
 * ch. 9.8 "Second-Level Paging Entries" as those files cite it; EPT: Intel
 * SDM Vol. 3C "EPT translation mechanism" (Table 29-1..29-6 in current
 * editions, 28-x / 24-x in older ones) and Linux arch/x86/include/asm/vmx.h
 * (VMX_EPTP_MT_*, VMX_EPTP_PWL_4/5, VMX_EPTP_AD_ENABLE_BIT).
 *
 * Levels are named as Linux's intel-iommu debugfs names the columns of
 * domain_translation_struct (PML5E PML4E PDPE PDE PTE): pml5 pml4 pdpt pd
 * pt, 9 index bits each; a context's width picks the root (AW 39/48/57 →
 * pdpt/pml4/pml5; EPT walk length 4/5 → pml4/pml5).  The decoder is
 * context-free: it reads the hardware level off the table's page shift
 * (12 + 9·(L−1)), so one decoder serves every root.  Where a context's
 * tables and pages are (its `space` and `output_space`) is a decoder per
 * pair of spaces (the decode hook has no context argument).
 *
 * Rules chosen where the sources differ (reference H.6-H.8):
 *  - VT-d present = R|W (Linux, hardware has no present bit); a non-zero
 *    entry with R=W=0 is `invalid`, and its other bits are not checked.
 *  - VT-d X 2, EMT 5:3, IPAT 6 are named on leaves only (Linux calls 2-6
 *    reserved, QEMU does not reserve them): raw values; on directory
 *    entries bits 6:3 are ignored, X is named.
 *  - SNP 11 and TM 62 are leaf fields; on a directory entry they are
 *    reserved (QEMU's masks).  Bits 61:52 and 63 are ignored everywhere
 *    (QEMU VTD_SL_IGN_COM), shown as `ignored`, never reserved.
 *  - PS at pml4/pml5 is reserved (D10: a fault); at pt it is ignored.
 *  - EPT: present = R|W|X; W without R is a misconfiguration, and so is a
 *    leaf memory type 2, 3 or 7 (SDM "EPT Misconfigurations"): state
 *    `unsupported`, field misconfigured: true.  Execute-only (X alone) is
 *    mapped: whether the CPU supports it is not in the capture.
 *  - The HAW/MAXPHYADDR limit of the address is not known from a context
 *    entry or an EPTP: the address is 51:12 and nothing above is reserved.
 *  - Rights are the AND along the path (VT-d spec §9.8: R and W of every
 *    second-level entry on the way restrict the region it controls; SDM
 *    "EPT Translation Mechanism": an access is allowed only where every
 *    EPT entry used allows it), through perm_or_down / perm_and_down.
 *    VT-d's X is not ANDed: it counts only with SLEE, which neither a
 *    legacy context entry nor these keys say, and Linux writes no X in a
 *    directory entry; each leaf shows its own.  EPT ANDs read, write and
 *    execute.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fmt_ctx.h"
#include "fmt_vtd.h"
#include "pt_buf.h"
#include "pt_iommu_format.h"
#include "pt_num.h"

#define BIT(n) (1ull << (n))
#define MASK(hi, lo) ((~0ull >> (63 - (hi))) & ~((1ull << (lo)) - 1))
#define ADDR_MASK MASK(51, 12)

static inline uint64_t bits(uint64_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & (~0ull >> (63 - (hi - lo)));
}

/*
 * Spaces: the machine's memory (sysmem), or, named in a capture that holds
 * a host and a guest, host-physical (hpa) and guest-physical (gpa) memory
 * (docs/design.md §2.7, §2.8).
 */
enum { SP_SYSMEM, SP_HPA, SP_GPA, SP__COUNT };
static const char *const sl_spaces[] = {"sysmem", "hpa", "gpa", NULL};

enum { L_PML5, L_PML4, L_PDPT, L_PD, L_PT, L__COUNT };
/* The whole 5-level table; a 3- or 4-level context uses its tail (pt_fmt_levels_tail()). */
static const struct pt_level sl_levels[] = {
	/* name   depth va_shift bits size role          leaf_shift child */
	{"pml5",  0,    48,      9,   8,   PT_ROLE_DIR,  0,  {L_PML4, -1}},
	{"pml4",  1,    39,      9,   8,   PT_ROLE_DIR,  0,  {L_PDPT, -1}},
	{"pdpt",  2,    30,      9,   8,   PT_ROLE_DIR,  30, {L_PD, -1}},
	{"pd",    3,    21,      9,   8,   PT_ROLE_DIR,  21, {L_PT, -1}},
	{"pt",    4,    12,      9,   8,   PT_ROLE_LEAF, 0,  {-1, -1}},
	{NULL,    0,    0,       0,   0,   0,            0,  {-1, -1}},
};

/* Hardware level 1 (pt) .. 5 (pml5) of a table whose entries span 2^PAGE_SHIFT; 0: none. */
static unsigned hw_level(unsigned page_shift)
{
	if (page_shift < 12 || page_shift > 48 || (page_shift - 12) % 9)
		return 0;
	return (page_shift - 12) / 9 + 1;
}

/* Memory-type names of EMT / EPT memory type (SDM "Memory Types": 0 UC, 1 WC, 4 WT, 5 WP, 6 WB). */
static const char *memtype_name(uint64_t mt)
{
	static const char *const n[8] = {"UC", "WC", NULL, NULL, "WT", "WP", "WB", NULL};

	return n[mt & 7];
}

static void set_leaf(struct pt_entry *e, unsigned space, uint64_t pa, uint64_t size, uint32_t perm)
{
	e->state = PT_ST_MAPPED;
	e->leaf = true;
	e->space = space;
	e->pa = pa;
	e->page_size = size;
	e->address_complete = true;
	e->perm = perm;
}

/* PERM: the rights a directory entry passes down (R and W ANDed along the path: perm_or_down). */
static void set_pointer(struct pt_entry *e, unsigned level, unsigned space, uint64_t addr,
			uint32_t perm)
{
	e->state = PT_ST_POINTER;
	e->perm = perm;
	e->target[0].present = true;
	e->target[0].level = (int8_t)(level + 1);
	e->target[0].space = space;
	e->target[0].addr = addr;
}

/* R 0, W 1, X 2 as PT_PERM_* (VT-d and EPT alike). */
static uint32_t rights(uint64_t r)
{
	return ((r & 1) ? 0 : PT_PERM_NO_READ) | ((r & 2) ? 0 : PT_PERM_NO_WRITE) |
	       ((r & 4) ? PT_PERM_EXEC : 0);
}

static void add_tail(struct pt_entry *e, uint64_t addr, uint64_t ign, bool leaf, uint64_t size)
{
	pt_entry_add(e, "address", PT_FK_HEX, addr);
	pt_entry_add(e, "ignored", PT_FK_HEX, ign);
	if (leaf)
		pt_entry_add(e, "page_size", PT_FK_HEX, size);
}

/* ---- VT-d second level ---------------------------------------------------- */

/*
 * Entry at row LEVEL whose table entries span 2^PAGE_SHIFT; TS/OS: the
 * spaces of tables and pages.
 */
static pt_err vtd_decode_sp(unsigned ts, unsigned os, unsigned level, unsigned page_shift,
			    const uint8_t *raw, unsigned flags, struct pt_entry *out)
{
	unsigned hl = hw_level(page_shift);
	uint64_t r, span, addr, ign, rsv;
	bool leaf, present;

	if (!raw || !hl || level >= L__COUNT) {
		pt_entry_reset(out, 0, NULL, flags);
		out->state = PT_ST_UNSUPPORTED;
		return PT_E_UNSUPPORTED;
	}
	pt_entry_reset(out, 8, raw, flags);
	r = out->raw[0];
	span = 1ull << page_shift;
	present = r & 3;
	/* PS makes a pdpt/pd entry a 1G/2M leaf; every pt entry is a leaf (vtdss.h). */
	leaf = hl == 1 || ((hl == 2 || hl == 3) && (r & BIT(7)));
	pt_entry_add(out, "r", PT_FK_BIT, bits(r, 0, 0));
	pt_entry_add(out, "w", PT_FK_BIT, bits(r, 1, 1));
	pt_entry_add(out, "x", PT_FK_BIT, bits(r, 2, 2));
	if (leaf) {
		uint64_t emt = bits(r, 5, 3);

		addr = r & ADDR_MASK & ~(span - 1);
		/* 20:12 of a 2 MiB leaf, 29:12 of a 1 GiB leaf (QEMU VTD_SPTE_LPAGE_*) */
		rsv = r & MASK(51, 12) & (span - 1);
		ign = r & (BIT(10) | MASK(61, 52) | BIT(63) | (hl == 1 ? BIT(7) : 0));
		pt_entry_add(out, "emt", PT_FK_UINT, emt);
		pt_entry_add_str(out, "emt_name", memtype_name(emt));
		pt_entry_add(out, "ipat", PT_FK_BIT, bits(r, 6, 6));
		if (hl > 1)
			pt_entry_add(out, "ps", PT_FK_BIT, bits(r, 7, 7));
		pt_entry_add(out, "a", PT_FK_BIT, bits(r, 8, 8));
		pt_entry_add(out, "d", PT_FK_BIT, bits(r, 9, 9));
		pt_entry_add(out, "snp", PT_FK_BIT, bits(r, 11, 11));
		pt_entry_add(out, "tm", PT_FK_BIT, bits(r, 62, 62));
	} else {
		addr = r & ADDR_MASK;
		/* SNP and TM are leaf-only, PS is reserved above the pdpt (QEMU VTD_SPTE_PAGE_L4_RSVD_MASK). */
		rsv = r & (BIT(11) | BIT(62) | (hl >= 4 ? BIT(7) : 0));
		ign = r & (MASK(6, 3) | MASK(10, 9) | MASK(61, 52) | BIT(63));
		if (hl == 2 || hl == 3)
			pt_entry_add(out, "ps", PT_FK_BIT, bits(r, 7, 7));
		pt_entry_add(out, "a", PT_FK_BIT, bits(r, 8, 8));
	}
	/* Not present: the remapping hardware reads nothing else of it. */
	out->reserved_mask[0] = present ? rsv : 0;
	add_tail(out, addr, ign, leaf, span);
	pt_entry_add_reserved(out, out->reserved_mask[0], 0, false);
	if (r == 0)
		out->state = PT_ST_UNMAPPED;
	else if (!present)
		out->state = PT_ST_INVALID;
	else if (leaf)
		set_leaf(out, os, addr, span, rights(r) | ((r & BIT(11)) ? PT_PERM_SNOOPED : 0));
	else
		set_pointer(out, level, ts, addr, rights(r));
	return PT_OK;
}

/* ---- EPT ------------------------------------------------------------------ */

static pt_err ept_decode_sp(unsigned ts, unsigned os, unsigned level, unsigned page_shift,
			    const uint8_t *raw, unsigned flags, struct pt_entry *out)
{
	unsigned hl = hw_level(page_shift);
	uint64_t r, span, addr, ign, rsv;
	bool leaf, present, misconf;

	if (!raw || !hl || level >= L__COUNT) {
		pt_entry_reset(out, 0, NULL, flags);
		out->state = PT_ST_UNSUPPORTED;
		return PT_E_UNSUPPORTED;
	}
	pt_entry_reset(out, 8, raw, flags);
	r = out->raw[0];
	span = 1ull << page_shift;
	/* SDM: an entry with bits 2:0 clear is not present; the CPU ignores bits 63:3. */
	present = r & 7;
	leaf = hl == 1 || ((hl == 2 || hl == 3) && (r & BIT(7)));
	/* SDM "EPT Misconfigurations": write without read (010, 110). */
	misconf = present && (r & 3) == 2;
	pt_entry_add(out, "read", PT_FK_BIT, bits(r, 0, 0));
	pt_entry_add(out, "write", PT_FK_BIT, bits(r, 1, 1));
	pt_entry_add(out, "execute", PT_FK_BIT, bits(r, 2, 2));
	if (leaf) {
		uint64_t mt = bits(r, 5, 3);

		addr = r & ADDR_MASK & ~(span - 1);
		rsv = r & MASK(51, 12) & (span - 1);
		ign = r & (BIT(11) | MASK(62, 52) | (hl == 1 ? BIT(7) : 0));
		/* memory type 2, 3, 7 in a leaf: misconfiguration */
		misconf = misconf || (present && !memtype_name(mt));
		pt_entry_add(out, "memory_type", PT_FK_UINT, mt);
		pt_entry_add_str(out, "memory_type_name", memtype_name(mt));
		pt_entry_add(out, "ignore_pat", PT_FK_BIT, bits(r, 6, 6));
		if (hl > 1)
			pt_entry_add(out, "ps", PT_FK_BIT, bits(r, 7, 7));
		pt_entry_add(out, "accessed", PT_FK_BIT, bits(r, 8, 8));
		pt_entry_add(out, "dirty", PT_FK_BIT, bits(r, 9, 9));
		pt_entry_add(out, "user_execute", PT_FK_BIT, bits(r, 10, 10));
		pt_entry_add(out, "suppress_ve", PT_FK_BIT, bits(r, 63, 63));
	} else {
		addr = r & ADDR_MASK;
		/* directory entries: 7:3 reserved (6:3 where bit 7 is PS = 0) */
		rsv = r & (hl >= 4 ? MASK(7, 3) : MASK(6, 3));
		ign = r & (BIT(9) | BIT(11) | MASK(63, 52));
		if (hl == 2 || hl == 3)
			pt_entry_add(out, "ps", PT_FK_BIT, bits(r, 7, 7));
		pt_entry_add(out, "accessed", PT_FK_BIT, bits(r, 8, 8));
		pt_entry_add(out, "user_execute", PT_FK_BIT, bits(r, 10, 10));
	}
	out->reserved_mask[0] = present ? rsv : 0;
	add_tail(out, addr, ign, leaf, span);
	pt_entry_add(out, "misconfigured", PT_FK_BOOL, misconf || out->reserved_mask[0] != 0);
	pt_entry_add_reserved(out, out->reserved_mask[0], 0, false);
	if (r == 0)
		out->state = PT_ST_UNMAPPED;
	else if (!present)
		out->state = PT_ST_INVALID;
	else if (misconf)
		out->state = PT_ST_UNSUPPORTED;
	else if (leaf)
		set_leaf(out, os, addr, span, rights(r));
	else
		set_pointer(out, level, ts, addr, rights(r));
	return PT_OK;
}

/* One decoder per (table space, page space): the hook has no context (fmt_ctx.h). */
PT_FMT_A3(PT_FMT_B3, PT_FMT_DECODER, vtd_decode_sp)
PT_FMT_A3(PT_FMT_B3, PT_FMT_DECODER, ept_decode_sp)
static const pt_fmt_decode_fn vtd_decoders[SP__COUNT][SP__COUNT] =
	{PT_FMT_ROWS3(PT_FMT_B3, vtd_decode_sp)};
static const pt_fmt_decode_fn ept_decoders[SP__COUNT][SP__COUNT] =
	{PT_FMT_ROWS3(PT_FMT_B3, ept_decode_sp)};

static void vtd_flags(const struct pt_entry *e, char *buf, size_t len)
{
	static const char *const names[] = {"r", "w", "x", "snp", "tm"};
	const bool set[] = {
		!(e->perm & PT_PERM_NO_READ), !(e->perm & PT_PERM_NO_WRITE),
		(e->perm & PT_PERM_EXEC) != 0, (e->perm & PT_PERM_SNOOPED) != 0,
		(e->raw[0] & BIT(62)) != 0,
	};

	pt_format_flag_words(buf, len, set, names, 5);
}

static void ept_flags(const struct pt_entry *e, char *buf, size_t len)
{
	static const char *const names[] = {"read", "write", "execute", "user_execute"};
	const bool set[] = {
		!(e->perm & PT_PERM_NO_READ), !(e->perm & PT_PERM_NO_WRITE),
		(e->perm & PT_PERM_EXEC) != 0, (e->raw[0] & BIT(10)) != 0,
	};

	pt_format_flag_words(buf, len, set, names, 4);
}

/* maps KIND: the memory type's name (UC WC WT WP WB), else its number. */
static void kind_common(const struct pt_entry *e, char *buf, size_t len, const char *pfx)
{
	uint64_t mt = bits(e->raw[0], 5, 3);

	if (memtype_name(mt))
		snprintf(buf, len, "%s", memtype_name(mt));
	else
		snprintf(buf, len, "%s%" PRIu64, pfx, mt);
}

static void vtd_kind(const struct pt_entry *e, char *buf, size_t len)
{
	kind_common(e, buf, len, "emt");
}

static void ept_kind(const struct pt_entry *e, char *buf, size_t len)
{
	kind_common(e, buf, len, "memory_type");
}

/* ---- contexts ------------------------------------------------------------- */

static void vtd_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini);
static void ept_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini);

struct sl_ctx {
	bool ept;
	/* keys */
	uint64_t slptptr, aw, ctx_lo, ctx_hi, eptp;
	bool has_slptptr, has_aw, has_context, has_eptp, has_pasid;
	bool walked;            /* the entry of an [iommu] walk: its P checked there */
	bool pass;              /* pass-through: context TT 2, PASID entry PGTT 4 */
	struct pt_pasid pasid;   /* a scalable-mode PASID entry (pasid_entry) */
	unsigned space, output_space;
	/* set-up results */
	unsigned levels_n;      /* 3, 4 or 5 */
	uint64_t root;
	struct pt_format fmt;
	struct pt_level levels[L__COUNT + 1];
};

/* A 128-bit "0x" + up to 32 hex digits value: the context entry, bytes 8..15 in the high half. */
static pt_err parse_u128(const struct pt_ctx_key *k, uint64_t *lo, uint64_t *hi)
{
	const char *s = k->value;
	size_t n;

	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return pt_ctx_key_fail(k, PT_E_VALUE, "bad value '%s' for 'context' in %s: the raw"
				       " 128-bit context entry as 0x and up to 32 hex digits"
				       " (bytes 8..15 first)", s, k->label);
	s += 2;
	n = strlen(s);
	if (n == 0 || n > 32 || strspn(s, "0123456789abcdefABCDEF") != n)
		return pt_ctx_key_fail(k, PT_E_VALUE, "bad value '%s' for 'context' in %s: the raw"
				       " 128-bit context entry as 0x and up to 32 hex digits"
				       " (bytes 8..15 first)", k->value, k->label);
	*lo = *hi = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned c = (unsigned char)s[i];
		unsigned d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;

		*hi = *hi << 4 | *lo >> 60;
		*lo = *lo << 4 | d;
	}
	return PT_OK;
}

static pt_err sl_ctx_key(void *priv, const struct pt_ctx_key *k)
{
	struct sl_ctx *c = priv;
	const char *name = c->ept ? "intel-ept" : "intel-vtd";

	if (!strcmp(k->key, "space"))
		return pt_fmt_space_key(k, name, sl_spaces, &c->space);
	if (!strcmp(k->key, "output_space"))
		return pt_fmt_space_key(k, name, sl_spaces, &c->output_space);
	if (c->ept) {
		if (strcmp(k->key, "eptp"))
			return PT_E_NOTFOUND;
		c->has_eptp = true;
		return pt_ctx_key_uint(k, &c->eptp);
	}
	if (!strcmp(k->key, "context")) {
		c->has_context = true;
		return parse_u128(k, &c->ctx_lo, &c->ctx_hi);
	}
	if (!strcmp(k->key, "pasid_entry")) {
		c->has_pasid = true;
		return pt_fmt_pasid_key(k, &c->pasid);
	}
	if (!strcmp(k->key, "slptptr")) {
		c->has_slptptr = true;
		return pt_ctx_key_uint(k, &c->slptptr);
	}
	if (!strcmp(k->key, "aw")) {
		pt_err rc = pt_ctx_key_uint(k, &c->aw);

		if (rc)
			return rc;
		if (c->aw != 39 && c->aw != 48 && c->aw != 57)
			return pt_ctx_key_fail(k, PT_E_VALUE, "aw %" PRIu64 " in %s: the adjusted"
					       " guest address width is 39, 48 or 57 (3, 4 or 5 levels)",
					       c->aw, k->label);
		c->has_aw = true;
		return PT_OK;
	}
	return PT_E_NOTFOUND;
}

/* An [iommu] device's context or PASID entry (pt_format.h struct pt_ctx_entry), with its spaces. */
static pt_err vtd_ctx_entry(void *priv, const struct pt_ctx_entry *e, char *err, size_t errlen)
{
	struct sl_ctx *c = priv;

	if (e->kind == PT_CE_VTD_CONTEXT) {
		c->ctx_lo = e->w[0];
		c->ctx_hi = e->w[1];
		c->has_context = true;
	} else if (e->kind == PT_CE_VTD_PASID) {
		pt_fmt_pasid_words(e->w, 3, &c->pasid);
		c->has_pasid = true;
	} else {
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "intel-vtd: not a context or"
					 " PASID entry");
	}
	c->walked = true;
	return pt_fmt_entry_spaces(e, "intel-vtd", sl_spaces, &c->space, &c->output_space, err,
				   errlen);
}

static const char *vtd_ctx_missing(const void *priv)
{
	const struct sl_ctx *c = priv;

	if (c->has_context || c->has_pasid)
		return NULL;
	if (!c->has_slptptr)
		return "context, pasid_entry (or slptptr and aw)";
	if (!c->has_aw)
		return "aw";
	return NULL;
}

static const char *ept_ctx_missing(const void *priv)
{
	const struct sl_ctx *c = priv;

	return c->has_eptp ? NULL : "eptp";
}

/*
 * The legacy context entry (Linux struct context_entry, QEMU VTD_CONTEXT_*):
 * lo P 0, FPD 1, TT 3:2, SLPTPTR 63:12, reserved 11:4; hi AW 2:0, AVAIL
 * 6:3, DID 23:8, reserved 7 and 63:24.
 */
static pt_err vtd_context_entry(struct sl_ctx *c, char *err, size_t errlen)
{
	uint64_t lo = c->ctx_lo, hi = c->ctx_hi, tt = bits(lo, 3, 2), aw = bits(hi, 2, 0);

	if (c->has_slptptr || c->has_aw)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "context and slptptr/aw both given:"
				  " the context entry holds SLPTPTR and AW");
	/* P: a walked entry's was checked by the walk (it makes a device of a present entry only) */
	if (!c->walked && !(lo & 1))
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "context entry 0x%016" PRIx64 "%016" PRIx64
				  " is not present (P=0): the device's requests are blocked, no"
				  " table to walk", hi, lo);
	if ((lo & MASK(11, 4)) || (hi & (BIT(7) | MASK(63, 24))))
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "context entry 0x%016" PRIx64 "%016" PRIx64
				  " has reserved bits set (lo 11:4, hi 7 and 63:24): the hardware"
				  " faults it", hi, lo);
	c->pass = tt == 2;
	if (tt == 3)
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "context entry TT 3 is reserved");
	if (aw < 1 || aw > 3)
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "context entry AW %" PRIu64 " is not"
				  " supported (1, 2 or 3: 39, 48 or 57 bits)", aw);
	c->root = lo & ~0xfffull;
	c->aw = 30 + 9 * aw;
	return PT_OK;
}

/*
 * A scalable-mode PASID entry (VT-d spec §9.6; Linux pasid.h): PGTT 2
 * (second-level) and 3 (nested: this is its second stage) walk the table
 * at SLPTPTR with AW's levels; PGTT 1's table is first-level, an x86-64
 * table ([cpu NAME] pasid_entry = ...); 4 translates nothing.
 */
static pt_err vtd_pasid_entry(struct sl_ctx *c, char *err, size_t errlen)
{
	const struct pt_pasid *pe = &c->pasid;

	if (c->has_slptptr || c->has_aw || c->has_context)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "pasid_entry and context/slptptr/aw"
					 " both given: the PASID entry holds SLPTPTR and AW");
	if (!c->walked && !pe->p)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "pasid_entry QW0 0x%016" PRIx64
					 " is not present (P=0): no table to walk", pe->qw[0]);
	if (pe->pgtt == PT_PGTT_FIRST)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "pasid_entry PGTT 1 is first-level"
					 " only: no second-level table (its FLPTR is an x86-64 table:"
					 " [cpu NAME] pasid_entry = ...)");
	c->pass = pe->pgtt == PT_PGTT_PASS;
	if (pe->pgtt != PT_PGTT_SECOND && pe->pgtt != PT_PGTT_NESTED && !c->pass)
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "pasid_entry PGTT %u is"
					 " reserved", pe->pgtt);
	if (pe->aw < 1 || pe->aw > 3)
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "pasid_entry AW %u is not"
					 " supported (1, 2 or 3: 39, 48 or 57 bits)", pe->aw);
	c->root = pe->slptptr;
	c->aw = 30 + 9 * pe->aw;
	return PT_OK;
}

extern const struct pt_format pt_format_vtd, pt_format_ept;

/*
 * Pass-through (legacy context TT 10, VT-d spec §9.3; PASID entry PGTT
 * 100, §9.6): requests are not translated, an input address is its own
 * output up to the AGAW its AW gives (the spec has software program the
 * largest AGAW the hardware supports; Linux writes iommu->agaw /
 * msagaw): a `pass-through` aperture of that width in output_space, and
 * no table.
 */
static void vtd_pass_range(const struct pt_context *ctx, uint64_t va, struct pt_aperture *out)
{
	const struct sl_ctx *c = ctx->priv;

	out->name = "pass-through";
	out->hit = !(va >> c->aw);
	if (out->hit) {
		out->space = c->output_space;
		out->pa = va;
		out->last = (1ull << c->aw) - 1;
	}
}

static void sl_finish(struct pt_context *ctx, struct sl_ctx *c, const struct pt_format *base,
		      const pt_fmt_decode_fn (*dec)[SP__COUNT])
{
	c->fmt = *base;
	pt_fmt_levels_tail(c->levels, sl_levels, L__COUNT, c->levels_n);
	c->fmt.levels = c->levels;
	c->fmt.va_bits = 12 + 9 * c->levels_n;
	c->fmt.va_digits = (c->fmt.va_bits + 3) / 4;
	c->fmt.decode = dec[c->space][c->output_space];
	ctx->fmt = &c->fmt;
	pt_fmt_ctx_root(ctx, c->space, c->root, 512);
	ctx->space_used = 1u << c->space | 1u << c->output_space;
}

static pt_err vtd_ctx_setup(struct pt_context *ctx, char *err, size_t errlen)
{
	struct sl_ctx *c = ctx->priv;
	pt_err rc;

	if (c->has_pasid) {
		if ((rc = vtd_pasid_entry(c, err, errlen)))
			return rc;
	} else if (c->has_context) {
		if ((rc = vtd_context_entry(c, err, errlen)))
			return rc;
	} else {
		if (c->slptptr & 0xfff)
			return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "slptptr 0x%" PRIx64 " is not 4 KiB"
					  " aligned", c->slptptr);
		if (c->slptptr & ~ADDR_MASK)
			return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "slptptr 0x%" PRIx64 " is wider than"
					  " 52 bits", c->slptptr);
		c->root = c->slptptr;
	}
	if (c->root & ~ADDR_MASK)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "SLPTPTR 0x%" PRIx64 " is wider than 52"
				  " bits", c->root);
	c->levels_n = (unsigned)(c->aw - 30) / 9 + 2;
	sl_finish(ctx, c, &pt_format_vtd, vtd_decoders);
	if (c->pass) {
		c->fmt.va_bits = (unsigned)c->aw;
		c->fmt.va_digits = (c->fmt.va_bits + 3) / 4;
		c->fmt.out_of_range = vtd_pass_range;
		pt_fmt_ctx_root(ctx, c->space, 0, 0);
		ctx->space_used = 1u << c->space | 1u << c->output_space;
	}
	return PT_OK;
}

/* EPTP (SDM "Extended-Page-Table Pointer"; vmx.h VMX_EPTP_*): MT 2:0, PWL-1 5:3, A/D 6, root 51:12. */
static pt_err ept_ctx_setup(struct pt_context *ctx, char *err, size_t errlen)
{
	struct sl_ctx *c = ctx->priv;
	uint64_t e = c->eptp, mt = bits(e, 2, 0), pwl = bits(e, 5, 3) + 1;

	if (mt != 0 && mt != 6)
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "eptp 0x%" PRIx64 ": memory type %" PRIu64
				  " is not UC (0) or WB (6): VM entry fails", e, mt);
	if (pwl != 4 && pwl != 5)
		return pt_fmt_setup_fail(err, errlen, PT_E_UNSUPPORTED, "eptp 0x%" PRIx64 ": page-walk"
				  " length %" PRIu64 " (bits 5:3 + 1) is not 4 or 5", e, pwl);
	if (e & (MASK(11, 8) | MASK(63, 52)))
		return pt_fmt_setup_fail(err, errlen, PT_E_VALUE, "eptp 0x%" PRIx64 " has reserved bits set"
				  " (11:8 or 63:52): VM entry fails", e);
	c->root = e & ADDR_MASK;
	c->levels_n = (unsigned)pwl;
	sl_finish(ctx, c, &pt_format_ept, ept_decoders);
	return PT_OK;
}

/* ptfs-tool roots: SLPTPTR at ROOT, AW of CTX's levels (a context or PASID entry's AW said as aw), its spaces. */
static void vtd_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini)
{
	const struct sl_ctx *c = ctx->priv;

	pt_buf_printf(ini, "slptptr = 0x%" PRIx64 "\naw = %u\nspace = %s\noutput_space = %s\n", root,
		      30 + 9 * (c->levels_n - 2), sl_spaces[space], sl_spaces[c->output_space]);
}

/* ptfs-tool roots: CTX's EPTP (memory type, walk length, A/D) with the root at ROOT, its spaces. */
static void ept_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini)
{
	const struct sl_ctx *c = ctx->priv;

	pt_buf_printf(ini, "eptp = 0x%" PRIx64 "\nspace = %s\noutput_space = %s\n",
		      (uint64_t)((c->eptp & ~ADDR_MASK) | (root & ADDR_MASK)), sl_spaces[space],
		      sl_spaces[c->output_space]);
}

static pt_err ept_ctx_init(void *priv, const struct pt_ctx_key *k)
{
	((struct sl_ctx *)priv)->ept = true;
	return sl_ctx_key(priv, k);
}

static void sl_info_text(const struct pt_context *ctx, struct pt_buf *b)
{
	const struct sl_ctx *c = ctx->priv;

	if (!c || !c->levels_n)
		return;
	if (c->ept) {
		pt_buf_printf(b, "eptp: 0x%" PRIx64 "\nmemory_type: %s\nwalk_length: %u\n"
			      "accessed_dirty: %u\n", c->eptp, memtype_name(bits(c->eptp, 2, 0)),
			      c->levels_n, (unsigned)bits(c->eptp, 6, 6));
	} else {
		if (c->has_context)
			pt_buf_printf(b, "context: 0x%016" PRIx64 "%016" PRIx64 "\nfpd: %u\ntt: %u\n"
				      "did: %u\n", c->ctx_hi, c->ctx_lo, (unsigned)bits(c->ctx_lo, 1, 1),
				      (unsigned)bits(c->ctx_lo, 3, 2), (unsigned)bits(c->ctx_hi, 23, 8));
		if (c->has_pasid)
			pt_buf_printf(b, "pasid_entry: 0x%016" PRIx64 " 0x%016" PRIx64 " 0x%016" PRIx64
				      "\npgtt: %u (%s)\nfpd: %u\nslade: %u\ndid: %u\npwsnp: %u\n"
				      "pgsnp: %u\n", c->pasid.qw[0], c->pasid.qw[1], c->pasid.qw[2],
				      c->pasid.pgtt, pt_fmt_pgtt_name(c->pasid.pgtt), c->pasid.fpd,
				      c->pasid.slade, c->pasid.did, c->pasid.pwsnp, c->pasid.pgsnp);
		if (c->pass)
			pt_buf_printf(b, "translation: pass-through (every address below 2^%u is its own"
				      " output; no table)\n", (unsigned)c->aw);
		else
			pt_buf_printf(b, "slptptr: 0x%" PRIx64 "\n", c->root);
		pt_buf_printf(b, "aw: %u\n", (unsigned)c->aw);
	}
	pt_buf_printf(b, "levels: %u\nspace: %s\noutput_space: %s\n", c->pass ? 0 : c->levels_n,
		      sl_spaces[c->space], sl_spaces[c->output_space]);
}

static void sl_info_json(const struct pt_context *ctx, struct pt_jobj *o)
{
	const struct sl_ctx *c = ctx->priv;

	if (!c || !c->levels_n)
		return;
	if (c->ept) {
		pt_jobj_hex(o, "eptp", c->eptp);
		pt_jobj_str(o, "memory_type_name", memtype_name(bits(c->eptp, 2, 0)));   /* "memory_type": the number */
		pt_jobj_u(o, "walk_length", c->levels_n);
		pt_jobj_bool(o, "accessed_dirty", bits(c->eptp, 6, 6));
	} else {
		if (c->has_context) {
			char v[40];

			snprintf(v, sizeof v, "0x%016" PRIx64 "%016" PRIx64, c->ctx_hi, c->ctx_lo);
			pt_jobj_str(o, "context_entry", v);   /* "context" is the context's name */
			pt_jobj_u(o, "fpd", bits(c->ctx_lo, 1, 1));
			pt_jobj_u(o, "tt", bits(c->ctx_lo, 3, 2));
			pt_jobj_u(o, "did", bits(c->ctx_hi, 23, 8));
		}
		if (c->has_pasid) {
			pt_jobj_hex(o, "pasid_qw0", c->pasid.qw[0]);
			pt_jobj_hex(o, "pasid_qw1", c->pasid.qw[1]);
			pt_jobj_hex(o, "pasid_qw2", c->pasid.qw[2]);
			pt_jobj_str(o, "pgtt", pt_fmt_pgtt_name(c->pasid.pgtt));
			pt_jobj_u(o, "fpd", c->pasid.fpd);
			pt_jobj_u(o, "slade", c->pasid.slade);
			pt_jobj_u(o, "did", c->pasid.did);
			pt_jobj_u(o, "pwsnp", c->pasid.pwsnp);
			pt_jobj_u(o, "pgsnp", c->pasid.pgsnp);
		}
		if (c->pass)
			pt_jobj_str(o, "translation", "pass-through");
		else
			pt_jobj_hex(o, "slptptr", c->root);
		pt_jobj_u(o, "aw", c->aw);
	}
	pt_jobj_u(o, "level_count", c->pass ? 0 : c->levels_n);   /* "levels" is the core's per-level table */
	pt_jobj_str(o, "space", sl_spaces[c->space]);
	pt_jobj_str(o, "output_space", sl_spaces[c->output_space]);
}

static const struct pt_blob_kind vtd_blob_kinds[] = {{"vtd", 8}, {NULL, 0}};
static const struct pt_blob_kind ept_blob_kinds[] = {{"ept", 8}, {NULL, 0}};
static const struct pt_perm_name vtd_perm_names[] = {
	{PT_PERM_NO_READ, "r=0"}, {PT_PERM_NO_WRITE, "w=0"}, {PT_PERM_EXEC, "x=1"},
	{PT_PERM_SNOOPED, "snp=1"}, {0, NULL},
};
static const struct pt_perm_name ept_perm_names[] = {
	{PT_PERM_NO_READ, "read=0"}, {PT_PERM_NO_WRITE, "write=0"}, {PT_PERM_EXEC, "execute=1"},
	{0, NULL},
};

/* Without a context (ptfs-tool decode): 5 levels, tables and pages in sysmem. */
const struct pt_format pt_format_vtd = {
	.name = "intel-vtd",
	.levels = sl_levels,
	.va_bits = 57,
	.va_digits = 15,
	.perm_or_down = PT_PERM_NO_READ | PT_PERM_NO_WRITE,
	.spaces = sl_spaces,
	.decode = vtd_decode_sp_0_0,
	.flags = vtd_flags,
	.kind_name = vtd_kind,
	.kind_field = "emt",
	.blob_kinds = vtd_blob_kinds,
	.ctx_section = "vtd",
	.ctx_size = sizeof(struct sl_ctx),
	.ctx_key = sl_ctx_key,
	.ctx_entry = vtd_ctx_entry,
	.ctx_missing = vtd_ctx_missing,
	.ctx_setup = vtd_ctx_setup,
	.info_text = sl_info_text,
	.info_json = sl_info_json,
	.perm_names = vtd_perm_names,
	.encode = pt_vtd_encode,
	.build_keys = pt_vtd_build_keys,
	.geom_keys = vtd_geom_keys,
};

const struct pt_format pt_format_ept = {
	.name = "intel-ept",
	.levels = sl_levels,
	.va_bits = 57,
	.va_digits = 15,
	.perm_or_down = PT_PERM_NO_READ | PT_PERM_NO_WRITE,
	.perm_and_down = PT_PERM_EXEC,
	.spaces = sl_spaces,
	.decode = ept_decode_sp_0_0,
	.flags = ept_flags,
	.kind_name = ept_kind,
	.kind_field = "memory_type",
	.blob_kinds = ept_blob_kinds,
	.ctx_section = "ept",
	.ctx_size = sizeof(struct sl_ctx),
	.ctx_key = ept_ctx_init,
	.ctx_missing = ept_ctx_missing,
	.ctx_setup = ept_ctx_setup,
	.info_text = sl_info_text,
	.info_json = sl_info_json,
	.perm_names = ept_perm_names,
	.encode = pt_ept_encode,
	.build_keys = pt_ept_build_keys,
	.geom_keys = ept_geom_keys,
};
