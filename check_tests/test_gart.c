/*
 * test_gart: the AMD gfx9 flat GART format (docs/design.md §2.2): the PTE decoder
 * field by field, the register layout rules with both worked checks, the
 * apertures, and every layout error.
 *
 * Raw PTEs are built by shifting values into the gfx9 bit positions of
 * docs/design.md §2.2 and its sources (§7) (Linux gmc_v9_0.c / amdgpu_vm.h, umr, gem5
 * pagetable.hh) with macros local to this file; expected values are
 * literals.
 */
#include <string.h>

#include "fmt_gart.h"
#include "fmt_ver2.h"
#include "testutil.h"

#define B(v, lo)     ((uint64_t)(v) << (lo))
#define G_V          B(1, 0)
#define G_S          B(1, 1)
#define G_C          B(1, 2)    /* snooped */
#define G_Z          B(1, 3)    /* tmz */
#define G_X          B(1, 4)
#define G_R          B(1, 5)
#define G_W          B(1, 6)
#define G_FRAG(f)    B(f, 7)    /* 11:7 */
#define G_PAGE(p)    B(p, 12)   /* 47:12 */
#define G_PRT        B(1, 51)
#define G_SW(s)      B(s, 52)   /* 53:52 */
#define G_P          B(1, 54)
#define G_L          B(1, 55)
#define G_F          B(1, 56)
#define G_MTYPE(m)   B(m, 57)   /* 58:57 */

static const char *const mtypes[] = {"NC", "RW", "CC", "UC"};

struct gvec {
	const char *name;
	unsigned shift;
	uint64_t raw;
	enum pt_state st;
	uint64_t v, s, c, z, x, r, w, frag, addr, prt, sw, p, l, f, mtype, psize, rmask;
	const char *space;   /* mapped only */
	uint32_t perm;
};

#define NRW (PT_PERM_NO_READ | PT_PERM_NO_WRITE)

static const struct gvec gvecs[] = {
	{.name = "zero", .shift = 12, .raw = 0, .st = PT_ST_UNMAPPED, .psize = 0x1000,
	 .perm = NRW},
	/* umr test/vm/direct_vm_test0: V,S,C,X,R,W, MTYPE UC, sys 0x223886000. */
	{.name = "umr known answer", .shift = 12,
	 .raw = G_V | G_S | G_C | G_X | G_R | G_W | G_PAGE(0x223886) | G_MTYPE(3),
	 .st = PT_ST_MAPPED, .v = 1, .s = 1, .c = 1, .x = 1, .r = 1, .w = 1,
	 .addr = 0x223886000, .mtype = 3, .psize = 0x1000, .space = "sysmem",
	 .perm = PT_PERM_EXEC | PT_PERM_SNOOPED},
	/*
	 * A vram page as amdgpu writes it: MC address = offset + FB_OFFSET<<24.
	 * The decoder has no context: address and pa keep the value as
	 * written (the walker subtracts the context's bias, see test_walk).
	 */
	{.name = "vram page as MC address", .shift = 12, .raw = G_V | G_R | G_W | G_PAGE(0x40123),
	 .st = PT_ST_MAPPED, .v = 1, .r = 1, .w = 1, .addr = 0x40123000, .psize = 0x1000,
	 .space = "vram"},
	{.name = "valid only: vram, no access", .shift = 12, .raw = G_V,
	 .st = PT_ST_MAPPED, .v = 1, .psize = 0x1000, .space = "vram", .perm = NRW},
	{.name = "readable", .shift = 12, .raw = G_V | G_R | G_PAGE(0x10),
	 .st = PT_ST_MAPPED, .v = 1, .r = 1, .addr = 0x10000, .psize = 0x1000, .space = "vram",
	 .perm = PT_PERM_NO_WRITE},
	{.name = "writeable", .shift = 12, .raw = G_V | G_W | G_PAGE(0x10),
	 .st = PT_ST_MAPPED, .v = 1, .w = 1, .addr = 0x10000, .psize = 0x1000, .space = "vram",
	 .perm = PT_PERM_NO_READ},
	{.name = "tmz", .shift = 12, .raw = G_V | G_R | G_W | G_Z,
	 .st = PT_ST_MAPPED, .v = 1, .r = 1, .w = 1, .z = 1, .psize = 0x1000, .space = "vram",
	 .perm = PT_PERM_TMZ},
	{.name = "fragment 11:7", .shift = 12, .raw = G_V | G_S | G_FRAG(0x1f) | G_PAGE(0x200),
	 .st = PT_ST_MAPPED, .v = 1, .s = 1, .frag = 0x1f, .addr = 0x200000, .psize = 0x1000,
	 .space = "sysmem", .perm = NRW},
	/* The wrong co-sim layout would read bits 5:2 as fragment: here they are flags. */
	{.name = "bits 5:2 are flags, not fragment", .shift = 12, .raw = G_V | G_C | G_Z | G_X | G_R,
	 .st = PT_ST_MAPPED, .v = 1, .c = 1, .z = 1, .x = 1, .r = 1, .psize = 0x1000,
	 .space = "vram", .perm = PT_PERM_NO_WRITE | PT_PERM_EXEC | PT_PERM_SNOOPED | PT_PERM_TMZ},
	{.name = "address max", .shift = 12, .raw = G_V | G_S | G_PAGE(0xfffffffff),
	 .st = PT_ST_MAPPED, .v = 1, .s = 1, .addr = 0xfffffffff000, .psize = 0x1000,
	 .space = "sysmem", .perm = NRW},
	{.name = "prt 51", .shift = 12, .raw = G_V | G_PRT,
	 .st = PT_ST_MAPPED, .v = 1, .prt = 1, .psize = 0x1000, .space = "vram", .perm = NRW},
	{.name = "sw 53:52", .shift = 12, .raw = G_V | G_SW(3),
	 .st = PT_ST_MAPPED, .v = 1, .sw = 3, .psize = 0x1000, .space = "vram", .perm = NRW},
	{.name = "sw 2", .shift = 12, .raw = G_V | G_SW(2),
	 .st = PT_ST_MAPPED, .v = 1, .sw = 2, .psize = 0x1000, .space = "vram", .perm = NRW},
	{.name = "pte 54", .shift = 12, .raw = G_V | G_P,
	 .st = PT_ST_MAPPED, .v = 1, .p = 1, .psize = 0x1000, .space = "vram", .perm = NRW},
	{.name = "log 55", .shift = 12, .raw = G_V | G_L,
	 .st = PT_ST_MAPPED, .v = 1, .l = 1, .psize = 0x1000, .space = "vram", .perm = NRW},
	{.name = "translate_further 56", .shift = 12, .raw = G_V | G_F,
	 .st = PT_ST_MAPPED, .v = 1, .f = 1, .psize = 0x1000, .space = "vram", .perm = NRW},
	{.name = "mtype NC", .shift = 12, .raw = G_V | G_MTYPE(0),
	 .st = PT_ST_MAPPED, .v = 1, .mtype = 0, .psize = 0x1000, .space = "vram", .perm = NRW},
	{.name = "mtype RW", .shift = 12, .raw = G_V | G_MTYPE(1),
	 .st = PT_ST_MAPPED, .v = 1, .mtype = 1, .psize = 0x1000, .space = "vram", .perm = NRW},
	{.name = "mtype CC", .shift = 12, .raw = G_V | G_MTYPE(2),
	 .st = PT_ST_MAPPED, .v = 1, .mtype = 2, .psize = 0x1000, .space = "vram", .perm = NRW},
	{.name = "reserved 50:48", .shift = 12, .raw = G_V | B(7, 48),
	 .st = PT_ST_MAPPED, .v = 1, .psize = 0x1000, .rmask = 0x0007000000000000ull,
	 .space = "vram", .perm = NRW},
	{.name = "reserved 63:59", .shift = 12, .raw = G_V | B(0x1f, 59),
	 .st = PT_ST_MAPPED, .v = 1, .psize = 0x1000, .rmask = 0xf800000000000000ull,
	 .space = "vram", .perm = NRW},
	{.name = "reserved bit 48 only", .shift = 12, .raw = B(1, 48),
	 .st = PT_ST_INVALID, .psize = 0x1000, .rmask = 1ull << 48, .perm = NRW},
	/* Linux unbind: the dummy page with flags 0. */
	{.name = "invalid dummy page", .shift = 12, .raw = G_PAGE(0x12345),
	 .st = PT_ST_INVALID, .addr = 0x12345000, .psize = 0x1000, .perm = NRW},
	{.name = "invalid system only", .shift = 12, .raw = G_S,
	 .st = PT_ST_INVALID, .s = 1, .psize = 0x1000, .perm = NRW},
	{.name = "loose page_shift 0", .shift = 0, .raw = G_V | G_S | G_R | G_PAGE(1),
	 .st = PT_ST_MAPPED, .v = 1, .s = 1, .r = 1, .addr = 0x1000, .psize = 0,
	 .space = "sysmem", .perm = PT_PERM_NO_WRITE},
	{.name = "block fragment 9: 2 MiB pages", .shift = 21, .raw = G_V | G_R | G_W | G_PAGE(0x400),
	 .st = PT_ST_MAPPED, .v = 1, .r = 1, .w = 1, .addr = 0x400000, .psize = 0x200000,
	 .space = "vram"},
	{.name = "all ones", .shift = 12, .raw = ~0ull,
	 .st = PT_ST_MAPPED, .v = 1, .s = 1, .c = 1, .z = 1, .x = 1, .r = 1, .w = 1,
	 .frag = 0x1f, .addr = 0xfffffffff000, .prt = 1, .sw = 3, .p = 1, .l = 1, .f = 1,
	 .mtype = 3, .psize = 0x1000, .rmask = 0xf807000000000000ull, .space = "sysmem",
	 .perm = PT_PERM_EXEC | PT_PERM_SNOOPED | PT_PERM_TMZ},
};

static struct pt_entry gdecode(unsigned shift, uint64_t raw)
{
	uint8_t b[8];
	struct pt_entry e;
	pt_err err;

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(raw >> (8 * i));
	memset(&e, 0xa5, sizeof e);
	err = pt_format_gart.decode(0, shift, b, 0, &e);
	ck_assert_msg(err == PT_OK, "%s", pt_strerror(err));
	return e;
}

static void fcheck(const char *name, const struct pt_entry *e, unsigned i, const char *key,
		   enum pt_fkind kind, uint64_t v)
{
	ck_assert_msg(i < e->nfields, "%s: no field %u (%s)", name, i, key);
	ck_assert_msg(strcmp(e->fields[i].key, key) == 0, "%s: field %u is %s, expected %s",
		      name, i, e->fields[i].key, key);
	ck_assert_msg(e->fields[i].kind == kind, "%s: %s kind", name, key);
	ck_assert_msg(e->fields[i].flags == 0, "%s: %s flags", name, key);
	if (kind != PT_FK_STR)
		ck_assert_msg(e->fields[i].v == v, "%s: %s = 0x%llx, expected 0x%llx", name, key,
			      (unsigned long long)e->fields[i].v, (unsigned long long)v);
}

START_TEST(pte_vectors)
{
	const struct gvec *g = &gvecs[_i];
	struct pt_entry e = gdecode(g->shift, g->raw);
	unsigned i = 0;

	ck_assert_uint_eq(e.size, 8);
	ck_assert_uint_eq(e.raw[0], g->raw);
	ck_assert_uint_eq(e.raw[1], 0);
	fcheck(g->name, &e, i++, "valid", PT_FK_BIT, g->v);
	fcheck(g->name, &e, i++, "system", PT_FK_BIT, g->s);
	fcheck(g->name, &e, i++, "snooped", PT_FK_BIT, g->c);
	fcheck(g->name, &e, i++, "tmz", PT_FK_BIT, g->z);
	fcheck(g->name, &e, i++, "executable", PT_FK_BIT, g->x);
	fcheck(g->name, &e, i++, "readable", PT_FK_BIT, g->r);
	fcheck(g->name, &e, i++, "writeable", PT_FK_BIT, g->w);
	fcheck(g->name, &e, i++, "fragment", PT_FK_UINT, g->frag);
	fcheck(g->name, &e, i++, "address", PT_FK_HEX, g->addr);
	fcheck(g->name, &e, i++, "prt", PT_FK_BIT, g->prt);
	fcheck(g->name, &e, i++, "sw", PT_FK_UINT, g->sw);
	fcheck(g->name, &e, i++, "pte", PT_FK_BIT, g->p);
	fcheck(g->name, &e, i++, "log", PT_FK_BIT, g->l);
	fcheck(g->name, &e, i++, "translate_further", PT_FK_BIT, g->f);
	fcheck(g->name, &e, i++, "mtype", PT_FK_UINT, g->mtype);
	fcheck(g->name, &e, i, "mtype_name", PT_FK_STR, 0);
	ck_assert_str_eq(e.fields[i++].s, mtypes[g->mtype]);
	fcheck(g->name, &e, i++, "page_size", PT_FK_HEX, g->psize);
	fcheck(g->name, &e, i++, "reserved_bits", PT_FK_BOOL, g->rmask != 0);
	fcheck(g->name, &e, i++, "reserved_mask", PT_FK_HEX, g->rmask);
	ck_assert_uint_eq(e.nfields, i);

	ck_assert_msg(e.state == g->st, "%s: state %s", g->name, pt_state_name(e.state));
	ck_assert_int_eq(e.leaf, g->st == PT_ST_MAPPED);
	if (g->st == PT_ST_MAPPED) {
		ck_assert_str_eq(pt_format_gart.spaces[e.space], g->space);
		ck_assert_uint_eq(e.pa, g->addr);
	}
	ck_assert(e.address_complete);
	ck_assert_uint_eq(e.page_size, g->psize);
	ck_assert_msg(e.perm == g->perm, "%s: perm 0x%x, expected 0x%x", g->name, e.perm, g->perm);
	ck_assert_uint_eq(e.reserved_mask[0], g->rmask);
	ck_assert_uint_eq(e.reserved_mask[1], 0);
	ck_assert_int_eq(e.kind, -1);
	ck_assert(!e.anomaly);
	ck_assert(!e.target[0].present && !e.target[1].present);
}
END_TEST

START_TEST(umr_pte_literal)
{
	/* The shifted-in vector above is exactly umr's literal. */
	ck_assert_uint_eq(G_V | G_S | G_C | G_X | G_R | G_W | G_PAGE(0x223886) | G_MTYPE(3),
			  0x0600000223886077ull);
	struct pt_entry e = gdecode(12, 0x0600000223886077ull);

	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_str_eq(pt_format_gart.spaces[e.space], "sysmem");
	ck_assert_uint_eq(e.pa, 0x223886000);
	ck_assert_str_eq(pt_entry_field(&e, "mtype_name")->s, "UC");
}
END_TEST

/*
 * Issue #10 item 4: with MC_VM_FB_OFFSET 0x40, PTE 0x40123061 (V R W,
 * system 0, address 0x40123000) maps vram offset 0x123000.  The layout
 * gives vram the bias FB_OFFSET<<24 and sysmem none.
 */
START_TEST(vram_pte_bias)
{
	struct pt_gart_layout l;
	uint64_t raw[PT_GR__COUNT] = {0}, bias[PT_CONTEXT_SPACES];
	bool has[PT_GR__COUNT] = {0};
	struct pt_entry e;

	ck_assert_uint_eq(G_V | G_R | G_W | G_PAGE(0x40123), 0x40123061ull);
	raw[PT_GR_PT_BASE] = 0x40900001;
	raw[PT_GR_PT_END] = 0x7ff;
	raw[PT_GR_FB_OFFSET] = 0x40;
	has[PT_GR_PT_BASE] = has[PT_GR_PT_START] = has[PT_GR_PT_END] = true;
	has[PT_GR_FB_OFFSET] = true;
	ck_assert_int_eq(pt_gart_layout_decode(raw, has, &l, NULL, 0), PT_OK);
	memset(bias, 0xa5, sizeof bias);
	pt_gart_space_bias(&l, bias);
	ck_assert_int_eq(pt_format_space(&pt_format_gart, "vram"), 0);
	ck_assert_uint_eq(bias[0], 0x40000000);
	for (unsigned i = 1; i < PT_CONTEXT_SPACES; i++)
		ck_assert_uint_eq(bias[i], 0);

	e = gdecode(12, 0x40123061ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_str_eq(pt_format_gart.spaces[e.space], "vram");
	ck_assert_uint_eq(pt_entry_field(&e, "address")->v, 0x40123000);
	ck_assert_uint_eq(e.pa - bias[e.space], 0x123000);

	/* No FB_OFFSET register: no bias. */
	has[PT_GR_FB_OFFSET] = false;
	raw[PT_GR_PT_BASE] = 0x900001;
	ck_assert_int_eq(pt_gart_layout_decode(raw, has, &l, NULL, 0), PT_OK);
	pt_gart_space_bias(&l, bias);
	for (unsigned i = 0; i < PT_CONTEXT_SPACES; i++)
		ck_assert_uint_eq(bias[i], 0);
}
END_TEST

START_TEST(level_outside_table)
{
	uint8_t raw[8] = {1};
	struct pt_entry e;

	ck_assert_int_eq(pt_format_gart.decode(1, 12, raw, 0, &e), PT_E_UNSUPPORTED);
	ck_assert_int_eq(pt_format_gart.decode(6, 12, raw, 0, &e), PT_E_UNSUPPORTED);
	ck_assert_uint_eq(e.nfields, 0);
	ck_assert_int_eq(e.state, PT_ST_UNSUPPORTED);
}
END_TEST

START_TEST(format_table)
{
	const struct pt_format *f = pt_format_find("amd-gart");

	ck_assert_ptr_eq(f, &pt_format_gart);
	ck_assert_uint_eq(pt_format_nlevels(f), 1);
	ck_assert_str_eq(f->levels[0].name, "pte");
	ck_assert_uint_eq(f->levels[0].depth, 0);
	ck_assert_uint_eq(f->levels[0].va_shift, 12);
	ck_assert_uint_eq(f->levels[0].bits, 0);
	ck_assert_uint_eq(f->levels[0].entry_size, 8);
	ck_assert_uint_eq(f->levels[0].role, PT_ROLE_LEAF);
	ck_assert_int_eq(f->levels[0].child[0], -1);
	ck_assert_int_eq(f->levels[0].child[1], -1);
	ck_assert_ptr_null(f->levels[1].name);
	ck_assert_uint_eq(f->va_bits, 48);
	ck_assert_uint_eq(f->va_digits, 12);
	ck_assert_int_eq(pt_format_space(f, "vram"), 0);
	ck_assert_int_eq(pt_format_space(f, "sysmem"), 1);
	ck_assert_int_eq(pt_format_space(f, "vidmem"), -1);
	ck_assert_ptr_null(f->spaces[2]);
}
END_TEST

START_TEST(maps_columns)
{
	struct pt_entry e;
	char buf[64];

	e = gdecode(12, 0x0600000223886077ull);
	pt_format_gart.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "readable,writeable,executable,snooped");
	pt_format_gart.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "UC");

	e = gdecode(12, G_V | G_R | G_Z | G_PRT | G_MTYPE(2));
	pt_format_gart.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "readable,tmz,prt");
	/* every flag word is a field name of the entry files (docs/design.md §4) */
	ck_assert_ptr_nonnull(pt_entry_field(&e, "readable"));
	ck_assert_ptr_nonnull(pt_entry_field(&e, "tmz"));
	ck_assert_ptr_nonnull(pt_entry_field(&e, "prt"));
	pt_format_gart.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "CC");

	e = gdecode(12, G_V | G_W);
	pt_format_gart.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "writeable");
	pt_format_gart.kind_name(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "NC");

	e = gdecode(12, G_V);
	pt_format_gart.flags(&e, buf, sizeof buf);
	ck_assert_str_eq(buf, "-");
}
END_TEST

/* ---- registers --------------------------------------------------------- */
struct regs {
	uint64_t raw[PT_GR__COUNT];
	bool has[PT_GR__COUNT];
};

static void set(struct regs *r, enum pt_gart_reg g, uint64_t v)
{
	r->raw[g] = v;
	r->has[g] = true;
}

static struct regs cosim(void)
{
	struct regs r = {0};

	set(&r, PT_GR_PT_BASE, 0x3EE600000);
	set(&r, PT_GR_PT_START, 0x7FFF00000);
	set(&r, PT_GR_PT_END, 0x7FFF1FFFF);
	return r;
}

START_TEST(reg_names)
{
	static const char *const want[PT_GR__COUNT] = {
		"VM_CONTEXT0_PAGE_TABLE_BASE_ADDR", "VM_CONTEXT0_PAGE_TABLE_START_ADDR",
		"VM_CONTEXT0_PAGE_TABLE_END_ADDR", "MC_VM_FB_LOCATION_BASE", "MC_VM_FB_LOCATION_TOP",
		"MC_VM_FB_OFFSET", "MC_VM_AGP_BASE", "MC_VM_AGP_BOT", "MC_VM_AGP_TOP",
		"MC_VM_SYSTEM_APERTURE_LOW_ADDR", "MC_VM_SYSTEM_APERTURE_HIGH_ADDR",
	};

	for (int i = 0; i < PT_GR__COUNT; i++)
		ck_assert_str_eq(pt_gart_reg_name(i), want[i]);
	ck_assert_ptr_null(pt_gart_reg_name(PT_GR__COUNT));
	ck_assert_ptr_null(pt_gart_reg_name((enum pt_gart_reg)-1));
}
END_TEST

/* docs/design.md §2.2 worked check 1 (MI300X co-simulation registers). */
START_TEST(worked_check_cosim)
{
	struct regs r = cosim();
	struct pt_gart_layout l;
	char err[256];

	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, err, sizeof err), PT_OK);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(l.entries, 131072);
	ck_assert_str_eq(pt_format_gart.spaces[l.table_space], "vram");
	ck_assert_uint_eq(l.table_addr, 0x3EE600000);
	ck_assert_uint_eq(l.va_start, 0x7FFF00000000);
	ck_assert_uint_eq(l.va_end, 0x7FFF1FFFFFFF);
	ck_assert_uint_eq(l.page_size, 4096);
	ck_assert_uint_eq(l.bfs, 0);
	ck_assert_uint_eq(l.base_raw, 0x3EE600000);
	ck_assert(!l.base_valid);   /* gem5 keeps BASE with bit 0 cleared */
	ck_assert(!l.base_system);
	ck_assert(l.has[PT_GR_PT_BASE] && !l.has[PT_GR_FB_OFFSET]);
	ck_assert_uint_eq(l.raw[PT_GR_PT_END], 0x7FFF1FFFF);
}
END_TEST

/* docs/design.md §2.2 worked check 2 (umr test/vm/direct_vm_test0). */
START_TEST(worked_check_umr)
{
	struct regs r = {0};
	struct pt_gart_layout l;
	uint64_t va = 0x444000, index;
	struct pt_entry e;

	set(&r, PT_GR_PT_BASE, 0x40900001);
	set(&r, PT_GR_PT_START, 0);
	set(&r, PT_GR_PT_END, 0x7FF);
	set(&r, PT_GR_FB_OFFSET, 0x40);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);
	ck_assert(l.base_valid);
	ck_assert_uint_eq(l.fb_offset, 0x40000000);
	ck_assert_str_eq(pt_format_gart.spaces[l.table_space], "vram");
	ck_assert_uint_eq(l.table_addr, 0x900000);
	ck_assert_uint_eq(l.entries, 0x800);
	index = (va - l.va_start) / l.page_size;
	ck_assert_uint_eq(index, 0x444);
	ck_assert_uint_eq(l.table_addr + index * pt_format_gart.levels[0].entry_size, 0x902220);

	e = gdecode(12 + l.bfs, 0x0600000223886077ull);
	ck_assert_int_eq(e.state, PT_ST_MAPPED);
	ck_assert_uint_eq(pt_entry_field(&e, "valid")->v, 1);
	ck_assert_uint_eq(pt_entry_field(&e, "system")->v, 1);
	ck_assert_uint_eq(pt_entry_field(&e, "snooped")->v, 1);
	ck_assert_uint_eq(pt_entry_field(&e, "executable")->v, 1);
	ck_assert_uint_eq(pt_entry_field(&e, "readable")->v, 1);
	ck_assert_uint_eq(pt_entry_field(&e, "writeable")->v, 1);
	ck_assert_str_eq(pt_entry_field(&e, "mtype_name")->s, "UC");
	ck_assert_uint_eq(e.pa, 0x223886000);
	ck_assert_str_eq(pt_format_gart.spaces[e.space], "sysmem");
	ck_assert_uint_eq(e.page_size, 4096);
}
END_TEST

START_TEST(layout_system_and_bfs)
{
	struct regs r = cosim();
	struct pt_gart_layout l;

	/* BASE.system: the table is in sysmem at BASE[47:12]; FB_OFFSET does not apply. */
	set(&r, PT_GR_PT_BASE, B(1, 0) | B(1, 1) | 0x123456000ull | B(0xf, 48));
	set(&r, PT_GR_FB_OFFSET, 0x40);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);
	ck_assert(l.base_valid && l.base_system);
	ck_assert_str_eq(pt_format_gart.spaces[l.table_space], "sysmem");
	ck_assert_uint_eq(l.table_addr, 0x123456000);

	/* Block fragment size 63:59 = 9: 2 MiB GART pages. */
	r = cosim();
	set(&r, PT_GR_PT_BASE, 0x3EE600001ull | B(9, 59));
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);
	ck_assert_uint_eq(l.bfs, 9);
	ck_assert_uint_eq(l.page_size, 0x200000);
	ck_assert_uint_eq(l.table_addr, 0x3EE600000);
	ck_assert_uint_eq(l.entries, 131072 / 512);

	/* A range ending inside a big page still has that page's entry. */
	set(&r, PT_GR_PT_END, 0x7FFF00200);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);
	ck_assert_uint_eq(l.entries, 2);

	/* START == END: one page. */
	r = cosim();
	set(&r, PT_GR_PT_END, 0x7FFF00000);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);
	ck_assert_uint_eq(l.entries, 1);
	ck_assert_uint_eq(l.va_end, 0x7FFF00000FFF);

	/* Largest legal GART: the whole 48-bit space. */
	set(&r, PT_GR_PT_START, 0);
	set(&r, PT_GR_PT_END, 0xFFFFFFFFF);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);
	ck_assert_uint_eq(l.entries, 1ull << 36);
	ck_assert_uint_eq(l.va_end, 0xFFFFFFFFFFFF);
}
END_TEST

START_TEST(layout_apertures_decoded)
{
	struct regs r = cosim();
	struct pt_gart_layout l;

	set(&r, PT_GR_FB_BASE, 0x8000);
	set(&r, PT_GR_FB_TOP, 0x83FF);
	set(&r, PT_GR_FB_OFFSET, 0);
	set(&r, PT_GR_AGP_BASE, 0x1);
	set(&r, PT_GR_AGP_BOT, 0x100);
	set(&r, PT_GR_AGP_TOP, 0x1FF);
	set(&r, PT_GR_SYS_LOW, 0x3);
	set(&r, PT_GR_SYS_HIGH, 0xFFFB);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);
	ck_assert_uint_eq(l.fb_base, 0x8000000000);
	ck_assert_uint_eq(l.fb_top, 0x83FFFFFFFF);
	ck_assert_uint_eq(l.fb_offset, 0);
	ck_assert_uint_eq(l.agp_base, 0x1000000);
	ck_assert_uint_eq(l.agp_bot, 0x100000000);
	ck_assert_uint_eq(l.agp_top, 0x1FFFFFFFF);
	ck_assert_uint_eq(l.sys_low, 0xC0000);
	ck_assert_uint_eq(l.sys_high, 0x3FFEC0000);

	/* Fields are [23:0] and [29:0]: higher bits of the raw value do not count. */
	set(&r, PT_GR_FB_BASE, 0xFF008000);
	set(&r, PT_GR_SYS_HIGH, 0xC000FFFB);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);
	ck_assert_uint_eq(l.fb_base, 0x8000000000);
	ck_assert_uint_eq(l.sys_high, 0x3FFEC0000);
	/* The register holds its field; what was written is kept for info, and flagged. */
	ck_assert_uint_eq(l.raw[PT_GR_FB_BASE], 0x8000);
	ck_assert_uint_eq(l.written[PT_GR_FB_BASE], 0xFF008000);
	ck_assert_uint_eq(l.raw[PT_GR_SYS_HIGH], 0xFFFB);
	ck_assert_uint_eq(l.masked, 1u << PT_GR_FB_BASE | 1u << PT_GR_SYS_HIGH);
}
END_TEST

/* Every layout error: E_VALUE and a message naming the register. */
START_TEST(layout_errors)
{
	static const struct {
		const char *what;
		enum pt_gart_reg reg;
		uint64_t v;
		bool drop;
		const char *msg;
	} bad[] = {
		{"START > END", PT_GR_PT_START, 0x7FFF20000, false,
		 "VM_CONTEXT0_PAGE_TABLE_START_ADDR 0x7fff20000 is after VM_CONTEXT0_PAGE_TABLE_END_ADDR 0x7fff1ffff"},
		{"BASE without valid bit or address", PT_GR_PT_BASE, 0x2, false,
		 "VM_CONTEXT0_PAGE_TABLE_BASE_ADDR 0x2 is not valid (bit 0 clear, no address)"},
		{"BASE zero", PT_GR_PT_BASE, 0, false,
		 "VM_CONTEXT0_PAGE_TABLE_BASE_ADDR 0x0 is not valid (bit 0 clear, no address)"},
		{"vram BASE below FB_OFFSET", PT_GR_FB_OFFSET, 0x400, false,
		 "VM_CONTEXT0_PAGE_TABLE_BASE_ADDR address 0x3ee600000 is below MC_VM_FB_OFFSET 0x400000000"},
		{"BASE missing", PT_GR_PT_BASE, 0, true,
		 "VM_CONTEXT0_PAGE_TABLE_BASE_ADDR missing"},
		{"START missing", PT_GR_PT_START, 0, true,
		 "VM_CONTEXT0_PAGE_TABLE_START_ADDR missing"},
		{"END missing", PT_GR_PT_END, 0, true, "VM_CONTEXT0_PAGE_TABLE_END_ADDR missing"},
	};

	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct regs r = cosim();
		struct pt_gart_layout l;
		char err[256] = "junk";

		if (bad[i].drop)
			r.has[bad[i].reg] = false;
		else
			set(&r, bad[i].reg, bad[i].v);
		ck_assert_msg(pt_gart_layout_decode(r.raw, r.has, &l, err, sizeof err) == PT_E_VALUE,
			      "%s accepted", bad[i].what);
		ck_assert_msg(strlen(err) > 0, "%s: no message", bad[i].what);
		if (bad[i].msg)
			ck_assert_str_eq(err, bad[i].msg);
		/* No buffer: still the error. */
		ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_E_VALUE);
	}
}
END_TEST

/*
 * Registers wider than their fields (docs/design.md §2.2).  umr's own envdefs write
 * END_ADDR_HI32 = 0xFFFFFFFF; the register's LOGICAL_PAGE_NUMBER_HI4 field
 * keeps bits 3:0 (gc_9_0_sh_mask.h mask 0xF), so END is 0xF_xxxx_xxxx.  A
 * user writing gem5's byte address 0x8000000000 as MC_VM_FB_LOCATION_BASE
 * gets field 0 (bits 23:0) and a warning, not a silent 0..2^48 aperture.
 */
START_TEST(layout_masked)
{
	struct regs r = cosim();
	struct pt_gart_layout l;
	char warn[512];

	set(&r, PT_GR_PT_START, 0);
	set(&r, PT_GR_PT_END, 0xFFFFFFFF00000000ull | 0x7FF);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, warn, sizeof warn), PT_OK);
	ck_assert_uint_eq(l.raw[PT_GR_PT_END], 0xF000007FFull);
	ck_assert_uint_eq(l.written[PT_GR_PT_END], 0xFFFFFFFF000007FFull);
	ck_assert_uint_eq(l.va_end, 0xF000007FFFFFull);
	ck_assert_uint_eq(l.masked, 1u << PT_GR_PT_END);
	pt_gart_masked_warning(&l, warn, sizeof warn);
	ck_assert_str_eq(warn, "VM_CONTEXT0_PAGE_TABLE_END_ADDR 0xffffffff000007ff is wider than its"
			 " field: the register holds 0xf000007ff");

	r = cosim();
	set(&r, PT_GR_FB_BASE, 0x8000000000ull);
	set(&r, PT_GR_FB_TOP, 0x83FF);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, warn, sizeof warn), PT_OK);
	ck_assert_uint_eq(l.fb_base, 0);
	ck_assert_uint_eq(l.masked, 1u << PT_GR_FB_BASE);
	pt_gart_masked_warning(&l, warn, sizeof warn);
	ck_assert_msg(strstr(warn, "MC_VM_FB_LOCATION_BASE 0x8000000000 is wider than its field:"
			      " the register holds 0x0"), "%s", warn);
	/* A 64-bit TOP whose field is below BASE's field: masked first, then refused. */
	set(&r, PT_GR_FB_BASE, 0x8000);
	set(&r, PT_GR_FB_TOP, 0x1000007FFF);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, warn, sizeof warn), PT_E_VALUE);
	ck_assert_msg(strstr(warn, "is below MC_VM_FB_LOCATION_BASE"), "%s", warn);
	/* AGP BOT above TOP is amdgpu's "disabled" (gfxhub_v1_0.c): empty, accepted. */
	r = cosim();
	set(&r, PT_GR_AGP_BASE, 0);
	set(&r, PT_GR_AGP_BOT, 0xFFFFFFFF);
	set(&r, PT_GR_AGP_TOP, 0);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, warn, sizeof warn), PT_OK);
	ck_assert_uint_eq(l.agp_bot, 0xFFFFFF000000ull);
	{
		struct pt_aperture a;

		pt_gart_aperture(&l, 0x1000, &a);
		ck_assert(!a.hit);
	}
}
END_TEST

START_TEST(apertures)
{
	struct regs r = cosim();
	struct pt_gart_layout l;
	struct pt_aperture a;

	/* No aperture registers: everything outside the GART is none. */
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);
	pt_gart_aperture(&l, 0x8000000000, &a);
	ck_assert_str_eq(a.name, "none");
	ck_assert(!a.hit);
	pt_gart_aperture(&l, 0, &a);
	ck_assert_str_eq(a.name, "none");

	set(&r, PT_GR_FB_BASE, 0x8000);    /* FB 0x80_0000_0000 .. 0x83_FFFF_FFFF inclusive */
	set(&r, PT_GR_FB_TOP, 0x83FF);
	set(&r, PT_GR_AGP_BASE, 0x10);     /* AGP 0x1_0000_0000 .. 0x1_FFFF_FFFF -> sys 0x1000_0000 + */
	set(&r, PT_GR_AGP_BOT, 0x100);
	set(&r, PT_GR_AGP_TOP, 0x1FF);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);

	pt_gart_aperture(&l, 0x8000000000, &a);
	ck_assert_str_eq(a.name, "fb");
	ck_assert(a.hit);
	ck_assert_str_eq(pt_format_gart.spaces[a.space], "vram");
	ck_assert_uint_eq(a.pa, 0);
	pt_gart_aperture(&l, 0x83FFFFFFFF, &a);   /* top is inclusive */
	ck_assert_str_eq(a.name, "fb");
	ck_assert_uint_eq(a.pa, 0x3FFFFFFFF);
	pt_gart_aperture(&l, 0x8400000000, &a);
	ck_assert_str_eq(a.name, "none");
	pt_gart_aperture(&l, 0x7FFFFFFFFF, &a);
	ck_assert_str_eq(a.name, "none");

	pt_gart_aperture(&l, 0x100000000, &a);
	ck_assert_str_eq(a.name, "agp");
	ck_assert(a.hit);
	ck_assert_str_eq(pt_format_gart.spaces[a.space], "sysmem");
	ck_assert_uint_eq(a.pa, 0x10000000);
	pt_gart_aperture(&l, 0x1FFFFFFFF, &a);
	ck_assert_str_eq(a.name, "agp");
	ck_assert_uint_eq(a.pa, 0x10FFFFFFFull);
	pt_gart_aperture(&l, 0x200000000, &a);
	ck_assert_str_eq(a.name, "none");
	ck_assert(!a.hit);

	/* Only registers present count: without FB_LOCATION_TOP there is no FB aperture. */
	r.has[PT_GR_FB_TOP] = false;
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);
	pt_gart_aperture(&l, 0x8000000000, &a);
	ck_assert_str_eq(a.name, "none");
	/* Nor AGP without AGP_BASE (the PA would be a guess). */
	r.has[PT_GR_AGP_BASE] = false;
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);
	pt_gart_aperture(&l, 0x100000000, &a);
	ck_assert_str_eq(a.name, "none");

	/* Linux 2017 disables AGP with BOT 0xFFFFFFFF, TOP 0: bot > top, an empty range. */
	r = cosim();
	set(&r, PT_GR_AGP_BASE, 0);
	set(&r, PT_GR_AGP_BOT, 0xFFFFFFFF);
	set(&r, PT_GR_AGP_TOP, 0);
	ck_assert_int_eq(pt_gart_layout_decode(r.raw, r.has, &l, NULL, 0), PT_OK);
	pt_gart_aperture(&l, 0, &a);
	ck_assert_str_eq(a.name, "none");
	pt_gart_aperture(&l, 0xFFFFFF000000, &a);
	ck_assert_str_eq(a.name, "none");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gart");
	TCase *tc;

	tc = tcase_create("pte");
	tcase_add_loop_test(tc, pte_vectors, 0, sizeof gvecs / sizeof gvecs[0]);
	tcase_add_test(tc, umr_pte_literal);
	tcase_add_test(tc, vram_pte_bias);
	tcase_add_test(tc, level_outside_table);
	tcase_add_test(tc, format_table);
	tcase_add_test(tc, maps_columns);
	suite_add_tcase(s, tc);

	tc = tcase_create("layout");
	tcase_add_test(tc, reg_names);
	tcase_add_test(tc, worked_check_cosim);
	tcase_add_test(tc, worked_check_umr);
	tcase_add_test(tc, layout_system_and_bfs);
	tcase_add_test(tc, layout_apertures_decoded);
	tcase_add_test(tc, layout_errors);
	tcase_add_test(tc, layout_masked);
	suite_add_tcase(s, tc);

	tc = tcase_create("aperture");
	tcase_add_test(tc, apertures);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
