/*
 * ver3_util.h — what the parts of test_ver3.c share: its includes, helpers
 * and fixtures, one copy per part (static: each part uses some of them,
 * hence the unused warnings are off here).  The parts are one Check binary;
 * each adds its TCases (ver3_add_*()).
 */
#ifndef VER3_UTIL_H
#define VER3_UTIL_H

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_ver3.h"
#include "pt_capture.h"
#include "pt_render.h"
#include "pt_walk.h"
#include "fields_util.h"
#include "testutil.h"

/* ---- bit positions, from docs/design.md §2.3 and its sources (§7) -------------- */
#define B(v, lo)       ((uint64_t)(v) << (lo))
/* A.5 PTE */
#define T_VALID        B(1, 0)
#define T_AP(a)        B(a, 1)      /* APERTURE 2:1 */
#define T_PCF(p)       B(p, 3)      /* PCF 7:3 */
#define T_KIND(k)      B(k, 8)      /* KIND 11:8 */
#define T_ADDR(pa)     ((uint64_t)(pa))   /* ADDRESS 51:12 in place: PA >> 12 << 12 */
#define T_PEER(p)      B(p, 61)     /* PEER_ID 63:61 */
/* A.3 PDE */
#define D_IS_PTE       B(1, 0)
#define D_AP(a)        B(a, 1)      /* APERTURE 2:1 */
#define D_PCF(p)       B(p, 3)      /* PCF 5:3 */
#define D_ADDR(pa)     ((uint64_t)(pa))   /* ADDRESS 51:12 in place */
/* A.4 dual PDE: low word = big half, high word = small half (bit N-64) */
#define Q_AP_BIG(a)    B(a, 1)      /* APERTURE_BIG 2:1 */
#define Q_PCF_BIG(p)   B(p, 3)      /* PCF_BIG 5:3 */
#define Q_ADDR_BIG(pa) ((uint64_t)(pa))   /* ADDRESS_BIG 51:8 in place: table >> 8 << 8 */
#define Q_AP_SMALL(a)  B(a, 65 - 64)      /* APERTURE_SMALL 66:65 */
#define Q_PCF_SMALL(p) B(p, 67 - 64)      /* PCF_SMALL 69:67 */
#define Q_ADDR_SMALL(pa) ((uint64_t)(pa)) /* ADDRESS_SMALL 115:76 = high word 51:12 in place */

/* Level indices (docs/design.md §2.3 order). */
enum { PDE4, PDE3, PDE2, PDE1, PDE0, PTE_BIG, PTE_SMALL };

static const char *const pte_ap_names[] = {"video", "peer", "sys_coherent", "sys_noncoherent"};
static const char *const pde_ap_names[] = {"invalid", "video", "sys_coherent", "sys_noncoherent"};

static struct pt_entry decode(unsigned level, unsigned shift, uint64_t lo, uint64_t hi)
{
	return decode_with(&pt_format_ver3, level, shift, lo, hi);
}

static void pcf_rule_name(unsigned pcf, char *buf, size_t len)
{
	snprintf(buf, len, "%s_%s_%s_%s_%s",
		 (pcf & 0x02) ? "PRIVILEGE" : "REGULAR",
		 (pcf & 0x04) ? "RO" : "RW",
		 (pcf & 0x08) ? "NO_ATOMIC" : "ATOMIC",
		 (pcf & 0x01) ? "UNCACHED" : "CACHED",
		 (pcf & 0x10) ? "ACD" : "ACE");
}



/* ---- PTE vectors (§V.A1) ----------------------------------------------- */
struct pte_vec {
	const char *name;
	uint64_t raw;        /* composed from the fields below */
	uint64_t doc;        /* the raw value as §V.A1 prints it */
	unsigned level, shift;
	enum pt_state st;
	unsigned valid, ap, pcf, kind, peer;
	uint64_t addr;
	const char *pcf_name;   /* as §V.A1 / A.5 name it; NULL where undefined */
	const char *kname;
	uint64_t psize;
	const char *space;      /* mapped only */
	uint64_t reserved;
};

static const char *const kind_names[16] = {
	"PITCH", "Z16", "S8", "S8Z24", "ZF32_X24S8", "Z24S8", "GENERIC_MEMORY", "INVALID",
	"GENERIC_MEMORY_COMPRESSIBLE", "GENERIC_MEMORY_COMPRESSIBLE_DISABLE_PLC",
	"S8_COMPRESSIBLE_DISABLE_PLC", "Z16_COMPRESSIBLE_DISABLE_PLC",
	"S8Z24_COMPRESSIBLE_DISABLE_PLC", "ZF32_X24S8_COMPRESSIBLE_DISABLE_PLC",
	"Z24S8_COMPRESSIBLE_DISABLE_PLC", "SMSKED_MESSAGE",
};

static void x_pte(struct xlist *l, const struct pte_vec *v)
{
	unsigned m = v->valid ? v->pcf : 0;   /* meanings exist only in a valid PTE */

	x(l, "valid", PT_FK_BIT, v->valid);
	x(l, "aperture", PT_FK_UINT, v->ap);
	xs(l, "aperture_name", pte_ap_names[v->ap]);
	x(l, "pcf", PT_FK_HEX, v->pcf);
	xs(l, "pcf_name", v->pcf_name);
	x(l, "uncached", PT_FK_BIT, (m & 0x01) != 0);
	x(l, "privileged", PT_FK_BIT, (m & 0x02) != 0);
	x(l, "read_only", PT_FK_BIT, (m & 0x04) != 0);
	x(l, "no_atomic", PT_FK_BIT, (m & 0x08) != 0);
	x(l, "access_counting_disabled", PT_FK_BIT, (m & 0x10) != 0);
	x(l, "kind", PT_FK_HEX, v->kind);
	xs(l, "kind_name", v->kname);
	x(l, "kind_known", PT_FK_BOOL, 1);
	x(l, "peer_id", PT_FK_UINT, v->peer);
	x(l, "address", PT_FK_HEX, v->addr);
	x(l, "address_complete", PT_FK_BOOL, 1);
	x(l, "page_size", PT_FK_HEX, v->psize);
}

static uint32_t perm_of(unsigned valid, unsigned pcf)
{
	if (!valid)
		return 0;
	return ((pcf & 0x04) ? PT_PERM_READ_ONLY : 0) | ((pcf & 0x08) ? PT_PERM_ATOMIC_DISABLE : 0) |
	       ((pcf & 0x02) ? PT_PERM_PRIVILEGE : 0) | ((pcf & 0x01) ? PT_PERM_VOLATILE : 0);
}

static void check_pte(const struct pte_vec *v, const struct pt_entry *e)
{
	struct xlist l = {0};

	x_pte(&l, v);
	x_reserved(&l, v->reserved, 0, false);
	check_fields(v->name, e, &l);
	ck_assert_msg(e->state == v->st, "%s: state %s, expected %s", v->name,
		      pt_state_name(e->state), pt_state_name(v->st));
	ck_assert_int_eq(e->size, 8);
	ck_assert_uint_eq(e->raw[0], v->raw);
	ck_assert_uint_eq(e->raw[1], 0);
	ck_assert_int_eq(e->leaf, v->st == PT_ST_MAPPED);
	if (v->st == PT_ST_MAPPED) {
		ck_assert_str_eq(pt_format_ver3.spaces[e->space], v->space);
		ck_assert_uint_eq(e->pa, v->addr);
		ck_assert(e->address_complete);
	}
	ck_assert_uint_eq(e->page_size, v->psize);
	ck_assert_uint_eq(e->perm, perm_of(v->valid, v->pcf));
	ck_assert_int_eq(e->kind, (int)v->kind);
	ck_assert(!e->anomaly);
	ck_assert_uint_eq(e->reserved_mask[0], v->reserved);
	ck_assert_uint_eq(e->reserved_mask[1], 0);
	ck_assert(!e->target[0].present && !e->target[1].present);
}

#define PTE(v, a, p, k, pa, peer) (((v) ? T_VALID : 0) | T_AP(a) | T_PCF(p) | T_KIND(k) | \
				   T_ADDR(pa) | T_PEER(peer))


#define PDE(a, p, pa) (D_AP(a) | D_PCF(p) | D_ADDR(pa))

/* The index each level takes from VA: (va >> va_shift) & (2^bits - 1). */
static uint64_t level_index(unsigned level, uint64_t va)
{
	const struct pt_level *lv = &pt_format_ver3.levels[level];

	return (va >> lv->va_shift) & ((1ull << lv->bits) - 1);
}

void ver3_add_pde(Suite *s);
void ver3_add_walk(Suite *s);

#endif
