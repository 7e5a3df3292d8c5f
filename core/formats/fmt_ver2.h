/* SPDX-License-Identifier: MIT */
/*
 * fmt_ver2.h — the nv-gmmu-ver2 format's own declarations, for
 * core/fmt_ver2.c, core/kinds_tu104.c and their unit tests.  Nothing else in
 * core/, fs/ or cli/ includes this: the rest of ptfs reaches the format
 * through struct pt_format.
 */
#ifndef PT_FMT_VER2_H
#define PT_FMT_VER2_H

/* The include rule (HACKING.md, "Layers"): internal to core/formats, and the tests. */
#if !defined(PT_LAYER_FORMATS) && !defined(PT_TESTING)
#error "fmt_ver2.h is internal to core/formats (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "pt_capture.h"
#include "pt_format.h"

extern const struct pt_format pt_format_ver2;

/* A [pdb NAME] section (the context's priv). */
struct pt_ver2_ctx {
	unsigned space;           /* space id of the page directory base */
	uint64_t address;         /* its address, 4 KiB aligned */
	uint64_t big_page_size;   /* 65536 (the default; 128K is refused) */
	bool have_space, have_address;
};

/*
 * The keys every NVIDIA [pdb] section has — space, address, big_page_size —
 * into C (shared by reference with later GMMU versions, as nouveau shares
 * its gf100/gp100 functions).  FMT names the spaces, GEN ("VER2", "VER3")
 * the version in messages; BIG_128_KNOWN: 128K is a big page size the
 * hardware has but ptfs does not support (E_UNSUPPORTED), else E_VALUE.
 * PT_E_NOTFOUND for any other key.
 */
pt_err pt_nv_pdb_key(struct pt_ver2_ctx *c, const struct pt_ctx_key *k,
		     const struct pt_format *fmt, const char *gen, bool big_128_known);

/* ptfs-tool build: a [pdb] section's root keys (both NVIDIA formats). */
struct pt_build_keys;
struct pt_buf;
void pt_nv_build_keys(const struct pt_build_keys *k, struct pt_buf *ini);
/* ptfs-tool roots: a [pdb] section that walks as CTX from ROOT (space, address, big_page_size). */
void pt_nv_geom_keys(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini);

/* The [pdb] data of a loaded context (its ctx->priv). */
const struct pt_ver2_ctx *pt_ver2_of(const struct pt_context *ctx);

/* VER2 kinds (core/kinds_tu104.c, from core/formats/kinds_tu104.tsv). */
const char *pt_ver2_kind_name(unsigned kind);   /* NULL for an id with no name */
bool pt_ver2_kind_native(unsigned kind);        /* 0x00..0x0f */

#endif
