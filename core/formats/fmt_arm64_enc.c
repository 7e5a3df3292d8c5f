/* SPDX-License-Identifier: MIT */
/*
 * fmt_arm64_enc.c — the arm64 encoder and build keys, for ptfs-tool build
 * (issue #25 item 4): the inverse of fmt_arm64.c's decoder, descriptor by
 * descriptor (Arm ARM DDI 0487 D8.2 "Translation table descriptor
 * formats"; the bit names of Linux arch/arm64/include/asm/pgtable-hwdef.h
 * and kvm_pgtable.h, as fmt_arm64.c cites them).
 *
 * Every field the decoder prints is taken from the entry where it has it,
 * else from the summary with the defaults a built table wants: a table
 * descriptor with full rights (no APTable, PXNTable, UXNTable, NSTable:
 * the leaf's bits are the rights), a block or page with AF = 1 (an AF = 0
 * access faults without FEAT_HAFDBS: Arm ARM D8.5.1), AttrIndx (stage 2
 * MemAttr) 0, SH 11 inner shareable, not contiguous, and the rights the
 * maps flag words name (ap_rdonly AP[2], ap_user AP[1], pxn, uxn, ns;
 * stage 2 s2ap_read, s2ap_write, xn).
 */
#include <inttypes.h>
#include <stdio.h>

#include "fmt_arm64.h"
#include "pt_buf.h"
#include "pt_num.h"

/*
 * The descriptor bits of output address A whose low bit is OS (fmt_arm64.c
 * oa_of inverted): 47:OS in place, OA[51:48] in 15:12 with 64K and a
 * 52-bit output (FEAT_LPA), OA[49:48] in place and OA[51:50] in 9:8 with
 * DS (FEAT_LPA2).  False when A has a bit the output cannot hold.
 */
static bool oa_put(const struct a64_cfg *c, uint64_t a, unsigned os, uint64_t *r)
{
	unsigned pa = pa_sizes[c->pa];
	uint64_t in = span(pa <= 48 ? pa - 1 : 47, os), ok = in;

	*r = a & in;
	if (pa == 52 && c->g == 2) {
		*r |= bits(a, 51, 48) << 12;
		ok |= span(51, 48);
	}
	if (pa == 52 && c->ds) {
		*r |= (a & span(49, 48)) | bits(a, 51, 50) << 8;
		ok |= span(51, 48);
	}
	return (a & ~ok) == 0;
}

static pt_err oa_fail(const struct a64_cfg *c, char *err, size_t errlen, const char *what,
		      uint64_t a, unsigned os)
{
	snprintf(err, errlen, "arm64: %s 0x%" PRIx64 " is not a 0x%llx-aligned address below 2^%u",
		 what, a, 1ull << os, (unsigned)pa_sizes[c->pa]);
	return PT_E_VALUE;
}

/* A block (01) or page (11, the granule's size) descriptor: fmt_arm64.c decode_leaf inverted. */
static pt_err enc_leaf(const struct a64_cfg *c, const struct pt_entry *e, uint64_t *out,
		       char *err, size_t errlen)
{
	unsigned grain = 12u + 2u * c->g, stride = grain - 3, shift = 0;
	uint64_t r, a = pt_entry_get(e, "address", e->pa), oa;

	while (shift < 64 && (1ull << shift) < e->page_size)
		shift++;
	if (shift < grain || (shift - grain) % stride || (shift - grain) / stride > 3 ||
	    1ull << shift != e->page_size) {
		snprintf(err, errlen, "arm64: no page or block of 0x%" PRIx64 " bytes with the %u KiB"
			 " granule", e->page_size, 1u << (grain - 10));
		return PT_E_VALUE;
	}
	if (!oa_put(c, a, shift, &oa))
		return oa_fail(c, err, errlen, shift == grain ? "page address" : "block address", a,
			       shift);
	r = 1 | (shift == grain ? 2 : 0) | oa;
	if (c->s2)
		r |= (pt_entry_get(e, "mem_attr", 0) & 0xf) << 2 | pt_entry_get(e, "s2ap_read", 0) << 6 |
		     pt_entry_get(e, "s2ap_write", 0) << 7 | pt_entry_get(e, "fnxs", 0) << 11 |
		     pt_entry_get(e, "xn0", 0) << 53 | pt_entry_get(e, "xn", 0) << 54;
	else
		r |= (pt_entry_get(e, "attr_index", 0) & 7) << 2 | pt_entry_get(e, "ns", 0) << 5 |
		     pt_entry_get(e, "ap_user", 0) << 6 | pt_entry_get(e, "ap_rdonly", 0) << 7 |
		     pt_entry_get(e, "ng", 0) << 11 | pt_entry_get(e, "gp", 0) << 50 |
		     pt_entry_get(e, "pxn", 0) << 53 | pt_entry_get(e, "uxn", 0) << 54;
	if (!c->ds)
		r |= (pt_entry_get(e, "sh", 3) & 3) << 8;
	r |= pt_entry_get(e, "af", 1) << 10 | pt_entry_get(e, "dbm", 0) << 51 |
	     pt_entry_get(e, "contiguous", 0) << 52 | (pt_entry_get(e, "sw", 0) & 0xf) << 55 |
	     (pt_entry_get(e, "pbha", 0) & 0xf) << 59 | (pt_entry_get(e, "ignored", 0) & BIT(63));
	*out = r;
	return PT_OK;
}

/* A table descriptor (11): fmt_arm64.c decode_table inverted. */
static pt_err enc_table(const struct a64_cfg *c, const struct pt_entry *e, uint64_t *out,
			char *err, size_t errlen)
{
	unsigned grain = 12u + 2u * c->g;
	uint64_t a = pt_entry_get(e, "address", e->target[0].addr), oa;
	uint64_t ign = span(11, 2) & ~(c->ds ? span(9, 8) : 0);

	if (!oa_put(c, a, grain, &oa))
		return oa_fail(c, err, errlen, "table address", a, grain);
	*out = 3 | oa | (pt_entry_get(e, "ignored", 0) & ign);
	if (c->s2)
		*out |= pt_entry_get(e, "ignored_high", 0) & span(63, 51);
	else
		*out |= (pt_entry_get(e, "ignored_high", 0) & span(58, 51)) |
			pt_entry_get(e, "pxn_table", 0) << 59 | pt_entry_get(e, "uxn_table", 0) << 60 |
			(pt_entry_get(e, "ap_table", 0) & 3) << 61 | pt_entry_get(e, "ns_table", 0) << 63;
	return PT_OK;
}

/*
 * A fault descriptor (bit 0 clear) is the software's: its raw word, as
 * the decoder left it (Arm ARM D8.2.2).  Unmapped is zero.
 */
pt_err pt_a64_encode_with(const struct a64_cfg *c, const struct pt_entry *e, uint8_t *raw,
			  char *err, size_t errlen)
{
	uint64_t r = 0;
	pt_err rc = PT_OK;

	if (e->state == PT_ST_MAPPED)
		rc = enc_leaf(c, e, &r, err, errlen);
	else if (e->state == PT_ST_POINTER)
		rc = enc_table(c, e, &r, err, errlen);
	else if (e->state == PT_ST_INVALID)
		r = e->raw[0];
	if (rc != PT_OK)
		return rc;
	if (e->state == PT_ST_MAPPED || e->state == PT_ST_POINTER)
		r |= e->reserved_mask[0];
	pt_le64_store(raw, r);
	return PT_OK;
}

/*
 * ptfs-tool build: the root the builder allocated as TTBR (VTTBR at stage
 * 2), and the geometry the builder's tables assume — a 4 KiB granule,
 * 48-bit VAs and output, so that every table is one 4 KiB page and the
 * start table is level 0 — unless the spec says it (tcr or vtcr, or the
 * keys).  Stage 1's half is the spec's VAs' half; a spec with VAs in both
 * gets a half value the loader refuses, so that build fails on the
 * section's line with the reason.
 */
void pt_a64_build_keys(const struct pt_build_keys *k, struct pt_buf *ini)
{
	static const char *const s2_keys[] = {"vttbr", "vtcr", "xnx"};
	const char *stage = k->get(k->ud, "stage");
	uint64_t sv = 0;
	bool s2 = stage && pt_num_parse(stage, PT_NUM_INI, &sv) && sv == 2;
	bool lo = !(k->va_lo >> 63), hi = (k->va_hi >> 63) != 0;

	for (unsigned i = 0; i < 3; i++)
		s2 = s2 || k->get(k->ud, s2_keys[i]);
	if (s2) {
		if (!k->get(k->ud, "vttbr"))
			pt_buf_printf(ini, "vttbr = 0x%" PRIx64 "\n", k->root);
		/* T0SZ 16 (48 bits), SL0 2 (start level 0 with 4K), TG0 0 (4K), PS 5 (48 bits): kvm_arm.h */
		if (!k->get(k->ud, "vtcr"))
			pt_buf_puts(ini, "vtcr = 0x50090\n");
		return;
	}
	if (!k->get(k->ud, "ttbr"))
		pt_buf_printf(ini, "ttbr = 0x%" PRIx64 "\n", k->root);
	if (!k->get(k->ud, "half")) {
		if (lo && hi)
			pt_buf_puts(ini, "half = both (the map lines have VAs in the lower (TTBR0) and the"
				    " upper (TTBR1) half: one [arm64] section per half)\n");
		else
			pt_buf_printf(ini, "half = %s\n", hi ? "upper" : "lower");
	}
	if (k->get(k->ud, "tcr"))
		return;
	if (!k->get(k->ud, "granule"))
		pt_buf_puts(ini, "granule = 4096\n");
	if (!k->get(k->ud, "va_bits"))
		pt_buf_puts(ini, "va_bits = 48\n");
	if (!k->get(k->ud, "pa_bits"))
		pt_buf_puts(ini, "pa_bits = 48\n");
}
