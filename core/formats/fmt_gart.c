/* SPDX-License-Identifier: MIT */
/*
 * fmt_gart.c — AMD gfx9 VMID0 flat GART (docs/design.md §2.2): the level table, the
 * PTE decoder and the register rules that place the table.
 *
 * The PTE layout is the hardware one that Linux amdgpu (gmc_v9_0.c "PTE
 * format on VEGA 10", amdgpu_vm.h), umr and gem5's vega/pagetable.hh agree
 * on (docs/design.md §2.2 and its sources (§7)).  The co-simulation notes' "fragment 5:2" and
 * "block fragment 51:48" are wrong for gfx9 and deliberately absent.
 *
 * Field order of a PTE:
 *   valid system snooped tmz executable readable writeable fragment address
 *   prt sw pte log translate_further mtype mtype_name page_size
 *   reserved_bits reserved_mask
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmt_gart.h"
#include "pt_buf.h"
#include "pt_num.h"

/* One flat table; its entry count and page shift come from the context's registers. */
static const struct pt_level gart_levels[] = {
	/* name  depth va_shift bits size role         leaf_shift child */
	{"pte",  0,    12,      0,   8,   PT_ROLE_LEAF,  0,  {-1, -1}},
	{NULL,   0,    0,       0,   0,   0,            0,  {-1, -1}},
};

enum { SP_VRAM = 0, SP_SYSMEM = 1 };
static const char *const gart_spaces[] = {"vram", "sysmem", NULL};

/* MTYPE 58:57 (AMDGPU_MTYPE_*; umr prints the same names). */
static const char *const mtype_names[4] = {"NC", "RW", "CC", "UC"};

static inline uint64_t bits(uint64_t v, unsigned hi, unsigned lo)
{
	return (v >> lo) & ((1ull << (hi - lo + 1)) - 1);
}

#define GART_VALID(r)      bits(r, 0, 0)    /* AMDGPU_PTE_VALID */
#define GART_SYSTEM(r)     bits(r, 1, 1)    /* AMDGPU_PTE_SYSTEM */
#define GART_SNOOPED(r)    bits(r, 2, 2)    /* AMDGPU_PTE_SNOOPED */
#define GART_TMZ(r)        bits(r, 3, 3)    /* AMDGPU_PTE_TMZ */
#define GART_EXEC(r)       bits(r, 4, 4)    /* AMDGPU_PTE_EXECUTABLE */
#define GART_READ(r)       bits(r, 5, 5)    /* AMDGPU_PTE_READABLE */
#define GART_WRITE(r)      bits(r, 6, 6)    /* AMDGPU_PTE_WRITEABLE */
#define GART_FRAGMENT(r)   bits(r, 11, 7)   /* AMDGPU_PTE_FRAG */
#define GART_ADDRESS(r)    ((r) & 0x0000fffffffff000ull)   /* 47:12, PA = field << 12 */
#define GART_PRT(r)        bits(r, 51, 51)  /* AMDGPU_PTE_PRT */
#define GART_SW(r)         bits(r, 53, 52)  /* SW */
#define GART_PTE(r)        bits(r, 54, 54)  /* AMDGPU_PDE_PTE */
#define GART_LOG(r)        bits(r, 55, 55)  /* AMDGPU_PTE_LOG */
#define GART_TF(r)         bits(r, 56, 56)  /* AMDGPU_PTE_TF */
#define GART_MTYPE(r)      bits(r, 58, 57)  /* AMDGPU_PTE_MTYPE_VG10 */
/* 50:48 (gfx10 MTYPE, reserved on gfx9) and 63:59 (BFS in a PDE only). */
#define GART_RESERVED      (0x0007000000000000ull | 0xf800000000000000ull)

/*
 * A VMID0 GART of a later generation holds that generation's PTEs (the
 * same hardware walker; umr decodes them with the ASIC's layout): the bits
 * that move are MTYPE, PRT and the reserved ones.  gfx9 gmc_v9_0.c, gfx10
 * gmc_v10_0.c / gfx11 gmc_v11_0.c (MTYPE 50:48, AMDGPU_PTE_MTYPE_NV10;
 * NOALLOC 58), gfx12 gmc_v12_0.c (MTYPE 55:54, PRT 56, G 57, DCC 58, IS_PTE 63).
 */
struct gart_gen {
	unsigned mtype_lo, mtype_w, prt;
	uint64_t reserved;
	const char *const *mtypes;
};
static const char *const mtype_names_nv[4] = {"NC", "WC", "CC", "UC"};
static const struct gart_gen gart_gens[4] = {
	{57, 2, 51, GART_RESERVED, mtype_names},
	{48, 3, 51, (1ull << 57) | 0xf800000000000000ull, mtype_names_nv},
	{48, 3, 51, (1ull << 57) | 0xf800000000000000ull, mtype_names_nv},
	{54, 2, 56, 0x000f000000000000ull | 0x7000000000000000ull, mtype_names_nv},
};

static const struct gart_gen *gart_gen_of(unsigned gfx)
{
	return &gart_gens[gfx >= 10 && gfx <= 12 ? gfx - 9 : 0];
}

static uint64_t gart_mtype(const struct gart_gen *g, uint64_t r)
{
	return bits(r, g->mtype_lo + g->mtype_w - 1, g->mtype_lo);
}

static pt_err gart_decode_gen(unsigned gfx, unsigned level, unsigned page_shift, const uint8_t *raw,
			      unsigned flags, struct pt_entry *out)
{
	const struct gart_gen *g = gart_gen_of(gfx);
	uint64_t r, page_size, mt;

	if (level != 0 || !raw) {
		pt_entry_reset(out, 0, NULL, flags);
		out->state = PT_ST_UNSUPPORTED;
		return PT_E_UNSUPPORTED;
	}
	pt_entry_reset(out, 8, raw, flags);
	r = out->raw[0];
	page_size = page_shift && page_shift < 64 ? 1ull << page_shift : 0;

	/* 0 is a sink (unmapped); Linux unbinds to the dummy page with flags 0: invalid. */
	if (r == 0)
		out->state = PT_ST_UNMAPPED;
	else if (!GART_VALID(r))
		out->state = PT_ST_INVALID;
	else
		out->state = PT_ST_MAPPED;

	out->page_size = page_size;
	out->address_complete = true;
	out->perm = (GART_READ(r) ? 0 : PT_PERM_NO_READ) |
		    (GART_WRITE(r) ? 0 : PT_PERM_NO_WRITE) |
		    (GART_EXEC(r) ? PT_PERM_EXEC : 0) |
		    (GART_SNOOPED(r) ? PT_PERM_SNOOPED : 0) |
		    (GART_TMZ(r) ? PT_PERM_TMZ : 0);
	if (out->state == PT_ST_MAPPED) {
		out->leaf = true;
		out->space = GART_SYSTEM(r) ? SP_SYSMEM : SP_VRAM;
		out->pa = GART_ADDRESS(r);
	}
	out->reserved_mask[0] = r & g->reserved;
	mt = gart_mtype(g, r);

	pt_entry_add(out, "valid", PT_FK_BIT, GART_VALID(r));
	pt_entry_add(out, "system", PT_FK_BIT, GART_SYSTEM(r));
	pt_entry_add(out, "snooped", PT_FK_BIT, GART_SNOOPED(r));
	pt_entry_add(out, "tmz", PT_FK_BIT, GART_TMZ(r));
	pt_entry_add(out, "executable", PT_FK_BIT, GART_EXEC(r));
	pt_entry_add(out, "readable", PT_FK_BIT, GART_READ(r));
	pt_entry_add(out, "writeable", PT_FK_BIT, GART_WRITE(r));
	pt_entry_add(out, "fragment", PT_FK_UINT, GART_FRAGMENT(r));
	pt_entry_add(out, "address", PT_FK_HEX, GART_ADDRESS(r));
	pt_entry_add(out, "prt", PT_FK_BIT, bits(r, g->prt, g->prt));
	pt_entry_add(out, "sw", PT_FK_UINT, GART_SW(r));
	pt_entry_add(out, "pte", PT_FK_BIT, GART_PTE(r));
	pt_entry_add(out, "log", PT_FK_BIT, GART_LOG(r));
	pt_entry_add(out, "translate_further", PT_FK_BIT, GART_TF(r));
	pt_entry_add(out, "mtype", PT_FK_UINT, mt);
	pt_entry_add_str(out, "mtype_name", mt < 4 ? g->mtypes[mt] : NULL);
	pt_entry_add(out, "page_size", PT_FK_HEX, page_size);
	pt_entry_add_reserved(out, out->reserved_mask[0], 0, false);
	return PT_OK;
}

static pt_err gart_decode(unsigned level, unsigned page_shift, const uint8_t *raw, unsigned flags,
			  struct pt_entry *out)
{
	return gart_decode_gen(9, level, page_shift, raw, flags, out);
}

static pt_err gart_decode10(unsigned level, unsigned page_shift, const uint8_t *raw, unsigned flags,
			  struct pt_entry *out)
{
	return gart_decode_gen(10, level, page_shift, raw, flags, out);
}

static pt_err gart_decode12(unsigned level, unsigned page_shift, const uint8_t *raw, unsigned flags,
			  struct pt_entry *out)
{
	return gart_decode_gen(12, level, page_shift, raw, flags, out);
}

/*
 * maps and walk FLAGS: the entry-file names of the permission and
 * attribute bits that are set, joined by ',' ("-" when none), so that every
 * flag word greps as a field of the entry files (docs/design.md §4):
 *   e.g.  "readable,writeable,executable,snooped"  the GART default
 *         "readable,tmz,prt"
 * amd-gpuvm's leaves have the same bits and names: it uses this one too.
 */
void pt_gart_flags(const struct pt_entry *e, char *buf, size_t len)
{
	uint32_t p = e->perm;
	const bool set[] = {
		!(p & PT_PERM_NO_READ), !(p & PT_PERM_NO_WRITE), p & PT_PERM_EXEC,
		p & PT_PERM_SNOOPED, p & PT_PERM_TMZ, pt_entry_field(e, "prt") && pt_entry_field(e, "prt")->v,
	};
	static const char *const names[] = {
		"readable", "writeable", "executable", "snooped", "tmz", "prt",
	};
	size_t off = 0;

	snprintf(buf, len, "-");
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!set[i] || off >= len)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", names[i]);
	}
}

/* maps KIND column: the GART has no kinds; MTYPE is the memory type (amd-gpuvm's too). */
void pt_gart_kind_name(const struct pt_entry *e, char *buf, size_t len)
{
	const struct pt_field *n = pt_entry_field(e, "mtype_name");
	const struct pt_field *m = pt_entry_field(e, "mtype");

	if (n && n->s)
		snprintf(buf, len, "%s", n->s);
	else
		snprintf(buf, len, "mtype%" PRIu64, m ? m->v : 0);
}

/* ---- registers ---------------------------------------------------------- */

/* Indexed by enum pt_gart_reg: the names written in capture.ini. */
static const char *const reg_names[PT_GR__COUNT] = {
	[PT_GR_PT_BASE] = "VM_CONTEXT0_PAGE_TABLE_BASE_ADDR",
	[PT_GR_PT_START] = "VM_CONTEXT0_PAGE_TABLE_START_ADDR",
	[PT_GR_PT_END] = "VM_CONTEXT0_PAGE_TABLE_END_ADDR",
	[PT_GR_FB_BASE] = "MC_VM_FB_LOCATION_BASE",
	[PT_GR_FB_TOP] = "MC_VM_FB_LOCATION_TOP",
	[PT_GR_FB_OFFSET] = "MC_VM_FB_OFFSET",
	[PT_GR_AGP_BASE] = "MC_VM_AGP_BASE",
	[PT_GR_AGP_BOT] = "MC_VM_AGP_BOT",
	[PT_GR_AGP_TOP] = "MC_VM_AGP_TOP",
	[PT_GR_SYS_LOW] = "MC_VM_SYSTEM_APERTURE_LOW_ADDR",
	[PT_GR_SYS_HIGH] = "MC_VM_SYSTEM_APERTURE_HIGH_ADDR",
};

const char *pt_gart_reg_name(enum pt_gart_reg r)
{
	if ((unsigned)r >= PT_GR__COUNT)
		return NULL;
	return reg_names[r];
}

/* MC_VM_* location fields are [23:0] in 16 MiB units. */
#define MC_24(v)       (((v) & 0xffffffull) << 24)
#define MC_24_TOP(v)   (MC_24(v) | 0xffffffull)     /* the top unit is inclusive */
/* SYSTEM_APERTURE_* are [29:0] in 256 KiB units. */
#define MC_30(v)       (((v) & 0x3fffffffull) << 18)

/* The BASE register is a PDE-format value (gfxhub_v1_0, umr). */
#define BASE_VALID(b)  ((b) & 1)
#define BASE_SYSTEM(b) ((b) >> 1 & 1)
#define BASE_ADDR(b)   ((uint64_t)((b) & 0x0000fffffffff000ull))   /* 47:12 */
#define BASE_BFS(b)    ((unsigned)((b) >> 59))         /* block fragment size 63:59 */

/* START/END hold VA[47:12] (LO32 = VA[43:12], HI32 = VA[47:44]): 36-bit page numbers. */
#define PAGE_NUMBER_MAX 0xfffffffffull
/* More entries than a 48-bit VA has 4 KiB pages cannot be a real table. */
#define ENTRIES_MAX     (1ull << 36)

static pt_err layout_error(char *errbuf, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static pt_err layout_error(char *errbuf, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errbuf && errlen) {
		va_start(ap, fmt);
		vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return PT_E_VALUE;
}

uint64_t pt_gart_reg_mask(enum pt_gart_reg r)
{
	switch (r) {
	case PT_GR_PT_BASE:
		return UINT64_MAX;             /* PAGE_DIRECTORY_ENTRY_LO32/HI32: a whole PDE */
	case PT_GR_PT_START:
	case PT_GR_PT_END:
		return PAGE_NUMBER_MAX;        /* LOGICAL_PAGE_NUMBER_LO32 + _HI4 (gc_9_0_sh_mask.h) */
	case PT_GR_SYS_LOW:
	case PT_GR_SYS_HIGH:
		return 0x3fffffffull;          /* LOGICAL_ADDR [29:0] (mmhub_1_0_sh_mask.h) */
	default:
		return 0xffffffull;            /* FB_BASE/FB_TOP/FB_OFFSET/AGP_* [23:0] */
	}
}

pt_err pt_gart_layout_decode(const uint64_t raw[PT_GR__COUNT], const bool has[PT_GR__COUNT],
			     struct pt_gart_layout *l, char *errbuf, size_t errlen)
{
	static const enum pt_gart_reg required[] = {PT_GR_PT_BASE, PT_GR_PT_START, PT_GR_PT_END};
	uint64_t base, start, end, pages;

	*l = (struct pt_gart_layout){0};
	if (errbuf && errlen)
		errbuf[0] = 0;
	/*
	 * A register holds its field: the bits written outside it are not
	 * there after the write (umr's envdefs write END_ADDR_HI32 =
	 * 0xFFFFFFFF, a 4-bit field).  Decode the field, keep the written
	 * value for info, and let the caller warn.
	 */
	for (unsigned i = 0; i < PT_GR__COUNT; i++) {
		l->has[i] = has[i];
		l->written[i] = has[i] ? raw[i] : 0;
		l->raw[i] = l->written[i] & pt_gart_reg_mask(i);
		if (l->raw[i] != l->written[i])
			l->masked |= 1u << i;
	}
	for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
		if (!has[required[i]])
			return layout_error(errbuf, errlen, "%s missing", reg_names[required[i]]);

	/* Apertures first: an absent register decodes as 0 and has[] says it is absent. */
	l->fb_base = MC_24(l->raw[PT_GR_FB_BASE]);
	l->fb_top = has[PT_GR_FB_TOP] ? MC_24_TOP(l->raw[PT_GR_FB_TOP]) : 0;
	l->fb_offset = MC_24(l->raw[PT_GR_FB_OFFSET]);
	l->agp_base = MC_24(l->raw[PT_GR_AGP_BASE]);
	l->agp_bot = MC_24(l->raw[PT_GR_AGP_BOT]);
	l->agp_top = has[PT_GR_AGP_TOP] ? MC_24_TOP(l->raw[PT_GR_AGP_TOP]) : 0;
	l->sys_low = MC_30(l->raw[PT_GR_SYS_LOW]);
	l->sys_high = MC_30(l->raw[PT_GR_SYS_HIGH]);
	/*
	 * An FB aperture ending below its start is no aperture a driver
	 * programs: refuse it.  AGP BOT above TOP is how amdgpu disables AGP
	 * (gfxhub_v1_0.c init_system_aperture_regs: BOT 0xFFFFFF, TOP 0): an
	 * empty aperture, not an error.
	 */
	if (has[PT_GR_FB_BASE] && has[PT_GR_FB_TOP] && l->fb_top < l->fb_base)
		return layout_error(errbuf, errlen,
				    "%s 0x%" PRIx64 " is below %s 0x%" PRIx64 " (an empty FB aperture)",
				    reg_names[PT_GR_FB_TOP], l->raw[PT_GR_FB_TOP],
				    reg_names[PT_GR_FB_BASE], l->raw[PT_GR_FB_BASE]);

	base = l->raw[PT_GR_PT_BASE];
	start = l->raw[PT_GR_PT_START];
	end = l->raw[PT_GR_PT_END];
	l->base_raw = base;
	l->base_valid = BASE_VALID(base);
	l->base_system = BASE_SYSTEM(base);
	l->bfs = BASE_BFS(base);
	l->page_size = 4096ull << l->bfs;

	/*
	 * The driver writes BASE with V (bit 0) set, but gem5 clears bit 0 when
	 * it stores the register ("extra bits not part of address"), so a
	 * co-simulation capture holds V=0 with a real address: docs/design.md §2.2's
	 * worked check (BASE=0x3EE600000) is such a value.  base_valid reports
	 * the bit; only a BASE with V clear and no address at all (a context
	 * never programmed) is refused.
	 */
	if (!l->base_valid && BASE_ADDR(base) == 0)
		return layout_error(errbuf, errlen,
				    "%s 0x%" PRIx64 " is not valid (bit 0 clear, no address)",
				    reg_names[PT_GR_PT_BASE], base);
	if (start > end)
		return layout_error(errbuf, errlen,
				    "%s 0x%" PRIx64 " is after %s 0x%" PRIx64,
				    reg_names[PT_GR_PT_START], start, reg_names[PT_GR_PT_END], end);
	/*
	 * Entry N maps (START << 12) + N * page_size.  The count rounds up: with
	 * a block fragment size, a range ending inside a page still has that
	 * page's entry (umr indexes any VA up to END by off >> (12 + bfs)).
	 * end - start + 1 wraps to 0 only for the whole 64-bit range.
	 */
	pages = end - start + 1;
	l->entries = pages ? (pages >> l->bfs) + ((pages & ((1ull << l->bfs) - 1)) != 0)
			   : UINT64_MAX;
	if (l->entries > ENTRIES_MAX)
		return layout_error(errbuf, errlen,
				    "%s..%s span 0x%" PRIx64 "..0x%" PRIx64 " is absurd"
				    " (more than 2^36 entries)",
				    reg_names[PT_GR_PT_START], reg_names[PT_GR_PT_END], start, end);

	if (l->base_system) {
		l->table_space = SP_SYSMEM;
		l->table_addr = BASE_ADDR(base);
	} else {
		/* BASE holds a VRAM physical address that includes FB_OFFSET (umr subtracts it). */
		if (BASE_ADDR(base) < l->fb_offset)
			return layout_error(errbuf, errlen,
					    "%s address 0x%" PRIx64 " is below %s 0x%" PRIx64,
					    reg_names[PT_GR_PT_BASE], BASE_ADDR(base),
					    reg_names[PT_GR_FB_OFFSET], l->fb_offset);
		l->table_space = SP_VRAM;
		l->table_addr = BASE_ADDR(base) - l->fb_offset;
	}

	l->va_start = start << 12;
	l->va_end = end << 12 | 0xfff;
	return PT_OK;
}

void pt_gart_space_bias(const struct pt_gart_layout *l, uint64_t bias[PT_CONTEXT_SPACES])
{
	for (unsigned i = 0; i < PT_CONTEXT_SPACES; i++)
		bias[i] = 0;
	/* amdgpu writes a vram page as offset + vram_base_offset, as it does BASE. */
	bias[SP_VRAM] = l->fb_offset;
}

void pt_gart_aperture(const struct pt_gart_layout *l, uint64_t va, struct pt_aperture *out)
{
	*out = (struct pt_aperture){.name = "none"};
	/* An aperture counts only when the registers bounding it were captured. */
	if (l->has[PT_GR_FB_BASE] && l->has[PT_GR_FB_TOP] &&
	    va >= l->fb_base && va <= l->fb_top) {
		out->name = "fb";
		out->hit = true;
		out->space = SP_VRAM;
		out->pa = va - l->fb_base;
		out->last = l->fb_top;
	} else if (l->has[PT_GR_AGP_BASE] && l->has[PT_GR_AGP_BOT] && l->has[PT_GR_AGP_TOP] &&
		   va >= l->agp_bot && va <= l->agp_top) {
		out->name = "agp";
		out->hit = true;
		out->space = SP_SYSMEM;
		out->pa = va - l->agp_bot + l->agp_base;
		out->last = l->agp_top;
	}
}

/* ---- the [gart NAME] context -------------------------------------------- */

static const struct pt_blob_kind gart_blob_kinds[] = {
	{"gart", 8},
	{NULL, 0},
};

/*
 * The context's data is its layout: the keys fill raw[] and has[], the
 * set-up decodes them in place.
 */
static pt_err gart_ctx_key(void *priv, const struct pt_ctx_key *k)
{
	struct pt_gart_layout *l = priv;

	for (int r = 0; r < PT_GR__COUNT; r++)
		if (!strcmp(k->key, reg_names[r])) {
			l->has[r] = true;
			return pt_ctx_key_uint(k, &l->raw[r]);
		}
	if (!strcmp(k->key, "gfx")) {
		/* The generation whose PTE layout the GART holds (default 9). */
		uint64_t v;
		pt_err rc = pt_ctx_key_uint(k, &v);

		if (rc)
			return rc;
		if (v < 9 || v > 12)
			return pt_ctx_key_fail(k, PT_E_VALUE, "gfx %" PRIu64 " in %s is not 9, 10, 11 or 12",
					       v, k->label);
		l->gfx = (unsigned)v;
		return PT_OK;
	}
	return PT_E_NOTFOUND;
}

static const char *gart_ctx_missing(const void *priv)
{
	static const enum pt_gart_reg req[] = {PT_GR_PT_BASE, PT_GR_PT_START, PT_GR_PT_END};
	const struct pt_gart_layout *l = priv;

	for (size_t i = 0; i < sizeof req / sizeof req[0]; i++)
		if (!l->has[req[i]])
			return reg_names[req[i]];
	return NULL;
}

void pt_gart_masked_warning(const struct pt_gart_layout *l, char *buf, size_t len)
{
	size_t off = 0;

	if (!buf || !len)
		return;
	buf[0] = 0;
	for (unsigned r = 0; r < PT_GR__COUNT && off < len; r++)
		if (l->masked & 1u << r)
			off += (size_t)snprintf(buf + off, len - off,
						"%s%s 0x%" PRIx64 " is wider than its field: the register"
						" holds 0x%" PRIx64, off ? "; " : "", reg_names[r],
						l->written[r], l->raw[r]);
}

static pt_err gart_ctx_setup(struct pt_context *ctx, char *err, size_t errlen)
{
	struct pt_gart_layout *l = ctx->priv;
	uint64_t raw[PT_GR__COUNT];
	bool has[PT_GR__COUNT];
	pt_err rc;

	unsigned gfx = l->gfx ? l->gfx : 9;

	memcpy(raw, l->raw, sizeof raw);
	memcpy(has, l->has, sizeof has);
	rc = pt_gart_layout_decode(raw, has, l, err, errlen);
	if (rc)
		return rc;
	l->gfx = gfx;
	if (gfx > 9) {
		l->fmt = pt_format_gart;
		l->fmt.decode = gfx == 12 ? gart_decode12 : gart_decode10;
		ctx->fmt = &l->fmt;
	}
	pt_gart_masked_warning(l, err, errlen);
	ctx->root_space = l->table_space;
	ctx->root_addr = l->table_addr;
	ctx->root_entries = l->entries;
	ctx->root_page_shift = 12 + l->bfs;
	ctx->va_base = l->va_start;
	ctx->va_last = l->va_end;
	pt_gart_space_bias(l, ctx->space_bias);
	return PT_OK;
}

const struct pt_gart_layout *pt_gart_of(const struct pt_context *ctx)
{
	return ctx->fmt == &pt_format_gart || (ctx->fmt && !strcmp(ctx->fmt->name, pt_format_gart.name))
	       ? ctx->priv : NULL;
}

static void gart_info_text(const struct pt_context *ctx, struct pt_buf *b)
{
	const struct pt_gart_layout *l = ctx->priv;
	const struct pt_format *fmt = ctx->fmt;

	/* A context built without registers (unit tests) has no layout lines. */
	if (!l || !l->page_size)
		return;
	for (int r = 0; r < PT_GR__COUNT; r++) {
		if (!l->has[r])
			continue;
		pt_buf_printf(b, "%s: 0x%" PRIx64, pt_gart_reg_name(r), l->raw[r]);
		if (l->masked & 1u << r)
			pt_buf_printf(b, " (written 0x%" PRIx64 ")", l->written[r]);
		pt_buf_puts(b, "\n");
	}
	if (l->gfx > 9)
		pt_buf_printf(b, "gfx: %u\n", l->gfx);
	pt_buf_printf(b, "table: %s:0x%" PRIx64 "\n", fmt->spaces[l->table_space], l->table_addr);
	pt_buf_printf(b, "block_fragment_size: %u\npage_size: 0x%" PRIx64 "\n", l->bfs, l->page_size);
	pt_buf_printf(b, "va_start: 0x%" PRIx64 "\nva_end: 0x%" PRIx64 "\nentries: %" PRIu64 "\n",
		      l->va_start, l->va_end, l->entries);
	if (l->has[PT_GR_FB_BASE] && l->has[PT_GR_FB_TOP])
		pt_buf_printf(b, "fb: 0x%" PRIx64 "-0x%" PRIx64 "\n", l->fb_base, l->fb_top);
	if (l->has[PT_GR_FB_OFFSET])
		pt_buf_printf(b, "fb_offset: 0x%" PRIx64 "\n", l->fb_offset);
	if (l->has[PT_GR_AGP_BOT] && l->has[PT_GR_AGP_TOP])
		pt_buf_printf(b, "agp: 0x%" PRIx64 "-0x%" PRIx64 " base 0x%" PRIx64 "\n",
			      l->agp_bot, l->agp_top, l->agp_base);
	if (l->has[PT_GR_SYS_LOW] && l->has[PT_GR_SYS_HIGH])
		pt_buf_printf(b, "system_aperture: 0x%" PRIx64 "-0x%" PRIx64 "\n", l->sys_low, l->sys_high);
}

static void gart_info_json(const struct pt_context *ctx, struct pt_jobj *o)
{
	const struct pt_gart_layout *l = ctx->priv;
	struct pt_jobj regs = {0}, written = {0};

	if (!l || !l->page_size)
		return;
	for (int r = 0; r < PT_GR__COUNT; r++)
		if (l->has[r])
			pt_jobj_hex(&regs, pt_gart_reg_name(r), l->raw[r]);
	pt_jobj_obj(o, "registers", &regs);
	if (l->masked) {
		/* Only the registers written wider than their fields: what was written. */
		for (int r = 0; r < PT_GR__COUNT; r++)
			if (l->masked & 1u << r)
				pt_jobj_hex(&written, pt_gart_reg_name(r), l->written[r]);
		pt_jobj_obj(o, "registers_written", &written);
	}
	pt_jobj_u(o, "block_fragment_size", l->bfs);
	pt_jobj_hex(o, "page_size", l->page_size);
	pt_jobj_hex(o, "va_start", l->va_start);
	pt_jobj_hex(o, "va_end", l->va_end);
	pt_jobj_u(o, "entry_count", l->entries);   /* a count; "entries" is decode's list */
	if (l->has[PT_GR_FB_BASE] && l->has[PT_GR_FB_TOP]) {
		pt_jobj_hex(o, "fb_base", l->fb_base);
		pt_jobj_hex(o, "fb_top", l->fb_top);
	}
	if (l->has[PT_GR_FB_OFFSET])
		pt_jobj_hex(o, "fb_offset", l->fb_offset);
	if (l->has[PT_GR_AGP_BOT] && l->has[PT_GR_AGP_TOP]) {
		pt_jobj_hex(o, "agp_bot", l->agp_bot);
		pt_jobj_hex(o, "agp_top", l->agp_top);
		pt_jobj_hex(o, "agp_base", l->agp_base);
	}
	if (l->has[PT_GR_SYS_LOW] && l->has[PT_GR_SYS_HIGH]) {
		pt_jobj_hex(o, "system_aperture_low", l->sys_low);
		pt_jobj_hex(o, "system_aperture_high", l->sys_high);
	}
}

/* Outside START..END the memory controller's fb and agp apertures decide. */
static void gart_out_of_range(const struct pt_context *ctx, uint64_t va, struct pt_aperture *out)
{
	const struct pt_gart_layout *l = ctx->priv;

	if (l && l->page_size)
		pt_gart_aperture(l, va, out);
}

/*
 * The inverse of gart_decode (ptfs-tool build): each field from E's fields
 * where E has it, else from the summary: valid for a mapped entry, system
 * for a sysmem page, the address from the page's bus address.
 */
static pt_err gart_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
			  size_t errlen)
{
	bool mapped = e->state == PT_ST_MAPPED;
	uint64_t addr = pt_entry_get(e, "address", mapped ? e->pa : 0), r;

	if (level != 0)
		return PT_E_UNSUPPORTED;
	if (addr & ~0x0000fffffffff000ull) {
		snprintf(err, errlen, "amd-gart: address 0x%" PRIx64 " is not a 4 KiB page below 2^48", addr);
		return PT_E_VALUE;
	}
	r = pt_entry_get(e, "valid", mapped) |
	    pt_entry_get(e, "system", mapped && e->space == SP_SYSMEM) << 1 |
	    pt_entry_get(e, "snooped", 0) << 2 | pt_entry_get(e, "tmz", 0) << 3 |
	    pt_entry_get(e, "executable", 0) << 4 | pt_entry_get(e, "readable", 0) << 5 |
	    pt_entry_get(e, "writeable", 0) << 6 | (pt_entry_get(e, "fragment", 0) & 0x1f) << 7 |
	    addr | pt_entry_get(e, "prt", 0) << 51 | (pt_entry_get(e, "sw", 0) & 3) << 52 |
	    pt_entry_get(e, "pte", 0) << 54 | pt_entry_get(e, "log", 0) << 55 |
	    pt_entry_get(e, "translate_further", 0) << 56 | (pt_entry_get(e, "mtype", 0) & 3) << 57 |
	    e->reserved_mask[0];
	pt_le64_store(raw, r);
	return PT_OK;
}

/*
 * ptfs-tool build: BASE names the table (a valid PDE: in vram its offset
 * plus FB_OFFSET<<24, as amdgpu_gmc_pd_addr() writes it), START and END
 * the mapped range in 4 KiB page numbers, unless the spec gives them.
 */
static void gart_build_keys(const struct pt_build_keys *k, struct pt_buf *ini)
{
	const char *fbo = k->get(k->ud, reg_names[PT_GR_FB_OFFSET]);
	uint64_t off = 0;

	if (fbo && pt_num_parse(fbo, PT_NUM_INI, &off))
		off = (off & 0xffffff) << 24;
	if (!k->get(k->ud, reg_names[PT_GR_PT_BASE]))
		pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", reg_names[PT_GR_PT_BASE],
			      (k->space == SP_SYSMEM ? k->root | 2 : k->root + off) | 1);
	if (!k->get(k->ud, reg_names[PT_GR_PT_START]))
		pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", reg_names[PT_GR_PT_START], k->va_lo >> 12);
	if (!k->get(k->ud, reg_names[PT_GR_PT_END]))
		pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", reg_names[PT_GR_PT_END], k->va_hi >> 12);
}

/*
 * ptfs-tool roots: CTX's registers as written and its generation, BASE
 * naming the table at ROOT (its valid, system and block fragment size
 * bits kept; in vram plus FB_OFFSET<<24).
 */
static void gart_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini)
{
	const struct pt_gart_layout *l = ctx->priv;
	uint64_t at = space == SP_SYSMEM ? root | 2 : root + l->fb_offset;

	for (int r = 0; r < PT_GR__COUNT; r++)
		if (l->has[r])
			pt_buf_printf(ini, "%s = 0x%" PRIx64 "\n", reg_names[r], r != PT_GR_PT_BASE ? l->written[r] :
				      (l->written[r] & ~(BASE_ADDR(UINT64_MAX) | 2)) | BASE_ADDR(at) | (at & 2));
	pt_buf_printf(ini, "gfx = %u\n", l->gfx ? l->gfx : 9);
}

const struct pt_format pt_format_gart = {
	.name = "amd-gart",
	.levels = gart_levels,
	.va_bits = 48,
	.va_digits = 12,
	.spaces = gart_spaces,
	.decode = gart_decode,
	.flags = pt_gart_flags,
	.kind_name = pt_gart_kind_name,
	.kind_field = "mtype",   /* the KIND column is the memory type */
	.blob_kinds = gart_blob_kinds,
	.ctx_section = "gart",
	.ctx_size = sizeof(struct pt_gart_layout),
	.ctx_key = gart_ctx_key,
	.ctx_missing = gart_ctx_missing,
	.ctx_setup = gart_ctx_setup,
	.info_text = gart_info_text,
	.info_json = gart_info_json,
	.out_of_range = gart_out_of_range,
	.encode = gart_encode,
	.build_keys = gart_build_keys,
	.geom_keys = gart_geom_keys,
};
