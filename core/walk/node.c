/* SPDX-License-Identifier: MIT */
/*
 * node.c — the tree's nodes: a node (a context and its path of (level,
 * index) steps) resolved to its table and entry through the walker's
 * tables (walk.c), with the last path each thread resolved kept; and the
 * names of nodes and VAs (`pml4/3/pdpt/0`, `0x...`), written by hand for
 * speed.  Calls walk.c, never called by it.
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "pt_num.h"
#include "pt_walk.h"
#include "walk_int.h"

bool pt_entry_is_dir(const struct pt_entry *e)
{
	return e->state == PT_ST_POINTER;
}

/* The target of E that points at level LEVEL, or -1. */
static int target_for_level(const struct pt_entry *e, int level)
{
	for (unsigned w = 0; w < 2; w++)
		if (e->target[w].present && e->target[w].level == level)
			return (int)w;
	return -1;
}

/*
 * The tables of the last path this thread resolved: consecutive lookups,
 * renders and entries lines are siblings or cousins, and each walked from
 * the root again (a third of a first `grep -r`).  Valid for ever: a
 * context's tables never change, and its serial is never reused -- except
 * in a live capture (a running guest), whose entries change under it:
 * there every path is walked from the root.
 * tables[k] is the table holding step k of steps[]; n steps are known.
 */
static _Thread_local struct {
	uint64_t serial;
	unsigned n;
	struct {
		int8_t level;
		uint64_t index;
	} steps[PT_MAX_DEPTH];
	struct pt_table tables[PT_MAX_DEPTH];
} resolved;

/* How many steps of NODE the cache has followed: tables[that] holds the next one. */
static unsigned resolved_prefix(const struct pt_node *node)
{
	unsigned k = 0;

	if (!node->ctx->serial || resolved.serial != node->ctx->serial || pt_capture_is_live(node->ctx->cap))
		return 0;
	/*
	 * tables[k + 1] serves once step k matches and leads to the same
	 * level: a dual entry leads to two tables (big and small pages).
	 */
	while (k < resolved.n && k + 1 < node->n && resolved.steps[k].level == node->s[k].level &&
	       resolved.steps[k].index == node->s[k].index &&
	       resolved.tables[k + 1].level == node->s[k + 1].level)
		k++;
	return k;
}

pt_err pt_node_resolve(const struct pt_node *node, struct pt_loc *out)
{
	struct pt_table t;
	unsigned from;

	if (!node || !node->ctx || node->n == 0 || node->n > PT_MAX_DEPTH)
		return PT_E_USAGE;
	from = resolved_prefix(node);
	if (from > 0) {
		t = resolved.tables[from];
	} else {
		pt_table_root(node->ctx, &t);
		resolved.serial = node->ctx->serial;
		resolved.tables[0] = t;
	}
	resolved.n = from;
	for (unsigned k = from;; k++) {
		uint64_t idx = node->s[k].index;
		struct pt_table child;
		int w;

		bool last = k + 1 == node->n, ok;

		if (node->s[k].level != t.level || idx >= t.entries)
			return PT_E_NOTFOUND;
		/* the entries on the way are only followed: their fields are never read */
		ok = pt_wk_read_flags(&t, idx, last ? 0 : PT_DECODE_SUMMARY, &out->entry);
		if (!ok)
			return PT_E_NOTFOUND;
		if (last) {
			pt_wk_place_state(&t, idx, &out->entry);
			out->table = t;
			out->index = idx;
			return PT_OK;
		}
		if (!pt_entry_is_dir(&out->entry))
			return PT_E_NOTFOUND;
		w = target_for_level(&out->entry, node->s[k + 1].level);
		if (w < 0 || !pt_table_child(&t, idx, &out->entry, (unsigned)w, &child) ||
		    child.cover == PT_COVER_NONE)
			return PT_E_NOTFOUND;
		t = child;
		/* step k is followed: tables[k + 1] is known */
		resolved.steps[k].level = node->s[k].level;
		resolved.steps[k].index = idx;
		resolved.tables[k + 1] = t;
		resolved.n = k + 1;
	}
}

/*
 * Appends S (N bytes) at OFF of BUF (LEN bytes) as snprintf would: what
 * fits, NUL-terminated; returns OFF + N, the length untruncated.
 */
static int put_trunc(char *buf, size_t len, size_t off, const char *s, size_t n)
{
	if (off < len) {
		size_t c = n < len - off ? n : len - off - 1;

		memcpy(buf + off, s, c);
		buf[off + c] = 0;
	}
	return (int)(off + n);
}

/* By hand (as snprintf("%s/%" PRIu64 ...)): every entries line and va/ link target has one. */
int pt_node_path(const struct pt_node *node, char *buf, size_t len)
{
	const struct pt_level *levels = node->ctx->fmt->levels;
	size_t off = 0;

	if (len)
		buf[0] = 0;
	for (unsigned k = 0; k < node->n; k++) {
		const char *name = levels[node->s[k].level].name;
		char num[24], *end = num + sizeof num, *p = pt_dec_before(end, node->s[k].index);

		if (k)
			off = (size_t)put_trunc(buf, len, off, "/", 1);
		off = (size_t)put_trunc(buf, len, off, name, strlen(name));
		off = (size_t)put_trunc(buf, len, off, "/", 1);
		off = (size_t)put_trunc(buf, len, off, p, (size_t)(end - p));
	}
	return (int)off;
}

bool pt_va_parse(const char *s, uint64_t *va)
{
	return pt_num_parse(s, PT_NUM_RULE, va);
}

/*
 * "0x" and at least va_digits hex digits, as snprintf("0x%0*" PRIx64)
 * (truncated to LEN like it), by hand: the snprintf of every va/ name was
 * a sixth of a first `find`'s daemon instructions (bench/README.md).
 */
int pt_va_name(const struct pt_format *fmt, uint64_t va, char *buf, size_t len)
{
	char tmp[2 + 64], *end = tmp + sizeof tmp;
	char *p = pt_hex_before(end, va, fmt->va_digits < 64 ? fmt->va_digits : 64);

	*--p = 'x';
	*--p = '0';
	return put_trunc(buf, len, 0, p, (size_t)(end - p));
}

