/*
 * ver2_util.h — what the parts of test_ver2.c share: its includes, helpers
 * and fixtures, one copy per part (static: each part uses some of them,
 * hence the unused warnings are off here).  The parts are one Check binary;
 * each adds its TCases (ver2_add_*()).
 */
#ifndef VER2_UTIL_H
#define VER2_UTIL_H

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-variable"
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_gart.h"

extern const struct pt_format pt_format_ver3;   /* core/fmt_ver3.c: no header of its own */
#include "fmt_ver2.h"
#include "fields_util.h"
#include "testutil.h"

/* ---- bit positions, from docs/design.md §2.1 and its sources (§7) ---------------------- */
#define B(v, lo)      ((uint64_t)(v) << (lo))
/* 1a PTE */
#define P_VALID       B(1, 0)
#define P_AP(a)       B(a, 1)      /* 2:1 */
#define P_VOL         B(1, 3)
#define P_ENC         B(1, 4)
#define P_PRIV        B(1, 5)
#define P_RO          B(1, 6)
#define P_ATOM        B(1, 7)
#define P_ADDR(a)     B(a, 8)      /* ADDRESS_SYS 53:8 / ADDRESS_VID 32:8 */
#define P_PEER(p)     B(p, 33)     /* 35:33 */
#define P_CTL(c)      B(c, 36)     /* 55:36 */
#define P_KIND(k)     B(k, 56)     /* 63:56 */
/* 1b PDE */
#define D_IS_PTE      B(1, 0)
#define D_AP(a)       B(a, 1)
#define D_VOL         B(1, 3)
#define D_NO_ATS      B(1, 5)
#define D_ADDR(a)     B(a, 8)
#define D_PEER(p)     B(p, 33)
/* 1c dual PDE: low word (bits 63:0) */
#define DL_AP_BIG(a)  B(a, 1)
#define DL_VOL_BIG    B(1, 3)
#define DL_NO_ATS     B(1, 5)
#define DL_ADDR_BIG(a) B(a, 4)     /* 53:4 / 32:4, address >> 8 */
#define DL_PEER_BIG(p) B(p, 33)
/* 1c dual PDE: high word (bit N of the entry = bit N-64 of the word) */
#define DH_AP_SMALL(a) B(a, 65 - 64)
#define DH_VOL_SMALL  B(1, 67 - 64)
#define DH_ADDR_SMALL(a) B(a, 72 - 64)   /* 117:72 / 96:72, address >> 12 */
#define DH_PEER_SMALL(p) B(p, 97 - 64)

/* Level indices (docs/design.md §2.1 table order). */
enum { PDE3, PDE2, PDE1, PDE0, PTE_BIG, PTE_SMALL };

static const char *const pte_ap_names[] = {"video", "peer", "sys_coherent", "sys_noncoherent"};
static const char *const pde_ap_names[] = {"invalid", "video", "sys_coherent", "sys_noncoherent"};

static struct pt_entry decode(unsigned level, unsigned shift, uint64_t lo, uint64_t hi)
{
	return decode_with(&pt_format_ver2, level, shift, lo, hi);
}

static void x_is_pte(struct xlist *l, uint64_t bit0)
{
	x(l, "is_pte", PT_FK_BIT, bit0);
	x(l, "is_leaf", PT_FK_BIT, bit0);
	x(l, "is_pde_pointer", PT_FK_BIT, bit0);
	l->f[l->n - 1].flags = PT_FF_JSON_ONLY;
}



struct pte_vec {
	const char *name;
	unsigned level, shift;
	uint64_t raw;
	enum pt_state st;
	uint64_t valid, ap, vol, enc, priv, ro, atom;
	uint64_t asys, avid, peer, ctl, kind;
	const char *kname;
	bool known, native;
	uint64_t addr;
	bool complete;
	uint64_t psize;
	const char *space;   /* mapped only */
	uint32_t perm;
	bool anomaly;
};

static void x_pte(struct xlist *l, const struct pte_vec *v)
{
	x(l, "valid", PT_FK_BIT, v->valid);
	x(l, "aperture", PT_FK_UINT, v->ap);
	xs(l, "aperture_name", pte_ap_names[v->ap]);
	x(l, "volatile", PT_FK_BIT, v->vol);
	x(l, "encrypted", PT_FK_BIT, v->enc);
	x(l, "privilege", PT_FK_BIT, v->priv);
	x(l, "read_only", PT_FK_BIT, v->ro);
	x(l, "atomic_disable", PT_FK_BIT, v->atom);
	x(l, "address_sys", PT_FK_HEX, v->asys);
	l->f[l->n - 1].flags = PT_FF_JSON_ONLY;
	x(l, "address_vid", PT_FK_HEX, v->avid);
	l->f[l->n - 1].flags = PT_FF_JSON_ONLY;
	x(l, "peer_id", PT_FK_UINT, v->peer);
	x(l, "comptagline", PT_FK_HEX, v->ctl);
	x(l, "kind", PT_FK_HEX, v->kind);
	xs(l, "kind_name", v->kname);
	x(l, "kind_known", PT_FK_BOOL, v->known);
	x(l, "kind_native", PT_FK_BOOL, v->native);
	x(l, "address", PT_FK_HEX, v->addr);
	x(l, "address_complete", PT_FK_BOOL, v->complete);
	x(l, "page_size", PT_FK_HEX, v->psize);
}

static void check_pte_semantics(const struct pte_vec *v, const struct pt_entry *e)
{
	ck_assert_msg(e->state == v->st, "%s: state %s, expected %s", v->name,
		      pt_state_name(e->state), pt_state_name(v->st));
	ck_assert_int_eq(e->leaf, v->st == PT_ST_MAPPED);
	if (v->st == PT_ST_MAPPED) {
		ck_assert_str_eq(pt_format_ver2.spaces[e->space], v->space);
		ck_assert_uint_eq(e->pa, v->addr);
		ck_assert_int_eq(e->address_complete, v->complete);
	}
	ck_assert_msg(e->page_size == v->psize, "%s: page_size", v->name);
	ck_assert_msg(e->perm == v->perm, "%s: perm 0x%x, expected 0x%x", v->name, e->perm, v->perm);
	ck_assert_msg(e->anomaly == v->anomaly, "%s: anomaly", v->name);
	ck_assert_int_eq(e->kind, (int)v->kind);
	ck_assert(!e->target[0].present && !e->target[1].present);
}

#define PERM_ALL (PT_PERM_READ_ONLY | PT_PERM_ATOMIC_DISABLE | PT_PERM_PRIVILEGE | \
		  PT_PERM_VOLATILE | PT_PERM_ENCRYPTED)


void ver2_add_pde(Suite *s);

#endif
