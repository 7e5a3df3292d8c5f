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
 * This file: the descriptors decoded and the decoders per configuration;
 * the [arm64 NAME] context and the format are fmt_arm64_ctx.c, the
 * encoder fmt_arm64_enc.c.
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

const char *const pt_a64_spaces[] = {"sysmem", NULL};

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
bool pt_a64_block_ok(const struct a64_cfg *c, int lvl)
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
	if (lvl == 3 ? !(r & 2) : (!(r & 2) && !pt_a64_block_ok(c, lvl))) {
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
 * decode has no context.  dec_G_D_P_S_X; the table pt_a64_decoders[G][D][P][S][X];
 * the same for the encoder (fmt_arm64_enc.c), enc_G_D_P_S_X in pt_a64_encoders.
 */
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
const pt_a64_decode_fn pt_a64_decoders[3][2][NPA][2][2] = {XS_ALL(A64_PTR)};
const pt_a64_encode_fn pt_a64_encoders[3][2][NPA][2][2] = {XS_ALL(A64_EPTR)};

/* The format without a context: 4K granule, no DS, 48-bit output, stage 1, no XNX. */
pt_err pt_a64_decode_4k(unsigned level, unsigned ps, const uint8_t *raw, unsigned flags,
			struct pt_entry *out)
{
	return dec_0_0_5_0_0(level, ps, raw, flags, out);
}

pt_err pt_a64_encode_4k(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
			size_t len)
{
	return enc_0_0_5_0_0(level, e, raw, err, len);
}

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
void pt_a64_s2_flags(const struct pt_entry *e, char *buf, size_t len)
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
