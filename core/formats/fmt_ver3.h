/* SPDX-License-Identifier: MIT */
/*
 * fmt_ver3.h — the nv-gmmu-ver3 format's own declarations, for
 * core/formats/fmt_ver3.c and its unit test (check_tests/test_ver3.c).
 * Nothing else includes this: the rest of ptfs reaches the format through
 * struct pt_format.
 */
#ifndef PT_FMT_VER3_H
#define PT_FMT_VER3_H

/* The include rule (HACKING.md, "Layers"): internal to core/formats, and the tests. */
#if !defined(PT_LAYER_FORMATS) && !defined(PT_TESTING)
#error "fmt_ver3.h is internal to core/formats (HACKING.md, Layers)"
#endif

#include <stdbool.h>

#include "pt_format.h"

extern const struct pt_format pt_format_ver3;

/* Space ids: index into the format's spaces.  peerN = SP_PEER0 + N (PTE PEER_ID). */
enum { SP_VIDMEM = 0, SP_SYSMEM = 1, SP_PEER0 = 2 };
/* The levels of gh100 and later (PD4..PD0, PTE big and small; a Hopper context has its own copy). */
extern const struct pt_level pt_ver3_levels[];
/* The encode hook (fmt_ver3_enc.c): the inverse of the decoder. */
pt_err pt_ver3_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
		      size_t errlen);

/* Level indices into pt_ver3_levels[]. */
enum {
	L_PDE4 = 0,
	L_PDE3,
	L_PDE2,
	L_PDE1,
	L_PDE0,
	L_PTE_BIG,
	L_PTE_SMALL,
	L_COUNT
};

/*
 * The chip families whose leaves differ.  ANY is the superset the decoder
 * uses while it has no context: it decodes what some VER3 chip allows, and
 * the context (capture.ini `chip`, formats-next.md §S.1) narrows it.
 */
enum ver3_family {
	VER3_FAMILY_ANY = 0,
	VER3_FAMILY_HOPPER,     /* gh100: RM kgmmuFmtInitLevels_GH10X */
	VER3_FAMILY_BLACKWELL,  /* every gb*: RM kgmmuFmtInitLevels_GB10X */
};

/* Whether an entry of LEVEL may be a PTE on FAMILY (fmt_ver3.c says where each rule comes from). */
bool pt_ver3_leaf_allowed(enum ver3_family family, unsigned level);

#endif
