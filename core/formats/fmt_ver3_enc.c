/* SPDX-License-Identifier: MIT */
/*
 * fmt_ver3_enc.c — the nv-gmmu-ver3 encoder, for ptfs-tool build: the
 * inverse of fmt_ver3.c's decoder (PTE, PDE and dual PDE layouts of
 * NV_MMU_VER3_*, as fmt_ver3.c cites them), each field from the entry
 * where it has it, else from its meaning fields or the summary.
 */
#include <inttypes.h>
#include <stdio.h>

#include "fmt_ver3.h"
#include "pt_num.h"

/* ADDRESS sits in place (51:12 or, for ADDRESS_BIG, 51:8): ALIGN-aligned and below 2^52. */
static pt_err enc_addr(uint64_t a, uint64_t align, const char *what, char *err, size_t errlen)
{
	if ((a & (align - 1)) || a >> 52) {
		snprintf(err, errlen, "nv-gmmu-ver3: %s 0x%" PRIx64 " does not fit its field", what, a);
		return PT_E_VALUE;
	}
	return PT_OK;
}

/*
 * A PCF from its meaning fields (a request: the one-bit flags set), unless
 * the entry has the pcf field itself (a decoded entry).  PTE: the five
 * bits of pte_pcf_valid_names; PDE half: uncached bit 0, no_ats bit 1.
 */
static uint64_t enc_pte_pcf(const struct pt_entry *e)
{
	uint64_t m = pt_entry_get(e, "uncached", 0) | pt_entry_get(e, "privileged", 0) << 1 |
		     pt_entry_get(e, "read_only", 0) << 2 | pt_entry_get(e, "no_atomic", 0) << 3 |
		     pt_entry_get(e, "access_counting_disabled", 0) << 4;

	return pt_entry_get(e, "pcf", m) & 0x1f;
}

static uint64_t enc_pde_pcf(const struct pt_entry *e, const char *pcf, const char *unc,
			    const char *ats)
{
	return pt_entry_get(e, pcf, pt_entry_get(e, unc, 0) | pt_entry_get(e, ats, 0) << 1) & 7;
}

static pt_err encode_pte(const struct pt_entry *e, uint64_t *out, char *err, size_t errlen)
{
	bool mapped = e->state == PT_ST_MAPPED;
	unsigned dflt = !mapped ? 0 : e->space == SP_VIDMEM ? 0 : e->space == SP_SYSMEM ? 2 : 1;
	unsigned ap = (unsigned)pt_entry_get(e, "aperture", dflt) & 3;
	uint64_t peer = mapped && ap == 1 ? e->space - SP_PEER0 : 0;
	uint64_t addr = pt_entry_get(e, "address", mapped ? e->pa : 0);

	*out = pt_entry_get(e, "valid", mapped) | (uint64_t)ap << 1 | enc_pte_pcf(e) << 3 |
	       (pt_entry_get(e, "kind", 0) & 0xf) << 8 | (addr & 0x000ffffffffff000ull) |
	       (pt_entry_get(e, "peer_id", peer) & 7) << 61 | e->reserved_mask[0];
	return enc_addr(addr, 4096, "page address", err, errlen);
}

/* A directory half's aperture: a table in vidmem is 1, in sysmem 2; none 0. */
static unsigned enc_dir_ap(const struct pt_target *t)
{
	return !t->present ? 0 : t->space == SP_VIDMEM ? 1 : 2;
}

pt_err pt_ver3_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
		       size_t errlen)
{
	const struct pt_target *t0 = &e->target[0], *t1 = &e->target[1];
	bool leaf = pt_entry_get(e, "is_pte", e->state == PT_ST_MAPPED) != 0;
	uint64_t lo = 0, hi = 0, a0, a1;
	pt_err rc = PT_OK;

	if (level >= L_COUNT)
		return PT_E_UNSUPPORTED;
	switch (pt_ver3_levels[level].role) {
	case PT_ROLE_DIR:
		if (leaf) {
			rc = encode_pte(e, &lo, err, errlen);
			lo |= 1;
			break;
		}
		a0 = pt_entry_get(e, "address", t0->present ? t0->addr : 0);
		lo = (pt_entry_get(e, "aperture", enc_dir_ap(t0)) & 3) << 1 |
		     enc_pde_pcf(e, "pcf", "uncached", "no_ats") << 3 |
		     (a0 & 0x000ffffffffff000ull) | e->reserved_mask[0];
		rc = enc_addr(a0, 4096, "table address", err, errlen);
		break;
	case PT_ROLE_DUAL:
		if (leaf) {
			rc = encode_pte(e, &lo, err, errlen);
			lo |= 1;
			hi = e->reserved_mask[1];
		} else {
			a0 = pt_entry_get(e, "address_big", t0->present ? t0->addr : 0);
			a1 = pt_entry_get(e, "address_small", t1->present ? t1->addr : 0);
			lo = (pt_entry_get(e, "aperture_big", enc_dir_ap(t0)) & 3) << 1 |
			     enc_pde_pcf(e, "pcf_big", "uncached_big", "no_ats_big") << 3 |
			     (a0 & 0x000fffffffffff00ull) | e->reserved_mask[0];
			hi = (pt_entry_get(e, "aperture_small", enc_dir_ap(t1)) & 3) << 1 |
			     enc_pde_pcf(e, "pcf_small", "uncached_small", "no_ats_small") << 3 |
			     (a1 & 0x000ffffffffff000ull) | e->reserved_mask[1];
			rc = enc_addr(a0, 256, "big table address", err, errlen);
			if (rc == PT_OK)
				rc = enc_addr(a1, 4096, "small table address", err, errlen);
		}
		pt_le64_store(raw + 8, hi);
		break;
	default:
		rc = encode_pte(e, &lo, err, errlen);
		break;
	}
	pt_le64_store(raw, lo);
	return rc;
}
