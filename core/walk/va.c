/* SPDX-License-Identifier: MIT */
/*
 * va.c — a format's VA space in one place (pt_walk.h): which VAs exist,
 * and the slots the tables index.
 *
 * A canonical 64-bit VA (x86-64: SDM vol. 3A §3.3.7.1; Linux
 * arch/x86/include/asm/pgtable_64_types.h __VIRTUAL_MASK_SHIFT 47, or 56
 * with LA57) has bits 63..N-1 equal, N the significant width.  Its tables
 * see only bits N-1..0, so the slot of a canonical VA is those bits: slot
 * order is the VAs' unsigned order (0 .. 2^(N-1)-1, then the high half from
 * 2^64 - 2^(N-1)), and every listing, lookup and inode works on slots
 * without knowing which format it serves.
 */
#include "pt_walk.h"

/* The canonical formats' sign bit; 0 where the format is not canonical (or 64 bits wide). */
static unsigned sign_bits(const struct pt_format *fmt)
{
	return fmt->va_canonical && fmt->va_bits > 0 && fmt->va_bits < 64 ? fmt->va_bits : 0;
}

bool pt_va_in_space(const struct pt_format *fmt, uint64_t va)
{
	unsigned n = sign_bits(fmt);

	if (n) {
		/* bits 63..n-1 all equal: shifting by n-1 leaves 0 or all ones */
		uint64_t top = va >> (n - 1);

		return top == 0 || top == UINT64_MAX >> (n - 1);
	}
	return fmt->va_bits >= 64 || va >> fmt->va_bits == 0;
}

uint64_t pt_va_slot(const struct pt_format *fmt, uint64_t va)
{
	unsigned n = sign_bits(fmt);
	uint64_t half;

	if (!n)
		return va;
	half = UINT64_C(1) << (n - 1);
	if (va < half)
		return va;
	if (va >= (uint64_t)0 - half)
		return va & ((UINT64_C(1) << n) - 1);
	return half;   /* in the hole: the first VA after it is the high half's first */
}

uint64_t pt_va_at(const struct pt_format *fmt, uint64_t slot)
{
	unsigned n = sign_bits(fmt);

	if (!n || !(slot & (UINT64_C(1) << (n - 1))))
		return slot;
	return slot | ~((UINT64_C(1) << n) - 1);
}

uint64_t pt_va_untag(const struct pt_format *fmt, uint64_t va)
{
	if (!fmt->va_tbi)
		return va;
	return (va & ((UINT64_C(1) << 56) - 1)) | ((UINT64_C(0) - (va >> 55 & 1)) << 56);
}

bool pt_va_tbi_depends(const struct pt_format *fmt, uint64_t va, uint64_t *as)
{
	/* the tag byte dropped and bit 55 copied up, as TBI does (Arm ARM D8.8) */
	uint64_t u = (va & ((UINT64_C(1) << 56) - 1)) | ((UINT64_C(0) - (va >> 55 & 1)) << 56);

	if (!fmt->va_tbi_unknown || fmt->va_tbi || u == va || pt_va_in_space(fmt, va) ||
	    !pt_va_in_space(fmt, u))
		return false;
	*as = u;
	return true;
}

uint64_t pt_va_slot_last(const struct pt_format *fmt)
{
	return fmt->va_bits >= 64 || fmt->va_bits == 0 ? UINT64_MAX
						       : (UINT64_C(1) << fmt->va_bits) - 1;
}
