/* SPDX-License-Identifier: MIT */
/*
 * diff_tables.c — the second half of `ptfs-tool diff`: per level, the
 * tables only in A, only in B, and rewritten in place (same address,
 * other bytes) between two captures of one context, each found by a walk
 * of its tables hashed; changes a mapping-level diff cannot see (a table
 * moved, rewritten with the same translations).  diff.c calls in here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff.h"
#include "pt_vec.h"

struct tbl {
	int level;
	const char *space;
	uint64_t addr, hash;
};

struct tset {
	struct tbl *t;
	size_t n, cap;
	bool over;
};

/* Tables compared per context: past this the comparison says it stopped. */
#define DIFF_TABLES_MAX 65536

static bool tset_has(const struct tset *s, int level, const char *space, uint64_t addr)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].addr == addr && s->t[i].level == level && !strcmp(s->t[i].space, space))
			return true;
	return false;
}

/*
 * A table's contents: its listed (captured, non-zero) entries with their
 * indices, and how much of it is captured.  pt_table_next() skips zero and
 * uncaptured memory in O(non-zero), so a flat table of 2^36 entries with a
 * few captured pages hashes at once; at most PT_SCAN_ENTRIES_MAX entries
 * are read (a table past that compares by what was read).
 */
static uint64_t table_hash(const struct pt_table *t)
{
	uint64_t h = 1469598103934665603ull, idx = 0, n = 0;
	struct pt_entry e;

	h = (h ^ (uint64_t)t->cover) * 1099511628211ull;
	for (; n < PT_SCAN_ENTRIES_MAX && pt_table_next(t, &idx, false, 0, &e, NULL); idx++, n++) {
		uint64_t v[3] = {idx, e.raw[0], e.raw[1]};

		for (int k = 0; k < 3; k++)
			for (int by = 0; by < 8; by++) {
				h ^= (v[k] >> (8 * by)) & 0xff;
				h *= 1099511628211ull;
			}
	}
	return h;
}

static void tables_walk(const struct pt_table *t, struct tset *s, unsigned depth)
{
	const char *space = t->ctx->fmt->spaces[t->space];
	uint64_t idx = 0;
	struct pt_entry e;

	if (s->over || tset_has(s, t->level, space, t->addr) || t->cover == PT_COVER_NONE)
		return;
	if (s->n == DIFF_TABLES_MAX) {
		s->over = true;
		return;
	}
	if (!pt_vec_reserve(&s->t, &s->cap, s->n + 1, sizeof *s->t)) {
		s->over = true;
		return;
	}
	s->t[s->n++] = (struct tbl){t->level, space, t->addr, table_hash(t)};
	if (depth >= PT_MAX_DEPTH)
		return;
	for (; pt_table_next(t, &idx, false, 0, &e, NULL); idx++) {
		if (e.state != PT_ST_POINTER)
			continue;
		for (unsigned w = 0; w < 2; w++) {
			struct pt_table child;

			if (pt_table_child(t, idx, &e, w, &child))
				tables_walk(&child, s, depth + 1);
		}
	}
}

void cli_diff_tables(struct cli_ctxdiff *d, const struct pt_context *a, const struct pt_context *b)
{
	struct tset sa = {0}, sb = {0};
	struct pt_table root;

	pt_table_root(a, &root);
	tables_walk(&root, &sa, 0);
	pt_table_root(b, &root);
	tables_walk(&root, &sb, 0);
	if (sa.over || sb.over) {
		if (d->json) {
			pt_buf_puts(d->out, "{\"change\": \"tables\", \"context\": ");
			pt_json_escape(d->out, d->name);
			pt_buf_puts(d->out, ", \"compared\": false}\n");
		} else {
			pt_buf_printf(d->out, "%s tables not compared: more than %d\n", d->name,
				      DIFF_TABLES_MAX);
		}
		goto out;
	}
	for (unsigned l = 0; a->fmt->levels[l].name; l++) {
		unsigned only_a = 0, only_b = 0, rewritten = 0;

		for (size_t i = 0; i < sa.n; i++) {
			bool found = false;

			if (sa.t[i].level != (int)l)
				continue;
			for (size_t k = 0; k < sb.n; k++)
				if (sb.t[k].level == (int)l && sb.t[k].addr == sa.t[i].addr &&
				    !strcmp(sb.t[k].space, sa.t[i].space)) {
					found = true;
					rewritten += sb.t[k].hash != sa.t[i].hash;
				}
			only_a += !found;
		}
		for (size_t k = 0; k < sb.n; k++)
			if (sb.t[k].level == (int)l && !tset_has(&sa, (int)l, sb.t[k].space, sb.t[k].addr))
				only_b++;
		if (!only_a && !only_b && !rewritten)
			continue;
		if (d->json) {
			pt_buf_puts(d->out, "{\"change\": \"tables\", \"context\": ");
			pt_json_escape(d->out, d->name);
			pt_buf_puts(d->out, ", \"level\": ");
			pt_json_escape(d->out, a->fmt->levels[l].name);
			pt_buf_printf(d->out, ", \"only_in_a\": %u, \"only_in_b\": %u, \"rewritten\": %u}\n",
				      only_a, only_b, rewritten);
		} else {
			pt_buf_printf(d->out, "%s tables %s: %u only in A, %u only in B, %u rewritten in place\n",
				      d->name, a->fmt->levels[l].name, only_a, only_b, rewritten);
		}
	}
out:
	free(sa.t);
	free(sb.t);
}
