/*
 * test_ver3: the NVIDIA GMMU VER3 format (docs/design.md §2.3) field by field:
 * every hand-checked vector of docs/design.md §2.3 (vectors from its sources, §7), all 32
 * PCF values in valid and invalid PTEs, PDE apertures, the dual PD0 halves,
 * reserved bits, kinds, the level table's index arithmetic, the chip-family
 * leaf rule, and §V.A5's constructed walk done level by level from the
 * decoder's own outputs.
 *
 * Every raw vector is composed from its field values with shift macros local
 * to this file (bit positions of formats-next.md A.3-A.5) and also asserted
 * equal to the documented raw value, so neither a decoder bug nor a typo in
 * a vector can hide behind the other.
 *
 * fmt_ver3.c is compiled into this binary so that its static family rule
 * (pt_ver3_leaf_allowed(), which the context hook will call) is tested where it
 * lives; the library's copy of the object is then never linked in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt_ver3.h"
#include "pt_capture.h"
#include "pt_render.h"
#include "pt_walk.h"
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
	err = pt_format_ver3.decode(level, shift, raw, 0, &e);
	ck_assert_msg(err == PT_OK, "%s", pt_strerror(err));
	return e;
}

/*
 * The upstream name of a valid PTE's PCF, composed from its bits by the rule
 * of formats-next.md A.5 ("derived from the 32 names and checked for every
 * value"), independently of the decoder's literal table.
 */
static void pcf_rule_name(unsigned pcf, char *buf, size_t len)
{
	snprintf(buf, len, "%s_%s_%s_%s_%s",
		 (pcf & 0x02) ? "PRIVILEGE" : "REGULAR",
		 (pcf & 0x04) ? "RO" : "RW",
		 (pcf & 0x08) ? "NO_ATOMIC" : "ATOMIC",
		 (pcf & 0x01) ? "UNCACHED" : "CACHED",
		 (pcf & 0x10) ? "ACD" : "ACE");
}

/* ---- expected field lists ---------------------------------------------- */
struct xf {
	const char *key;
	enum pt_fkind kind;
	uint64_t v, v2;
	const char *s;
};

struct xlist {
	unsigned n;
	struct xf f[PT_MAX_FIELDS];
};

static void x(struct xlist *l, const char *key, enum pt_fkind kind, uint64_t v)
{
	ck_assert_uint_lt(l->n, PT_MAX_FIELDS);
	l->f[l->n++] = (struct xf){key, kind, v, 0, NULL};
}

static void xs(struct xlist *l, const char *key, const char *s)
{
	x(l, key, PT_FK_STR, 0);
	l->f[l->n - 1].s = s;
}

/* The entry's fields equal L exactly: same keys, order, kinds and values; no flags. */
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
		ck_assert_msg(f->flags == 0, "%s: %s flags %u", name, w->key, f->flags);
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
		ck_assert_ptr_eq(pt_entry_field(e, w->key), f);
	}
}

static void x_reserved(struct xlist *l, uint64_t lo, uint64_t hi, bool wide)
{
	x(l, "reserved_bits", PT_FK_BOOL, (lo | hi) != 0);
	x(l, "reserved_mask", wide ? PT_FK_HEX128 : PT_FK_HEX, lo);
	l->f[l->n - 1].v2 = hi;
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

/*
 * §V.A1, every row.  A zero PTE (N-P01) is `unmapped` here as in VER2 (raw
 * zero is the tree's "nothing here"); its PCF is still INVALID.
 */
static const struct pte_vec pte_vecs[] = {
	{"N-P01", PTE(0, 0, 0x00, 0, 0, 0), 0x0000000000000000, PTE_SMALL, 12, PT_ST_UNMAPPED,
	 0, 0, 0x00, 0, 0, 0, "INVALID", "PITCH", 0x1000, NULL, 0},
	{"N-P02", PTE(0, 0, 0x01, 0, 0, 0), 0x0000000000000008, PTE_SMALL, 12, PT_ST_SPARSE,
	 0, 0, 0x01, 0, 0, 0, "SPARSE", "PITCH", 0x1000, NULL, 0},
	{"N-P03", PTE(0, 0, 0x03, 0, 0, 0), 0x0000000000000018, PTE_BIG, 16, PT_ST_NO_VALID_4K,
	 0, 0, 0x03, 0, 0, 0, "NO_VALID_4KB_PAGE", "PITCH", 0x10000, NULL, 0},
	{"N-P04", PTE(0, 0, 0x02, 0, 0, 0), 0x0000000000000010, PTE_SMALL, 12, PT_ST_UNSUPPORTED,
	 0, 0, 0x02, 0, 0, 0, "MAPPING_NOWHERE", "PITCH", 0x1000, NULL, 0},
	{"N-P05", PTE(0, 0, 0x04, 0, 0, 0), 0x0000000000000020, PTE_SMALL, 12, PT_ST_UNSUPPORTED,
	 0, 0, 0x04, 0, 0, 0, NULL, "PITCH", 0x1000, NULL, 0},
	{"N-P06", PTE(1, 2, 0x11, 6, 0x9999999999000, 0), 0x000999999999968D, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x11, 6, 0, 0x9999999999000, "REGULAR_RW_ATOMIC_UNCACHED_ACD",
	 "GENERIC_MEMORY", 0x1000, "sysmem", 0},
	{"N-P07", PTE(1, 2, 0x10, 6, 0x9999999999000, 0), 0x0009999999999685, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x10, 6, 0, 0x9999999999000, "REGULAR_RW_ATOMIC_CACHED_ACD",
	 "GENERIC_MEMORY", 0x1000, "sysmem", 0},
	{"N-P08", PTE(1, 2, 0x00, 6, 0x9999999999000, 0), 0x0009999999999605, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x00, 6, 0, 0x9999999999000, "REGULAR_RW_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "sysmem", 0},
	{"N-P09", PTE(1, 2, 0x08, 6, 0x9999999999000, 0), 0x0009999999999645, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x08, 6, 0, 0x9999999999000, "REGULAR_RW_NO_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "sysmem", 0},
	{"N-P10", PTE(1, 2, 0x0C, 6, 0x9999999999000, 0), 0x0009999999999665, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x0C, 6, 0, 0x9999999999000, "REGULAR_RO_NO_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "sysmem", 0},
	{"N-P11", PTE(1, 0, 0x0C, 6, 0xBBBBBBB000, 0), 0x000000BBBBBBB661, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 0, 0x0C, 6, 0, 0xBBBBBBB000, "REGULAR_RO_NO_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "vidmem", 0},
	{"N-P12", PTE(1, 1, 0x0C, 6, 0xBBBBBBB000, 1), 0x200000BBBBBBB663, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 1, 0x0C, 6, 1, 0xBBBBBBB000, "REGULAR_RO_NO_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "peer1", 0},
	{"N-P13", PTE(1, 3, 0x01, 0xF, 0, 0), 0x0000000000000F0F, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 3, 0x01, 0xF, 0, 0, "REGULAR_RW_ATOMIC_UNCACHED_ACE",
	 "SMSKED_MESSAGE", 0x1000, "sysmem", 0},
	{"N-P14", PTE(1, 0, 0x1F, 6, 0x2BAD000000, 0), 0x0000002BAD0006F9, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 0, 0x1F, 6, 0, 0x2BAD000000, "PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACD",
	 "GENERIC_MEMORY", 0x1000, "vidmem", 0},
	{"N-P15", PTE(1, 0, 0x00, 6, 0x12345000, 0), 0x0000000012345601, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 0, 0x00, 6, 0, 0x12345000, "REGULAR_RW_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "vidmem", 0},
	{"N-P16", PTE(1, 2, 0x0D, 6, 0x800000000, 0), 0x000000080000066D, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x0D, 6, 0, 0x800000000, "REGULAR_RO_NO_ATOMIC_UNCACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "sysmem", 0},
	{"N-P17", PTE(1, 1, 0x18, 6, 0x123400000, 3), 0x60000001234006C3, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 1, 0x18, 6, 3, 0x123400000, "REGULAR_RW_NO_ATOMIC_CACHED_ACD",
	 "GENERIC_MEMORY", 0x1000, "peer3", 0},
	{"N-P18", PTE(1, 2, 0x17, 0, 0xABCDE000, 0), 0x00000000ABCDE0BD, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 2, 0x17, 0, 0, 0xABCDE000, "PRIVILEGE_RO_ATOMIC_UNCACHED_ACD",
	 "PITCH", 0x1000, "sysmem", 0},
	{"N-P19", PTE(1, 0, 0x06, 6, 0x1000000, 0), 0x0000000001000631, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 0, 0x06, 6, 0, 0x1000000, "PRIVILEGE_RO_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY", 0x1000, "vidmem", 0},
	/* Bits 60:52 have no name: reserved (the walker refuses the page). */
	{"N-P20", PTE(1, 0, 0x00, 0, 0, 0) | B(1, 52), 0x0010000000000001, PTE_SMALL, 12,
	 PT_ST_MAPPED, 1, 0, 0x00, 0, 0, 0, "REGULAR_RW_ATOMIC_CACHED_ACE", "PITCH", 0x1000,
	 "vidmem", B(1, 52)},
	/* Not in §V: every undefined bit at once, and the top PEER_ID and address bits. */
	{"pte reserved 60:52", PTE(1, 1, 0, 0, 0x000FFFFFFFFFF000, 7) | 0x1FF0000000000000,
	 0xFFFFFFFFFFFFF003, PTE_BIG, 16, PT_ST_MAPPED, 1, 1, 0, 0, 7, 0x000FFFFFFFFFF000,
	 "REGULAR_RW_ATOMIC_CACHED_ACE", "PITCH", 0x10000, "peer7", 0x1FF0000000000000},
	/* A loose value (page_shift 0): the table, so the page size, is unknown. */
	{"pte loose", PTE(1, 3, 0x04, 8, 0x5000, 0), 0x0000000000005827, PTE_SMALL, 0,
	 PT_ST_MAPPED, 1, 3, 0x04, 8, 0, 0x5000, "REGULAR_RO_ATOMIC_CACHED_ACE",
	 "GENERIC_MEMORY_COMPRESSIBLE", 0, "sysmem", 0},
	/* PCF INVALID with other bits set: invalid, not unmapped. */
	{"pte invalid nonzero", PTE(0, 2, 0x00, 6, 0x7000, 0), 0x0000000000007604, PTE_SMALL, 12,
	 PT_ST_INVALID, 0, 2, 0x00, 6, 0, 0x7000, "INVALID", "GENERIC_MEMORY", 0x1000, NULL, 0},
	/* NO_VALID_4KB_PAGE is a hardware PCF value, so a small PTE carrying it is no_valid_4k too. */
	{"pte small no_valid_4k", PTE(0, 0, 0x03, 0, 0, 0), 0x0000000000000018, PTE_SMALL, 12,
	 PT_ST_NO_VALID_4K, 0, 0, 0x03, 0, 0, 0, "NO_VALID_4KB_PAGE", "PITCH", 0x1000, NULL, 0},
};

START_TEST(test_pte_vectors)
{
	const struct pte_vec *v = &pte_vecs[_i];
	struct pt_entry e;
	char rule[64];

	ck_assert_msg(v->raw == v->doc, "%s: composed 0x%016llx, documented 0x%016llx", v->name,
		      (unsigned long long)v->raw, (unsigned long long)v->doc);
	if (v->valid) {
		pcf_rule_name(v->pcf, rule, sizeof rule);
		ck_assert_str_eq(v->pcf_name, rule);
	}
	e = decode(v->level, v->shift, v->raw, 0);
	check_pte(v, &e);
}
END_TEST

/* ---- all 32 PCF values -------------------------------------------------- */

START_TEST(test_pcf_valid_all)
{
	unsigned pcf = (unsigned)_i;
	struct pte_vec v = {.name = "pcf valid", .level = PTE_SMALL, .shift = 12,
			    .st = PT_ST_MAPPED, .valid = 1, .ap = 2, .pcf = pcf, .kind = 6,
			    .addr = 0x42000, .kname = "GENERIC_MEMORY", .psize = 0x1000,
			    .space = "sysmem"};
	char rule[64], flags[80], want[80] = "";
	struct pt_entry e;

	v.raw = T_VALID | T_AP(2) | T_PCF(pcf) | T_KIND(6) | T_ADDR(0x42000);
	ck_assert_uint_eq(v.raw, 0x42605u | (uint64_t)pcf << 3);
	pcf_rule_name(pcf, rule, sizeof rule);
	v.pcf_name = rule;
	e = decode(PTE_SMALL, 12, v.raw, 0);
	check_pte(&v, &e);

	/* FLAGS: the meaning fields that are 1, in the documented order. */
	if (pcf & 0x04)
		strcat(want, ",read_only");
	if (pcf & 0x08)
		strcat(want, ",no_atomic");
	if (pcf & 0x02)
		strcat(want, ",privileged");
	if (pcf & 0x01)
		strcat(want, ",uncached");
	if (pcf & 0x10)
		strcat(want, ",access_counting_disabled");
	pt_format_ver3.flags(&e, flags, sizeof flags);
	ck_assert_str_eq(flags, want[0] ? want + 1 : "-");
	/* Every flag word is a field of the entry whose value is 1. */
	for (char *w = strtok(flags, ","); w && strcmp(w, "-"); w = strtok(NULL, ",")) {
		const struct pt_field *f = pt_entry_field(&e, w);

		ck_assert_msg(f && f->kind == PT_FK_BIT && f->v == 1, "flag %s", w);
	}
}
END_TEST

/* A literal spot check of the decoder's table against A.5's printed list. */
START_TEST(test_pcf_names_literal)
{
	static const struct {
		unsigned pcf;
		const char *name;
	} rows[] = {
		{0x00, "REGULAR_RW_ATOMIC_CACHED_ACE"}, {0x03, "PRIVILEGE_RW_ATOMIC_UNCACHED_ACE"},
		{0x06, "PRIVILEGE_RO_ATOMIC_CACHED_ACE"}, {0x0A, "PRIVILEGE_RW_NO_ATOMIC_CACHED_ACE"},
		{0x0F, "PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACE"}, {0x10, "REGULAR_RW_ATOMIC_CACHED_ACD"},
		{0x15, "REGULAR_RO_ATOMIC_UNCACHED_ACD"}, {0x16, "PRIVILEGE_RO_ATOMIC_CACHED_ACD"},
		{0x1B, "PRIVILEGE_RW_NO_ATOMIC_UNCACHED_ACD"}, {0x1E, "PRIVILEGE_RO_NO_ATOMIC_CACHED_ACD"},
		{0x1F, "PRIVILEGE_RO_NO_ATOMIC_UNCACHED_ACD"},
	};

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct pt_entry e = decode(PTE_SMALL, 12, T_VALID | T_PCF(rows[i].pcf), 0);

		ck_assert_str_eq(pt_entry_field(&e, "pcf_name")->s, rows[i].name);
	}
}
END_TEST

START_TEST(test_pcf_invalid_all)
{
	unsigned pcf = (unsigned)_i;
	static const char *const names[4] = {"INVALID", "SPARSE", "MAPPING_NOWHERE",
					     "NO_VALID_4KB_PAGE"};
	static const enum pt_state states[4] = {PT_ST_INVALID, PT_ST_SPARSE, PT_ST_UNSUPPORTED,
						PT_ST_NO_VALID_4K};
	/* A kind makes PCF 0 non-zero, so it is `invalid`, not the zero `unmapped`. */
	struct pte_vec v = {.name = "pcf invalid", .level = PTE_BIG, .shift = 16,
			    .st = pcf < 4 ? states[pcf] : PT_ST_UNSUPPORTED, .ap = 0, .pcf = pcf,
			    .kind = 6, .pcf_name = pcf < 4 ? names[pcf] : NULL,
			    .kname = "GENERIC_MEMORY", .psize = 0x10000};
	char flags[80];
	struct pt_entry e;

	v.raw = T_PCF(pcf) | T_KIND(6);
	ck_assert_uint_eq(v.raw, 0x600u | (uint64_t)pcf << 3);
	e = decode(PTE_BIG, 16, v.raw, 0);
	check_pte(&v, &e);
	/* VALID=0: the PCF bits are a state, never permissions. */
	pt_format_ver3.flags(&e, flags, sizeof flags);
	ck_assert_str_eq(flags, "-");
}
END_TEST

/* All five words are 64 characters: a shorter buffer gets whole words only. */
START_TEST(test_flags_short_buffer)
{
	struct pt_entry e = decode(PTE_SMALL, 12, T_VALID | T_PCF(0x1F), 0);
	char buf[80];

	pt_format_ver3.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "read_only,no_atomic,privileged,uncached,access_counting_disabled");
	ck_assert_uint_eq(strlen(buf), 64);
	pt_format_ver3.flags(&e, buf, 64);
	ck_assert_str_eq(buf, "read_only,no_atomic,privileged,uncached");
	pt_format_ver3.flags(&e, buf, 48);
	ck_assert_str_eq(buf, "read_only,no_atomic,privileged,uncached");
}
END_TEST

/* ---- PDE (§V.A2) -------------------------------------------------------- */
struct pde_vec {
	const char *name;
	uint64_t raw, doc;
	enum pt_state st;
	unsigned ap, pcf;
	uint64_t addr;
	const char *pcf_name;
	const char *tspace;   /* pointer only */
};

#define PDE(a, p, pa) (D_AP(a) | D_PCF(p) | D_ADDR(pa))

static const struct pde_vec pde_vecs[] = {
	{"N-D01", PDE(0, 0, 0), 0x0000000000000000, PT_ST_UNMAPPED, 0, 0, 0,
	 "INVALID_ATS_ALLOWED", NULL},
	{"N-D02", PDE(0, 1, 0), 0x0000000000000008, PT_ST_SPARSE, 0, 1, 0,
	 "SPARSE_ATS_ALLOWED", NULL},
	{"N-D03", PDE(0, 2, 0), 0x0000000000000010, PT_ST_INVALID, 0, 2, 0,
	 "INVALID_ATS_NOT_ALLOWED", NULL},
	{"N-D04", PDE(0, 3, 0), 0x0000000000000018, PT_ST_SPARSE, 0, 3, 0,
	 "SPARSE_ATS_NOT_ALLOWED", NULL},
	{"N-D05", PDE(2, 1, 0x9999999999000), 0x000999999999900C, PT_ST_POINTER, 2, 1,
	 0x9999999999000, "VALID_UNCACHED_ATS_ALLOWED", "sysmem"},
	{"N-D06", PDE(1, 1, 0xBBBBBBB000), 0x000000BBBBBBB00A, PT_ST_POINTER, 1, 1,
	 0xBBBBBBB000, "VALID_UNCACHED_ATS_ALLOWED", "vidmem"},
	{"N-D07", PDE(1, 2, 0x7FF000), 0x00000000007FF012, PT_ST_POINTER, 1, 2, 0x7FF000,
	 "VALID_CACHED_ATS_NOT_ALLOWED", "vidmem"},
	{"N-D08", PDE(2, 1, 0x123456000), 0x000000012345600C, PT_ST_POINTER, 2, 1, 0x123456000,
	 "VALID_UNCACHED_ATS_ALLOWED", "sysmem"},
	{"N-D09", PDE(1, 3, 0x200000), 0x000000000020001A, PT_ST_POINTER, 1, 3, 0x200000,
	 "VALID_UNCACHED_ATS_NOT_ALLOWED", "vidmem"},
	{"N-D10", PDE(3, 0, 0xFFFFF000), 0x00000000FFFFF006, PT_ST_POINTER, 3, 0, 0xFFFFF000,
	 "VALID_CACHED_ATS_ALLOWED", "sysmem"},
	/* Not in §V: the undefined PCF values 4..7 (RM: NOT_SUPPORTED) fail closed. */
	{"pde pcf 4 valid", PDE(1, 4, 0x1000), 0x0000000000001022, PT_ST_UNSUPPORTED, 1, 4,
	 0x1000, NULL, NULL},
	{"pde pcf 7 invalid", PDE(0, 7, 0), 0x0000000000000038, PT_ST_UNSUPPORTED, 0, 7, 0,
	 NULL, NULL},
};

static void check_pde(const struct pde_vec *v, unsigned level, uint64_t raw, uint64_t reserved)
{
	struct pt_entry e = decode(level, 0, raw, 0);
	struct xlist l = {0};

	x(&l, "is_pte", PT_FK_BIT, 0);
	x(&l, "is_leaf", PT_FK_BIT, 0);
	x(&l, "aperture", PT_FK_UINT, v->ap);
	xs(&l, "aperture_name", pde_ap_names[v->ap]);
	x(&l, "pcf", PT_FK_HEX, v->pcf);
	xs(&l, "pcf_name", v->pcf_name);
	x(&l, "uncached", PT_FK_BIT, v->ap != 0 && (v->pcf & 1));
	x(&l, "no_ats", PT_FK_BIT, (v->pcf & 2) != 0);
	x(&l, "address", PT_FK_HEX, v->addr);
	x_reserved(&l, reserved, 0, false);
	check_fields(v->name, &e, &l);
	ck_assert_msg(e.state == v->st, "%s at %s: state %s", v->name,
		      pt_format_ver3.levels[level].name, pt_state_name(e.state));
	ck_assert(!e.leaf);
	ck_assert_int_eq(e.size, 8);
	ck_assert_uint_eq(e.reserved_mask[0], reserved);
	ck_assert(!e.target[1].present);
	ck_assert_int_eq(e.target[0].present, v->st == PT_ST_POINTER);
	if (v->st == PT_ST_POINTER) {
		ck_assert_int_eq(e.target[0].level, (int)level + 1);
		ck_assert_str_eq(pt_format_ver3.spaces[e.target[0].space], v->tspace);
		ck_assert_uint_eq(e.target[0].addr, v->addr);
	}
}

/* Every §V.A2 pointer/invalid/sparse row at each of PD4, PD3, PD2, PD1. */
START_TEST(test_pde_vectors)
{
	const struct pde_vec *v = &pde_vecs[_i];

	ck_assert_msg(v->raw == v->doc, "%s: composed 0x%016llx, documented 0x%016llx", v->name,
		      (unsigned long long)v->raw, (unsigned long long)v->doc);
	for (unsigned level = PDE4; level <= PDE1; level++)
		check_pde(v, level, v->raw, 0);
}
END_TEST

/* Bits 11:6 and 63:52 have no name in a PDE. */
START_TEST(test_pde_reserved)
{
	const struct pde_vec *v = &pde_vecs[5];   /* N-D06, a pointer */

	check_pde(v, PDE3, v->raw | B(1, 6), B(1, 6));
	check_pde(v, PDE1, v->raw | B(0x3f, 6) | B(0xfff, 52), 0xfff0000000000fc0);
}
END_TEST

/*
 * N-D11: IS_PTE at PD1 is a 512 MiB PTE; at PD2 a 256 GiB PTE (the superset:
 * Blackwell only, see test_family); at PD4 and PD3 unsupported.
 */
START_TEST(test_pde_leaf)
{
	const uint64_t raw = D_IS_PTE | T_AP(0) | T_PCF(0) | T_KIND(6) | T_ADDR(0x20000000);
	struct pte_vec v = {.name = "N-D11 pde1", .raw = raw, .st = PT_ST_MAPPED, .valid = 1,
			    .kind = 6, .addr = 0x20000000,
			    .pcf_name = "REGULAR_RW_ATOMIC_CACHED_ACE", .kname = "GENERIC_MEMORY",
			    .psize = 0x20000000, .space = "vidmem"};
	struct xlist l = {0};
	struct pt_entry e;

	ck_assert_uint_eq(raw, 0x0000000020000601);
	e = decode(PDE1, 0, raw, 0);
	x(&l, "is_pte", PT_FK_BIT, 1);
	x(&l, "is_leaf", PT_FK_BIT, 1);
	x_pte(&l, &v);
	x_reserved(&l, 0, 0, false);
	check_fields(v.name, &e, &l);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert(e.leaf);
	ck_assert_uint_eq(e.pa, 0x20000000);
	ck_assert_uint_eq(e.page_size, 1ull << 29);
	ck_assert_str_eq(pt_format_ver3.spaces[e.space], "vidmem");

	e = decode(PDE2, 0, raw, 0);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.page_size, 1ull << 38);
	ck_assert_uint_eq(e.pa, 0x20000000);

	/* A PDE leaf's bits 60:52 are reserved as in any PTE. */
	e = decode(PDE1, 0, raw | B(1, 60), 0);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.reserved_mask[0], B(1, 60));

	for (unsigned level = PDE4; level <= PDE3; level++) {
		e = decode(level, 0, raw, 0);
		ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
		ck_assert(!e.leaf && !e.target[0].present);
		ck_assert_uint_eq(pt_entry_field(&e, "is_pte")->v, 1);
		ck_assert_ptr_nonnull(pt_entry_field(&e, "pcf_name"));
		ck_assert_ptr_null(pt_entry_field(&e, "kind"));
	}
}
END_TEST

/* ---- dual PDE (§V.A3) --------------------------------------------------- */
struct dual_vec {
	const char *name;
	uint64_t lo, hi, doc_lo, doc_hi;
	enum pt_state st;
	unsigned apb, pcfb, aps, pcfs;
	uint64_t big, small;
	const char *pcfb_name, *pcfs_name;
	uint64_t res_lo, res_hi;
};

#define QLO(a, p, pa) (Q_AP_BIG(a) | Q_PCF_BIG(p) | Q_ADDR_BIG(pa))
#define QHI(a, p, pa) (Q_AP_SMALL(a) | Q_PCF_SMALL(p) | Q_ADDR_SMALL(pa))

static const struct dual_vec dual_vecs[] = {
	{"N-Q01", QLO(0, 0, 0), QHI(0, 0, 0), 0, 0, PT_ST_UNMAPPED, 0, 0, 0, 0, 0, 0,
	 "INVALID_ATS_ALLOWED", "INVALID_ATS_ALLOWED", 0, 0},
	{"N-Q02", QLO(0, 1, 0), QHI(0, 0, 0), 0x8, 0, PT_ST_SPARSE, 0, 1, 0, 0, 0, 0,
	 "SPARSE_ATS_ALLOWED", "INVALID_ATS_ALLOWED", 0, 0},
	{"N-Q03", QLO(2, 1, 0x9999999999900), QHI(1, 1, 0xBBBBBBB000),
	 0x000999999999990C, 0x000000BBBBBBB00A, PT_ST_POINTER, 2, 1, 1, 1,
	 0x9999999999900, 0xBBBBBBB000, "VALID_UNCACHED_ATS_ALLOWED",
	 "VALID_UNCACHED_ATS_ALLOWED", 0, 0},
	{"N-Q04", QLO(2, 3, 0x9999999999900), QHI(1, 3, 0xBBBBBBB000),
	 0x000999999999991C, 0x000000BBBBBBB01A, PT_ST_POINTER, 2, 3, 1, 3,
	 0x9999999999900, 0xBBBBBBB000, "VALID_UNCACHED_ATS_NOT_ALLOWED",
	 "VALID_UNCACHED_ATS_NOT_ALLOWED", 0, 0},
	{"N-Q05", QLO(1, 1, 0xBBBBBBBB00), QHI(2, 1, 0x9999999999000),
	 0x000000BBBBBBBB0A, 0x000999999999900C, PT_ST_POINTER, 1, 1, 2, 1,
	 0xBBBBBBBB00, 0x9999999999000, "VALID_UNCACHED_ATS_ALLOWED",
	 "VALID_UNCACHED_ATS_ALLOWED", 0, 0},
	{"N-Q06", QLO(0, 0, 0), QHI(2, 1, 0x300000000), 0, 0x000000030000000C, PT_ST_POINTER,
	 0, 0, 2, 1, 0, 0x300000000, "INVALID_ATS_ALLOWED", "VALID_UNCACHED_ATS_ALLOWED", 0, 0},
	{"N-Q07", QLO(1, 2, 0x7FF00), QHI(0, 0, 0), 0x000000000007FF12, 0, PT_ST_POINTER,
	 1, 2, 0, 0, 0x7FF00, 0, "VALID_CACHED_ATS_NOT_ALLOWED", "INVALID_ATS_ALLOWED", 0, 0},
	/* Not in §V: both apertures invalid, PCF 2 (ATS not allowed, no sparse bit): invalid. */
	{"dual invalid ats", QLO(0, 2, 0), QHI(0, 2, 0), 0x10, 0x10, PT_ST_INVALID,
	 0, 2, 0, 2, 0, 0, "INVALID_ATS_NOT_ALLOWED", "INVALID_ATS_NOT_ALLOWED", 0, 0},
	/* PCF_SMALL's bit 0 does not make the slot sparse (RM sets only PCF_BIG's). */
	{"dual small sparse bit", QLO(0, 0, 0), QHI(0, 1, 0), 0, 0x8, PT_ST_INVALID,
	 0, 0, 0, 1, 0, 0, "INVALID_ATS_ALLOWED", "SPARSE_ATS_ALLOWED", 0, 0},
	/* An undefined PCF (4..7) in a half: unsupported. */
	{"dual pcf_big 5", QLO(1, 5, 0x1000), QHI(1, 0, 0x2000), 0x102A, 0x2002,
	 PT_ST_UNSUPPORTED, 1, 5, 1, 0, 0x1000, 0x2000, NULL, "VALID_CACHED_ATS_ALLOWED", 0, 0},
	{"dual pcf_small 6 invalid", QLO(0, 1, 0), QHI(0, 6, 0), 0x8, 0x30, PT_ST_UNSUPPORTED,
	 0, 1, 0, 6, 0, 0, "SPARSE_ATS_ALLOWED", NULL, 0, 0},
	/* Unnamed bits: 7:6, 63:52 (lo); 64, 75:70, 127:116 (hi). */
	{"dual reserved", QLO(1, 0, 0x100) | B(3, 6) | B(0xfff, 52),
	 QHI(1, 0, 0x1000) | B(1, 0) | B(0x3f, 6) | B(0xfff, 52),
	 0xfff00000000001c2, 0xfff0000000001fc3, PT_ST_POINTER, 1, 0, 1, 0, 0x100, 0x1000,
	 "VALID_CACHED_ATS_ALLOWED", "VALID_CACHED_ATS_ALLOWED",
	 0xfff00000000000c0, 0xfff0000000000fc1},
};

START_TEST(test_dual_vectors)
{
	const struct dual_vec *v = &dual_vecs[_i];
	struct pt_entry e;
	struct xlist l = {0};

	ck_assert_msg(v->lo == v->doc_lo && v->hi == v->doc_hi, "%s: composed 0x%016llx:0x%016llx",
		      v->name, (unsigned long long)v->hi, (unsigned long long)v->lo);
	e = decode(PDE0, 0, v->lo, v->hi);
	x(&l, "is_pte", PT_FK_BIT, 0);
	x(&l, "is_leaf", PT_FK_BIT, 0);
	x(&l, "aperture_big", PT_FK_UINT, v->apb);
	xs(&l, "aperture_big_name", pde_ap_names[v->apb]);
	x(&l, "pcf_big", PT_FK_HEX, v->pcfb);
	xs(&l, "pcf_big_name", v->pcfb_name);
	x(&l, "uncached_big", PT_FK_BIT, v->apb != 0 && (v->pcfb & 1));
	x(&l, "no_ats_big", PT_FK_BIT, (v->pcfb & 2) != 0);
	x(&l, "address_big", PT_FK_HEX, v->big);
	x(&l, "aperture_small", PT_FK_UINT, v->aps);
	xs(&l, "aperture_small_name", pde_ap_names[v->aps]);
	x(&l, "pcf_small", PT_FK_HEX, v->pcfs);
	xs(&l, "pcf_small_name", v->pcfs_name);
	x(&l, "uncached_small", PT_FK_BIT, v->aps != 0 && (v->pcfs & 1));
	x(&l, "no_ats_small", PT_FK_BIT, (v->pcfs & 2) != 0);
	x(&l, "address_small", PT_FK_HEX, v->small);
	x_reserved(&l, v->res_lo, v->res_hi, true);
	check_fields(v->name, &e, &l);
	ck_assert_msg(e.state == v->st, "%s: state %s", v->name, pt_state_name(e.state));
	ck_assert_int_eq(e.size, 16);
	ck_assert_uint_eq(e.raw[0], v->lo);
	ck_assert_uint_eq(e.raw[1], v->hi);
	ck_assert(!e.leaf);
	ck_assert_int_eq(e.target[0].present, v->st == PT_ST_POINTER && v->apb != 0);
	ck_assert_int_eq(e.target[1].present, v->st == PT_ST_POINTER && v->aps != 0);
	if (e.target[0].present) {
		ck_assert_int_eq(e.target[0].level, PTE_BIG);
		ck_assert_uint_eq(e.target[0].addr, v->big);
		ck_assert_str_eq(pt_format_ver3.spaces[e.target[0].space],
				 v->apb == 1 ? "vidmem" : "sysmem");
	}
	if (e.target[1].present) {
		ck_assert_int_eq(e.target[1].level, PTE_SMALL);
		ck_assert_uint_eq(e.target[1].addr, v->small);
		ck_assert_str_eq(pt_format_ver3.spaces[e.target[1].space],
				 v->aps == 1 ? "vidmem" : "sysmem");
	}
}
END_TEST

/* N-Q08: lo bit 0 = 1 makes the whole slot a 2 MiB PTE; the high half must be 0. */
START_TEST(test_dual_leaf)
{
	const uint64_t lo = T_VALID | T_AP(0) | T_PCF(0) | T_KIND(6) | T_ADDR(0x400200000);
	struct pte_vec v = {.name = "N-Q08", .raw = lo, .st = PT_ST_MAPPED, .valid = 1, .kind = 6,
			    .addr = 0x400200000, .pcf_name = "REGULAR_RW_ATOMIC_CACHED_ACE",
			    .kname = "GENERIC_MEMORY", .psize = 0x200000, .space = "vidmem"};
	struct xlist l = {0};
	struct pt_entry e;

	ck_assert_uint_eq(lo, 0x0000000400200601);
	e = decode(PDE0, 0, lo, 0);
	x(&l, "is_pte", PT_FK_BIT, 1);
	x(&l, "is_leaf", PT_FK_BIT, 1);
	x_pte(&l, &v);
	x_reserved(&l, 0, 0, true);
	check_fields(v.name, &e, &l);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert(e.leaf);
	ck_assert_uint_eq(e.pa, 0x400200000);
	ck_assert_uint_eq(e.page_size, 0x200000);
	ck_assert(!e.target[0].present && !e.target[1].present);

	/* Any high bit, and bits 60:52 of the low half, are reserved. */
	e = decode(PDE0, 0, lo | B(1, 55), 0x10);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(e.reserved_mask[0], B(1, 55));
	ck_assert_uint_eq(e.reserved_mask[1], 0x10);
	ck_assert_uint_eq(pt_entry_field(&e, "reserved_bits")->v, 1);
}
END_TEST

/* ---- kinds -------------------------------------------------------------- */
START_TEST(test_kinds)
{
	for (unsigned k = 0; k < 16; k++) {
		struct pt_entry e = decode(PTE_SMALL, 12, T_VALID | T_KIND(k), 0);
		char buf[64];

		ck_assert_uint_eq(e.raw[0], 1u | k << 8);
		ck_assert_int_eq(e.kind, (int)k);
		ck_assert_str_eq(pt_entry_field(&e, "kind_name")->s, kind_names[k]);
		ck_assert_uint_eq(pt_entry_field(&e, "kind_known")->v, 1);
		ck_assert(!e.anomaly);
		ck_assert_uint_eq(e.reserved_mask[0], 0);
		pt_format_ver3.kind_name(&e, buf, sizeof buf);
		ck_assert_str_eq(buf, kind_names[k]);
	}
}
END_TEST

/* ---- the format and its level table -------------------------------------- */
START_TEST(test_format)
{
	static const struct {
		const char *name;
		unsigned depth, shift, bits, size, role, leaf_shift;
		int c0, c1;
	} rows[] = {
		{"pde4", 0, 56, 1, 8, PT_ROLE_DIR, 0, PDE3, -1},
		{"pde3", 1, 47, 9, 8, PT_ROLE_DIR, 0, PDE2, -1},
		{"pde2", 2, 38, 9, 8, PT_ROLE_DIR, 38, PDE1, -1},
		{"pde1", 3, 29, 9, 8, PT_ROLE_DIR, 29, PDE0, -1},
		{"pde0", 4, 21, 8, 16, PT_ROLE_DUAL, 21, PTE_BIG, PTE_SMALL},
		{"pte_big", 5, 16, 5, 8, PT_ROLE_LEAF, 0, -1, -1},
		{"pte_small", 5, 12, 9, 8, PT_ROLE_LEAF, 0, -1, -1},
	};
	const struct pt_format *f = pt_format_find("nv-gmmu-ver3");
	const char *spaces[] = {"vidmem", "sysmem", "peer0", "peer1", "peer2", "peer3",
				"peer4", "peer5", "peer6", "peer7", NULL};
	struct pt_entry e;
	uint8_t raw[16] = {0};

	ck_assert_ptr_eq(f, &pt_format_ver3);
	ck_assert_str_eq(f->name, "nv-gmmu-ver3");
	ck_assert_uint_eq(f->va_bits, 57);
	ck_assert_uint_eq(f->va_digits, 15);
	ck_assert_uint_eq(pt_format_nlevels(f), 7);
	for (unsigned i = 0; i < 7; i++) {
		const struct pt_level *lv = &f->levels[i];

		ck_assert_str_eq(lv->name, rows[i].name);
		ck_assert_uint_eq(lv->depth, rows[i].depth);
		ck_assert_uint_eq(lv->va_shift, rows[i].shift);
		ck_assert_uint_eq(lv->bits, rows[i].bits);
		ck_assert_uint_eq(lv->entry_size, rows[i].size);
		ck_assert_uint_eq(lv->role, rows[i].role);
		ck_assert_uint_eq(lv->leaf_shift, rows[i].leaf_shift);
		ck_assert_int_eq(lv->child[0], rows[i].c0);
		ck_assert_int_eq(lv->child[1], rows[i].c1);
	}
	ck_assert_ptr_null(f->levels[7].name);
	/* The root covers all 57 bits: its shift plus its index bits. */
	ck_assert_uint_eq(f->levels[0].va_shift + f->levels[0].bits, 57);
	for (unsigned i = 0; spaces[i]; i++)
		ck_assert_int_eq(pt_format_space(f, spaces[i]), (int)i);
	ck_assert_ptr_null(f->spaces[10]);
	ck_assert_int_eq(pt_format_space(f, "vram"), -1);
	ck_assert_int_eq(f->decode(7, 0, raw, 0, &e), PT_E_UNSUPPORTED);
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
	ck_assert_int_eq(f->decode(0, 0, NULL, 0, &e), PT_E_UNSUPPORTED);
}
END_TEST

/* The index each level takes from VA: (va >> va_shift) & (2^bits - 1). */
static uint64_t level_index(unsigned level, uint64_t va)
{
	const struct pt_level *lv = &pt_format_ver3.levels[level];

	return (va >> lv->va_shift) & ((1ull << lv->bits) - 1);
}

/* §V.A4 */
START_TEST(test_index)
{
	const uint64_t va = 0x0000123456601234ull;

	ck_assert_uint_eq(level_index(PDE4, va), 0);
	ck_assert_uint_eq(level_index(PDE3, va), 0);
	ck_assert_uint_eq(level_index(PDE2, va), 0x48);
	ck_assert_uint_eq(level_index(PDE1, va), 0x1A2);
	ck_assert_uint_eq(level_index(PDE0, va), 0xB3);
	ck_assert_uint_eq(level_index(PTE_BIG, va), 0x0);
	ck_assert_uint_eq(level_index(PTE_SMALL, va), 0x1);
	ck_assert_uint_eq(va & 0xfff, 0x234);
	/* Bit 56 is PD4's only index bit. */
	ck_assert_uint_eq(level_index(PDE4, 0x0100000000000000ull), 1);
	ck_assert_uint_eq(level_index(PDE3, 0x0100000000000000ull), 0);
	/* The top VA of 57 bits takes the last entry of every level. */
	ck_assert_uint_eq(level_index(PDE4, 0x01ffffffffffffffull), 1);
	ck_assert_uint_eq(level_index(PDE3, 0x01ffffffffffffffull), 511);
	ck_assert_uint_eq(level_index(PDE0, 0x01ffffffffffffffull), 255);
	ck_assert_uint_eq(level_index(PTE_BIG, 0x01ffffffffffffffull), 31);
	ck_assert_uint_eq(level_index(PTE_SMALL, 0x01ffffffffffffffull), 511);
}
END_TEST

/* ---- the chip-family leaf rule --------------------------------------------- */
START_TEST(test_family)
{
	static const struct {
		unsigned level;
		bool any, hopper, blackwell;
	} rows[] = {
		{PDE4, false, false, false},
		{PDE3, false, false, false},
		{PDE2, true, false, true},   /* 256 GiB: Blackwell only (RM GB10X) */
		{PDE1, true, true, true},    /* 512 MiB */
		{PDE0, true, true, true},    /* 2 MiB */
		{PTE_BIG, true, true, true},
		{PTE_SMALL, true, true, true},
		{7, false, false, false},
	};

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		ck_assert_int_eq(pt_ver3_leaf_allowed(VER3_FAMILY_ANY, rows[i].level), rows[i].any);
		ck_assert_int_eq(pt_ver3_leaf_allowed(VER3_FAMILY_HOPPER, rows[i].level),
				 rows[i].hopper);
		ck_assert_int_eq(pt_ver3_leaf_allowed(VER3_FAMILY_BLACKWELL, rows[i].level),
				 rows[i].blackwell);
		/* The table's leaf_shift is the superset: non-zero exactly where ANY allows a directory leaf. */
		if (rows[i].level < 7 && pt_format_ver3.levels[rows[i].level].role != PT_ROLE_LEAF)
			ck_assert_int_eq(pt_format_ver3.levels[rows[i].level].leaf_shift != 0,
					 rows[i].any);
	}
}
END_TEST

/* ---- §V.A5: the constructed walk, level by level ------------------------- */
static const struct {
	uint64_t addr, value;
} a5_mem[] = {
	{0x100000, 0x10100A}, {0x101000, 0x10200A}, {0x102240, 0x10300A}, {0x102248, 0x8},
	{0x103D10, 0x10400A}, {0x103D18, 0x20000601}, {0x104B30, 0x10500A},
	{0x104B38, 0x10600A}, {0x104B40, 0x400200601}, {0x104B48, 0}, {0x105000, 0},
	{0x105010, 0x800000605}, {0x105020, 0x18}, {0x106008, 0x765432601},
	{0x106208, 0x111111601},
};

/* VID memory of §V.A5: unlisted words read 0 (the example's tables are otherwise empty). */
static uint64_t a5_read(uint64_t addr)
{
	for (size_t i = 0; i < sizeof a5_mem / sizeof a5_mem[0]; i++)
		if (a5_mem[i].addr == addr)
			return a5_mem[i].value;
	return 0;
}

struct a5_result {
	enum pt_state st;     /* of the deciding entry */
	unsigned level;       /* where it sits */
	uint64_t pa, page_size;
	const char *space;
	uint64_t small_read;  /* address of the small PTE read, 0 if none */
};

static struct pt_entry a5_entry(unsigned level, uint64_t table, uint64_t va)
{
	uint64_t ea = table + level_index(level, va) * pt_format_ver3.levels[level].entry_size;

	return decode(level, pt_format_ver3.levels[level].va_shift, a5_read(ea),
		      pt_format_ver3.levels[level].entry_size == 16 ? a5_read(ea + 8) : 0);
}

/* A.7 driven only by the decoder's outputs: state, targets, pa, page_size. */
static struct a5_result a5_walk(uint64_t va)
{
	struct a5_result r = {0};
	uint64_t table = 0x100000;
	unsigned level = PDE4;

	for (;;) {
		struct pt_entry e = a5_entry(level, table, va);

		r.st = e.state;
		r.level = level;
		if (e.state == PT_ST_MAPPED) {
			r.page_size = e.page_size;
			r.pa = e.pa + (va & (e.page_size - 1));
			r.space = pt_format_ver3.spaces[e.space];
			return r;
		}
		if (e.state != PT_ST_POINTER)
			return r;
		/* Every table of the example is in vidmem. */
		ck_assert_str_eq(pt_format_ver3.spaces[e.target[0].present ? e.target[0].space
									 : e.target[1].space],
				 "vidmem");
		if (pt_format_ver3.levels[level].role != PT_ROLE_DUAL) {
			table = e.target[0].addr;
			level = (unsigned)e.target[0].level;
			continue;
		}
		/* 3a: the big entry first; only INVALID/zero lets the small table decide. */
		if (e.target[0].present) {
			struct pt_entry b = a5_entry(PTE_BIG, e.target[0].addr, va);

			if (b.state != PT_ST_INVALID && b.state != PT_ST_UNMAPPED) {
				r.st = b.state;
				r.level = PTE_BIG;
				if (b.state == PT_ST_MAPPED) {
					r.page_size = b.page_size;
					r.pa = b.pa + (va & (b.page_size - 1));
					r.space = pt_format_ver3.spaces[b.space];
				}
				return r;
			}
		}
		/* 3b / 3c */
		if (!e.target[1].present) {
			r.st = PT_ST_INVALID;
			return r;
		}
		r.small_read = e.target[1].addr + level_index(PTE_SMALL, va) * 8;
		table = e.target[1].addr;
		level = PTE_SMALL;
	}
}

START_TEST(test_walk_a5)
{
	struct a5_result r;

	/* The memory rows are themselves §V.A2/A.5 encodings: compose two of them. */
	ck_assert_uint_eq(PDE(1, 1, 0x101000), 0x10100A);
	ck_assert_uint_eq(PTE(1, 0, 0, 6, 0x765432000, 0), 0x765432601);

	r = a5_walk(0x123456601234);
	ck_assert_int_eq(r.st, PT_ST_MAPPED);
	ck_assert_uint_eq(r.level, PTE_SMALL);
	ck_assert_uint_eq(r.page_size, 0x1000);
	ck_assert_uint_eq(r.pa, 0x765432234);
	ck_assert_str_eq(r.space, "vidmem");
	ck_assert_uint_eq(r.small_read, 0x106008);

	r = a5_walk(0x123456621234);
	ck_assert_int_eq(r.st, PT_ST_MAPPED);
	ck_assert_uint_eq(r.level, PTE_BIG);
	ck_assert_uint_eq(r.page_size, 0x10000);
	ck_assert_uint_eq(r.pa, 0x800001234);
	ck_assert_str_eq(r.space, "sysmem");

	/* NO_VALID_4KB_PAGE stops the walk: small PT[0x41] (0x111111601) is never read. */
	r = a5_walk(0x123456641234);
	ck_assert_int_eq(r.st, PT_ST_NO_VALID_4K);
	ck_assert_uint_eq(r.level, PTE_BIG);
	ck_assert_uint_eq(r.small_read, 0);
	ck_assert_uint_eq(a5_read(0x106000 + 0x41 * 8), 0x111111601);

	r = a5_walk(0x123456801234);
	ck_assert_int_eq(r.st, PT_ST_MAPPED);
	ck_assert_uint_eq(r.level, PDE0);
	ck_assert_uint_eq(r.page_size, 0x200000);
	ck_assert_uint_eq(r.pa, 0x400201234);
	ck_assert_str_eq(r.space, "vidmem");

	r = a5_walk(0x123476601234);
	ck_assert_int_eq(r.st, PT_ST_MAPPED);
	ck_assert_uint_eq(r.level, PDE1);
	ck_assert_uint_eq(r.page_size, 0x20000000);
	ck_assert_uint_eq(r.pa, 0x36601234);
	ck_assert_str_eq(r.space, "vidmem");

	r = a5_walk(0x127456601234);
	ck_assert_int_eq(r.st, PT_ST_SPARSE);
	ck_assert_uint_eq(r.level, PDE2);
}
END_TEST

/* ---- a loaded capture: §V.A5 through pt_walk_va, the context keys -------- */

#define A5_BASE 0x100000u
#define A5_SIZE 0x7000u

/*
 * A capture directory holding §V.A5's memory as one vidmem region and one
 * [pdb a5] section with KEYS (after a "space = vidmem" and "address =
 * 0x100000" unless KEYS replaces them: NOBASE).  Loads it into *CAP.
 */
static pt_err a5_load_patched(const char *keys, bool nobase, uint64_t paddr, uint64_t pval,
			      struct pt_capture **cap, char **dir)
{
	static uint8_t img[A5_SIZE];
	char ini[1024];

	memset(img, 0, sizeof img);
	for (size_t i = 0; i < sizeof a5_mem / sizeof a5_mem[0]; i++)
		for (unsigned b = 0; b < 8; b++)
			img[a5_mem[i].addr - A5_BASE + b] = (uint8_t)(a5_mem[i].value >> (8 * b));
	/* PADDR != 0: the word there reads PVAL instead. */
	for (unsigned b = 0; paddr && b < 8; b++)
		img[paddr - A5_BASE + b] = (uint8_t)(pval >> (8 * b));
	snprintf(ini, sizeof ini,
		 "[capture]\nversion = 1\nformat = nv-gmmu-ver3\n"
		 "[memory vid]\nspace = vidmem\nbase = 0x100000\nfile = vid.bin\n"
		 "[pdb a5]\n%s%s",
		 nobase ? "" : "space = vidmem\naddress = 0x100000\n", keys);
	*dir = tu_mkdtemp();
	tu_write(*dir, "capture.ini", ini, strlen(ini));
	tu_write(*dir, "vid.bin", img, sizeof img);
	*cap = pt_capture_new();
	ck_assert_ptr_nonnull(*cap);
	return pt_capture_load(*cap, *dir);
}

static pt_err a5_load(const char *keys, bool nobase, struct pt_capture **cap, char **dir)
{
	return a5_load_patched(keys, nobase, 0, 0, cap, dir);
}

static void a5_unload(struct pt_capture *cap, char *dir)
{
	pt_capture_free(cap);
	tu_rmtree(dir);
	free(dir);
}

static void walk_mapped(const struct pt_context *c, uint64_t va, const char *space, uint64_t pa,
			uint64_t size, unsigned nsteps)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(c, va, &w), PT_OK);
	ck_assert_msg(w.fault == PT_FAULT_NONE, "va 0x%llx: fault %s", (unsigned long long)va,
		      pt_fault_name(w.fault));
	ck_assert_str_eq(c->fmt->spaces[w.space], space);
	ck_assert_uint_eq(w.pa, pa);
	ck_assert_uint_eq(w.page_size, size);
	ck_assert_uint_eq(w.nsteps, nsteps);
}

static void walk_fault(const struct pt_context *c, uint64_t va, enum pt_fault f, const char *level)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(c, va, &w), PT_OK);
	ck_assert_msg(w.fault == f, "va 0x%llx: fault %s", (unsigned long long)va,
		      pt_fault_name(w.fault));
	if (level)
		ck_assert_str_eq(c->fmt->levels[w.steps[w.fault_step].table.level].name, level);
}

/* §V.A5's table of walks, by the core's walker on a loaded Hopper capture. */
START_TEST(test_capture_a5)
{
	struct pt_capture *cap;
	const struct pt_context *c;
	char *dir;
	struct pt_walk w;

	ck_assert_int_eq(a5_load("chip = gh100\n", false, &cap, &dir), PT_OK);
	c = pt_capture_context_find(cap, "a5");
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->fmt->name, "nv-gmmu-ver3");
	ck_assert_uint_eq(c->root_entries, 2);
	/* 4K through a dual PDE0 with both halves: PD4..PD0, big, small = 7 steps (PT_MAX_DEPTH). */
	walk_mapped(c, 0x123456601234, "vidmem", 0x765432234, 0x1000, 7);
	ck_assert_uint_eq(PT_MAX_DEPTH, 7);
	walk_mapped(c, 0x123456621234, "sysmem", 0x800001234, 0x10000, 6);
	/* NO_VALID_4KB_PAGE: unmapped at the big PT, small PT[0x41] never used. */
	walk_fault(c, 0x123456641234, PT_FAULT_UNMAPPED, "pte_big");
	ck_assert_int_eq(pt_walk_va(c, 0x123456641234, &w), PT_OK);
	ck_assert_str_eq(w.steps[w.fault_step].verdict, "no_valid_4k");
	walk_mapped(c, 0x123456801234, "vidmem", 0x400201234, 0x200000, 5);
	walk_mapped(c, 0x123476601234, "vidmem", 0x36601234, 0x20000000, 4);
	walk_fault(c, 0x127456601234, PT_FAULT_SPARSE, "pde2");
	/* 57 bits: PD4[1] is zero; 2^57 is outside. */
	walk_fault(c, UINT64_C(1) << 56, PT_FAULT_UNMAPPED, "pde4");
	walk_fault(c, UINT64_C(1) << 57, PT_FAULT_OUT_OF_RANGE, NULL);
	a5_unload(cap, dir);
}
END_TEST

/*
 * The same raw 256 GiB PTE (IS_PTE at PD2) on each chip: Blackwell maps
 * it, Hopper has no PD2 leaf (unsupported: walk fault, state, no reserved bits).
 */
START_TEST(test_capture_family)
{
	static const struct {
		const char *chip, *family;
		bool maps;
	} chips[] = {
		{"gh100", "hopper", false}, {"gb100", "blackwell", true}, {"gb10b", "blackwell", true},
		{"gb20x", "blackwell", true}, {"gb20b", "blackwell", true},
	};
	/* PD2[0x49] of §V.A5 (0x102248) becomes a valid 256 GiB video PTE at 0x4000000000. */
	const uint64_t leaf = PTE(1, 0, 0, 6, UINT64_C(0x4000000000), 0);

	for (size_t i = 0; i < sizeof chips / sizeof chips[0]; i++) {
		struct pt_capture *cap;
		const struct pt_context *c;
		char *dir, keys[64];
		struct pt_buf b;
		struct pt_walk w;
		uint64_t va = 0x127456601234;

		snprintf(keys, sizeof keys, "chip = %s\n", chips[i].chip);
		ck_assert_int_eq(a5_load_patched(keys, false, 0x102248, leaf, &cap, &dir), PT_OK);
		c = pt_capture_context_find(cap, "a5");
		ck_assert_int_eq(pt_walk_va(c, va, &w), PT_OK);
		if (chips[i].maps) {
			ck_assert_int_eq(w.fault, PT_FAULT_NONE);
			ck_assert_uint_eq(w.page_size, UINT64_C(1) << 38);
			ck_assert_uint_eq(w.pa, UINT64_C(0x4000000000) + (va & ((UINT64_C(1) << 38) - 1)));
		} else {
			ck_assert_int_eq(w.fault, PT_FAULT_UNSUPPORTED);
			ck_assert_int_eq(w.steps[w.fault_step].entry.state, PT_ST_UNSUPPORTED);
			ck_assert_uint_eq(w.steps[w.fault_step].entry.reserved_mask[0], 0);
			ck_assert_str_eq(c->fmt->levels[w.steps[w.fault_step].table.level].name, "pde2");
			/* Hopper's own level table has no PD2 page size. */
			ck_assert_uint_eq(c->fmt->levels[L_PDE2].leaf_shift, 0);
		}
		/* Info: chip, family, big_page_size (the 64K default). */
		pt_buf_init(&b);
		ck_assert_int_eq(pt_render_info(&b, c, PT_OUT_TEXT, NULL), PT_OK);
		snprintf(keys, sizeof keys, "\nchip: %s\nfamily: %s\nbig_page_size: 64K\n",
			 chips[i].chip, chips[i].family);
		ck_assert_msg(b.data && strstr(b.data, keys), "info lacks %s", keys);
		pt_buf_reset(&b);
		ck_assert_int_eq(pt_render_info(&b, c, PT_OUT_JSON, NULL), PT_OK);
		snprintf(keys, sizeof keys, "\"family\": \"%s\"", chips[i].family);
		ck_assert_msg(b.data && strstr(b.data, keys), "info JSON lacks %s: %s", keys, b.data);
		pt_buf_free(&b);
		a5_unload(cap, dir);
	}
	/* Without a context (ptfs-tool decode) the superset decodes it as a leaf. */
	{
		struct pt_entry e = decode(PDE2, 38, leaf, 0);

		ck_assert_int_eq(e.state, PT_ST_MAPPED);
	}
}
END_TEST

/* Every [pdb] key error of a VER3 capture, with its message. */
START_TEST(test_capture_keys)
{
	static const struct {
		const char *keys;
		bool nobase;
		pt_err rc;
		const char *msg;
	} cases[] = {
		{"", false, PT_E_VALUE, "capture.ini:8: missing key 'chip' in [pdb a5]"},
		{"chip = gh100\n", true, PT_E_VALUE, "capture.ini:8: missing key 'space' in [pdb a5]"},
		{"space = vidmem\nchip = gh100\n", true, PT_E_VALUE,
		 "capture.ini:8: missing key 'address' in [pdb a5]"},
		{"chip = gh200\n", false, PT_E_VALUE,
		 "capture.ini:11: chip 'gh200' in [pdb a5] is not a VER3 chip (gh100, gb100, gb10b, gb20x, gb20b)"},
		{"chip = GH100\n", false, PT_E_VALUE,
		 "capture.ini:11: chip 'GH100' in [pdb a5] is not a VER3 chip (gh100, gb100, gb10b, gb20x, gb20b)"},
		{"chip = gh100\nbig_page_size = 128K\n", false, PT_E_VALUE,
		 "capture.ini:12: big_page_size '128K' in [pdb a5] is not a VER3 big page size (64K)"},
		{"chip = gh100\nbig_page_size = 4K\n", false, PT_E_VALUE,
		 "capture.ini:12: big_page_size '4K' in [pdb a5] is not a VER3 big page size (64K)"},
		{"chip = gh100\nbig_page_size = big\n", false, PT_E_VALUE, NULL},
		{"space = peer0\naddress = 0x100000\nchip = gh100\n", true, PT_E_VALUE,
		 "capture.ini:9: space 'peer0' in [pdb a5] is not valid for a page directory base (vidmem, sysmem)"},
		{"space = vidmem\naddress = 0x100800\nchip = gh100\n", true, PT_E_VALUE,
		 "capture.ini:10: address 0x100800 in [pdb a5] is not 4 KiB aligned"},
		{"chip = gh100\nformat = ver3\n", false, PT_E_VALUE,
		 "capture.ini:12: unknown key 'format' in [pdb a5]"},
		{"chip = gh100\nchip = gb100\n", false, PT_E_VALUE,
		 "capture.ini:12: duplicate key 'chip' in [pdb a5] (first at line 11)"},
		{"chip = gb20b\nbig_page_size = 64K\nx-note = fine\n", false, PT_OK, NULL},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pt_capture *cap;
		char *dir;
		pt_err rc = a5_load(cases[i].keys, cases[i].nobase, &cap, &dir);

		ck_assert_msg(rc == cases[i].rc, "case %zu: rc %d (%s)", i, rc, pt_capture_error(cap));
		if (cases[i].msg)
			ck_assert_str_eq(pt_capture_error(cap), cases[i].msg);
		a5_unload(cap, dir);
	}
}
END_TEST

/* Audit reasons name VER3's own PTE fields. */
START_TEST(test_perm_names)
{
	const struct pt_perm_name *p = pt_format_ver3.perm_names;

	ck_assert_uint_eq(p[0].perm, PT_PERM_READ_ONLY);
	ck_assert_str_eq(p[0].name, "read_only");
	ck_assert_uint_eq(p[1].perm, PT_PERM_ATOMIC_DISABLE);
	ck_assert_str_eq(p[1].name, "no_atomic");
	ck_assert_uint_eq(p[2].perm, PT_PERM_PRIVILEGE);
	ck_assert_str_eq(p[2].name, "privileged");
	ck_assert_uint_eq(p[3].perm, 0);
	/* Each name is a field of the decoded PTE. */
	{
		struct pt_entry e = decode(PTE_SMALL, 12, PTE(1, 0, 0xe, 6, 0x1000, 0), 0);

		for (unsigned k = 0; k < 3; k++) {
			bool found = false;

			for (unsigned f = 0; f < e.nfields; f++)
				found |= !strcmp(e.fields[f].key, p[k].name) && e.fields[f].v == 1;
			ck_assert_msg(found, "%s", p[k].name);
		}
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ver3");
	TCase *tc;

	tc = tcase_create("pte");
	tcase_add_loop_test(tc, test_pte_vectors, 0, (int)(sizeof pte_vecs / sizeof pte_vecs[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("pcf");
	tcase_add_loop_test(tc, test_pcf_valid_all, 0, 32);
	tcase_add_loop_test(tc, test_pcf_invalid_all, 0, 32);
	tcase_add_test(tc, test_pcf_names_literal);
	tcase_add_test(tc, test_flags_short_buffer);
	suite_add_tcase(s, tc);

	tc = tcase_create("pde");
	tcase_add_loop_test(tc, test_pde_vectors, 0, (int)(sizeof pde_vecs / sizeof pde_vecs[0]));
	tcase_add_test(tc, test_pde_reserved);
	tcase_add_test(tc, test_pde_leaf);
	suite_add_tcase(s, tc);

	tc = tcase_create("dual");
	tcase_add_loop_test(tc, test_dual_vectors, 0,
			    (int)(sizeof dual_vecs / sizeof dual_vecs[0]));
	tcase_add_test(tc, test_dual_leaf);
	suite_add_tcase(s, tc);

	tc = tcase_create("kinds");
	tcase_add_test(tc, test_kinds);
	suite_add_tcase(s, tc);

	tc = tcase_create("format");
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_index);
	suite_add_tcase(s, tc);

	tc = tcase_create("family");
	tcase_add_test(tc, test_family);
	suite_add_tcase(s, tc);

	tc = tcase_create("walk");
	tcase_add_test(tc, test_walk_a5);
	suite_add_tcase(s, tc);

	tc = tcase_create("capture");
	tcase_add_test(tc, test_capture_a5);
	tcase_add_test(tc, test_capture_family);
	tcase_add_test(tc, test_capture_keys);
	tcase_add_test(tc, test_perm_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
