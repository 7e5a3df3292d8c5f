/* SPDX-License-Identifier: MIT */
/*
 * pt_format.h — page-table formats as data: level descriptors, spaces, and a
 * per-format decoder behind an ops struct.
 *
 * Geometry lives in a const table of struct pt_level, root first, ending in a
 * sentinel row whose name is NULL.  The walker and the tree code loop over it
 * and never name a chip; a new format is a new table plus a decoder.
 *
 * Decoding is pure: raw little-endian bytes in, a struct pt_entry out.  The
 * decoder fills both the semantic summary (state, target, leaf PA...) that
 * the walker uses and the ordered list of named fields that the renderer
 * prints, so that the text, the JSON and the walk can never disagree.
 */
#ifndef PT_FORMAT_H
#define PT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"

#define PT_MAX_LEVELS 8     /* rows in a level table, sentinel excluded */
#define PT_MAX_DEPTH 6      /* tables on one root-to-leaf path */
#define PT_MAX_FIELDS 48    /* named fields of one decoded entry */

/* What an entry of a level can be. */
enum pt_role {
	PT_ROLE_PDE = 1,  /* 8-byte directory entry; may be a leaf where leaf_shift != 0 */
	PT_ROLE_DUAL,     /* 16-byte dual PDE (VER2 PD0): big and small pointers, or a leaf */
	PT_ROLE_PTE,      /* leaf page-table entry */
};

struct pt_level {
	const char *name;    /* directory name in the tree ("pde3", "pte_small"); NULL ends the table */
	uint8_t depth;       /* tables above this one on the path (root = 0) */
	uint8_t va_shift;    /* lowest VA bit this level indexes = log2 of one entry's span */
	uint8_t bits;        /* index bits; 0 = the entry count comes from the context (flat GART) */
	uint8_t entry_size;  /* bytes per entry: the table stride */
	uint8_t role;        /* enum pt_role */
	uint8_t leaf_shift;  /* for a PDE/DUAL level whose entry may be a page: its page shift (21); else 0 */
	int8_t child[2];     /* level index of the table an entry points at; a dual PDE: [0] big, [1] small; -1 none */
};

/* The state of one entry, printed as `state:` (pt_state_name()). */
enum pt_state {
	PT_ST_UNMAPPED = 0, /* "unmapped": raw value zero (GART: a zero PTE, a sink) */
	PT_ST_INVALID,      /* "invalid": non-zero but not valid and no special encoding */
	PT_ST_SPARSE,       /* "sparse": VER2 valid=0 & volatile=1 (PDE: aperture 0 & volatile 1) */
	PT_ST_NO_VALID_4K,  /* "no_valid_4k": VER2 big PTE valid=0 & privilege=1 */
	PT_ST_POINTER,      /* "pointer": a directory entry pointing at one or two tables */
	PT_ST_MAPPED,       /* "mapped": a valid leaf */
	PT_ST_UNSUPPORTED,  /* "unsupported": an encoding the format does not allow here (a PTE at PDE2) */
	/*
	 * The two below are never set by a decoder: they depend on where the
	 * entry sits (core/walk.c), so that `state: mapped` is exactly the
	 * pages the walker resolves.
	 */
	PT_ST_SHADOWED,     /* "shadowed": a valid small PTE whose 64 KiB range the big entry of its dual PDE decides */
	PT_ST_RESERVED_BITS,/* "reserved_bits": a valid leaf the walk refuses: it, or a pointer above it, has reserved bits */
};
const char *pt_state_name(enum pt_state st);

/* How a field prints. Text: "key: value". JSON: see pt_render.h. */
enum pt_fkind {
	PT_FK_BIT = 1,   /* one bit: text 0/1, JSON 0/1 */
	PT_FK_UINT,      /* small unsigned: text decimal, JSON number */
	PT_FK_HEX,       /* unsigned: text 0x-lowercase hex, JSON "0x..." string */
	PT_FK_BOOL,      /* derived flag: text true/false, JSON true/false */
	PT_FK_STR,       /* text: the string; JSON: string; s == NULL prints "unknown" / null */
	PT_FK_HEX128,    /* 128-bit value in v (low) and v2 (high): "0x" + 32 hex digits */
};

#define PT_FF_JSON_ONLY 0x1   /* not in the text rendering (is_pde_pointer) */

struct pt_field {
	const char *key;   /* static string */
	uint8_t kind;      /* enum pt_fkind */
	uint8_t flags;     /* PT_FF_* */
	uint64_t v;
	uint64_t v2;       /* high half for PT_FK_HEX128 */
	const char *s;     /* PT_FK_STR: static string or NULL */
};

/* Permission and attribute bits of a leaf, for walk results, audit and maps. */
#define PT_PERM_READ_ONLY      0x0001u
#define PT_PERM_ATOMIC_DISABLE 0x0002u
#define PT_PERM_PRIVILEGE      0x0004u
#define PT_PERM_VOLATILE       0x0008u
#define PT_PERM_ENCRYPTED      0x0010u
#define PT_PERM_NO_READ        0x0020u  /* GART: readable = 0 */
#define PT_PERM_NO_WRITE       0x0040u  /* GART: writeable = 0 (so a write is denied) */
#define PT_PERM_EXEC           0x0080u  /* GART: executable */
#define PT_PERM_SNOOPED        0x0100u  /* GART: snooped */
#define PT_PERM_TMZ            0x0200u  /* GART: tmz */

/* A table an entry points at. */
struct pt_target {
	bool present;       /* the entry points at a table here */
	int8_t level;       /* index of the target level in the format's table */
	unsigned space;     /* space id of the table */
	uint64_t addr;      /* physical address of the table's first byte */
};

struct pt_entry {
	enum pt_state state;
	uint8_t size;                /* bytes decoded: 8 or 16 */
	uint64_t raw[2];             /* raw[0] = bytes 0..7, raw[1] = bytes 8..15 (0 for 8-byte entries) */
	uint64_t reserved_mask[2];   /* set bits no named field covers; non-zero is an anomaly */

	/* leaf (state == PT_ST_MAPPED) */
	bool leaf;
	unsigned space;              /* space id of the page */
	uint64_t pa;                 /* physical address of the page */
	bool address_complete;       /* false where the entry holds only part of the address (VER2 video/peer) */
	uint64_t page_size;          /* bytes; 0 where the entry alone cannot say */
	uint32_t perm;               /* PT_PERM_* */
	int kind;                    /* memory kind id, -1 where the format has none */
	bool anomaly;                /* a bit documented "set to 0" is set (VER2 encrypted), unknown kind... */

	/* directory (state == PT_ST_POINTER): [0] the only/big table, [1] the small table */
	struct pt_target target[2];

	unsigned nfields;
	struct pt_field fields[PT_MAX_FIELDS];
};

struct pt_format {
	const char *name;                  /* "nv-gmmu-ver2", "amd-gart" */
	const struct pt_level *levels;     /* root first, ends with a {NULL} sentinel */
	unsigned va_bits;                  /* 49; 48 for amd-gart */
	unsigned va_digits;                /* hex digits of a va/ name: 13; 12 */
	const char *const *spaces;         /* space names, NULL-terminated; index = space id */
	/*
	 * Decodes the entry at level LEVEL (index into levels) from RAW (entry_size bytes,
	 * little-endian).  PAGE_SHIFT is the page shift a PTE level maps (the table
	 * says it; flat GART: 12 + block fragment size).  Returns PT_E_UNSUPPORTED for a
	 * level the format does not have.
	 */
	pt_err (*decode)(unsigned level, unsigned page_shift, const uint8_t *raw,
			 struct pt_entry *out);
	/* Fixed-width flag columns of a leaf for `maps` into BUF (>= 48 bytes). */
	void (*flags)(const struct pt_entry *e, char *buf, size_t len);
	/* Kind column of a leaf for `maps` ("-" where the format has none) into BUF. */
	void (*kind_name)(const struct pt_entry *e, char *buf, size_t len);
};

extern const struct pt_format pt_format_ver2;
extern const struct pt_format pt_format_gart;
extern const struct pt_format pt_format_ver3;

/* The format called NAME, or NULL. */
const struct pt_format *pt_format_find(const char *name);
/* Number of levels in FMT's table (rows before the sentinel). */
unsigned pt_format_nlevels(const struct pt_format *fmt);
/* Space id of NAME in FMT, or -1. */
int pt_format_space(const struct pt_format *fmt, const char *name);

/* Helpers for decoders: append a field (silently stops at PT_MAX_FIELDS; asserts in debug). */
void pt_entry_reset(struct pt_entry *e, unsigned size, const uint8_t *raw);
void pt_entry_add(struct pt_entry *e, const char *key, enum pt_fkind kind, uint64_t v);
void pt_entry_add_str(struct pt_entry *e, const char *key, const char *s);
void pt_entry_add_flags(struct pt_entry *e, const char *key, enum pt_fkind kind,
			uint64_t v, unsigned flags);
/* The field called KEY, or NULL. */
const struct pt_field *pt_entry_field(const struct pt_entry *e, const char *key);

/* VER2 kinds (core/kinds_tu104.c, from reference/tu104-kinds.tsv). */
const char *pt_ver2_kind_name(unsigned kind);   /* NULL for an id with no name */
bool pt_ver2_kind_native(unsigned kind);        /* 0x00..0x0f */

#endif
