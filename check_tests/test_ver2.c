/*
 * test_ver2: the NVIDIA GMMU VER2 format (docs/design.md §2.1) field by field, the
 * format helpers of core/fmt.c, and the TU10x kind table.
 *
 * Every raw vector is built by shifting values into the bit positions of
 * docs/design.md §2.1 and its sources (§7) (tables 1a-1c), with macros local to this file,
 * and every expected value is written out literally, so a decoder bug can
 * not hide behind a shared encoder.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_gart.h"

extern const struct pt_format pt_format_ver3;   /* core/fmt_ver3.c: no header of its own */
#include "fmt_ver2.h"
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

static void put_le(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static struct pt_entry decode(unsigned level, unsigned shift, uint64_t lo, uint64_t hi)
{
	uint8_t raw[16];
	struct pt_entry e;
	pt_err err;

	put_le(raw, lo);
	put_le(raw + 8, hi);
	memset(&e, 0xa5, sizeof e);   /* the decoder must set everything */
	err = pt_format_ver2.decode(level, shift, raw, 0, &e);
	ck_assert_msg(err == PT_OK, "%s", pt_strerror(err));
	return e;
}

/* ---- expected field lists ---------------------------------------------- */
struct xf {
	const char *key;
	enum pt_fkind kind;
	uint64_t v, v2;
	const char *s;
	unsigned flags;
};

struct xlist {
	unsigned n;
	struct xf f[PT_MAX_FIELDS];
};

static void x(struct xlist *l, const char *key, enum pt_fkind kind, uint64_t v)
{
	ck_assert_uint_lt(l->n, PT_MAX_FIELDS);
	l->f[l->n++] = (struct xf){key, kind, v, 0, NULL, 0};
}

static void xs(struct xlist *l, const char *key, const char *s)
{
	x(l, key, PT_FK_STR, 0);
	l->f[l->n - 1].s = s;
}

/* The entry's fields equal L exactly: same keys, order, kinds, values, flags. */
static void check_fields(const char *name, const struct pt_entry *e, const struct xlist *l)
{
	ck_assert_msg(e->nfields == l->n, "%s: %u fields, expected %u", name, e->nfields, l->n);
	for (unsigned i = 0; i < l->n; i++) {
		const struct pt_field *f = &e->fields[i];
		const struct xf *w = &l->f[i];

		ck_assert_msg(strcmp(f->key, w->key) == 0, "%s: field %u is %s, expected %s",
			      name, i, f->key, w->key);
		ck_assert_msg(f->kind == w->kind, "%s: %s kind %d, expected %d",
			      name, w->key, f->kind, w->kind);
		ck_assert_msg(f->flags == w->flags, "%s: %s flags %u", name, w->key, f->flags);
		if (w->kind == PT_FK_STR) {
			if (!w->s)
				ck_assert_msg(f->s == NULL, "%s: %s = '%s', expected NULL",
					      name, w->key, f->s);
			else
				ck_assert_msg(f->s && strcmp(f->s, w->s) == 0,
					      "%s: %s = '%s', expected '%s'", name, w->key,
					      f->s ? f->s : "(null)", w->s);
		} else {
			ck_assert_msg(f->v == w->v, "%s: %s = 0x%llx, expected 0x%llx", name,
				      w->key, (unsigned long long)f->v, (unsigned long long)w->v);
		}
		if (w->kind == PT_FK_HEX128)
			ck_assert_msg(f->v2 == w->v2, "%s: %s high = 0x%llx, expected 0x%llx",
				      name, w->key, (unsigned long long)f->v2,
				      (unsigned long long)w->v2);
		/* pt_entry_field finds the first field of that name. */
		ck_assert_ptr_eq(pt_entry_field(e, w->key), f);
	}
}

static void x_is_pte(struct xlist *l, uint64_t bit0)
{
	x(l, "is_pte", PT_FK_BIT, bit0);
	x(l, "is_leaf", PT_FK_BIT, bit0);
	x(l, "is_pde_pointer", PT_FK_BIT, bit0);
	l->f[l->n - 1].flags = PT_FF_JSON_ONLY;
}

static void x_reserved(struct xlist *l, uint64_t lo, uint64_t hi, bool wide)
{
	x(l, "reserved_bits", PT_FK_BOOL, (lo | hi) != 0);
	x(l, "reserved_mask", wide ? PT_FK_HEX128 : PT_FK_HEX, lo);
	l->f[l->n - 1].v2 = hi;
}

/* ---- PTE vectors ------------------------------------------------------- */
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

static const struct pte_vec pte_vecs[] = {
	{.name = "pte zero", .level = PTE_SMALL, .shift = 12, .raw = 0,
	 .st = PT_ST_UNMAPPED, .kname = "PITCH", .known = true, .native = true, .psize = 0x1000},
	{.name = "pte video", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(0) | P_ADDR(0x12345) | P_KIND(0x06),
	 .st = PT_ST_MAPPED, .valid = 1, .asys = 0x12345, .avid = 0x12345, .kind = 0x06,
	 .kname = "GENERIC_MEMORY", .known = true, .native = true, .addr = 0x12345000,
	 .complete = false, .psize = 0x1000, .space = "vidmem"},
	{.name = "pte peer 5", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(1) | P_ADDR(0x1) | P_PEER(5) | P_KIND(0x06),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .asys = 0xa000001, .avid = 0x1, .peer = 5,
	 .kind = 0x06, .kname = "GENERIC_MEMORY", .known = true, .native = true,
	 .addr = 0x1000, .complete = true, .psize = 0x1000, .space = "peer5"},
	{.name = "pte peer 7", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(1) | P_ADDR(0x1ffffff) | P_PEER(7),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .asys = 0xfffffff, .avid = 0x1ffffff, .peer = 7,
	 .kname = "PITCH", .known = true, .native = true,
	 .addr = 0x1ffffff000, .complete = true, .psize = 0x1000, .space = "peer7"},
	/*
	 * Turing peer PTE: ADDRESS_VID 32:8 is PA[36:12] and COMPTAGLINE 55:36
	 * the bits above it (RM kgmmuFmtInitPeerPteFld_TU10X):
	 * address = ((comptagline << 25) | address_vid) << 12, complete.
	 * 0x060000240000010b: valid, peer, vol, address_vid 1, peer 2,
	 * comptagline 2, kind 0x06 -> peer2 PA 0x4000001000.
	 */
	{.name = "pte peer comptagline", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(1) | P_VOL | P_ADDR(0x1) | P_PEER(2) | P_CTL(2) | P_KIND(0x06),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .vol = 1, .asys = 0x24000001, .avid = 0x1,
	 .peer = 2, .ctl = 0x2, .kind = 0x06, .kname = "GENERIC_MEMORY", .known = true,
	 .native = true, .addr = 0x4000001000, .complete = true, .psize = 0x1000,
	 .space = "peer2", .perm = PT_PERM_VOLATILE},
	{.name = "pte peer address max", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(1) | P_ADDR(0x1ffffff) | P_CTL(0xfffff),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .asys = 0x3ffff1ffffff, .avid = 0x1ffffff,
	 .ctl = 0xfffff, .kname = "PITCH", .known = true, .native = true,
	 .addr = 0x1fffffffffff000, .complete = true, .psize = 0x1000, .space = "peer0"},
	/* A big peer PTE: the same rule in a 64 KiB table. */
	{.name = "pte big peer comptagline", .level = PTE_BIG, .shift = 16,
	 .raw = P_VALID | P_AP(1) | P_ADDR(0x10) | P_PEER(0) | P_CTL(0x1),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .asys = 0x10000010, .avid = 0x10,
	 .ctl = 0x1, .kname = "PITCH", .known = true, .native = true,
	 .addr = 0x2000010000, .complete = true, .psize = 0x10000, .space = "peer0"},
	{.name = "pte sys coherent", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(2) | P_ADDR(0x123456789) | P_KIND(0x06),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .asys = 0x123456789, .avid = 0x1456789,
	 .peer = 1, .ctl = 0x12, .kind = 0x06, .kname = "GENERIC_MEMORY", .known = true,
	 .native = true, .addr = 0x123456789000, .complete = true, .psize = 0x1000,
	 .space = "sysmem"},
	{.name = "pte sys noncoherent", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(3) | P_ADDR(0x42),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 3, .asys = 0x42, .avid = 0x42,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x42000, .complete = true,
	 .psize = 0x1000, .space = "sysmem"},
	{.name = "pte volatile", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(2) | P_VOL | P_ADDR(0x10),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .vol = 1, .asys = 0x10, .avid = 0x10,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x10000, .complete = true,
	 .psize = 0x1000, .space = "sysmem", .perm = PT_PERM_VOLATILE},
	{.name = "pte encrypted", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_ENC | P_ADDR(0x10),
	 .st = PT_ST_MAPPED, .valid = 1, .enc = 1, .asys = 0x10, .avid = 0x10,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x10000, .psize = 0x1000,
	 .space = "vidmem", .perm = PT_PERM_ENCRYPTED, .anomaly = true},
	{.name = "pte privilege", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_PRIV | P_ADDR(0x10),
	 .st = PT_ST_MAPPED, .valid = 1, .priv = 1, .asys = 0x10, .avid = 0x10,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x10000, .psize = 0x1000,
	 .space = "vidmem", .perm = PT_PERM_PRIVILEGE},
	{.name = "pte read_only", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_RO | P_ADDR(0x10),
	 .st = PT_ST_MAPPED, .valid = 1, .ro = 1, .asys = 0x10, .avid = 0x10,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x10000, .psize = 0x1000,
	 .space = "vidmem", .perm = PT_PERM_READ_ONLY},
	{.name = "pte atomic_disable", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_ATOM | P_ADDR(0x10),
	 .st = PT_ST_MAPPED, .valid = 1, .atom = 1, .asys = 0x10, .avid = 0x10,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x10000, .psize = 0x1000,
	 .space = "vidmem", .perm = PT_PERM_ATOMIC_DISABLE},
	/* COMPTAGLINE 55:36 overlaps ADDRESS_SYS 53:36; a video address ignores both. */
	{.name = "pte comptagline", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_CTL(0xfffff) | P_ADDR(0x1abcd) | P_KIND(0x08),
	 .st = PT_ST_MAPPED, .valid = 1, .asys = 0x3ffff001abcd, .avid = 0x1abcd,
	 .ctl = 0xfffff, .kind = 0x08, .kname = "GENERIC_MEMORY_COMPRESSIBLE", .known = true,
	 .native = true, .addr = 0x1abcd000, .psize = 0x1000, .space = "vidmem"},
	{.name = "pte kind native 0x0f", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_KIND(0x0f),
	 .st = PT_ST_MAPPED, .valid = 1, .kind = 0x0f, .kname = "SMSKED_MESSAGE", .known = true,
	 .native = true, .psize = 0x1000, .space = "vidmem"},
	{.name = "pte kind known non-native 0xfe", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_KIND(0xfe),
	 .st = PT_ST_MAPPED, .valid = 1, .kind = 0xfe, .kname = "GENERIC_16BX2", .known = true,
	 .native = false, .psize = 0x1000, .space = "vidmem", .anomaly = true},
	{.name = "pte kind known non-native 0x10", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_KIND(0x10),
	 .st = PT_ST_MAPPED, .valid = 1, .kind = 0x10, .kname = "Z16_MS2_2Z", .known = true,
	 .native = false, .psize = 0x1000, .space = "vidmem", .anomaly = true},
	{.name = "pte kind unknown 0x6d", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_KIND(0x6d),
	 .st = PT_ST_MAPPED, .valid = 1, .kind = 0x6d, .kname = NULL, .known = false,
	 .native = false, .psize = 0x1000, .space = "vidmem", .anomaly = true},
	/* The kind of an invalid PTE is ignored by the MMU: no anomaly. */
	{.name = "pte invalid kind unknown", .level = PTE_SMALL, .shift = 12,
	 .raw = P_KIND(0xff),
	 .st = PT_ST_INVALID, .kind = 0xff, .kname = NULL, .psize = 0x1000},
	{.name = "pte sys address max", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(2) | P_ADDR(0x3fffffffffff),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .asys = 0x3fffffffffff, .avid = 0x1ffffff,
	 .peer = 7, .ctl = 0x3ffff, .kname = "PITCH", .known = true, .native = true,
	 .addr = 0x3fffffffffff000, .complete = true, .psize = 0x1000, .space = "sysmem"},
	{.name = "pte vid address max", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_ADDR(0x1ffffff),
	 .st = PT_ST_MAPPED, .valid = 1, .asys = 0x1ffffff, .avid = 0x1ffffff,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x1ffffff000,
	 .psize = 0x1000, .space = "vidmem"},
	{.name = "pte sys address min", .level = PTE_SMALL, .shift = 12,
	 .raw = P_VALID | P_AP(2),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .kname = "PITCH", .known = true, .native = true,
	 .addr = 0, .complete = true, .psize = 0x1000, .space = "sysmem"},
	{.name = "pte small sparse", .level = PTE_SMALL, .shift = 12, .raw = P_VOL,
	 .st = PT_ST_SPARSE, .vol = 1, .kname = "PITCH", .known = true, .native = true,
	 .psize = 0x1000, .perm = PT_PERM_VOLATILE},
	/* no_valid_4k exists only in the big table. */
	{.name = "pte small priv invalid", .level = PTE_SMALL, .shift = 12, .raw = P_PRIV,
	 .st = PT_ST_INVALID, .priv = 1, .kname = "PITCH", .known = true, .native = true,
	 .psize = 0x1000, .perm = PT_PERM_PRIVILEGE},
	{.name = "pte small invalid", .level = PTE_SMALL, .shift = 12,
	 .raw = P_AP(2) | P_ADDR(5),
	 .st = PT_ST_INVALID, .ap = 2, .asys = 5, .avid = 5, .kname = "PITCH", .known = true,
	 .native = true, .addr = 0x5000, .complete = true, .psize = 0x1000},
	{.name = "pte loose page_shift 0", .level = PTE_SMALL, .shift = 0,
	 .raw = P_VALID | P_AP(2) | P_ADDR(7),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .asys = 7, .avid = 7, .kname = "PITCH",
	 .known = true, .native = true, .addr = 0x7000, .complete = true, .psize = 0,
	 .space = "sysmem"},
	{.name = "pte all ones", .level = PTE_SMALL, .shift = 12, .raw = ~0ull,
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 3, .vol = 1, .enc = 1, .priv = 1, .ro = 1,
	 .atom = 1, .asys = 0x3fffffffffff, .avid = 0x1ffffff, .peer = 7, .ctl = 0xfffff,
	 .kind = 0xff, .kname = NULL, .known = false, .native = false,
	 .addr = 0x3fffffffffff000, .complete = true, .psize = 0x1000, .space = "sysmem",
	 .perm = PERM_ALL, .anomaly = true},
	{.name = "pte big video", .level = PTE_BIG, .shift = 16,
	 .raw = P_VALID | P_ADDR(0x210) | P_KIND(0x06),
	 .st = PT_ST_MAPPED, .valid = 1, .asys = 0x210, .avid = 0x210, .kind = 0x06,
	 .kname = "GENERIC_MEMORY", .known = true, .native = true, .addr = 0x210000,
	 .psize = 0x10000, .space = "vidmem"},
	{.name = "pte big no_valid_4k", .level = PTE_BIG, .shift = 16, .raw = P_PRIV,
	 .st = PT_ST_NO_VALID_4K, .priv = 1, .kname = "PITCH", .known = true, .native = true,
	 .psize = 0x10000, .perm = PT_PERM_PRIVILEGE},
	/* VOL wins over PRIV: VALID=0, VOL=1 is sparse (UVM keeps VOL 0 for no_valid_4k). */
	{.name = "pte big sparse priv", .level = PTE_BIG, .shift = 16, .raw = P_VOL | P_PRIV,
	 .st = PT_ST_SPARSE, .vol = 1, .priv = 1, .kname = "PITCH", .known = true,
	 .native = true, .psize = 0x10000, .perm = PT_PERM_VOLATILE | PT_PERM_PRIVILEGE},
	{.name = "pte big sparse", .level = PTE_BIG, .shift = 16, .raw = P_VOL,
	 .st = PT_ST_SPARSE, .vol = 1, .kname = "PITCH", .known = true, .native = true,
	 .psize = 0x10000, .perm = PT_PERM_VOLATILE},
	{.name = "pte big invalid", .level = PTE_BIG, .shift = 16, .raw = P_AP(2),
	 .st = PT_ST_INVALID, .ap = 2, .kname = "PITCH", .known = true, .native = true,
	 .complete = true, .psize = 0x10000},
	{.name = "pte big zero", .level = PTE_BIG, .shift = 16, .raw = 0,
	 .st = PT_ST_UNMAPPED, .kname = "PITCH", .known = true, .native = true,
	 .psize = 0x10000},
};

/* The peer vector, as written above field by field. */
_Static_assert((P_VALID | P_AP(1) | P_VOL | P_ADDR(0x1) | P_PEER(2) | P_CTL(2) | P_KIND(0x06)) ==
	       0x060000240000010bull, "peer vector");

START_TEST(pte_vectors)
{
	const struct pte_vec *v = &pte_vecs[_i];
	struct pt_entry e = decode(v->level, v->shift, v->raw, 0);
	struct xlist l = {0};

	ck_assert_uint_eq(e.size, 8);
	ck_assert_uint_eq(e.raw[0], v->raw);
	ck_assert_uint_eq(e.raw[1], 0);
	ck_assert_uint_eq(e.reserved_mask[0], 0);
	ck_assert_uint_eq(e.reserved_mask[1], 0);
	x_pte(&l, v);
	x_reserved(&l, 0, 0, false);
	check_fields(v->name, &e, &l);
	check_pte_semantics(v, &e);
}
END_TEST

/* ---- 8-byte PDE vectors ------------------------------------------------ */
struct pde_vec {
	const char *name;
	unsigned level;
	uint64_t raw;
	enum pt_state st;
	uint64_t is_pte, ap, vol, no_ats, asys, avid, peer, addr, rmask;
	const char *tspace;   /* pointer: target space */
	int tlevel;
};

static const struct pde_vec pde_vecs[] = {
	{.name = "pde3 zero", .level = PDE3, .raw = 0, .st = PT_ST_UNMAPPED},
	{.name = "pde3 video", .level = PDE3, .raw = D_AP(1) | D_ADDR(0x201),
	 .st = PT_ST_POINTER, .ap = 1, .asys = 0x201, .avid = 0x201, .addr = 0x201000,
	 .tspace = "vidmem", .tlevel = PDE2},
	{.name = "pde2 sys coherent vol", .level = PDE2,
	 .raw = D_AP(2) | D_VOL | D_ADDR(0x123456789),
	 .st = PT_ST_POINTER, .ap = 2, .vol = 1, .asys = 0x123456789, .avid = 0x1456789,
	 .peer = 1, .addr = 0x123456789000, .tspace = "sysmem", .tlevel = PDE1},
	{.name = "pde1 sys noncoherent no_ats", .level = PDE1,
	 .raw = D_AP(3) | D_NO_ATS | D_ADDR(0x3fffffffffff),
	 .st = PT_ST_POINTER, .ap = 3, .no_ats = 1, .asys = 0x3fffffffffff, .avid = 0x1ffffff,
	 .peer = 7, .addr = 0x3fffffffffff000, .tspace = "sysmem", .tlevel = PDE0},
	/* A video pointer's address is ADDRESS_VID only: PEER bits do not move it. */
	{.name = "pde2 video peer bits", .level = PDE2, .raw = D_AP(1) | D_ADDR(0x5) | D_PEER(3),
	 .st = PT_ST_POINTER, .ap = 1, .asys = 0x6000005, .avid = 0x5, .peer = 3, .addr = 0x5000,
	 .tspace = "vidmem", .tlevel = PDE1},
	{.name = "pde2 sparse", .level = PDE2, .raw = D_VOL, .st = PT_ST_SPARSE, .vol = 1},
	{.name = "pde1 invalid no_ats", .level = PDE1, .raw = D_NO_ATS, .st = PT_ST_INVALID,
	 .no_ats = 1},
	{.name = "pde3 invalid address", .level = PDE3, .raw = D_ADDR(0x77), .st = PT_ST_INVALID,
	 .asys = 0x77, .avid = 0x77},
	/* VER2 allows a PTE only in PD0. */
	{.name = "pde2 is_pte unsupported", .level = PDE2, .raw = D_IS_PTE | D_AP(1) | D_ADDR(0x9),
	 .st = PT_ST_UNSUPPORTED, .is_pte = 1, .ap = 1, .asys = 9, .avid = 9, .addr = 0x9000},
	{.name = "pde3 is_pte unsupported", .level = PDE3, .raw = D_IS_PTE,
	 .st = PT_ST_UNSUPPORTED, .is_pte = 1},
	{.name = "pde1 is_pte unsupported", .level = PDE1, .raw = D_IS_PTE | D_VOL,
	 .st = PT_ST_UNSUPPORTED, .is_pte = 1, .vol = 1},
	{.name = "pde3 reserved bit 4", .level = PDE3, .raw = D_AP(1) | B(1, 4) | D_ADDR(1),
	 .st = PT_ST_POINTER, .ap = 1, .asys = 1, .avid = 1, .addr = 0x1000, .rmask = 0x10,
	 .tspace = "vidmem", .tlevel = PDE2},
	{.name = "pde1 reserved 63:54", .level = PDE1, .raw = D_AP(1) | B(0x3ff, 54) | D_ADDR(1),
	 .st = PT_ST_POINTER, .ap = 1, .asys = 1, .avid = 1, .addr = 0x1000,
	 .rmask = 0xffc0000000000000ull, .tspace = "vidmem", .tlevel = PDE0},
	{.name = "pde2 reserved bit 54 only", .level = PDE2, .raw = B(1, 54),
	 .st = PT_ST_INVALID, .rmask = 1ull << 54},
	/* Bits 7:6 have no official name (DOC-TU104: only 5 is NO_ATS). */
	{.name = "pde2 reserved bits 7:6", .level = PDE2, .raw = D_AP(1) | B(3, 6) | D_ADDR(1),
	 .st = PT_ST_POINTER, .ap = 1, .asys = 1, .avid = 1, .addr = 0x1000, .rmask = 0xc0,
	 .tspace = "vidmem", .tlevel = PDE1},
	{.name = "pde1 reserved bit 6 only", .level = PDE1, .raw = B(1, 6),
	 .st = PT_ST_INVALID, .rmask = 0x40},
	{.name = "pde3 reserved bit 7 sparse", .level = PDE3, .raw = D_VOL | B(1, 7),
	 .st = PT_ST_SPARSE, .vol = 1, .rmask = 0x80},
	/* Every unnamed bit at once: 4, 7:6, 63:54; NO_ATS (5) is named. */
	{.name = "pde1 every unnamed bit", .level = PDE1,
	 .raw = D_AP(2) | B(1, 4) | D_NO_ATS | B(3, 6) | B(0x3ff, 54) | D_ADDR(0x77),
	 .st = PT_ST_POINTER, .ap = 2, .no_ats = 1, .asys = 0x77, .avid = 0x77, .addr = 0x77000,
	 .rmask = 0xffc00000000000d0ull, .tspace = "sysmem", .tlevel = PDE0},
};

START_TEST(pde_vectors)
{
	const struct pde_vec *v = &pde_vecs[_i];
	struct pt_entry e = decode(v->level, 0, v->raw, 0);
	struct xlist l = {0};

	ck_assert_uint_eq(e.size, 8);
	ck_assert_uint_eq(e.raw[0], v->raw);
	x_is_pte(&l, v->is_pte);
	x(&l, "aperture", PT_FK_UINT, v->ap);
	xs(&l, "aperture_name", pde_ap_names[v->ap]);
	x(&l, "volatile", PT_FK_BIT, v->vol);
	x(&l, "no_ats", PT_FK_BIT, v->no_ats);
	x(&l, "address_sys", PT_FK_HEX, v->asys);
	l.f[l.n - 1].flags = PT_FF_JSON_ONLY;
	x(&l, "address_vid", PT_FK_HEX, v->avid);
	l.f[l.n - 1].flags = PT_FF_JSON_ONLY;
	x(&l, "peer_id", PT_FK_UINT, v->peer);
	x(&l, "address", PT_FK_HEX, v->addr);
	x_reserved(&l, v->rmask, 0, false);
	check_fields(v->name, &e, &l);

	ck_assert_msg(e.state == v->st, "%s: state %s", v->name, pt_state_name(e.state));
	ck_assert_uint_eq(e.reserved_mask[0], v->rmask);
	ck_assert_uint_eq(e.reserved_mask[1], 0);
	ck_assert(!e.leaf);
	ck_assert_int_eq(e.kind, -1);
	ck_assert(!e.target[1].present);
	ck_assert_int_eq(e.target[0].present, v->st == PT_ST_POINTER);
	if (v->st == PT_ST_POINTER) {
		ck_assert_int_eq(e.target[0].level, v->tlevel);
		ck_assert_str_eq(pt_format_ver2.spaces[e.target[0].space], v->tspace);
		ck_assert_uint_eq(e.target[0].addr, v->addr);
	}
}
END_TEST

/* ---- dual PDE0 vectors ------------------------------------------------- */
struct dual_vec {
	const char *name;
	uint64_t lo, hi;
	enum pt_state st;
	uint64_t apb, volb, no_ats, absys, abvid, peerb, big;
	uint64_t aps, vols, assys, asvid, peers, small;
	uint64_t rlo, rhi;
	const char *big_space, *small_space;   /* targets, NULL when absent */
};

static const struct dual_vec dual_vecs[] = {
	{.name = "pd0 zero", .st = PT_ST_UNMAPPED},
	{.name = "pd0 big only video", .lo = DL_AP_BIG(1) | DL_ADDR_BIG(0x2010),
	 .st = PT_ST_POINTER, .apb = 1, .absys = 0x2010, .abvid = 0x2010, .big = 0x201000,
	 .big_space = "vidmem"},
	{.name = "pd0 small only sys coherent", .hi = DH_AP_SMALL(2) | DH_ADDR_SMALL(0x345),
	 .st = PT_ST_POINTER, .aps = 2, .assys = 0x345, .asvid = 0x345, .small = 0x345000,
	 .small_space = "sysmem"},
	{.name = "pd0 both", .lo = DL_AP_BIG(3) | DL_ADDR_BIG(0x123456789ab),
	 .hi = DH_AP_SMALL(1) | DH_VOL_SMALL | DH_ADDR_SMALL(0x1ffffff),
	 .st = PT_ST_POINTER, .apb = 3, .no_ats = 1, .absys = 0x123456789ab, .abvid = 0x56789ab,
	 .peerb = 2, .big = 0x123456789ab00,
	 .aps = 1, .vols = 1, .assys = 0x1ffffff, .asvid = 0x1ffffff, .small = 0x1ffffff000,
	 .big_space = "sysmem", .small_space = "vidmem"},
	{.name = "pd0 big sys max", .lo = DL_AP_BIG(2) | DL_ADDR_BIG(0x3ffffffffffff),
	 .st = PT_ST_POINTER, .apb = 2, .no_ats = 1, .absys = 0x3ffffffffffff, .abvid = 0x1fffffff,
	 .peerb = 7, .big = 0x3ffffffffffff00, .big_space = "sysmem"},
	{.name = "pd0 small sys max", .hi = DH_AP_SMALL(3) | DH_ADDR_SMALL(0x3fffffffffff),
	 .st = PT_ST_POINTER, .aps = 3, .assys = 0x3fffffffffff, .asvid = 0x1ffffff,
	 .peers = 7, .small = 0x3fffffffffff000, .small_space = "sysmem"},
	{.name = "pd0 sparse", .lo = DL_VOL_BIG, .st = PT_ST_SPARSE, .volb = 1},
	{.name = "pd0 invalid vol_small", .hi = DH_VOL_SMALL, .st = PT_ST_INVALID, .vols = 1},
	{.name = "pd0 invalid no_ats", .lo = DL_NO_ATS, .st = PT_ST_INVALID, .no_ats = 1,
	 .absys = 0x2, .abvid = 0x2},
	/*
	 * Raw bit 5 is NO_ATS and also address bit 9 (field bit 1): reported as
	 * no_ats and kept in the address.  nouveau packs 256-byte big tables in
	 * 0x100 slots of a page, so tables at page+0x200 / +0x300 set it.
	 */
	{.name = "pd0 big at page+0x200 keeps bit 9", .lo = DL_AP_BIG(1) | DL_ADDR_BIG(0x52),
	 .st = PT_ST_POINTER, .apb = 1, .no_ats = 1, .absys = 0x52, .abvid = 0x52,
	 .big = 0x5200, .big_space = "vidmem"},
	{.name = "pd0 big at page+0x300 keeps bit 9", .lo = DL_AP_BIG(2) | DL_ADDR_BIG(0x1000053),
	 .st = PT_ST_POINTER, .apb = 2, .no_ats = 1, .absys = 0x1000053, .abvid = 0x1000053,
	 .big = 0x100005300, .big_space = "sysmem"},
	{.name = "pd0 no_ats is address bit 9", .lo = DL_AP_BIG(1) | DL_NO_ATS | DL_ADDR_BIG(0x2010),
	 .st = PT_ST_POINTER, .apb = 1, .no_ats = 1, .absys = 0x2012, .abvid = 0x2012,
	 .big = 0x201200, .big_space = "vidmem"},
	/* In the dual PDE bits 4, 7:6 are address bits 8, 11:10, not reserved. */
	{.name = "pd0 bits 7:4 are address", .lo = DL_AP_BIG(1) | B(0xd, 4),
	 .st = PT_ST_POINTER, .apb = 1, .absys = 0xd, .abvid = 0xd, .big = 0xd00,
	 .big_space = "vidmem"},
	/* The 64K table needs only 256-byte alignment: field bit 0 is address bit 8. */
	{.name = "pd0 big 256B aligned", .lo = DL_AP_BIG(1) | DL_ADDR_BIG(0x2011),
	 .st = PT_ST_POINTER, .apb = 1, .absys = 0x2011, .abvid = 0x2011, .big = 0x201100,
	 .big_space = "vidmem"},
	{.name = "pd0 peer ids", .lo = DL_AP_BIG(1) | DL_ADDR_BIG(0x10) | DL_PEER_BIG(2),
	 .hi = DH_AP_SMALL(1) | DH_ADDR_SMALL(0x20) | DH_PEER_SMALL(6),
	 .st = PT_ST_POINTER, .apb = 1, .absys = 0x40000010, .abvid = 0x10, .peerb = 2,
	 .big = 0x1000, .aps = 1, .assys = 0xc000020, .asvid = 0x20, .peers = 6,
	 .small = 0x20000, .big_space = "vidmem", .small_space = "vidmem"},
	{.name = "pd0 reserved 63:54", .lo = DL_AP_BIG(1) | DL_ADDR_BIG(0x10) | B(0x3ff, 54),
	 .st = PT_ST_POINTER, .apb = 1, .absys = 0x10, .abvid = 0x10, .big = 0x1000,
	 .rlo = 0xffc0000000000000ull, .big_space = "vidmem"},
	{.name = "pd0 reserved 64", .hi = B(1, 64 - 64), .st = PT_ST_INVALID, .rhi = 0x1},
	{.name = "pd0 reserved 71:68", .hi = DH_AP_SMALL(2) | DH_ADDR_SMALL(1) | B(0xf, 68 - 64),
	 .st = PT_ST_POINTER, .aps = 2, .assys = 1, .asvid = 1, .small = 0x1000, .rhi = 0xf0,
	 .small_space = "sysmem"},
	{.name = "pd0 reserved 127:118", .hi = DH_AP_SMALL(2) | DH_ADDR_SMALL(1) | B(0x3ff, 118 - 64),
	 .st = PT_ST_POINTER, .aps = 2, .assys = 1, .asvid = 1, .small = 0x1000,
	 .rhi = 0xffc0000000000000ull, .small_space = "sysmem"},
	{.name = "pd0 reserved sparse", .lo = DL_VOL_BIG | B(1, 60), .st = PT_ST_SPARSE,
	 .volb = 1, .rlo = 1ull << 60},
	/* Every unnamed bit at once (docs/design.md §2.1): 54-64, 68-71, 118-127. */
	{.name = "pd0 every unnamed bit", .lo = DL_AP_BIG(1) | DL_ADDR_BIG(0x10) | B(0x3ff, 54),
	 .hi = DH_AP_SMALL(1) | DH_ADDR_SMALL(0x20) | B(1, 64 - 64) | B(0xf, 68 - 64) |
	       B(0x3ff, 118 - 64),
	 .st = PT_ST_POINTER, .apb = 1, .absys = 0x10, .abvid = 0x10, .big = 0x1000,
	 .aps = 1, .assys = 0x20, .asvid = 0x20, .small = 0x20000,
	 .rlo = 0xffc0000000000000ull, .rhi = 0xffc00000000000f1ull,
	 .big_space = "vidmem", .small_space = "vidmem"},
};

START_TEST(dual_vectors)
{
	const struct dual_vec *v = &dual_vecs[_i];
	struct pt_entry e = decode(PDE0, 0, v->lo, v->hi);
	struct xlist l = {0};

	ck_assert_uint_eq(e.size, 16);
	ck_assert_uint_eq(e.raw[0], v->lo);
	ck_assert_uint_eq(e.raw[1], v->hi);
	x_is_pte(&l, 0);
	x(&l, "aperture_big", PT_FK_UINT, v->apb);
	xs(&l, "aperture_big_name", pde_ap_names[v->apb]);
	x(&l, "volatile_big", PT_FK_BIT, v->volb);
	x(&l, "no_ats", PT_FK_BIT, v->no_ats);
	x(&l, "address_big_sys", PT_FK_HEX, v->absys);
	l.f[l.n - 1].flags = PT_FF_JSON_ONLY;
	x(&l, "address_big_vid", PT_FK_HEX, v->abvid);
	l.f[l.n - 1].flags = PT_FF_JSON_ONLY;
	x(&l, "peer_id_big", PT_FK_UINT, v->peerb);
	x(&l, "address_big", PT_FK_HEX, v->big);
	x(&l, "aperture_small", PT_FK_UINT, v->aps);
	xs(&l, "aperture_small_name", pde_ap_names[v->aps]);
	x(&l, "volatile_small", PT_FK_BIT, v->vols);
	x(&l, "address_small_sys", PT_FK_HEX, v->assys);
	l.f[l.n - 1].flags = PT_FF_JSON_ONLY;
	x(&l, "address_small_vid", PT_FK_HEX, v->asvid);
	l.f[l.n - 1].flags = PT_FF_JSON_ONLY;
	x(&l, "peer_id_small", PT_FK_UINT, v->peers);
	x(&l, "address_small", PT_FK_HEX, v->small);
	x_reserved(&l, v->rlo, v->rhi, true);
	check_fields(v->name, &e, &l);

	ck_assert_msg(e.state == v->st, "%s: state %s", v->name, pt_state_name(e.state));
	ck_assert_uint_eq(e.reserved_mask[0], v->rlo);
	ck_assert_uint_eq(e.reserved_mask[1], v->rhi);
	ck_assert(!e.leaf);
	ck_assert_int_eq(e.target[0].present, v->big_space != NULL);
	ck_assert_int_eq(e.target[1].present, v->small_space != NULL);
	if (v->big_space) {
		ck_assert_int_eq(e.target[0].level, PTE_BIG);
		ck_assert_str_eq(pt_format_ver2.spaces[e.target[0].space], v->big_space);
		ck_assert_uint_eq(e.target[0].addr, v->big);
	}
	if (v->small_space) {
		ck_assert_int_eq(e.target[1].level, PTE_SMALL);
		ck_assert_str_eq(pt_format_ver2.spaces[e.target[1].space], v->small_space);
		ck_assert_uint_eq(e.target[1].addr, v->small);
	}
}
END_TEST

/* ---- 2 MiB PTE in a PD0 slot ------------------------------------------- */
static const struct pte_vec pd0_pte_vecs[] = {
	{.name = "pd0 2M sys", .raw = P_VALID | P_AP(2) | P_ADDR(0x400) | P_KIND(0x06),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .asys = 0x400, .avid = 0x400, .kind = 0x06,
	 .kname = "GENERIC_MEMORY", .known = true, .native = true, .addr = 0x400000,
	 .complete = true, .psize = 0x200000, .space = "sysmem"},
	{.name = "pd0 2M video ro atomic", .raw = P_VALID | P_RO | P_ATOM | P_ADDR(0x1200),
	 .st = PT_ST_MAPPED, .valid = 1, .ro = 1, .atom = 1, .asys = 0x1200, .avid = 0x1200,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x1200000,
	 .psize = 0x200000, .space = "vidmem",
	 .perm = PT_PERM_READ_ONLY | PT_PERM_ATOMIC_DISABLE},
	{.name = "pd0 2M peer", .raw = P_VALID | P_AP(1) | P_PEER(2) | P_ADDR(0x600),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .asys = 0x4000600, .avid = 0x600, .peer = 2,
	 .kname = "PITCH", .known = true, .native = true, .addr = 0x600000, .complete = true,
	 .psize = 0x200000, .space = "peer2"},
	/* The peer rule in a 2 MiB PTE: COMPTAGLINE 3 is PA[56:37] = 3. */
	{.name = "pd0 2M peer comptagline", .raw = P_VALID | P_AP(1) | P_PEER(1) | P_CTL(3) |
	 P_ADDR(0x600),
	 .st = PT_ST_MAPPED, .valid = 1, .ap = 1, .asys = 0x32000600, .avid = 0x600, .peer = 1,
	 .ctl = 0x3, .kname = "PITCH", .known = true, .native = true, .addr = 0x6000600000,
	 .complete = true, .psize = 0x200000, .space = "peer1"},
};
/* High words for the 2 MiB vectors: any set bit there is reserved. */
static const uint64_t pd0_pte_hi[] = {0, 0x1, 0x8000000000000000ull};

START_TEST(pd0_pte_vectors)
{
	for (unsigned h = 0; h < sizeof pd0_pte_hi / sizeof pd0_pte_hi[0]; h++) {
		const struct pte_vec *v = &pd0_pte_vecs[_i];
		struct pt_entry e = decode(PDE0, 0, v->raw, pd0_pte_hi[h]);
		struct xlist l = {0};

		ck_assert_uint_eq(e.size, 16);
		x_is_pte(&l, 1);
		x_pte(&l, v);
		x_reserved(&l, 0, pd0_pte_hi[h], true);
		check_fields(v->name, &e, &l);
		check_pte_semantics(v, &e);
		ck_assert_uint_eq(e.reserved_mask[0], 0);
		ck_assert_uint_eq(e.reserved_mask[1], pd0_pte_hi[h]);
	}
}
END_TEST

START_TEST(level_outside_table)
{
	uint8_t raw[16] = {1};
	struct pt_entry e;

	for (unsigned lv = 6; lv < 10; lv++)
		ck_assert_int_eq(pt_format_ver2.decode(lv, 12, raw, 0, &e), PT_E_UNSUPPORTED);
	ck_assert_int_eq(pt_format_ver2.decode(255, 12, raw, 0, &e), PT_E_UNSUPPORTED);
	ck_assert_int_eq(pt_format_ver2.decode(~0u, 12, raw, 0, &e), PT_E_UNSUPPORTED);
	ck_assert_uint_eq(e.nfields, 0);
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
	ck_assert(!e.leaf && !e.target[0].present);
}
END_TEST

/* Every state VER2 can produce, one representative each. */
START_TEST(every_state)
{
	static const struct {
		unsigned level;
		uint64_t lo, hi;
		enum pt_state st;
		const char *name;
	} s[] = {
		{PTE_SMALL, 0, 0, PT_ST_UNMAPPED, "unmapped"},
		{PTE_SMALL, P_AP(3), 0, PT_ST_INVALID, "invalid"},
		{PTE_SMALL, P_VOL, 0, PT_ST_SPARSE, "sparse"},
		{PTE_BIG, P_PRIV, 0, PT_ST_NO_VALID_4K, "no_valid_4k"},
		{PDE3, D_AP(1), 0, PT_ST_POINTER, "pointer"},
		{PTE_SMALL, P_VALID, 0, PT_ST_MAPPED, "mapped"},
		{PDE1, D_IS_PTE, 0, PT_ST_UNSUPPORTED, "unsupported"},
	};

	for (unsigned i = 0; i < sizeof s / sizeof s[0]; i++) {
		struct pt_entry e = decode(s[i].level, 12, s[i].lo, s[i].hi);

		ck_assert_int_eq(e.state, s[i].st);
		ck_assert_str_eq(pt_state_name(e.state), s[i].name);
	}
	ck_assert_str_eq(pt_state_name((enum pt_state)99), "unknown");
}
END_TEST

/* ---- format table, helpers --------------------------------------------- */
START_TEST(level_table)
{
	static const struct {
		const char *name;
		unsigned depth, va_shift, bits, size, role, leaf_shift;
		int c0, c1;
	} want[] = {
		{"pde3", 0, 47, 2, 8, PT_ROLE_DIR, 0, 1, -1},
		{"pde2", 1, 38, 9, 8, PT_ROLE_DIR, 0, 2, -1},
		{"pde1", 2, 29, 9, 8, PT_ROLE_DIR, 0, 3, -1},
		{"pde0", 3, 21, 8, 16, PT_ROLE_DUAL, 21, 4, 5},
		{"pte_big", 4, 16, 5, 8, PT_ROLE_LEAF, 0, -1, -1},
		{"pte_small", 4, 12, 9, 8, PT_ROLE_LEAF, 0, -1, -1},
	};
	const struct pt_format *f = pt_format_find("nv-gmmu-ver2");

	ck_assert_ptr_eq(f, &pt_format_ver2);
	ck_assert_str_eq(f->name, "nv-gmmu-ver2");
	ck_assert_uint_eq(pt_format_nlevels(f), 6);
	ck_assert_uint_eq(f->va_bits, 49);
	ck_assert_uint_eq(f->va_digits, 13);
	for (unsigned i = 0; i < 6; i++) {
		const struct pt_level *l = &f->levels[i];

		ck_assert_str_eq(l->name, want[i].name);
		ck_assert_uint_eq(l->depth, want[i].depth);
		ck_assert_uint_eq(l->va_shift, want[i].va_shift);
		ck_assert_uint_eq(l->bits, want[i].bits);
		ck_assert_uint_eq(l->entry_size, want[i].size);
		ck_assert_uint_eq(l->role, want[i].role);
		ck_assert_uint_eq(l->leaf_shift, want[i].leaf_shift);
		ck_assert_int_eq(l->child[0], want[i].c0);
		ck_assert_int_eq(l->child[1], want[i].c1);
	}
	ck_assert_ptr_null(f->levels[6].name);
	/* 49-bit VA: the root's va_shift plus its bits, and each level tiles the one above. */
	ck_assert_uint_eq(f->levels[0].va_shift + f->levels[0].bits, 49);
	for (unsigned i = 1; i < 4; i++)
		ck_assert_uint_eq(f->levels[i].va_shift + f->levels[i].bits, f->levels[i - 1].va_shift);
	ck_assert_uint_eq(f->levels[4].va_shift + f->levels[4].bits, 21);
	ck_assert_uint_eq(f->levels[5].va_shift + f->levels[5].bits, 21);
}
END_TEST

START_TEST(spaces)
{
	const struct pt_format *f = &pt_format_ver2;
	static const char *const want[] = {"vidmem", "sysmem", "peer0", "peer1", "peer2", "peer3",
					   "peer4", "peer5", "peer6", "peer7"};
	char name[8];

	for (int i = 0; i < 10; i++) {
		ck_assert_str_eq(f->spaces[i], want[i]);
		ck_assert_int_eq(pt_format_space(f, want[i]), i);
	}
	ck_assert_ptr_null(f->spaces[10]);
	ck_assert_int_eq(pt_format_space(f, "peer8"), -1);
	ck_assert_int_eq(pt_format_space(f, "vram"), -1);
	ck_assert_int_eq(pt_format_space(f, ""), -1);
	ck_assert_int_eq(pt_format_space(f, NULL), -1);
	/* A peer PTE's space id is peer0 + PEER_ID. */
	for (unsigned p = 0; p < 8; p++) {
		struct pt_entry e = decode(PTE_SMALL, 12, P_VALID | P_AP(1) | P_PEER(p), 0);

		snprintf(name, sizeof name, "peer%u", p);
		ck_assert_uint_eq(e.space, (unsigned)pt_format_space(f, name));
	}
}
END_TEST

START_TEST(format_find)
{
	ck_assert_ptr_eq(pt_format_find("amd-gart"), &pt_format_gart);
	ck_assert_ptr_eq(pt_format_find("nv-gmmu-ver3"), &pt_format_ver3);
	ck_assert_ptr_null(pt_format_find("nv-gmmu-ver9"));
	ck_assert_ptr_null(pt_format_find("NV-GMMU-VER2"));
	ck_assert_ptr_null(pt_format_find(""));
	ck_assert_ptr_null(pt_format_find(NULL));
}
END_TEST

/* The format table: order (the first is the default), sections, --kind names, lists. */
START_TEST(format_table)
{
	char buf[128];

	ck_assert_ptr_eq(pt_format_at(0), &pt_format_ver2);
	ck_assert_ptr_eq(pt_format_at(1), &pt_format_gart);
	ck_assert_ptr_eq(pt_format_at(2), &pt_format_ver3);
	ck_assert_ptr_eq(pt_format_at(3), pt_format_find("amd-gpuvm"));
	ck_assert_ptr_eq(pt_format_at(4), pt_format_find("x86-64"));
	ck_assert_ptr_eq(pt_format_at(5), pt_format_find("intel-vtd"));
	ck_assert_ptr_eq(pt_format_at(6), pt_format_find("intel-ept"));
	ck_assert_ptr_eq(pt_format_at(7), pt_format_find("amd-vi"));
	ck_assert_ptr_eq(pt_format_at(8), pt_format_find("arm64"));
	ck_assert_ptr_null(pt_format_at(9));
	/* VER3 shares [pdb]: the section names the first format with it (the capture's own wins). */
	ck_assert_ptr_eq(pt_format_by_section("pdb"), &pt_format_ver2);
	ck_assert_ptr_eq(pt_format_by_section("gart"), &pt_format_gart);
	ck_assert_ptr_null(pt_format_by_section("memory"));
	ck_assert_ptr_null(pt_format_by_section("capture"));
	ck_assert_ptr_null(pt_format_by_section(NULL));
	pt_format_list(buf, sizeof buf, ", ", " or ");
	ck_assert_str_eq(buf, "nv-gmmu-ver2, amd-gart, nv-gmmu-ver3, amd-gpuvm, x86-64, intel-vtd, intel-ept, amd-vi or arm64");
	pt_format_list(buf, 5, ", ", " or ");
	ck_assert_str_eq(buf, "nv-g");
	ck_assert_str_eq(pt_format_ver2.blob_kinds[0].name, "ver2");
	ck_assert_uint_eq(pt_format_ver2.blob_kinds[0].entry_size, 8);
	ck_assert_str_eq(pt_format_ver2.blob_kinds[1].name, "ver2_dual");
	ck_assert_uint_eq(pt_format_ver2.blob_kinds[1].entry_size, 16);
	ck_assert_ptr_null(pt_format_ver2.blob_kinds[2].name);
	ck_assert_str_eq(pt_format_gart.blob_kinds[0].name, "gart");
	ck_assert_ptr_null(pt_format_gart.blob_kinds[1].name);
	ck_assert_str_eq(pt_format_ver3.blob_kinds[0].name, "ver3");
	ck_assert_uint_eq(pt_format_ver3.blob_kinds[0].entry_size, 8);
	ck_assert_str_eq(pt_format_ver3.blob_kinds[1].name, "ver3_dual");
	ck_assert_uint_eq(pt_format_ver3.blob_kinds[1].entry_size, 16);
	ck_assert_ptr_null(pt_format_ver3.blob_kinds[2].name);
	ck_assert_ptr_null(pt_format_ver3.out_of_range);
	/* A format without an out-of-range rule: the walk prints no aperture. */
	ck_assert_ptr_null(pt_format_ver2.out_of_range);
	ck_assert_ptr_nonnull(pt_format_gart.out_of_range);
}
END_TEST

/*
 * The decoder marks what the scan reports: a set "set to 0" bit in any
 * state, and an unnamed or non-native kind in any PTE, valid or not.
 */
START_TEST(entry_anomalies)
{
	static const struct { uint64_t raw; uint32_t want; } v[] = {
		{0, 0},
		{0x1ull | 6ull << 56, 0},                         /* valid, kind 0x06: native */
		{0x1ull | 1ull << 4, PT_EA_ZERO_BITS},            /* encrypted */
		{1ull << 4, PT_EA_ZERO_BITS},                      /* encrypted, not valid */
		{0x1ull | 0x6dull << 56, PT_EA_KIND_UNKNOWN},      /* unnamed kind */
		{0x6dull << 56, PT_EA_KIND_UNKNOWN},               /* unnamed kind, invalid */
		{0x1ull | 0xfeull << 56, PT_EA_KIND_NON_NATIVE},   /* GENERIC_16BX2 */
	};
	struct pt_entry e;
	uint8_t raw[8];

	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		for (int b = 0; b < 8; b++)
			raw[b] = (uint8_t)(v[i].raw >> (8 * b));
		ck_assert_int_eq(pt_format_ver2.decode(5, 12, raw, 0, &e), PT_OK);
		ck_assert_msg(e.anomalies == v[i].want, "vector %zu: 0x%x", i, e.anomalies);
	}
	memset(raw, 0xff, sizeof raw);
	ck_assert_int_eq(pt_format_gart.decode(0, 12, raw, 0, &e), PT_OK);
	ck_assert_uint_eq(e.anomalies, 0);
}
END_TEST

START_TEST(entry_helpers)
{
	static const uint8_t raw[16] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88,
					0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x98};
	struct pt_entry e;
	char key[PT_MAX_FIELDS + 1][8];

	memset(&e, 0x5a, sizeof e);
	pt_entry_reset(&e, 16, raw, 0);
	ck_assert_uint_eq(e.size, 16);
	ck_assert_uint_eq(e.raw[0], 0x8807060504030201ull);
	ck_assert_uint_eq(e.raw[1], 0x9817161514131211ull);
	ck_assert_uint_eq(e.nfields, 0);
	ck_assert_int_eq(e.state, PT_ST_UNMAPPED);
	ck_assert_int_eq(e.kind, -1);
	ck_assert(!e.leaf && !e.anomaly && !e.target[0].present && !e.target[1].present);
	ck_assert_uint_eq(e.reserved_mask[0] | e.reserved_mask[1] | e.pa | e.perm, 0);

	pt_entry_reset(&e, 8, raw, 0);
	ck_assert_uint_eq(e.raw[0], 0x8807060504030201ull);
	ck_assert_uint_eq(e.raw[1], 0);

	pt_entry_add(&e, "a", PT_FK_HEX, 0x1234);
	pt_entry_add_str(&e, "b", "text");
	pt_entry_add_str(&e, "c", NULL);
	pt_entry_add_flags(&e, "d", PT_FK_BIT, 1, PT_FF_JSON_ONLY);
	ck_assert_uint_eq(e.nfields, 4);
	ck_assert_uint_eq(pt_entry_field(&e, "a")->v, 0x1234);
	ck_assert_uint_eq(pt_entry_field(&e, "a")->kind, PT_FK_HEX);
	ck_assert_uint_eq(pt_entry_field(&e, "a")->flags, 0);
	ck_assert_str_eq(pt_entry_field(&e, "b")->s, "text");
	ck_assert_uint_eq(pt_entry_field(&e, "b")->kind, PT_FK_STR);
	ck_assert_ptr_null(pt_entry_field(&e, "c")->s);
	ck_assert_uint_eq(pt_entry_field(&e, "d")->flags, PT_FF_JSON_ONLY);
	ck_assert_ptr_null(pt_entry_field(&e, "e"));

	/* Fill up to the limit exactly (past it asserts in debug builds). */
	pt_entry_reset(&e, 8, raw, 0);
	for (unsigned i = 0; i < PT_MAX_FIELDS; i++) {
		snprintf(key[i], sizeof key[i], "k%u", i);
		pt_entry_add(&e, key[i], PT_FK_UINT, i);
	}
	ck_assert_uint_eq(e.nfields, PT_MAX_FIELDS);
	ck_assert_uint_eq(pt_entry_field(&e, "k47")->v, 47);
}
END_TEST

START_TEST(state_names)
{
	ck_assert_str_eq(pt_state_name(PT_ST_UNMAPPED), "unmapped");
	ck_assert_str_eq(pt_state_name(PT_ST_INVALID), "invalid");
	ck_assert_str_eq(pt_state_name(PT_ST_SPARSE), "sparse");
	ck_assert_str_eq(pt_state_name(PT_ST_NO_VALID_4K), "no_valid_4k");
	ck_assert_str_eq(pt_state_name(PT_ST_POINTER), "pointer");
	ck_assert_str_eq(pt_state_name(PT_ST_MAPPED), "mapped");
	ck_assert_str_eq(pt_state_name(PT_ST_UNSUPPORTED), "unsupported");
	ck_assert_str_eq(pt_state_name((enum pt_state)-1), "unknown");
}
END_TEST

START_TEST(maps_columns)
{
	struct pt_entry e;
	char buf[64];

	e = decode(PTE_SMALL, 12, P_VALID | P_KIND(0x06), 0);
	pt_format_ver2.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "-");
	pt_format_ver2.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "GENERIC_MEMORY");

	e = decode(PTE_SMALL, 12, ~0ull, 0);
	pt_format_ver2.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "read_only,atomic_disable,privilege,volatile,encrypted");
	pt_format_ver2.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "0xff");

	e = decode(PTE_SMALL, 12, P_VALID | P_RO | P_KIND(0x6d), 0);
	pt_format_ver2.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "read_only");
	pt_format_ver2.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "0x6d");

	e = decode(PTE_SMALL, 12, P_VALID | P_ATOM | P_PRIV | P_KIND(0x00), 0);
	pt_format_ver2.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "atomic_disable,privilege");
	pt_format_ver2.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "PITCH");

	/* Flag words are the entry files' field names (docs/design.md §4). */
	e = decode(PTE_SMALL, 12, P_VALID | P_VOL | P_ENC, 0);
	pt_format_ver2.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "volatile,encrypted");
	ck_assert_ptr_nonnull(pt_entry_field(&e, "volatile"));
	ck_assert_ptr_nonnull(pt_entry_field(&e, "encrypted"));

	/* A directory entry has no kind. */
	e = decode(PDE3, 0, D_AP(1), 0);
	pt_format_ver2.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "-");
}
END_TEST

/* ---- kinds ------------------------------------------------------------- */
START_TEST(kinds_count)
{
	static const unsigned unnamed[] = {0x6d, 0x6e, 0x93, 0x94, 0x95, 0x96, 0xaf, 0xb0,
					   0xb1, 0xb2, 0xc9, 0xca, 0xff};
	unsigned named = 0, u = 0;

	for (unsigned k = 0; k < 256; k++) {
		if (pt_ver2_kind_name(k)) {
			named++;
		} else {
			ck_assert_uint_lt(u, 13);
			ck_assert_msg(k == unnamed[u], "0x%02x has no name", k);
			u++;
		}
		ck_assert_int_eq(pt_ver2_kind_native(k), k <= 0x0f);
	}
	ck_assert_uint_eq(named, 243);
	ck_assert_uint_eq(u, 13);
	ck_assert_ptr_null(pt_ver2_kind_name(256));
	ck_assert_ptr_null(pt_ver2_kind_name(~0u));
	ck_assert(!pt_ver2_kind_native(256));
	/* Spot checks from docs/design.md §2.1 and its sources (§7) */
	ck_assert_str_eq(pt_ver2_kind_name(0x00), "PITCH");
	ck_assert_str_eq(pt_ver2_kind_name(0x07), "INVALID");
	ck_assert_str_eq(pt_ver2_kind_name(0x0f), "SMSKED_MESSAGE");
	ck_assert_str_eq(pt_ver2_kind_name(0x2a), "Z16_2C");
	ck_assert_str_eq(pt_ver2_kind_name(0xfe), "GENERIC_16BX2");
}
END_TEST

START_TEST(kinds_match_tsv)
{
	const char *src = getenv("PTFS_SRCDIR");
	char path[4096], line[256];
	unsigned n = 0, prev = 0;
	FILE *f;

	/* The TSV is part of the repository: a missing one fails, never skips. */
	snprintf(path, sizeof path, "%s/core/formats/kinds_tu104.tsv", src ? src : ".");
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof line, f)) {
		unsigned id;
		char name[128], want[160];

		if (line[0] == '#')   /* the header naming the sources */
			continue;
		ck_assert_msg(sscanf(line, "0x%x\t%127s", &id, name) == 2, "bad line: %s", line);
		/* The file format itself: "0x%02x<TAB>NAME\n", ids strictly ascending. */
		snprintf(want, sizeof want, "0x%02x\t%s\n", id, name);
		ck_assert_str_eq(line, want);
		ck_assert(n == 0 || id > prev);
		ck_assert_msg(pt_ver2_kind_name(id) != NULL, "0x%02x missing", id);
		ck_assert_str_eq(pt_ver2_kind_name(id), name);
		prev = id;
		n++;
	}
	fclose(f);
	ck_assert_uint_eq(n, 243);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ver2");
	TCase *tc;

	tc = tcase_create("pte");
	tcase_add_loop_test(tc, pte_vectors, 0, sizeof pte_vecs / sizeof pte_vecs[0]);
	suite_add_tcase(s, tc);

	tc = tcase_create("pde");
	tcase_add_loop_test(tc, pde_vectors, 0, sizeof pde_vecs / sizeof pde_vecs[0]);
	suite_add_tcase(s, tc);

	tc = tcase_create("dual");
	tcase_add_loop_test(tc, dual_vectors, 0, sizeof dual_vecs / sizeof dual_vecs[0]);
	tcase_add_loop_test(tc, pd0_pte_vectors, 0, sizeof pd0_pte_vecs / sizeof pd0_pte_vecs[0]);
	suite_add_tcase(s, tc);

	tc = tcase_create("states");
	tcase_add_test(tc, every_state);
	tcase_add_test(tc, level_outside_table);
	tcase_add_test(tc, state_names);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	tcase_add_test(tc, level_table);
	tcase_add_test(tc, spaces);
	tcase_add_test(tc, format_find);
	tcase_add_test(tc, format_table);
	tcase_add_test(tc, entry_anomalies);
	tcase_add_test(tc, entry_helpers);
	tcase_add_test(tc, maps_columns);
	suite_add_tcase(s, tc);

	tc = tcase_create("kinds");
	tcase_add_test(tc, kinds_count);
	tcase_add_test(tc, kinds_match_tsv);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
