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

/* The include rule (HACKING.md, "Layers"): the formats layer's, never included below it. */
#if defined(PT_LAYER_UTIL)
#error "pt_format.h belongs to core/formats: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"

#define PT_MAX_LEVELS 8     /* rows in a level table, sentinel excluded */
#define PT_MAX_DEPTH 7      /* walk steps on one root-to-leaf path: VER3 4K through a dual PDE0 (PD4..PD0, big, small) */
#define PT_MAX_FIELDS 48    /* named fields of one decoded entry */
#define PT_FLAGS_LEN 96     /* a leaf's flag words for maps/walk (VER3's five need 65 bytes) */

/* What an entry of a level can be. */
enum pt_role {
	PT_ROLE_DIR = 1,  /* 8-byte directory entry; may be a leaf where leaf_shift != 0 */
	PT_ROLE_DUAL,     /* 16-byte directory entry with two pointers (big and small pages), or a leaf */
	PT_ROLE_LEAF,     /* leaf entry: maps a page */
};

struct pt_level {
	const char *name;    /* directory name in the tree; NULL ends the table */
	uint8_t depth;       /* tables above this one on the path (root = 0) */
	uint8_t va_shift;    /* lowest VA bit this level indexes = log2 of one entry's span */
	uint8_t bits;        /* index bits; 0 = the entry count comes from the context (a flat table) */
	uint8_t entry_size;  /* bytes per entry: the table stride */
	uint8_t role;        /* enum pt_role */
	uint8_t leaf_shift;  /* for a DIR/DUAL level whose entry may be a page: its page shift; else 0 */
	int8_t child[2];     /* level index of the table an entry points at; a dual PDE: [0] big, [1] small; -1 none */
};

/* The state of one entry, printed as `state:` (pt_state_name()). */
enum pt_state {
	PT_ST_UNMAPPED = 0, /* "unmapped": raw value zero */
	PT_ST_INVALID,      /* "invalid": non-zero but not valid and no special encoding */
	PT_ST_SPARSE,       /* "sparse": not valid, but marked as a sparse (zero-reading) range */
	PT_ST_NO_VALID_4K,  /* "no_valid_4k": a big-page entry telling the MMU not to look at the small table */
	PT_ST_POINTER,      /* "pointer": a directory entry pointing at one or two tables */
	PT_ST_MAPPED,       /* "mapped": a valid leaf */
	PT_ST_UNSUPPORTED,  /* "unsupported": an encoding the format does not allow at this level */
	/*
	 * The two below are never set by a decoder: they depend on where the
	 * entry sits (core/walk.c), so that `state: mapped` is exactly the
	 * pages the walker resolves.
	 */
	PT_ST_SHADOWED,     /* "shadowed": a valid small-page leaf whose range the big entry of its dual entry decides */
	PT_ST_RESERVED_BITS,/* "reserved_bits": a valid leaf the walk refuses: it, or a pointer above it, has reserved bits */
	/*
	 * "replica": a leaf whose page is larger than its entry's span and
	 * which is not the page's first slot (AMD-Vi Next Level 7 pages are
	 * written into every slot they cover): the page is listed once, at
	 * its first slot; a walk through this slot still resolves it.
	 */
	PT_ST_REPLICA,
};
const char *pt_state_name(enum pt_state st);

/* How a field prints. Text: "key: value". JSON: see pt_render.h. */
enum pt_fkind {
	PT_FK_BIT = 1,   /* one bit: text 0/1, JSON false/true */
	PT_FK_UINT,      /* small unsigned: text decimal, JSON number */
	PT_FK_HEX,       /* unsigned: text 0x-lowercase hex, JSON "0x..." string */
	PT_FK_BOOL,      /* derived flag: text true/false, JSON true/false */
	PT_FK_STR,       /* text: the string; JSON: string; s == NULL prints "unknown" / null */
	PT_FK_HEX128,    /* 128-bit value in v (low) and v2 (high): "0x" + 32 hex digits */
};

/*
 * Not in the text rendering (is_pde_pointer; VER2's address_sys/address_vid
 * and their _big/_small twins: the aperture's reading is already `address`,
 * and one changed PA must diff as one line, not four).
 */
#define PT_FF_JSON_ONLY 0x1

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
#define PT_PERM_NO_READ        0x0020u  /* a readable bit is 0 */
#define PT_PERM_NO_WRITE       0x0040u  /* a writeable bit is 0 (so a write is denied) */
#define PT_PERM_EXEC           0x0080u  /* executable */
#define PT_PERM_SNOOPED        0x0100u  /* snooped (cache-coherent) */
#define PT_PERM_TMZ            0x0200u  /* trusted memory zone */
/* AArch64 (arm64): execute-never per exception level, and a Non-secure output */
#define PT_PERM_PXN            0x0400u  /* not executable at the privileged level (EL1) */
#define PT_PERM_UXN            0x0800u  /* not executable at the unprivileged level (EL0) */
#define PT_PERM_NS             0x1000u  /* the output is Non-secure (NS, or NSTable on the path) */

/*
 * Anomalies a decoder marks on an entry (pt_entry.anomalies); the scan
 * (core/walk.c) reports each under its pt_anomaly_kind name.  Reserved bits
 * are reserved_mask and an unsupported encoding is its state: not here.
 */
#define PT_EA_ZERO_BITS       0x1u  /* "encrypted": a bit documented "set to 0" is set (detail: its field = 1) */
#define PT_EA_KIND_UNKNOWN    0x2u  /* "kind_unknown": a memory kind id with no name */
#define PT_EA_KIND_NON_NATIVE 0x4u  /* "kind_non_native": a named kind the chip does not list as its own */
#define PT_EA_UNUSUAL_LEAF    0x8u  /* "unusual": a leaf where no driver writes one (a root-level huge page) */
#define PT_EA_UNUSUAL_POINTER 0x10u /* "unusual": a pointer no driver writes (to a one-entry table) */

/* A table an entry points at. */
struct pt_target {
	bool present;       /* the entry points at a table here */
	int8_t level;       /* index of the target level in the format's table */
	unsigned space;     /* space id of the table */
	uint64_t addr;      /* physical address of the table's first byte */
	/*
	 * Where the entry itself sets the size of the table below (e.g. a
	 * block-fragment size in a directory entry): log2 of one entry's span
	 * and the index bits (at most the level's); shift 0 = the level's.
	 */
	uint8_t shift;
	uint8_t bits;
	/*
	 * The table below holds pointers whose addresses are relative to it:
	 * a child pointer of that table is at (its table's address + the
	 * pointer's address), in the pointer's space, with no space_bias
	 * (umr: a gfx11+ PDE0 with tfs_addr set, read_vram.c).
	 */
	bool rel_children;
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
	bool address_complete;       /* false where the entry holds only part of the address */
	uint64_t page_size;          /* bytes; 0 where the entry alone cannot say */
	uint32_t perm;               /* PT_PERM_* */
	int kind;                    /* memory kind id, -1 where the format has none */
	bool anomaly;                /* a bit the MMU acts on is odd: a "set to 0" bit set, a valid leaf's kind */
	uint32_t anomalies;          /* PT_EA_*: what the scan reports about the entry */

	/* directory (state == PT_ST_POINTER): [0] the only/big table, [1] the small table */
	struct pt_target target[2];

	bool summary;                /* decoded with PT_DECODE_SUMMARY: no fields */
	unsigned nfields;
	struct pt_field fields[PT_MAX_FIELDS];
};

struct pt_buf;
struct pt_jobj;
struct pt_context;
struct pt_build_keys;
struct pt_root_rel;

/*
 * One key = value of a context section, handed to the format's ctx_key
 * hook.  LABEL is the section as written ("[NAME N]") for messages; ERR
 * receives the message through pt_ctx_key_fail() / pt_ctx_key_uint().
 */
struct pt_ctx_key {
	const char *key, *value;
	unsigned line;
	const char *label;
	char *err;
	size_t errlen;
};
/* Sets "capture.ini:LINE: MESSAGE" for K's line (formats/fmt_keys.c); returns RC. */
pt_err pt_ctx_key_fail(const struct pt_ctx_key *k, pt_err rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* K's value as an integer (the capture.ini number rules); PT_E_VALUE with the usual message. */
pt_err pt_ctx_key_uint(const struct pt_ctx_key *k, uint64_t *out);

/* A device entry an IOMMU's walk found, decoded (pt_iommu_format.h): the ctx_entry hook's. */
struct pt_ctx_entry;

/*
 * How a format's ctx_memory hook reads the capture's memory: READ copies
 * LEN bytes at PA of the capture's space SPACE (an id, pt_context_space())
 * into OUT and says whether every byte is captured (false: not captured,
 * OUT unspecified).  The load layer fills it (its pt_mem_read() and the
 * context's memory as OPAQUE).
 */
struct pt_ctx_reader {
	bool (*read)(const void *opaque, unsigned space, uint64_t pa, void *out, size_t len);
	const void *opaque;
};

/* Where a VA outside a context's VA space goes (out-of-range hook). */
struct pt_aperture {
	const char *name;     /* static: the aperture's name, e.g. "none" */
	bool hit;             /* the VA reaches memory there */
	unsigned space;       /* where (hit only) */
	uint64_t pa;          /* address in SPACE (hit only) */
	uint64_t last;        /* the aperture's last VA, inclusive (hit only) */
};

/*
 * A PT_PERM_* bit and the entry field behind it, as "FIELD=V": the field
 * holds V when the bit is set (audit prints it as the reason, diff names
 * FIELD and its values: issue #34 item 4, one name for one field).
 */
struct pt_perm_name {
	uint32_t perm;        /* one PT_PERM_* bit; 0 ends the list */
	const char *name;
};

/* A short name for raw entries of one size (ptfs-tool decode --kind). */
struct pt_blob_kind {
	const char *name;     /* NULL ends the list */
	unsigned entry_size;  /* bytes */
};

struct pt_format {
	const char *name;                  /* the capture.ini `format` value */
	const struct pt_level *levels;     /* root first, ends with a {NULL} sentinel */
	unsigned va_bits;                  /* VA width in bits */
	unsigned va_digits;                /* hex digits of a va/ name: 13; 12; 16 (canonical) */
	/*
	 * VAs are canonical 64-bit addresses: bits 63..va_bits-1 all equal
	 * (x86-64: 48 or 57 significant bits).  The tables see a VA's low
	 * va_bits bits (its slot, pt_va_slot()); a VA that is not canonical
	 * faults `noncanonical` before any table is read.
	 */
	bool va_canonical;
	/*
	 * Top Byte Ignore (Arm TBI: TCR_EL1.TBI0/TBI1, the SMMUv3 CD's TBI;
	 * a context is one half, so one flag): the walk ignores bits 63:56 of
	 * a VA and walks it as bits 55:0 with bit 55 copied into 63:56 (Arm
	 * ARM D8.8 "Tagged addresses"), so the canonical check is on bits
	 * 55..va_bits-1; names (va/) stay the canonical, untagged VAs.
	 */
	bool va_tbi;
	/*
	 * No register says whether TBI is set (an arm64 dump holds no
	 * TCR_EL1): walked as clear, and a tagged VA that would walk with it
	 * set says so in its fault (pt_va_tbi_depends()).
	 */
	bool va_tbi_unknown;
	/*
	 * Rights a pointer passes down to everything below it (a CPU's
	 * writable and user ANDed, xd ORed along the path): the PT_PERM_*
	 * bits of perm_or_down set in a pointer's perm are set in every leaf
	 * below it, and the bits of perm_and_down clear in a pointer's perm are
	 * cleared in every leaf below it.  0, 0: a pointer passes nothing.
	 */
	uint32_t perm_or_down;
	uint32_t perm_and_down;
	/*
	 * A pointer may point more than one row down (AMD-Vi: a Next Level
	 * below the next one skips levels): a path's levels are then not
	 * implied by its length, and its child table is reached only by the
	 * VAs whose skipped levels' index bits are zero.
	 */
	bool skips_levels;
	const char *const *spaces;         /* space names, NULL-terminated; index = space id */
	/*
	 * Decodes the entry at level LEVEL (index into levels) from RAW (entry_size bytes,
	 * little-endian).  PAGE_SHIFT is the page shift a leaf level maps (the table
	 * says it; a flat table: the context's root_page_shift).  FLAGS: PT_DECODE_*
	 * (pass them to pt_entry_reset()).  Returns PT_E_UNSUPPORTED for a level the
	 * format does not have.
	 */
	pt_err (*decode)(unsigned level, unsigned page_shift, const uint8_t *raw, unsigned flags,
			 struct pt_entry *out);
	/*
	 * The flag words of a leaf for `maps` into BUF (PT_FLAGS_LEN bytes: whole words only if shorter).
	 * Where the decoder sets a kind (>= 0), this and kind_name read only perm and kind
	 * (decode --oneline asks once per perm and kind).
	 */
	void (*flags)(const struct pt_entry *e, char *buf, size_t len);
	/* Kind column of a leaf for `maps` ("-" where the format has none) into BUF. */
	void (*kind_name)(const struct pt_entry *e, char *buf, size_t len);

	/* --kind names of raw entries (ptfs-tool decode), NULL-name terminated. */
	const struct pt_blob_kind *blob_kinds;

	/*
	 * The context: capture.ini section type (`[ctx_section NAME]`), and
	 * ctx_size bytes of per-context data (zeroed, aligned for any type,
	 * owned by the capture, freed with it through ctx_free) that the hooks
	 * below fill.
	 */
	const char *ctx_section;
	size_t ctx_size;
	/*
	 * One key of the section (x- keys are the core's): PT_OK, an error with
	 * its message set through K, or PT_E_NOTFOUND for a key the format does
	 * not know (the core reports "unknown key").
	 */
	pt_err (*ctx_key)(void *priv, const struct pt_ctx_key *k);
	/*
	 * Instead of ctx_key and ctx_missing, for a context an IOMMU's walk
	 * makes (NULL: the format makes none): fills the data from entry E.
	 * PT_OK, or an error with its message in ERR (no "capture.ini:LINE:"
	 * prefix).
	 */
	pt_err (*ctx_entry)(void *priv, const struct pt_ctx_entry *e, char *err, size_t errlen);
	/* After the last key: the first required key missing, or NULL. */
	const char *(*ctx_missing)(const void *priv);
	/*
	 * What ctx_key allocated inside the data (may be NULL: the core frees
	 * the data itself, after this).
	 */
	void (*ctx_free)(void *priv);
	/*
	 * At load, once memory is known: fills CTX's root_space, root_addr,
	 * root_entries, root_page_shift, va_base and space_bias from ctx->priv.
	 * Geometry that the context's registers choose (depth, index bits, VA
	 * width) is a descriptor of the context's own: the hook may point
	 * ctx->fmt at a copy of its descriptor kept in ctx->priv, with its own
	 * level table; everything reads a context's format through ctx->fmt.
	 * On failure a message without the "capture.ini:LINE:" prefix in ERR.
	 */
	pt_err (*ctx_setup)(struct pt_context *ctx, char *err, size_t errlen);
	/*
	 * The rest of the set-up where it reads the capture's memory (NULL:
	 * none): called after every context's ctx_setup, once the memory is
	 * sealed, ctx->mem set and the space ids bound (pt_context_space());
	 * it may replace what ctx_setup filled (arm-smmuv3: the geometry of a
	 * CD read from its CD table).  It reads the memory through RD, which
	 * the load layer passes in (a format calls nothing above it: HACKING.md,
	 * "Layers").  Messages as for ctx_setup (a warning in ERR on success).
	 */
	pt_err (*ctx_memory)(struct pt_context *ctx, const struct pt_ctx_reader *rd, char *err,
			     size_t errlen);
	/* Lines of the context's info file after the root lines (may be NULL). */
	void (*info_text)(const struct pt_context *ctx, struct pt_buf *b);
	/* The same as members of the info JSON object (may be NULL). */
	void (*info_json)(const struct pt_context *ctx, struct pt_jobj *o);
	/*
	 * A VA outside the context's VA space: where it goes instead.  NULL
	 * when such a VA simply faults (the walk then prints no aperture).
	 * A hit is a result (the memory controller translates it without the
	 * table: docs/design.md §2.2), not a fault; va/ still lists table mappings only.
	 */
	void (*out_of_range)(const struct pt_context *ctx, uint64_t va, struct pt_aperture *out);
	/*
	 * The format's fields behind the PT_PERM_* bits it sets, "FIELD=V"
	 * (struct pt_perm_name), so that an audit reason and a diff name grep
	 * as fields.  NULL: the generic names are the format's own (read_only,
	 * atomic_disable, privilege, volatile, encrypted; readable, writeable,
	 * executable, snooped, tmz: nv-gmmu-ver2, amd-gart, amd-gpuvm).
	 */
	const struct pt_perm_name *perm_names;
	/*
	 * The entry field kind_name() names, as the walk trace's label
	 * (`kind=`, `mtype=`), so every word of a trace is a field name
	 * (NULL: "kind").
	 */
	const char *kind_field;
	/*
	 * The inverse of decode, for ptfs-tool build (core/walk/build.c):
	 * writes the entry_size bytes of RAW for the entry E describes at
	 * LEVEL.  Every field the decoder prints is taken from E's fields
	 * where E has it (pt_entry_get()), else from E's summary (state, leaf,
	 * space, pa, page_size, target[]); E's reserved_mask bits are set as
	 * they are.  So encode(decode(x)) == x for any x, and a summary alone
	 * (what the builder gives, plus one-bit fields such as read_only)
	 * gives an entry that decodes to it.  PT_E_VALUE with a message in ERR
	 * when the summary has no encoding (an address too wide for the field,
	 * a space the level cannot point at).  NULL: the format is not built.
	 */
	pt_err (*encode)(unsigned level, const struct pt_entry *e, uint8_t *raw,
			 char *err, size_t errlen);
	/*
	 * The keys ptfs-tool build adds to a context section so that its root
	 * is the table the builder allocated (NULL: the format is not built).
	 */
	void (*build_keys)(const struct pt_build_keys *k, struct pt_buf *ini);
	/*
	 * ptfs-tool roots: the keys of a context section that walks exactly
	 * as CTX (a context of this format) does — its registers, levels and
	 * spaces, everything its walk depends on — but from the root table at
	 * ROOT in its space SPACE (a format space index), into INI.  NULL: build_keys with no
	 * spec keys (the format's own geometry).
	 */
	void (*geom_keys)(const struct pt_context *ctx, unsigned space, uint64_t root,
			  struct pt_buf *ini);
	/*
	 * ptfs-tool roots (core/walk/roots.c): what candidate root table CAND
	 * (at CAND_ADDR) is to REF, the root table of one of the capture's
	 * contexts (at REF_ADDR); both root-table bytes.  OTHER is the other
	 * table of CAND's aligned pair (CAND_ADDR ^ the table's size), NULL
	 * where not captured.  Sets OUT's kind (a static name, NULL: no rule
	 * relates them) and, where OTHER is CAND's twin, twin_kind.  NULL: the
	 * format has no such rule.
	 */
	void (*root_rule)(const uint8_t *ref, uint64_t ref_addr, const uint8_t *cand,
			  uint64_t cand_addr, const uint8_t *other, struct pt_root_rel *out);
	/*
	 * A process's address space (Linux's mm->pgd: core/linux, docs/design.md
	 * §3.4): the keys of a context of this format that walks as the CPU
	 * does in user mode, with the geometry of CTX, the kernel's context of
	 * this format (paging mode, granule, VA and output sizes, space), from
	 * the process's top table at PGD (a physical address in CTX's root
	 * space).  *ROOT: the table the CPU walks for user VAs, where that
	 * depends on the memory (x86-64 PTI's user copy) read through RD, which
	 * reads PGD's space whatever its space argument (NULL: PGD is that
	 * table); "key = value" lines into INI (may be NULL).
	 * False: no such context from CTX and PGD (CTX no kernel's: an arm64
	 * TTBR0 or stage-2 one; PGD not a table's address).  NULL: none ever.
	 */
	bool (*user_keys)(const struct pt_context *ctx, uint64_t pgd, const struct pt_ctx_reader *rd,
			  uint64_t *root, struct pt_buf *ini);
};

/* What a format's root_rule hook says of a candidate. */
struct pt_root_rel {
	const char *kind;        /* NULL: unrelated */
	const char *twin_kind;   /* non-NULL: OTHER is its twin, of this kind */
};

/* What a format's build_keys hook is told. */
struct pt_build_keys {
	unsigned space;          /* space id of the root table */
	uint64_t root;           /* its address (0 while the geometry is read) */
	uint64_t va_lo, va_hi;   /* the VAs the mappings cover, inclusive */
	/* A key of the spec's section as written, or NULL. */
	const char *(*get)(void *ud, const char *key);
	void *ud;
};

/* The format called NAME, or NULL. */
const struct pt_format *pt_format_find(const char *name);
/* The I-th format of the table (I from 0), or NULL past the end; the first is the default. */
const struct pt_format *pt_format_at(unsigned i);
/* The format whose contexts are [SECTION NAME] sections, or NULL. */
const struct pt_format *pt_format_by_section(const char *section);
/* "A, B" or "A or B" (SEP between all but the last pair) of every format's name into BUF. */
void pt_format_list(char *buf, size_t len, const char *sep, const char *last);
/* Number of levels in FMT's table (rows before the sentinel). */
unsigned pt_format_nlevels(const struct pt_format *fmt);
/* Space id of NAME in FMT, or -1. */
int pt_format_space(const struct pt_format *fmt, const char *name);
/* A leaf's maps/walk FLAGS words into BUF ("" where the format has none). */
void pt_format_flags(const struct pt_format *fmt, const struct pt_entry *e, char *buf, size_t len);
/*
 * The JSON key of the KIND column (walk, maps, diff): the decoder's own
 * name field for it, "<kind_field>_name" ("kind_name" without a kind_field),
 * so that a key means one thing in every output.  BUF of PT_KIND_KEY_LEN.
 */
#define PT_KIND_KEY_LEN 64
/*
 * A flags hook's words: NAMES[i] for each SET[i], joined by commas, "-"
 * when none is set, into BUF of LEN (a word that does not fit is cut).
 */
void pt_format_flag_words(char *buf, size_t len, const bool *set, const char *const *names,
			  size_t n);
void pt_format_kind_key(const struct pt_format *fmt, char *buf, size_t len);
/*
 * The entry field behind perm bit PERM in FMT into BUF, and in *INVERTED
 * whether the field is 0 when the bit is set.  GENERIC ("name=V") stands
 * where the format has no perm_names; false when the format names no
 * single field for the bit (arm64 stage 2's XN[1:0] gives two bits).
 */
bool pt_format_perm_field(const struct pt_format *fmt, uint32_t perm, const char *generic,
			  char *buf, size_t len, bool *inverted);
/* A leaf's KIND column into BUF ("-" where the format has none). */
void pt_format_kind(const struct pt_format *fmt, const struct pt_entry *e, char *buf, size_t len);

/*
 * Decode flags.  PT_DECODE_SUMMARY: the decoder fills the summary of
 * struct pt_entry (state, raw, reserved_mask, leaf, space, pa,
 * address_complete, page_size, perm, kind, anomaly, anomalies, target) and
 * no named field (nfields stays 0) — for loops that only classify entries
 * (a table listing) or print the summary (decode --oneline): the field
 * list is most of a decode's cost.  A decoder never reads its own fields
 * back, so it only passes FLAGS on to pt_entry_reset().
 */
#define PT_DECODE_SUMMARY 1u

/*
 * Helpers for decoders: append a field (silently stops at PT_MAX_FIELDS; asserts in debug).
 * Reset clears the summary, not the field array: fields past nfields are undefined;
 * FLAGS are the decode's (PT_DECODE_SUMMARY: the adders below add nothing).
 */
void pt_entry_reset(struct pt_entry *e, unsigned size, const uint8_t *raw, unsigned flags);
/* The out-of-line part of the adders below (a full decode only). */
void pt_entry_push(struct pt_entry *e, const char *key, enum pt_fkind kind, uint64_t v,
		   unsigned flags, const char *s);

/*
 * Inline so that a summary-only decode pays a test per field, not a call:
 * the calls were 10% of a first `find`'s daemon instructions (bench/README.md).
 */
static inline void pt_entry_add_flags(struct pt_entry *e, const char *key, enum pt_fkind kind,
				      uint64_t v, unsigned flags)
{
	if (!e->summary)
		pt_entry_push(e, key, kind, v, flags, NULL);
}

static inline void pt_entry_add(struct pt_entry *e, const char *key, enum pt_fkind kind, uint64_t v)
{
	if (!e->summary)
		pt_entry_push(e, key, kind, v, 0, NULL);
}

static inline void pt_entry_add_str(struct pt_entry *e, const char *key, const char *s)
{
	if (!e->summary)
		pt_entry_push(e, key, PT_FK_STR, 0, 0, s);
}

/*
 * The reserved bits every decoder reports last: sets E's reserved_mask to
 * LO (and HI, the high word of a 16-byte entry) and adds `reserved_bits`
 * (any set) and `reserved_mask` (HEX128 when WIDE, else HEX of LO).  One
 * helper so that every format's pair of fields reads the same.
 */
void pt_entry_add_reserved(struct pt_entry *e, uint64_t lo, uint64_t hi, bool wide);

/*
 * *DST = *SRC without the field slots past nfields (undefined anyway): a
 * struct copy moves the whole 2 KiB field array for every page listed.
 */
void pt_entry_copy(struct pt_entry *dst, const struct pt_entry *src);
/* The field called KEY, or NULL. */
const struct pt_field *pt_entry_field(const struct pt_entry *e, const char *key);
/* The value of E's field KEY, or DFLT when E has none (encoders: fields override the summary). */
uint64_t pt_entry_get(const struct pt_entry *e, const char *key, uint64_t dflt);

#endif
