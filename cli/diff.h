/* SPDX-License-Identifier: MIT */
/*
 * diff.h — what `ptfs-tool diff`'s two files share: one context pair's
 * output (diff.c) and the tables' comparison (diff_tables.c).
 */
#ifndef PT_CLI_DIFF_H
#define PT_CLI_DIFF_H

#include <stdbool.h>

#include "cli.h"

/* One context pair being compared: where its lines go, and how many it wrote. */
struct cli_ctxdiff {
	struct pt_buf *out;
	bool json;
	const char *name;
	const struct pt_format *fa, *fb;
	unsigned changes;
};

/* D's tables of A and B compared level by level: one line (or JSON object) per level that differs. */
void cli_diff_tables(struct cli_ctxdiff *d, const struct pt_context *a, const struct pt_context *b);

#endif
