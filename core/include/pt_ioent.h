/* SPDX-License-Identifier: MIT */
/*
 * pt_ioent.h — the entries of an IOMMU's own tables decoded into named
 * fields (core/formats/ioent.c): what the files of the IOMMU tree
 * (pt_tree.h, docs/design.md §2.7) show.  Every field is one bit range of
 * one 64-bit word of the entry, named as its specification names it
 * (lower case), each cited in ioent.c; ptfs-formats(7) lists them.
 */
#ifndef PT_IOENT_H
#define PT_IOENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_buf.h"

enum pt_ioent_type {
	PT_IOENT_VTD_ROOT,      /* VT-d legacy root entry, 128 bits */
	PT_IOENT_VTD_SMROOT,    /* VT-d scalable-mode root entry, 128 bits */
	PT_IOENT_VTD_CTX,       /* VT-d legacy context entry, 128 bits */
	PT_IOENT_VTD_SMCTX,     /* VT-d scalable-mode context entry, 256 bits */
	PT_IOENT_VTD_PASIDDIR,  /* VT-d PASID directory entry, 64 bits */
	PT_IOENT_VTD_PASID,     /* VT-d PASID table entry, 512 bits */
	PT_IOENT_AMD_DTE,       /* AMD-Vi device table entry, 256 bits */
	PT_IOENT_SMMU_L1STD,    /* SMMUv3 level-1 stream table descriptor, 64 bits */
	PT_IOENT_SMMU_STE,      /* SMMUv3 stream table entry, 512 bits */
	PT_IOENT_SMMU_CD,       /* SMMUv3 context descriptor, 512 bits */
	PT_IOENT__COUNT
};

/* One field: bits HI..LO of word WORD; ADDR: an address, shown in place (not shifted down). */
struct pt_iofield {
	const char *name;
	uint8_t word, hi, lo;
	bool addr;
};

/* Largest entry, in 64-bit words (512 bits). */
#define PT_IOENT_MAX_WORDS 8

/* What the entry is called ("legacy context entry"). */
const char *pt_ioent_name(enum pt_ioent_type t);
/* Its size in 64-bit words. */
unsigned pt_ioent_words(enum pt_ioent_type t);
/* Its fields, in the order they are shown; *N their number. */
const struct pt_iofield *pt_ioent_fields(enum pt_ioent_type t, size_t *n);
/* The value of field F of entry W. */
uint64_t pt_ioent_get(const uint64_t *w, const struct pt_iofield *f);
/* The value of the field named NAME of entry W (UINT64_MAX when T has none). */
uint64_t pt_ioent_field(enum pt_ioent_type t, const uint64_t *w, const char *name);
/* Whether entry W is present (valid), as the hardware reads it. */
bool pt_ioent_present(enum pt_ioent_type t, const uint64_t *w);
/*
 * What a present entry does to a DMA request: "pass-through",
 * "second-level", "first-level", "nested", "abort", "bypass", "stage1",
 * "stage2", "host", "reserved", ...; NULL for an entry that only points at a
 * table (root, PASID directory, L1STD).
 */
const char *pt_ioent_translation(enum pt_ioent_type t, const uint64_t *w);
/* Bits set in word I of W that the specification reserves (0: none known). */
uint64_t pt_ioent_reserved(enum pt_ioent_type t, const uint64_t *w, unsigned i);
/*
 * Appends the entry as `key: value` lines: `word0: 0x…` per word, every
 * field (`did: 0x2`), `reserved:` (the words with reserved bits set, or
 * none) and, where it has one, `translation:`.
 */
void pt_ioent_render(struct pt_buf *b, enum pt_ioent_type t, const uint64_t *w);

#endif
