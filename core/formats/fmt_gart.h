/* SPDX-License-Identifier: MIT */
/*
 * fmt_gart.h — the amd-gart format's own declarations, for core/fmt_gart.c
 * and its unit tests.  Nothing else in core/, fs/ or cli/ includes this:
 * the rest of ptfs reaches the format through struct pt_format.
 */
#ifndef PT_FMT_GART_H
#define PT_FMT_GART_H

/* The include rule (HACKING.md, "Layers"): internal to core/formats, and the tests. */
#if !defined(PT_LAYER_FORMATS) && !defined(PT_TESTING)
#error "fmt_gart.h is internal to core/formats (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_capture.h"
#include "pt_format.h"

extern const struct pt_format pt_format_gart;

/* AMD GART registers of one [gart] section: raw values as written. */
enum pt_gart_reg {
	PT_GR_PT_BASE = 0,       /* VM_CONTEXT0_PAGE_TABLE_BASE_ADDR (required) */
	PT_GR_PT_START,          /* VM_CONTEXT0_PAGE_TABLE_START_ADDR (required) */
	PT_GR_PT_END,            /* VM_CONTEXT0_PAGE_TABLE_END_ADDR (required) */
	PT_GR_FB_BASE,           /* MC_VM_FB_LOCATION_BASE */
	PT_GR_FB_TOP,            /* MC_VM_FB_LOCATION_TOP */
	PT_GR_FB_OFFSET,         /* MC_VM_FB_OFFSET */
	PT_GR_AGP_BASE,          /* MC_VM_AGP_BASE */
	PT_GR_AGP_BOT,           /* MC_VM_AGP_BOT */
	PT_GR_AGP_TOP,           /* MC_VM_AGP_TOP */
	PT_GR_SYS_LOW,           /* MC_VM_SYSTEM_APERTURE_LOW_ADDR */
	PT_GR_SYS_HIGH,          /* MC_VM_SYSTEM_APERTURE_HIGH_ADDR */
	PT_GR__COUNT
};
/* The register's name as written in capture.ini. */
const char *pt_gart_reg_name(enum pt_gart_reg r);

/* Register values decoded by the rules of docs/design.md §2.2 (core/fmt_gart.c). */
struct pt_gart_layout {
	uint64_t base_raw;        /* PAGE_TABLE_BASE_ADDR as written */
	bool base_valid;          /* its bit 0 */
	bool base_system;         /* its bit 1: the table is in sysmem */
	unsigned bfs;             /* block fragment size, bits 63:59 */
	uint64_t table_addr;      /* table address in its space (vram: BASE[47:12] - FB_OFFSET<<24) */
	unsigned table_space;     /* space id of the table */
	uint64_t page_size;       /* 4096 << bfs */
	uint64_t va_start;        /* START << 12 */
	uint64_t va_end;          /* (END << 12) | 0xfff, inclusive */
	uint64_t entries;         /* (va_end - va_start + 1) / page_size */
	bool has[PT_GR__COUNT];   /* which registers were given */
	uint64_t raw[PT_GR__COUNT];      /* the register: the written value masked to its field */
	uint64_t written[PT_GR__COUNT];  /* as written (capture.ini, umr MMIO@, gem5) */
	unsigned masked;                 /* bit r: written[r] had bits outside the field */
	uint64_t fb_base, fb_top, fb_offset;          /* decoded; top inclusive */
	uint64_t agp_base, agp_bot, agp_top;          /* decoded; top inclusive */
	uint64_t sys_low, sys_high;                   /* decoded: [29:0] << 18 */
	unsigned gfx;                 /* the PTE layout's generation ([gart] gfx = N; 9 by default) */
	struct pt_format fmt;         /* gfx > 9: the context's descriptor (its decoder) */
};

/*
 * The field of register R (docs/design.md §2.2): START/END 36-bit page numbers
 * (LOGICAL_PAGE_NUMBER_LO32 + _HI4), FB/AGP [23:0], SYSTEM_APERTURE [29:0],
 * BASE all 64 bits (a PDE-format value).
 */
uint64_t pt_gart_reg_mask(enum pt_gart_reg r);

/*
 * Decodes raw registers RAW/HAS into L (core/fmt_gart.c).  A value wider
 * than its register's field is masked to it (L->masked says which; the
 * hardware keeps only the field).  PT_E_VALUE when a
 * required register is missing, START > END, FB_LOCATION_TOP is below
 * FB_LOCATION_BASE, BASE holds no address, or a vram BASE lies below
 * FB_OFFSET<<24.  A BASE with
 * bit 0 clear but an address is accepted (gem5 clears bit 0 when it stores
 * the register, so co-simulation captures look like that; docs/design.md §2.2's
 * worked check uses 0x3EE600000); base_valid reports the bit.  The message
 * goes to ERRBUF (may be NULL).
 */
pt_err pt_gart_layout_decode(const uint64_t raw[PT_GR__COUNT], const bool has[PT_GR__COUNT],
			     struct pt_gart_layout *l, char *errbuf, size_t errlen);

/*
 * The warning for L's masked registers ("NAME 0xW is wider than its field:
 * the register holds 0xV; ..."), "" when none was, into BUF.
 */
void pt_gart_masked_warning(const struct pt_gart_layout *l, char *buf, size_t len);

/*
 * Where a VA outside the GART range goes (docs/design.md §2.2): name "fb", "agp" or
 * "none"; fb: vram, va - fb_base; agp: sysmem, va - agp_bot + agp_base.
 */
void pt_gart_aperture(const struct pt_gart_layout *l, uint64_t va, struct pt_aperture *out);

/*
 * Fills BIAS (PT_CONTEXT_SPACES values) with the GART's MC bias per space:
 * vram pages are written as MC addresses, vram offset + FB_OFFSET<<24
 * (docs/design.md §2.2); other spaces get 0.
 */
void pt_gart_space_bias(const struct pt_gart_layout *l, uint64_t bias[PT_CONTEXT_SPACES]);


/* The layout of a loaded amd-gart context (its ctx->priv). */
const struct pt_gart_layout *pt_gart_of(const struct pt_context *ctx);

/*
 * The maps FLAGS and KIND columns of an AMD leaf (amd-gart and amd-gpuvm:
 * the same permission bits and MTYPE field): set flags by their entry-file
 * names joined by ','; the MTYPE name, or "mtypeN" for a value without one.
 */
void pt_gart_flags(const struct pt_entry *e, char *buf, size_t len);
void pt_gart_kind_name(const struct pt_entry *e, char *buf, size_t len);

#endif
