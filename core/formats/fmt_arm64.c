/* SPDX-License-Identifier: MIT */
/*
 * fmt_arm64.c — AArch64 VMSAv8-64 translation tables, stage 1 and stage 2
 * (docs/design.md §2.6).  Facts: Arm ARM (DDI 0487) D8.2 "Translation
 * table descriptor formats", D8.3 "Translation table walk" (start level,
 * concatenation), D8.4 "Memory access control" (hierarchical controls);
 * as restated by Linux arch/arm64/include/asm/pgtable-hwdef.h
 * (the PTE_, PMD_ and _TABLE_ bits, the TCR_ fields, PTE_ADDR_HIGH),
 * arch/arm64/include/asm/kvm_arm.h (VTCR_EL2, VTTBR_EL2, the SL0 table)
 * and QEMU target/arm/ptw.c (get_phys_addr_lpae, check_s2_mmu_setup,
 * lpae_block_desc_valid, get_S1prot, get_S2prot).
 *
 * A context is one TTBR (`[arm64 NAME]`): the granule, the VA size, DS and
 * the output size come from TCR_EL1 (or explicit keys), and choose a level
 * table of the context's own (start level from TxSZ, root index bits).
 * The decoder has no context, so there is one decoder per (granule, DS,
 * output size, stage, FEAT_XNX); the level is told by its page shift (the
 * VA bits an entry spans), which the granule makes unique.
 *
 * VAs are canonical 64-bit addresses as x86-64's: a TTBR0 context of N VA
 * bits covers 0 .. 2^N-1 and a TTBR1 context 2^64-2^N .. 2^64-1 (Arm ARM
 * D8.1 "VA ranges": bit 55 selects the TTBR, the bits above N must equal
 * it); both are va_canonical formats of N+1 bits with the root at the
 * half's first slot, so the other half is out of range and the gap between
 * them is noncanonical.  Rights are those of the path: APTable, PXNTable,
 * UXNTable and NSTable ORed down (Arm ARM D8.4.2 "Hierarchical control of
 * data/instruction access permissions"; QEMU ptw.c ORs bits 63:59 of every
 * table descriptor), unless TCR.HPDn disables all but NSTable.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmt_arm64.h"
#include "pt_capture.h"
#include "pt_buf.h"

static const char *const a64_spaces[] = {"sysmem", NULL};

static unsigned cfg_grain(const struct a64_cfg *c)
{
	return 12u + 2u * c->g;
}

/*
 * A block at Arm level LVL (QEMU ptw.c lpae_block_desc_valid, the Arm ARM
 * pseudocode BlockDescSupported): level 2 always; level 1 with 4K, with
 * 16K only when DS, with 64K only for a 52-bit output (FEAT_LPA); level 0
 * with 4K and DS only.
 */
static bool block_ok(const struct a64_cfg *c, int lvl)
{
	if (lvl == 2)
		return true;
	if (lvl == 1)
		return c->g == 0 || (c->g == 1 && c->ds) || (c->g == 2 && pa_sizes[c->pa] == 52);
	return lvl == 0 && c->g == 0 && c->ds;
}

/*
 * The output address of a descriptor whose low address bit is OS (the
 * granule for tables and pages, the block size for blocks), and the raw
 * bits that hold it: 47:OS in place; with 64K and a 52-bit output
 * (FEAT_LPA) OA[51:48] in bits 15:12 (pgtable-hwdef.h PTE_ADDR_HIGH); with
 * DS (FEAT_LPA2) OA[49:48] in place and OA[51:50] in bits 9:8 (Arm ARM
 * D8.2.6; QEMU ptw.c).  An address bit at or above the output size is not
 * named: it is reserved (QEMU: an Address size fault).
 */
static uint64_t oa_of(const struct a64_cfg *c, uint64_t r, unsigned os, uint64_t *named)
{
	unsigned pa = pa_sizes[c->pa];
	uint64_t oa = r & span(pa <= 48 ? pa - 1 : 47, os);

	*named = span(pa <= 48 ? pa - 1 : 47, os);
	if (pa == 52 && c->g == 2) {
		oa |= bits(r, 15, 12) << 48;
		*named |= span(15, 12);
	}
	if (pa == 52 && c->ds) {
		oa |= (r & span(49, 48)) | (bits(r, 9, 8) << 50);
		*named |= span(49, 48) | span(9, 8);
	}
	return oa;
}

static void add_tail(struct pt_entry *e, uint64_t r, uint64_t named)
{
	pt_entry_add_reserved(e, r & ~named, 0, false);
}

static void add_oa_high(struct pt_entry *e, const struct a64_cfg *c, uint64_t r)
{
	if (pa_sizes[c->pa] == 52 && c->g == 2)
		pt_entry_add(e, "oa_51_48", PT_FK_UINT, bits(r, 15, 12));
	if (c->ds)
		pt_entry_add(e, "oa_51_50", PT_FK_UINT, bits(r, 9, 8));
}

/*
 * A table descriptor (Arm ARM D8.2.3; pgtable-hwdef.h PMD_TABLE_PXN 59,
 * PMD_TABLE_UXN 60, PMD_TABLE_AP 62:61, PMD_TABLE_NS 63): 11:2 and 58:51
 * ignored.  At stage 2 bits 63:59 carry nothing (QEMU ptw.c): ignored.
 */
static void decode_table(struct pt_entry *e, const struct a64_cfg *c, uint64_t r)
{
	unsigned grain = cfg_grain(c);
	uint64_t named, ign = span(11, 2) & ~(c->ds ? span(9, 8) : 0);
	uint64_t addr = oa_of(c, r, grain, &named);

	named |= 3 | ign;
	pt_entry_add(e, "valid", PT_FK_BIT, 1);
	pt_entry_add(e, "table", PT_FK_BIT, 1);
	pt_entry_add(e, "ignored", PT_FK_HEX, r & ign);
	add_oa_high(e, c, r);
	pt_entry_add(e, "address", PT_FK_HEX, addr);
	if (c->s2) {
		pt_entry_add(e, "ignored_high", PT_FK_HEX, r & span(63, 51));
		named |= span(63, 51);
		e->perm = 0;
	} else {
		pt_entry_add(e, "ignored_high", PT_FK_HEX, r & span(58, 51));
		pt_entry_add(e, "pxn_table", PT_FK_BIT, bits(r, 59, 59));
		pt_entry_add(e, "uxn_table", PT_FK_BIT, bits(r, 60, 60));
		pt_entry_add(e, "ap_table", PT_FK_UINT, bits(r, 62, 61));
		pt_entry_add(e, "ns_table", PT_FK_BIT, bits(r, 63, 63));
		named |= span(63, 51);
		/* APTable[0] (61): no EL0 access below; APTable[1] (62): read-only below */
		e->perm = (r & BIT(59) ? PT_PERM_PXN : 0) | (r & BIT(60) ? PT_PERM_UXN : 0) |
			  (r & BIT(61) ? PT_PERM_PRIVILEGE : 0) | (r & BIT(62) ? PT_PERM_NO_WRITE : 0) |
			  (r & BIT(63) ? PT_PERM_NS : 0);
	}
	add_tail(e, r, named);
	e->state = PT_ST_POINTER;
	e->target[0].present = true;
	e->target[0].space = 0;
	e->target[0].addr = addr;
	e->target[0].level = -1;
}

/*
 * Stage-1 rights of a leaf (Arm ARM D8.4.1; QEMU ptw.c get_S1prot):
 * AP[2] (7) read-only, AP[1] (6) EL0 access, PXN 53, UXN 54, NS 5; a page
 * EL0 can write is never executable at EL1 (the two-range regimes' rule).
 */
static uint32_t s1_perm(uint64_t r)
{
	uint32_t p = (r & BIT(7) ? PT_PERM_NO_WRITE : 0) | (r & BIT(6) ? 0 : PT_PERM_PRIVILEGE) |
		     (r & BIT(53) ? PT_PERM_PXN : 0) | (r & BIT(54) ? PT_PERM_UXN : 0) |
		     (r & BIT(5) ? PT_PERM_NS : 0);

	if (bits(r, 7, 6) == 1)
		p |= PT_PERM_PXN;
	return p;
}

/*
 * Stage-2 rights (Arm ARM D8.4.4; QEMU ptw.c get_S2prot): S2AP[0] (6)
 * read, S2AP[1] (7) write; XN[1:0] (54:53) with FEAT_XNX: 00 both
 * executable, 01 EL1 not (EL0 only), 10 neither, 11 EL0 not (EL1 only);
 * without it only bit 54 counts (Linux kvm_pgtable.h
 * KVM_PTE_LEAF_ATTR_HI_S2_XN).
 */
static uint32_t s2_perm(uint64_t r, bool xnx)
{
	uint32_t p = (r & BIT(6) ? 0 : PT_PERM_NO_READ) | (r & BIT(7) ? 0 : PT_PERM_NO_WRITE);
	static const uint32_t xn[4] = {0, PT_PERM_PXN, PT_PERM_PXN | PT_PERM_UXN, PT_PERM_UXN};

	if (xnx)
		return p | xn[bits(r, 54, 53)];
	return p | (r & BIT(54) ? PT_PERM_PXN | PT_PERM_UXN : 0);
}

/*
 * A block or page descriptor whose output spans SHIFT bits (Arm ARM
 * D8.2.4/D8.2.5; pgtable-hwdef.h PTE_ATTRINDX 4:2, PTE_NS 5, PTE_USER 6,
 * PTE_RDONLY 7, PTE_SHARED 9:8, PTE_AF 10, PTE_NG 11, PTE_GP 50, PTE_DBM
 * 51, PTE_CONT 52, PTE_PXN 53, PTE_UXN 54, PTE_SWBITS_MASK 58:55 and 63,
 * PBHA 62:59); AP[2:1] is two one-bit fields by Linux's names (ap_user
 * AP[1], ap_rdonly AP[2]) so that the maps flags are field names.  Stage 2
 * (KVM_PTE_LEAF_ATTR_*): MemAttr 5:2, S2AP[0] read 6, S2AP[1] write 7, bit
 * 11 FnXS, XN[1] 54 (xn, KVM's S2_XN) and XN[0] 53 (xn0, FEAT_XNX), no GP.
 * Bits between the granule and SHIFT are RES0.
 */
static void decode_leaf(struct pt_entry *e, const struct a64_cfg *c, uint64_t r, unsigned shift)
{
	uint64_t named, addr = oa_of(c, r, shift, &named);

	named |= 3 | span(11, 10) | span(63, 51) | (c->ds ? 0 : span(9, 8));
	pt_entry_add(e, "valid", PT_FK_BIT, 1);
	pt_entry_add(e, "table", PT_FK_BIT, bits(r, 1, 1));
	if (c->s2) {
		pt_entry_add(e, "mem_attr", PT_FK_UINT, bits(r, 5, 2));
		pt_entry_add(e, "s2ap_read", PT_FK_BIT, bits(r, 6, 6));
		pt_entry_add(e, "s2ap_write", PT_FK_BIT, bits(r, 7, 7));
		named |= span(7, 2);
	} else {
		pt_entry_add(e, "attr_index", PT_FK_UINT, bits(r, 4, 2));
		pt_entry_add(e, "ns", PT_FK_BIT, bits(r, 5, 5));
		pt_entry_add(e, "ap_user", PT_FK_BIT, bits(r, 6, 6));
		pt_entry_add(e, "ap_rdonly", PT_FK_BIT, bits(r, 7, 7));
		named |= span(7, 2) | BIT(50);
	}
	if (!c->ds)
		pt_entry_add(e, "sh", PT_FK_UINT, bits(r, 9, 8));
	pt_entry_add(e, "af", PT_FK_BIT, bits(r, 10, 10));
	pt_entry_add(e, c->s2 ? "fnxs" : "ng", PT_FK_BIT, bits(r, 11, 11));
	add_oa_high(e, c, r);
	pt_entry_add(e, "address", PT_FK_HEX, addr);
	if (!c->s2)
		pt_entry_add(e, "gp", PT_FK_BIT, bits(r, 50, 50));
	pt_entry_add(e, "dbm", PT_FK_BIT, bits(r, 51, 51));
	pt_entry_add(e, "contiguous", PT_FK_BIT, bits(r, 52, 52));
	if (c->s2) {
		pt_entry_add(e, "xn0", PT_FK_BIT, bits(r, 53, 53));
		pt_entry_add(e, "xn", PT_FK_BIT, bits(r, 54, 54));
	} else {
		pt_entry_add(e, "pxn", PT_FK_BIT, bits(r, 53, 53));
		pt_entry_add(e, "uxn", PT_FK_BIT, bits(r, 54, 54));
	}
	pt_entry_add(e, "sw", PT_FK_UINT, bits(r, 58, 55));
	pt_entry_add(e, "pbha", PT_FK_UINT, bits(r, 62, 59));
	pt_entry_add(e, "ignored", PT_FK_HEX, r & BIT(63));
	add_tail(e, r, named);
	e->state = PT_ST_MAPPED;
	e->leaf = true;
	e->space = 0;
	e->pa = addr;
	e->address_complete = true;
	e->page_size = 1ull << shift;
	e->perm = c->s2 ? s2_perm(r, c->xnx) : s1_perm(r);
	e->kind = (int)(c->s2 ? bits(r, 5, 2) : bits(r, 4, 2));
}

pt_err pt_a64_decode_with(const struct a64_cfg *c, unsigned level, unsigned page_shift,
			      const uint8_t *raw, unsigned flags, struct pt_entry *e)
{
	unsigned grain = cfg_grain(c), stride = grain - 3, shift = page_shift;
	int lvl;
	uint64_t r;

	/* Page shift 0: decoded alone (ptfs-tool decode, level open): rows l0..l3 */
	if (shift == 0 && level < 4)
		shift = grain + stride * (3 - level);
	if (!raw || shift < grain || (shift - grain) % stride || (shift - grain) / stride > 4) {
		pt_entry_reset(e, 0, NULL, flags);
		e->state = PT_ST_UNSUPPORTED;
		return PT_E_UNSUPPORTED;
	}
	lvl = 3 - (int)((shift - grain) / stride);
	pt_entry_reset(e, 8, raw, flags);
	e->kind = -1;
	r = e->raw[0];
	if (!(r & 1)) {
		/* bit 0 clear: a fault; every other bit is the software's (Arm ARM D8.2.2) */
		pt_entry_add(e, "valid", PT_FK_BIT, 0);
		pt_entry_add_reserved(e, 0, 0, false);
		e->state = r ? PT_ST_INVALID : PT_ST_UNMAPPED;
		return PT_OK;
	}
	if (lvl == 3 ? !(r & 2) : (!(r & 2) && !block_ok(c, lvl))) {
		/* 01 at level 3 is reserved; a block the granule has none of (QEMU ptw.c) */
		pt_entry_add(e, "valid", PT_FK_BIT, 1);
		pt_entry_add(e, "table", PT_FK_BIT, 0);
		pt_entry_add_reserved(e, 0, 0, false);
		e->state = PT_ST_UNSUPPORTED;
		return PT_OK;
	}
	if (lvl == 3 || !(r & 2))
		decode_leaf(e, c, r, shift);
	else
		decode_table(e, c, r);
	if (e->state == PT_ST_POINTER)
		e->target[0].level = (int8_t)(level + 1);
	return PT_OK;
}

/*
 * One decoder per (granule, DS, output size, stage, XNX): the descriptor's
 * decode has no context.  dec_G_D_P_S_X; the table a64_decoders[G][D][P][S][X];
 * the same for the encoder (fmt_arm64_enc.c), enc_G_D_P_S_X in a64_encoders.
 */
typedef pt_err (*decode_fn)(unsigned, unsigned, const uint8_t *, unsigned, struct pt_entry *);
#define A64_DEC(G, D, P, S, X)                                                                \
	static pt_err dec_##G##_##D##_##P##_##S##_##X(unsigned level, unsigned ps,              \
						     const uint8_t *raw, unsigned flags,       \
						     struct pt_entry *out)                     \
	{                                                                                       \
		static const struct a64_cfg c = {G, D, P, S, X};                                \
		return pt_a64_decode_with(&c, level, ps, raw, flags, out);                         \
	}                                                                                       \
	static pt_err enc_##G##_##D##_##P##_##S##_##X(unsigned level, const struct pt_entry *e, \
						     uint8_t *raw, char *err, size_t len)      \
	{                                                                                       \
		static const struct a64_cfg c = {G, D, P, S, X};                                \
		(void)level;                                                                    \
		return pt_a64_encode_with(&c, e, raw, err, len);                                \
	}
#define A64_PTR(G, D, P, S, X) [G][D][P][S][X] = dec_##G##_##D##_##P##_##S##_##X,
#define A64_EPTR(G, D, P, S, X) [G][D][P][S][X] = enc_##G##_##D##_##P##_##S##_##X,
#define XS_X(M, G, D, P, S) M(G, D, P, S, 0) M(G, D, P, S, 1)
#define XS_S(M, G, D, P) XS_X(M, G, D, P, 0) XS_X(M, G, D, P, 1)
#define XS_P(M, G, D) XS_S(M, G, D, 0) XS_S(M, G, D, 1) XS_S(M, G, D, 2) XS_S(M, G, D, 3) \
	XS_S(M, G, D, 4) XS_S(M, G, D, 5) XS_S(M, G, D, 6)
#define XS_D(M, G) XS_P(M, G, 0) XS_P(M, G, 1)
#define XS_ALL(M) XS_D(M, 0) XS_D(M, 1) XS_D(M, 2)
XS_ALL(A64_DEC)
static const decode_fn a64_decoders[3][2][NPA][2][2] = {XS_ALL(A64_PTR)};
typedef pt_err (*encode_fn)(unsigned, const struct pt_entry *, uint8_t *, char *, size_t);
static const encode_fn a64_encoders[3][2][NPA][2][2] = {XS_ALL(A64_EPTR)};

/*
 * maps/walk FLAGS: the effective rights (the path's), from perm alone, by
 * the fields that set them: ap_rdonly (AP[2], or APTable[1] above),
 * ap_user (AP[1], and no APTable[0] above), pxn, uxn (the leaf's, a
 * table's, or PXN implied by an EL0-writable page), ns (NS or NSTable).
 */
void pt_a64_flags(const struct pt_entry *e, char *buf, size_t len)
{
	static const char *const names[] = {"ap_rdonly", "ap_user", "pxn", "uxn", "ns"};
	const bool set[] = {
		(e->perm & PT_PERM_NO_WRITE) != 0, !(e->perm & PT_PERM_PRIVILEGE),
		(e->perm & PT_PERM_PXN) != 0, (e->perm & PT_PERM_UXN) != 0, (e->perm & PT_PERM_NS) != 0,
	};

	pt_format_flag_words(buf, len, set, names, 5);
}

/* Stage 2: S2AP read and write, and xn (XN[1]: no EL0 execution, and none at all without XNX). */
static void a64_s2_flags(const struct pt_entry *e, char *buf, size_t len)
{
	static const char *const names[] = {"s2ap_read", "s2ap_write", "xn"};
	const bool set[] = {
		!(e->perm & PT_PERM_NO_READ), !(e->perm & PT_PERM_NO_WRITE),
		(e->perm & PT_PERM_UXN) != 0,
	};

	pt_format_flag_words(buf, len, set, names, 3);
}

/* maps KIND: the AttrIndx (stage 1: a MAIR slot, never a name guessed from Linux) or MemAttr. */
void pt_a64_kind(const struct pt_entry *e, char *buf, size_t len)
{
	if (e->kind < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d", e->kind);
}


/* ---- the [arm64 NAME] context ------------------------------------------------ */

static const char *const key_names[K__COUNT] = {
	"stage", "ttbr", "tcr", "half", "granule", "va_bits", "pa_bits", "ds", "vttbr", "vtcr", "xnx",
	"tbi",
};
/* Keys of stage 1 only, of stage 2 only, and those tcr (or vtcr) replaces. */
#define S1_KEYS (BIT(K_TTBR) | BIT(K_TCR) | BIT(K_HALF) | BIT(K_GRANULE) | BIT(K_VA_BITS) | \
		 BIT(K_PA_BITS) | BIT(K_DS) | BIT(K_TBI))
#define S2_KEYS (BIT(K_VTTBR) | BIT(K_VTCR) | BIT(K_XNX))
#define TCR_KEYS (BIT(K_GRANULE) | BIT(K_VA_BITS) | BIT(K_PA_BITS) | BIT(K_DS) | BIT(K_TBI))


static const char *const lvl_names[] = {"l-1", "l0", "l1", "l2", "l3"};

static pt_err a64_ctx_key(void *priv, const struct pt_ctx_key *k)
{
	struct a64_ctx *c = priv;
	pt_err rc;

	if (!strcmp(k->key, "space")) {
		/* the capture's name of the format's one space (a guest's IPAs, docs/design.md §2.8) */
		c->space_name = k->value;
		return PT_OK;
	}
	for (int i = 0; i < K__COUNT; i++) {
		uint64_t v;

		if (strcmp(k->key, key_names[i]))
			continue;
		if (i == K_HALF) {
			if (strcmp(k->value, "lower") && strcmp(k->value, "upper"))
				return pt_ctx_key_fail(k, PT_E_VALUE, "half '%s' in %s is not lower"
						       " (TTBR0) or upper (TTBR1)", k->value, k->label);
			c->upper = !strcmp(k->value, "upper");
			v = c->upper;
		} else if (i == K_TBI) {
			/* TCR_ELx.TBI of the half, which a dump does not hold: 0, 1, or unknown (2) */
			if (strcmp(k->value, "0") && strcmp(k->value, "1") && strcmp(k->value, "unknown"))
				return pt_ctx_key_fail(k, PT_E_VALUE, "tbi '%s' in %s is not 0, 1 or unknown",
						       k->value, k->label);
			v = !strcmp(k->value, "unknown") ? 2 : k->value[0] == '1';
		} else {
			rc = pt_ctx_key_uint(k, &v);
			if (rc)
				return rc;
		}
		if ((i == K_STAGE && v != 1 && v != 2) ||
		    ((i == K_DS || i == K_XNX) && v > 1) ||
		    (i == K_GRANULE && v != 4096 && v != 16384 && v != 65536) ||
		    (i == K_VA_BITS && (v < 25 || v > 52)) ||
		    (i == K_PA_BITS && v != 32 && v != 36 && v != 40 && v != 42 && v != 44 &&
		     v != 48 && v != 52))
			return pt_ctx_key_fail(k, PT_E_VALUE, "%s %s in %s is not one of %s", k->key,
					       k->value, k->label,
					       i == K_STAGE ? "1, 2" : i == K_GRANULE ? "4096, 16384, 65536"
					       : i == K_VA_BITS ? "25..52" : i == K_PA_BITS
					       ? "32, 36, 40, 42, 44, 48, 52" : "0, 1");
		if ((i == K_TCR && (c->has & TCR_KEYS)) || ((BIT(i) & TCR_KEYS) && (c->has & BIT(K_TCR))))
			return pt_ctx_key_fail(k, PT_E_VALUE, "%s in %s: tcr and granule/va_bits/pa_bits/ds/tbi"
					       " both given (tcr says them)", k->key, k->label);
		if (((BIT(i) & S1_KEYS) && (c->has & S2_KEYS)) ||
		    ((BIT(i) & S2_KEYS) && (c->has & S1_KEYS)))
			return pt_ctx_key_fail(k, PT_E_VALUE, "%s in %s: stage-1 keys (ttbr, tcr, half,"
					       " ...) and stage-2 keys (vttbr, vtcr, xnx) both given",
					       k->key, k->label);
		if (((BIT(i) & S1_KEYS) && (c->has & BIT(K_STAGE)) && c->v[K_STAGE] == 2) ||
		    ((BIT(i) & S2_KEYS) && (c->has & BIT(K_STAGE)) && c->v[K_STAGE] == 1) ||
		    (i == K_STAGE && (c->has & (v == 2 ? S1_KEYS : S2_KEYS))))
			return pt_ctx_key_fail(k, PT_E_VALUE, "%s in %s: stage = %u with stage-%u keys",
					       k->key, k->label, i == K_STAGE ? (unsigned)v
					       : (unsigned)c->v[K_STAGE], i == K_STAGE ? 3 - (unsigned)v
					       : 3 - (unsigned)c->v[K_STAGE]);
		c->v[i] = v;
		c->has |= (uint32_t)BIT(i);
		return PT_OK;
	}
	return PT_E_NOTFOUND;
}

static const char *a64_ctx_missing(const void *priv)
{
	const struct a64_ctx *c = priv;
	bool s2 = (c->has & BIT(K_STAGE)) ? c->v[K_STAGE] == 2 : (c->has & S2_KEYS) != 0;

	if (s2)
		return !(c->has & BIT(K_VTTBR)) ? "vttbr" : !(c->has & BIT(K_VTCR)) ? "vtcr" : NULL;
	return !(c->has & BIT(K_TTBR)) ? "ttbr" : !(c->has & BIT(K_HALF)) ? "half" : NULL;
}

static pt_err setup_fail(char *err, size_t errlen, pt_err rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static pt_err setup_fail(char *err, size_t errlen, pt_err rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static unsigned pa_index(unsigned pa)
{
	for (unsigned i = 0; i < NPA; i++)
		if (pa_sizes[i] == pa)
			return i;
	return 5;
}

/*
 * Stage 1 geometry from TCR_EL1 (pgtable-hwdef.h TCR_T0SZ 5:0, TCR_EPD0 7,
 * TCR_TG0 15:14 (0 4K, 1 64K, 2 16K), TCR_T1SZ 21:16, TCR_EPD1 23,
 * TCR_TG1 31:30 (1 16K, 2 4K, 3 64K), TCR_IPS 34:32, TCR_HPD0 41,
 * TCR_HPD1 42, TCR_DS 59), or from the explicit keys.
 */
static pt_err s1_geometry(struct a64_ctx *c, char *err, size_t errlen)
{
	static const unsigned tg0[4] = {12, 16, 14, 0}, tg1[4] = {0, 14, 12, 16};
	uint64_t tcr = c->v[K_TCR];

	if (c->has & BIT(K_TCR)) {
		unsigned tg = c->upper ? tg1[bits(tcr, 31, 30)] : tg0[bits(tcr, 15, 14)];
		unsigned ips = (unsigned)bits(tcr, 34, 32);

		if (!tg)
			return setup_fail(err, errlen, PT_E_VALUE, "tcr 0x%" PRIx64 ": TG%d %u is reserved",
					  tcr, c->upper, (unsigned)(c->upper ? bits(tcr, 31, 30)
								   : bits(tcr, 15, 14)));
		if (tcr & (c->upper ? BIT(23) : BIT(7)))
			return setup_fail(err, errlen, PT_E_UNSUPPORTED, "tcr 0x%" PRIx64 ": EPD%d is set:"
					  " walks from TTBR%d are disabled", tcr, c->upper, c->upper);
		if (ips >= NPA)
			return setup_fail(err, errlen, PT_E_VALUE, "tcr 0x%" PRIx64 ": IPS 7 is reserved",
					  tcr);
		c->grain = tg;
		c->va = 64 - (unsigned)(c->upper ? bits(tcr, 21, 16) : bits(tcr, 5, 0));
		c->pa = pa_sizes[ips];
		c->ds = tg != 16 && (tcr & BIT(59));
		c->hpd = (tcr & (c->upper ? BIT(42) : BIT(41))) != 0;
		/* TBI0 37, TBI1 38 (Linux pgtable-hwdef.h TCR_TBI0/TCR_TBI1) */
		c->tbi = (tcr & (c->upper ? BIT(38) : BIT(37))) != 0;
	} else {
		c->grain = (c->has & BIT(K_GRANULE)) ? (c->v[K_GRANULE] == 4096 ? 12 :
			   c->v[K_GRANULE] == 16384 ? 14 : 16) : 12;
		c->va = (c->has & BIT(K_VA_BITS)) ? (unsigned)c->v[K_VA_BITS] : 48;
		c->ds = c->grain != 16 && c->v[K_DS];
		c->pa = (c->has & BIT(K_PA_BITS)) ? (unsigned)c->v[K_PA_BITS] : c->ds ? 52 : 48;
		c->tbi = (c->has & BIT(K_TBI)) && c->v[K_TBI] == 1;
		c->tbi_unknown = (c->has & BIT(K_TBI)) && c->v[K_TBI] == 2;
	}
	/* without DS a 4K/16K walk outputs at most 48 bits (QEMU ptw.c) */
	if (c->grain != 16 && !c->ds && c->pa > 48)
		c->pa = 48;
	/* TxSZ 16..39, down to 12 with 64K (FEAT_LVA) or DS (QEMU helper.c aa64_va_parameters) */
	if (c->va < 25 || c->va > 52 || (c->va > 48 && c->grain != 16 && !c->ds))
		return setup_fail(err, errlen, PT_E_VALUE, "a %u-bit VA range is outside 25..%u for"
				  " the %u KiB granule%s", c->va, c->grain != 16 && !c->ds ? 48 : 52,
				  1u << (c->grain - 10), c->grain != 16 && !c->ds ? " without DS" : "");
	/* start level = 4 - (inputsize - 4) / stride (Arm ARM D8.3; QEMU ptw.c) */
	c->start_lvl = (unsigned)(4 - (int)((c->va - 4) / (c->grain - 3)) + 1);
	return PT_OK;
}

/*
 * Stage 2 geometry from VTCR_EL2 (kvm_arm.h VTCR_EL2_T0SZ 5:0, SL0 7:6,
 * TG0 15:14, PS 18:16, DS 32, SL2 33) and the start level its SL0 gives
 * (QEMU ptw.c check_s2_mmu_setup; Arm ARM D8.3 "concatenated translation
 * tables": up to 16 tables at the start level).
 */
static pt_err s2_geometry(struct a64_ctx *c, char *err, size_t errlen)
{
	static const unsigned tg0[4] = {12, 16, 14, 0};
	uint64_t vtcr = c->v[K_VTCR];
	unsigned sl0 = (unsigned)bits(vtcr, 7, 6), ps = (unsigned)bits(vtcr, 18, 16);
	int start = -2;

	c->grain = tg0[bits(vtcr, 15, 14)];
	if (!c->grain || ps >= NPA)
		return setup_fail(err, errlen, PT_E_VALUE, "vtcr 0x%" PRIx64 ": %s is reserved", vtcr,
				  !c->grain ? "TG0 3" : "PS 7");
	c->va = 64 - (unsigned)bits(vtcr, 5, 0);
	c->pa = pa_sizes[ps];
	c->ds = c->grain != 16 && (vtcr & BIT(32));
	if (c->grain != 16 && !c->ds && c->pa > 48)
		c->pa = 48;
	c->xnx = (unsigned)c->v[K_XNX];
	if (c->grain == 12)
		start = c->ds && (vtcr & BIT(33)) && sl0 == 0 ? -1 : (int[]){2, 1, 0, 3}[sl0];
	else if (c->grain == 14)
		start = sl0 == 3 && !c->ds ? -2 : 3 - (int)sl0;
	else
		start = sl0 == 3 ? -2 : 3 - (int)sl0;
	if (start < -1)
		return setup_fail(err, errlen, PT_E_UNSUPPORTED, "vtcr 0x%" PRIx64 ": SL0 %u is"
				  " reserved for the %u KiB granule", vtcr, sl0, 1u << (c->grain - 10));
	c->start_lvl = (unsigned)(start + 1);
	{
		unsigned stride = c->grain - 3, shift = c->grain + stride * (unsigned)(3 - start);

		if (c->va <= shift || c->va - shift > stride + 4)
			return setup_fail(err, errlen, PT_E_VALUE, "vtcr 0x%" PRIx64 ": a %u-bit IPA"
					  " does not start at level %d (SL0 %u): the start table"
					  " would index %d bits (1..%u)", vtcr, c->va, start, sl0,
					  (int)c->va - (int)shift, stride + 4);
	}
	return PT_OK;
}

/* The per-context level table: start level to 3, blocks where the granule has them. */
static void make_levels(struct a64_ctx *c, const struct a64_cfg *cfg)
{
	unsigned stride = c->grain - 3, n = 0;

	for (unsigned li = c->start_lvl; li <= 4; li++, n++) {
		int lvl = (int)li - 1;
		unsigned shift = c->grain + stride * (unsigned)(3 - lvl);
		struct pt_level *l = &c->levels[n];

		l->name = lvl_names[li];
		l->depth = (uint8_t)n;
		l->va_shift = (uint8_t)shift;
		l->bits = (uint8_t)(n == 0 ? c->va - shift : stride);
		l->entry_size = 8;
		l->role = lvl == 3 ? PT_ROLE_LEAF : PT_ROLE_DIR;
		l->leaf_shift = lvl < 3 && block_ok(cfg, lvl) ? (uint8_t)shift : 0;
		l->child[0] = (int8_t)(lvl == 3 ? -1 : (int)n + 1);
		l->child[1] = -1;
	}
	c->root_bits = c->levels[0].bits;
	memset(&c->levels[n], 0, sizeof c->levels[n]);
	c->levels[n].child[0] = c->levels[n].child[1] = -1;
}

/* Audit reasons: the descriptor fields whose value denies. */
static const struct pt_perm_name a64_perm_names[] = {
	{PT_PERM_NO_WRITE, "ap_rdonly=1"},
	{PT_PERM_PRIVILEGE, "ap_user=0"},
	{PT_PERM_PXN, "pxn=1"},
	{PT_PERM_UXN, "uxn=1"},
	{PT_PERM_NS, "ns=1"},
	{0, NULL},
};
/* Stage 2: PXN and UXN come from XN[1:0] together (s2_perm()): no one field each. */
static const struct pt_perm_name a64_s2_perm_names[] = {
	{PT_PERM_NO_READ, "s2ap_read=0"},
	{PT_PERM_NO_WRITE, "s2ap_write=0"},
	{0, NULL},
};

extern const struct pt_format pt_format_arm64;

pt_err pt_a64_setup(struct a64_ctx *c, struct pt_context *ctx, char *err, size_t errlen)
{
	bool s2 = (c->has & BIT(K_STAGE)) ? c->v[K_STAGE] == 2 : (c->has & S2_KEYS) != 0;
	uint64_t ttbr = s2 ? c->v[K_VTTBR] : c->v[K_TTBR], base;
	struct a64_cfg cfg;
	unsigned x;
	pt_err rc;

	if (s2 && (c->has & S1_KEYS))
		return setup_fail(err, errlen, PT_E_VALUE, "stage = 2 with stage-1 keys (ttbr, tcr, half)");
	if (!s2 && (c->has & S2_KEYS))
		return setup_fail(err, errlen, PT_E_VALUE, "stage = 1 with stage-2 keys (vttbr, vtcr, xnx)");
	rc = s2 ? s2_geometry(c, err, errlen) : s1_geometry(c, err, errlen);
	if (rc)
		return rc;
	cfg = (struct a64_cfg){(c->grain - 12) / 2, c->ds, pa_index(c->pa), s2, c->xnx};
	make_levels(c, &cfg);
	/*
	 * BADDR (Arm ARM D19 TTBRn_EL1/VTTBR_EL2): bits 47:x, x the log2 of the
	 * root table's bytes (at least 6 with a 52-bit output, whose BADDR[51:48]
	 * sit in bits 5:2: Linux phys_to_ttbr); ASID or VMID 63:48; CnP bit 0.
	 * The bits below x are not the base: masked and shown (QEMU ptw.c).
	 */
	x = c->root_bits + 3;
	base = ttbr & span(47, 1);
	if (c->pa == 52 && (c->grain == 16 || c->ds)) {
		x = x < 6 ? 6 : x;
		base = (ttbr & span(47, 6)) | (bits(ttbr, 5, 2) << 48);
	}
	c->root = base & ~(BIT(x) - 1);
	c->ttbr_ignored = ttbr & span(x - 1, 1) & ~(c->pa == 52 && (c->grain == 16 || c->ds)
						    ? span(5, 2) : 0);
	if (c->root >> c->pa)
		return setup_fail(err, errlen, PT_E_VALUE, "%s 0x%" PRIx64 ": the table base 0x%" PRIx64
				  " is above the %u-bit output size", s2 ? "vttbr" : "ttbr", ttbr,
				  c->root, c->pa);
	c->fmt = pt_format_arm64;
	c->fmt.levels = c->levels;
	c->fmt.decode = a64_decoders[cfg.g][cfg.ds][cfg.pa][cfg.s2][cfg.xnx];
	c->fmt.encode = a64_encoders[cfg.g][cfg.ds][cfg.pa][cfg.s2][cfg.xnx];
	if (s2) {
		/* an IPA space: not canonical, no hierarchical controls */
		c->fmt.va_canonical = false;
		c->fmt.va_bits = c->va;
		c->fmt.va_digits = (c->va + 3) / 4;
		c->fmt.perm_or_down = 0;
		c->fmt.flags = a64_s2_flags;
		c->fmt.kind_field = "mem_attr";
		c->fmt.perm_names = a64_s2_perm_names;
	} else {
		c->fmt.va_bits = c->va + 1;
		c->fmt.va_tbi = c->tbi;
		c->fmt.va_tbi_unknown = c->tbi_unknown;
		/* TCR.HPDn: no APTable/PXNTable/UXNTable, NSTable still (Arm ARM D8.4.2) */
		if (c->hpd)
			c->fmt.perm_or_down = PT_PERM_NS;
	}
	ctx->fmt = &c->fmt;
	ctx->root_space = 0;
	ctx->space_names[0] = c->space_name;
	ctx->space_used = 0;
	ctx->root_addr = c->root;
	ctx->root_entries = 1ull << c->root_bits;
	ctx->root_page_shift = 0;
	ctx->va_base = !s2 && c->upper ? BIT(c->va) : 0;
	ctx->va_last = 0;
	for (unsigned i = 0; i < PT_CONTEXT_SPACES; i++)
		ctx->space_bias[i] = 0;
	return PT_OK;
}

static pt_err a64_ctx_setup(struct pt_context *ctx, char *err, size_t errlen)
{
	return pt_a64_setup(ctx->priv, ctx, err, errlen);
}

static bool ctx_s2(const struct a64_ctx *c)
{
	return c->fmt.perm_or_down == 0 && !c->fmt.va_canonical;
}

/*
 * ptfs-tool roots: CTX's keys as given (stage, tcr or its parts, half,
 * vtcr, xnx, space) with TTBR (VTTBR) at ROOT; a 52-bit root's bits 51:48
 * in BADDR 5:2 (Arm ARM D8.2.3 "TTBR0_EL1").
 */
static void a64_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini)
{
	const struct a64_ctx *c = ctx->priv;
	bool s2 = (c->has & (BIT(K_VTTBR) | BIT(K_VTCR) | BIT(K_XNX))) ||
		  ((c->has & BIT(K_STAGE)) && c->v[K_STAGE] == 2);
	uint64_t r = root >> 48 ? (root & span(47, 0)) | (root >> 48 & 0xf) << 2 : root;

	for (int i = 0; i < K__COUNT; i++) {
		if (!(c->has & BIT(i)) || i == K_TTBR || i == K_VTTBR)
			continue;
		if (i == K_HALF)
			pt_buf_printf(ini, "half = %s\n", c->upper ? "upper" : "lower");
		else
			pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", key_names[i], c->v[i]);
	}
	pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", s2 ? "vttbr" : "ttbr", r);
	if (!s2 && !(c->has & BIT(K_HALF)) && c->upper)
		pt_buf_puts(ini, "half = upper\n");
	if (c->space_name)
		pt_buf_printf(ini, "space = %s\n", c->space_name);
}

static void a64_info_text(const struct pt_context *ctx, struct pt_buf *b)
{
	const struct a64_ctx *c = ctx->priv;
	bool s2;

	if (!c || !c->fmt.name)
		return;
	s2 = ctx_s2(c);
	pt_buf_printf(b, "stage: %d\n", s2 ? 2 : 1);
	if (!s2)
		pt_buf_printf(b, "half: %s (TTBR%d)\n", c->upper ? "upper" : "lower", c->upper);
	pt_buf_printf(b, "granule: %u\n", 1u << c->grain);
	pt_buf_printf(b, "%s: %u\n", s2 ? "ipa_bits" : "va_bits", c->va);
	pt_buf_printf(b, "pa_bits: %u\n", c->pa);
	pt_buf_printf(b, "ds: %u\n", c->ds);
	pt_buf_printf(b, "start_level: %s (%u index bits%s)\n", c->levels[0].name, c->root_bits,
		      c->root_bits > c->grain - 3 ? ", concatenated tables" : "");
	if (s2) {
		pt_buf_printf(b, "vttbr: 0x%" PRIx64 " (vmid 0x%" PRIx64 ", cnp %u)\n", c->v[K_VTTBR],
			      bits(c->v[K_VTTBR], 63, 48), (unsigned)(c->v[K_VTTBR] & 1));
		pt_buf_printf(b, "vtcr: 0x%" PRIx64 "\n", c->v[K_VTCR]);
		pt_buf_printf(b, "xnx: %u\n", c->xnx);
	} else {
		pt_buf_printf(b, "ttbr: 0x%" PRIx64 " (asid 0x%" PRIx64 ", cnp %u)\n", c->v[K_TTBR],
			      bits(c->v[K_TTBR], 63, 48), (unsigned)(c->v[K_TTBR] & 1));
		if (c->has & BIT(K_TCR))
			pt_buf_printf(b, "tcr: 0x%" PRIx64 " (hpd%d %u)\n", c->v[K_TCR], c->upper, c->hpd);
		else
			pt_buf_puts(b, "tcr: not given (granule, va_bits, pa_bits, ds as keyed)\n");
		if (c->tbi)
			pt_buf_printf(b, "tbi: 1 (TBI%d: bits 63:56 of a VA are ignored)\n", c->upper);
		else if (c->tbi_unknown)
			pt_buf_printf(b, "tbi: unknown (no TCR_EL1 says TBI%d: walked as 0, so a tagged VA "
				      "faults noncanonical and says what it walks as with TBI%d set; tbi = 0|1 "
				      "sets it)\n", c->upper, c->upper);
		else if (c->has & BIT(K_TBI))
			pt_buf_printf(b, "tbi: 0 (TBI%d: bits 63:56 are part of a VA)\n", c->upper);
	}
	if (c->ttbr_ignored)
		pt_buf_printf(b, "ttbr_ignored: 0x%" PRIx64 "\n", c->ttbr_ignored);
}

static void a64_info_json(const struct pt_context *ctx, struct pt_jobj *o)
{
	const struct a64_ctx *c = ctx->priv;
	bool s2;

	if (!c || !c->fmt.name)
		return;
	s2 = ctx_s2(c);
	pt_jobj_u(o, "stage", s2 ? 2 : 1);
	pt_jobj_str(o, "half", s2 ? NULL : c->upper ? "upper" : "lower");
	pt_jobj_u(o, "granule", 1u << c->grain);
	pt_jobj_u(o, "va_bits", c->va);
	pt_jobj_u(o, "pa_bits", c->pa);
	pt_jobj_bool(o, "ds", c->ds);
	pt_jobj_str(o, "start_level", c->levels[0].name);
	pt_jobj_u(o, "root_index_bits", c->root_bits);
	if (c->tbi)
		pt_jobj_bool(o, "tbi", true);
	else if (c->tbi_unknown)
		pt_jobj_str(o, "tbi", "unknown");
	else if (c->has & BIT(K_TBI))
		pt_jobj_bool(o, "tbi", false);
	pt_jobj_hex(o, s2 ? "vttbr" : "ttbr", s2 ? c->v[K_VTTBR] : c->v[K_TTBR]);
	if (s2)
		pt_jobj_hex(o, "vtcr", c->v[K_VTCR]);
	else if (c->has & BIT(K_TCR))
		pt_jobj_hex(o, "tcr", c->v[K_TCR]);
	else
		pt_jobj_raw(o, "tcr", "null");
	pt_jobj_bool(o, "hpd", c->hpd);
	pt_jobj_hex(o, "ttbr_ignored", c->ttbr_ignored);
}

static const struct pt_blob_kind a64_blob_kinds[] = {
	{"arm64", 8},
	{NULL, 0},
};


/* Levels without a context (ptfs-tool decode): 4 KiB granule, 48-bit VA, l0..l3. */
const struct pt_level pt_a64_levels[] = {
	/* name depth va_shift bits size role         leaf_shift child */
	{"l0",   0,    39,      9,   8,   PT_ROLE_DIR,  0,  {1, -1}},
	{"l1",   1,    30,      9,   8,   PT_ROLE_DIR,  30, {2, -1}},
	{"l2",   2,    21,      9,   8,   PT_ROLE_DIR,  21, {3, -1}},
	{"l3",   3,    12,      9,   8,   PT_ROLE_LEAF, 0,  {-1, -1}},
	{NULL,   0,    0,       0,   0,   0,            0,  {-1, -1}},
};

/*
 * Without a context (ptfs-tool decode): stage 1, 4 KiB granule, 48-bit VA
 * and output, DS 0 — Linux's default arm64 configuration.
 */
const struct pt_format pt_format_arm64 = {
	.name = "arm64",
	.levels = pt_a64_levels,
	.va_bits = 49,
	.va_digits = 16,
	.va_canonical = true,
	.perm_or_down = PT_PERM_NO_WRITE | PT_PERM_PRIVILEGE | PT_PERM_PXN | PT_PERM_UXN | PT_PERM_NS,
	.spaces = a64_spaces,
	.decode = dec_0_0_5_0_0,
	.flags = pt_a64_flags,
	.kind_name = pt_a64_kind,
	.kind_field = "attr_index",
	.blob_kinds = a64_blob_kinds,
	.ctx_section = "arm64",
	.ctx_size = sizeof(struct a64_ctx),
	.ctx_key = a64_ctx_key,
	.ctx_missing = a64_ctx_missing,
	.ctx_setup = a64_ctx_setup,
	.info_text = a64_info_text,
	.info_json = a64_info_json,
	.perm_names = a64_perm_names,
	.encode = enc_0_0_5_0_0,
	.build_keys = pt_a64_build_keys,
	.geom_keys = a64_geom_keys,
};
