/* SPDX-License-Identifier: MIT */
/*
 * pt_build.h — page tables built from a list of mappings (ptfs-tool build;
 * core/walk/build.c): the walker's inverse.
 *
 * The builder takes contexts already set up (their formats, level tables
 * and root geometry come from capture.ini keys, exactly as at load), places
 * each mapping with the largest page the level table allows at its VA and
 * PA alignment, allocates the tables it needs in the context's root space
 * (by its capture name: a guest's `space = gpa`; a translated space's
 * tables are mapped by its translator at pt_build_finish()), and writes every entry with the format's encode hook.  Each written entry
 * is decoded again and must say what was asked: a format whose encoder
 * does not invert its decoder fails here, not in a user's walk.
 */
#ifndef PT_BUILD_H
#define PT_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "pt_capture.h"

struct pt_build;

/* The memory of one captured space the builder wrote: tables from BASE on. */
struct pt_build_blob {
	const char *space;     /* the space's capture name (the builder's until pt_build_free) */
	uint64_t base;
	uint64_t size;         /* a multiple of 4 KiB */
	const uint8_t *data;
};

struct pt_build *pt_build_new(void);
void pt_build_free(struct pt_build *b);

/*
 * Tables of space SPACE (a name: contexts of several formats share a space
 * of that name) are allocated from BASE (4 KiB aligned) up.  A space not
 * named here starts at 1 MiB.
 */
pt_err pt_build_space(struct pt_build *b, const char *space, uint64_t base);

/*
 * Adds CTX (set up from its section; its root address is ignored) and
 * allocates its root table in CTX's root space: the address, to write into
 * the context's keys, in *ROOT.  Returns the context's handle in *ID.
 */
pt_err pt_build_context(struct pt_build *b, const struct pt_context *ctx, uint64_t *root,
			unsigned *id, char *err, size_t errlen);

/*
 * Maps [VA, VA + SIZE) of context ID to [PA, PA + SIZE) of SPACE (a space
 * name of the context's format), each page carrying the one-bit leaf fields
 * FLAGS (NFLAGS names, as maps prints them).  SPACE is a name the context
 * has in its capture (pt_context_space_name()).  Pages are as large as the
 * levels and the alignment of VA and PA allow.  Mappings must not overlap.
 */
pt_err pt_build_map(struct pt_build *b, unsigned id, uint64_t va, uint64_t size,
		    const char *space, uint64_t pa, const char *const *flags, size_t nflags,
		    char *err, size_t errlen);

/*
 * Maps each translated space's tables through its translator (the
 * translator's page space gets their bytes: no blob is a translated
 * space's), encodes every entry (the format's encode hook) and checks each
 * by decoding it again.  Then the blobs are final.
 */
pt_err pt_build_finish(struct pt_build *b, char *err, size_t errlen);
size_t pt_build_blob_count(const struct pt_build *b);
const struct pt_build_blob *pt_build_blob(const struct pt_build *b, size_t i);

#endif
