/* SPDX-License-Identifier: MIT */
/*
 * ini.h — the capture.ini parser (internal to core/, see man ptfs-capture(5)).
 *
 * Two layers:
 *  - pt_ini_parse() (ini.c): the lexical layer.  Text in, sections of key = value
 *    lines out, each with its line number.  Rejects NUL bytes, invalid UTF-8,
 *    over-long lines, control characters in values and lines that are not a
 *    section header, a key = value or a comment.
 *  - pt_manifest_build() (manifest.c): the capture.ini schema (version 1).  Checks every
 *    section and key and produces typed values: the format, the [memory]
 *    regions and the contexts (each format's own section, whose keys the
 *    format's ctx_key hook checks).
 *
 * Every error sets a one-line message that starts "capture.ini:LINE: ".
 * When several problems exist, the one on the lowest line is reported, so
 * the message never depends on anything but the text.
 */
#ifndef PT_INI_H
#define PT_INI_H

/* The include rule (HACKING.md, "Layers"): internal to core/load and core/sources, and the tests. */
#if !defined(PT_LAYER_LOAD) && !defined(PT_LAYER_SOURCES) && !defined(PT_TESTING)
#error "ini.h is internal to core/load and core/sources (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_capture.h"
#include "pt_error.h"
#include "pt_format.h"

#define PT_INI_MAX_LINE 4096              /* bytes per line, its LF or CRLF excluded */
#define PT_INI_MAX_SIZE (16u << 20)       /* bytes of a whole capture.ini */
#define PT_INI_MAX_NAME 255               /* bytes of a section name (a directory name) */

struct pt_ini_kv {
	char *key;
	char *value;
	unsigned line;
};

struct pt_ini_section {
	char *type;          /* "capture", "memory", ... */
	char *name;          /* NULL for [type] */
	unsigned line;       /* line of the header */
	struct pt_ini_kv *kv;
	size_t nkv;
};

struct pt_ini {
	struct pt_ini_section *sec;
	size_t nsec;
	unsigned nlines;
};

/*
 * Parses LEN bytes of TEXT.  On success *OUT is the parsed file (free with
 * pt_ini_free()).  On failure returns PT_E_SYNTAX, PT_E_VALUE or PT_E_NOMEM
 * with the message in ERR.
 */
pt_err pt_ini_parse(const char *text, size_t len, struct pt_ini **out,
		    char *err, size_t errlen);
void pt_ini_free(struct pt_ini *ini);

/* One [memory] section. */
struct pt_manifest_mem {
	const char *name;
	unsigned line;          /* header line */
	unsigned space;
	uint64_t base;
	const char *file;       /* as written */
	char *path;             /* normalised member path, relative to the capture root */
	unsigned file_line;     /* line of the file = key */
	/* The window into the member (offset =, length =): default all of it. */
	uint64_t offset;
	uint64_t length;        /* valid when has_length; else the rest from offset */
	bool has_length;
	unsigned offset_line, length_line;  /* 0 when the key is absent */
};

/* One context section: [SECTION NAME] of a format's ctx_section. */
struct pt_manifest_ctx {
	const char *name;
	unsigned line;
	const struct pt_format *fmt;  /* the format the section type names */
	void *priv;             /* fmt->ctx_size bytes its ctx_key hook filled; freed with the manifest */
	struct pt_kv *ann;      /* x- keys in file order */
	size_t nann;
	/* a device context an [iommu] section found (iommu.c): its name and origin, owned here */
	char *owned_name;
	struct pt_ctx_iommu *origin;
};

/*
 * One [iommu NAME] section (iommu.c, docs/design.md §2.7 "IOMMUs from the
 * top"): an IOMMU's registers, from which its device contexts are read
 * once memory is loaded.
 */
struct pt_manifest_iommu {
	const char *name;
	unsigned line;
	const struct pt_iommu_format *fam;  /* its IOMMU (pt_iommu_format.h) */
	uint64_t v[PT_IK__COUNT];      /* the registers (and max_contexts), by PT_IK_* */
	unsigned vline[PT_IK__COUNT];  /* their lines, 0: not given */
	const char *space, *output_space;   /* NULL: not given (sysmem) */
};

/*
 * Spaces of a capture: the union, by name, of its formats' spaces and of the
 * names [space NAME] sections and the space / output_space keys of context
 * sections give.  Ids are positions here: the [capture] format's spaces
 * first, in its order (so a one-format capture's ids are its format's).
 */
#define PT_CAPTURE_SPACES 32
struct pt_manifest_space {
	const char *name;
	unsigned line;          /* header line of its [space] section, 0: none */
	const char *translate;  /* translate = CTX of that section, NULL: none */
	unsigned translate_line;
};

struct pt_manifest {
	struct pt_ini *ini;     /* owns every string below */
	unsigned version;
	unsigned capture_line;
	const struct pt_format *fmt;
	const char *gpu;        /* NULL if absent */
	const char *description;
	struct pt_kv *ann;      /* x- keys of [capture] */
	size_t nann;
	struct pt_manifest_mem *mem;
	size_t nmem;
	struct pt_manifest_ctx *ctx;
	size_t nctx;
	struct pt_manifest_iommu *iommu;
	size_t niommu, iommucap;
	/*
	 * [memory NAME] dump = FILE: the capture's memory is a dump (an ELF
	 * core or a kdump file) beside capture.ini, read in place, its own
	 * contexts and spaces kept (load/dumpmem.c).  NULL: none.
	 */
	const char *dump;       /* as written */
	char *dump_path;        /* normalised, relative to the capture root */
	const char *dump_sec;   /* the section's name */
	unsigned dump_line;     /* line of the dump = key */
	/*
	 * system_map = FILE beside dump =: the dump's kernel's System.map
	 * (route c to its task list, core/linux/sysmap.c), opened by
	 * load/dumpmem.c as the dump is.  NULL: none.
	 */
	const char *system_map;         /* as written */
	char *system_map_path;          /* normalised, relative to the capture root */
	unsigned system_map_line;
	struct pt_manifest_space spaces[PT_CAPTURE_SPACES];
	unsigned nspaces;
	bool one_format;        /* every context section is of the [capture] format */
};

/* The id of space NAME in M, or -1 (lookup.c: a leaf every step of the load may call). */
int pt_manifest_space_find(const struct pt_manifest *m, const char *name);

/*
 * Validates INI against the version 1 schema.  On success *OUT owns INI.
 * On failure INI is freed, *OUT is NULL, and ERR holds the message of the
 * lowest-numbered line at fault.
 */
pt_err pt_manifest_build(struct pt_ini *ini, struct pt_manifest **out,
			 char *err, size_t errlen);
/* Parse + build in one call (TEXT need not be NUL-terminated). */
pt_err pt_manifest_parse(const char *text, size_t len, struct pt_manifest **out,
			 char *err, size_t errlen);
/*
 * The same for a capture.ini the loader writes for a source read natively
 * (a source read natively, core/sources/): its context sections may be of any format whose spaces
 * are those of `format` (a umr log's VMID0 GART beside GPUVM VMIDs).
 */
/*
 * pt_manifest_parse() (MIXED false) or pt_manifest_parse_mixed(); with
 * CTX_OPTIONAL a manifest with no context is no error (pt_load_opts
 * memory_only: the caller wants the memory alone).
 */
pt_err pt_manifest_parse_opts(const char *text, size_t len, bool mixed, bool ctx_optional,
			      struct pt_manifest **out, char *err, size_t errlen);
pt_err pt_manifest_parse_mixed(const char *text, size_t len, struct pt_manifest **out,
			       char *err, size_t errlen);
void pt_manifest_free(struct pt_manifest *m);

/* The keys of [iommu NAME] section S (iommu.c): appended to M->iommu; an error in ERR. */
pt_err pt_iommu_section(struct pt_manifest *m, const struct pt_ini_section *s, const unsigned *dup,
			char *err, size_t errlen);

/*
 * Integer value: decimal (no leading zero) or 0x hex, optional K/M/G
 * (binary) suffix, either case.  PT_E_VALUE on a malformed or >64-bit value.
 */
pt_err pt_ini_uint(const char *s, uint64_t *out);
/*
 * The tail of the message for S that pt_ini_uint() refused: ": a hex number
 * needs 0x (write 0xdeadbeef)" for hex digits without 0x, the forms
 * otherwise.  BUF (LEN bytes, 96 are enough) may hold it.
 */
const char *pt_ini_uint_why(const char *s, char *buf, size_t len);

/*
 * Normalises an archive member name in place: strips "./" prefixes and "."
 * components, folds repeated and trailing slashes.  Returns false for a name
 * that must never be used: absolute, with a ".." component, or empty after
 * normalising.
 */
bool pt_path_normalise(char *path);

/* Length of the valid UTF-8 sequence at P (at most N bytes, N > 0), 0 if invalid. */
size_t pt_utf8_len(const unsigned char *p, size_t n);

/* Sets ERR to "capture.ini:LINE: " + the message, control characters as \xNN. */
void pt_ini_set_error(char *err, size_t errlen, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* True if NAME is a valid section name: [A-Za-z0-9_.-]+, not "." or "..", <= 255 bytes. */
bool pt_ini_name_ok(const char *name);

#endif
