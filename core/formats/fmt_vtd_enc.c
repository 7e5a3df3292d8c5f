/* SPDX-License-Identifier: MIT */
/*
 * fmt_vtd_enc.c — the encoders and build keys of intel-vtd and intel-ept,
 * for ptfs-tool build: the inverse of fmt_vtd.c's decoders, entry by entry
 * (the same sources: Linux drivers/iommu/intel/iommu.h, QEMU
 * hw/i386/intel_iommu_internal.h, Intel SDM Vol. 3C "EPT translation
 * mechanism", as fmt_vtd.c cites them).
 */
#include <inttypes.h>
#include <stdio.h>

#include "fmt_vtd.h"
#include "pt_buf.h"
#include "pt_num.h"

#define MASK(hi, lo) ((~0ull >> (63 - (hi))) & ~((1ull << (lo)) - 1))
#define ADDR_MASK MASK(51, 12)

/*
 * What both encoders share: the entry's level is its page size for a leaf
 * (PS in a 2 MiB or 1 GiB leaf, bit 7 ignored in a 4 KiB one) and does not
 * matter for a pointer (PS is a field where the level has it, a reserved
 * bit above); a not-present entry is written back raw (the hardware reads
 * nothing else of it).  *R gets the address and PS; false: the entry is
 * done (RAW written) or refused (ERR set, *RC).
 */
static bool enc_common(const char *name, const struct pt_entry *e, uint8_t *raw, uint64_t *r,
		       pt_err *rc, char *err, size_t errlen)
{
	bool leaf = e->state == PT_ST_MAPPED;
	uint64_t a, align = leaf ? e->page_size : 4096;

	*rc = PT_OK;
	if (!leaf && e->state != PT_ST_POINTER) {
		pt_le64_store(raw, e->state == PT_ST_INVALID ? e->raw[0] : 0);
		return false;
	}
	if (leaf && align != 1ull << 12 && align != 1ull << 21 && align != 1ull << 30) {
		snprintf(err, errlen, "%s: no page of 0x%" PRIx64 " bytes (4K, 2M, 1G)", name, align);
		*rc = PT_E_VALUE;
		return false;
	}
	a = pt_entry_get(e, "address", leaf ? e->pa : e->target[0].addr);
	if (a & ~(ADDR_MASK & ~(align - 1))) {
		snprintf(err, errlen, "%s: address 0x%" PRIx64 " is not 0x%" PRIx64 "-aligned below"
			 " 2^52", name, a, align);
		*rc = PT_E_VALUE;
		return false;
	}
	*r = a | pt_entry_get(e, "ps", leaf && align > 4096) << 7 |
	     pt_entry_get(e, "ignored", 0) | e->reserved_mask[0];
	return true;
}

/*
 * The inverse of vtd_decode_sp.  Built pointers are R|W|X (rights are
 * ANDed down the path: the leaf's own bits decide); a built leaf with
 * neither R nor W asked for is R (one with neither is not present).
 */
pt_err pt_vtd_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
		     size_t errlen)
{
	bool leaf = e->state == PT_ST_MAPPED, ptr = e->state == PT_ST_POINTER;
	bool rw = pt_entry_field(e, "r") || pt_entry_field(e, "w");
	uint64_t r = 0;
	pt_err rc;

	(void)level;
	if (!enc_common("intel-vtd", e, raw, &r, &rc, err, errlen))
		return rc;
	r |= pt_entry_get(e, "r", ptr || !rw) | pt_entry_get(e, "w", ptr) << 1 |
	     pt_entry_get(e, "x", ptr) << 2 | pt_entry_get(e, "a", 0) << 8;
	if (leaf)
		r |= (pt_entry_get(e, "emt", 0) & 7) << 3 | pt_entry_get(e, "ipat", 0) << 6 |
		     pt_entry_get(e, "d", 0) << 9 | pt_entry_get(e, "snp", 0) << 11 |
		     pt_entry_get(e, "tm", 0) << 62;
	pt_le64_store(raw, r);
	return PT_OK;
}

/*
 * The inverse of ept_decode_sp.  Built pointers are read, write and
 * execute (KVM's non-leaf entries); a built leaf with none of the three
 * asked for is readable, and its memory type is WB (6) unless asked.
 */
pt_err pt_ept_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
		     size_t errlen)
{
	bool leaf = e->state == PT_ST_MAPPED, ptr = e->state == PT_ST_POINTER;
	bool any = pt_entry_field(e, "read") || pt_entry_field(e, "write") ||
		   pt_entry_field(e, "execute");
	uint64_t r = 0;
	pt_err rc;

	(void)level;
	if (!enc_common("intel-ept", e, raw, &r, &rc, err, errlen))
		return rc;
	r |= pt_entry_get(e, "read", ptr || !any) | pt_entry_get(e, "write", ptr) << 1 |
	     pt_entry_get(e, "execute", ptr) << 2 | pt_entry_get(e, "accessed", 0) << 8 |
	     pt_entry_get(e, "user_execute", 0) << 10;
	if (leaf)
		r |= (pt_entry_get(e, "memory_type", 6) & 7) << 3 |
		     pt_entry_get(e, "ignore_pat", 0) << 6 | pt_entry_get(e, "dirty", 0) << 9 |
		     pt_entry_get(e, "suppress_ve", 0) << 63;
	pt_le64_store(raw, r);
	return PT_OK;
}

/* The narrowest width of 48 and 57 bits the mappings fit (Linux's usual 4-level table, else 5). */
static bool needs_57(const struct pt_build_keys *k)
{
	return k->va_hi >> 48 != 0;
}

/* ptfs-tool build: SLPTPTR is the builder's root, AW 48 or 57, unless the spec says. */
void pt_vtd_build_keys(const struct pt_build_keys *k, struct pt_buf *ini)
{
	if (k->get(k->ud, "context"))
		return;
	if (!k->get(k->ud, "slptptr"))
		pt_buf_printf(ini, "slptptr = 0x%" PRIx64 "\n", k->root);
	if (!k->get(k->ud, "aw"))
		pt_buf_printf(ini, "aw = %u\n", needs_57(k) ? 57 : 48);
}

/* ptfs-tool build: an EPTP of the builder's root, WB, walk length 4 (5 where a GPA needs it). */
void pt_ept_build_keys(const struct pt_build_keys *k, struct pt_buf *ini)
{
	if (!k->get(k->ud, "eptp"))
		pt_buf_printf(ini, "eptp = 0x%" PRIx64 "\n", k->root | 6 | (needs_57(k) ? 4u : 3u) << 3);
}
