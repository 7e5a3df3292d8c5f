/* SPDX-License-Identifier: MIT */
/*
 * src_umr_keys.h — the MMIO@ records of a umr log folded by address and
 * comment name (src_umr_keys.c).  Internal to the umr parser (src_umr.c).
 *
 * A snapshot needs one value per register (docs/design.md §3.2), so 20M
 * records must not cost 20M records (issue #26 item 4): what is kept per
 * address and name is its first value with its line (provenance), the
 * first different value with its line (the conflict a register that
 * changed between reads is), and how many records there were.
 */
#ifndef PT_SRC_UMR_KEYS_H
#define PT_SRC_UMR_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"

struct rec_mmio {
	uint64_t addr;
	uint32_t name;           /* offset in the name pool; 0: "" (no comment name) */
	uint32_t line;           /* the first record */
	uint32_t v0;             /* its first value */
	uint32_t v1, line1;      /* the first value != v0 and its record's line; line1 0: none */
	uint32_t count;          /* records folded */
};

struct umr_keys {
	struct rec_mmio *v;      /* in the order of their first records */
	size_t n, cap;
	size_t nrecords;         /* records before folding */
	char *names;             /* comment names, NUL-terminated, "" at 0 */
	size_t nnames, cnames;
	uint32_t *slot;          /* hash of v (index + 1; 0 empty), nslot a power of 2 */
	size_t nslot;
	uint32_t *nslotv;        /* hash of names (offset + 1) */
	size_t nnslot, nname;
};

/* Folds one record (values V[0..N), N >= 1) of ADDR, comment NAME ("" none), LINE. */
pt_err umr_keys_fold(struct umr_keys *k, uint64_t addr, const char *name, unsigned line,
		     const uint32_t *v, size_t n);
void umr_keys_free(struct umr_keys *k);

#endif
