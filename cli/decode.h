/* SPDX-License-Identifier: MIT */
/*
 * decode.h — what the files of `ptfs-tool decode` share: decode.c
 * (options, --value, --blob, JSON), decode_oneline.c (--oneline) and
 * decode_entry.c (one entry: its level, decode and rendering), which the
 * other two call.
 */
#ifndef PT_CLI_DECODE_H
#define PT_CLI_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"

enum role {
	ROLE_AUTO = 0,   /* bit 0 picks leaf vs directory */
	ROLE_LEAF,
	ROLE_DIR,
	ROLE_DUAL,
};

struct decode_opts {
	const struct pt_format *fmt;
	enum role role;
	bool role_given;
	uint32_t level_mask;     /* rows allowed by --level/--levels; 0 = every row */
	unsigned esize;          /* bytes per entry */
	bool value;              /* --value (not a blob, whose stride is fixed) */
	bool json;
	bool skip_zero;          /* --skip-zero: blob entries whose bytes are all 0 are left out */
	bool table;              /* a blob without --level: one whole table of a level that fits */
	bool oneline;            /* --oneline: one line per blob entry (text) or one object per line (JSON) */
	uint32_t fit;            /* table: the rows the blob fits */
};

/* The level an entry is decoded at: the row PICK, LEVEL (-1: open, CANDS then), PAGE_SHIFT. */
struct pick {
	int pick, level;
	unsigned page_shift;
	const char *cands[PT_MAX_LEVELS + 1];
};

/* The rows that may hold the entry before bit 0 is looked at (decode_entry.c). */
uint32_t decode_base_rows(const struct decode_opts *o);
/* The level for an entry whose low 64 bits are LO (only bit 0 matters). */
void pick_level(const struct decode_opts *o, uint32_t rows, uint64_t lo, struct pick *pk);
/* Decodes LO/HI as PK says into E, with decode FLAGS (PT_DECODE_*). */
int decode_at(const struct decode_opts *o, const struct pick *pk, uint64_t lo, uint64_t hi,
	      unsigned flags, struct pt_entry *e);
/* Decodes one entry (LO/HI) at address PA and renders it into B. */
int decode_one(const struct decode_opts *o, uint32_t rows, uint64_t lo, uint64_t hi,
	       uint64_t pa, struct pt_buf *b);
/* Whether the N bytes at P are all zero. */
bool is_zero(const uint8_t *p, unsigned n);
/* Appends to OUT the JSON object OBJ (LEN bytes) with "index": I as its first key. */
void put_json_indexed(struct pt_buf *out, const char *obj, size_t len, size_t i);
/* --oneline: the COUNT entries of DATA at BASE, one line (or JSON object) each (decode_oneline.c). */
int decode_oneline(const struct decode_opts *o, uint32_t rows, const uint8_t *data,
		   size_t count, uint64_t base);

#endif
