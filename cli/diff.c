/* SPDX-License-Identifier: MIT */
/*
 * diff.c — `ptfs-tool diff A B [CONTEXT]`: what changed between two
 * captures at the mapping level, then, separately, tables that moved or were
 * rewritten without a mapping change.
 *
 * Mappings are compared as the runs of `maps` (core/runs.c), so where a
 * table lives, how a capture was taken (archive, umr log) and how pages are
 * split into tables do not matter: only what a VA resolves to.  Contexts are
 * matched by name; spaces by name, so two captures of one format compare
 * whatever their space ids.  The tables' comparison is diff_tables.c.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pt_vec.h"
#include "pt_runs.h"
#include "pt_fetchlines.h"
#include "diff.h"

static const char diff_help[] =
	"Usage: ptfs-tool diff [--json] [--fetch-lines] [--same-root-only] CAPTURE_A CAPTURE_B [CONTEXT]\n"
	"\n"
	"Prints what changed from A to B for CONTEXT (every context of both when\n"
	"none is named; contexts are matched by name), one line per VA run:\n"
	"  CONTEXT VA_START-VA_END SIZE removed|added SPACE PA PAGE FLAGS KIND\n"
	"  CONTEXT VA_START-VA_END SIZE remapped SPACE PA -> SPACE PA\n"
	"  CONTEXT VA_START-VA_END SIZE changed FIELD: OLD -> NEW, ...\n"
	"  CONTEXT only in A|B\n"
	"A context whose root table is elsewhere in B says so first:\n"
	"  CONTEXT root A SPACE:ROOT B SPACE:ROOT: different address spaces\n"
	"(\"the same mappings: the tables moved\" when nothing changed), then is\n"
	"compared all the same.  A Linux process (pidN) whose comm or address\n"
	"space (mm) differs in B says so first, and processes pair by pid and comm\n"
	"(a pid whose comm differs is only in A and only in B unless named):\n"
	"  # pidN: comm C in A, D in B: two different address spaces\n"
	"Then, after a line `# tables`, per context and level the tables only in\n"
	"A, only in B and rewritten in place (not mapping changes).  --json: one\n"
	"object per line.  Exit status 0 same mappings, 1 different, 2 error.\n"
	"\n"
	"  --same-root-only skip the contexts whose roots differ (their root line\n"
	"                   ends \"not compared\", and counts as a difference)\n"
	"  --fetch-lines    instead, the 128-byte table lines rewritten in place\n"
	"                   while an entry of the line was in use in A (a GMMU\n"
	"                   that cached the line goes on using its old bytes):\n"
	"  CONTEXT SPACE:LINE LEVEL: N rewritten of M entries, K in use in A\n"
	"    entry INDEX: OLD -> NEW va A VA_A B VA_B\n"
	"                   exit status 0 none, 1 some, 2 error.\n";

struct side {
	const struct pt_context *ctx;
	struct pt_run *r;
	size_t n;
};

static pt_err runs_load(const struct pt_context *ctx, struct side *s)
{
	struct pt_runs_filter f;
	struct pt_runs_iter it;
	struct pt_run run;
	size_t cap = 0;

	s->ctx = ctx;
	s->r = NULL;
	s->n = 0;
	if (!ctx)
		return PT_OK;
	pt_runs_filter_init(&f);
	pt_runs_init(&it, ctx, &f, NULL);
	while (pt_runs_next(&it, &run)) {
		if (!pt_vec_reserve(&s->r, &cap, s->n + 1, sizeof *s->r))
			return PT_E_NOMEM;
		s->r[s->n++] = run;
	}
	/* Fail closed: a cut-off list would report the rest as removed or added. */
	return it.truncated ? PT_E_UNSUPPORTED : PT_OK;
}

/*
 * The rights bits a run carries, with the generic "FIELD=V" names that
 * the formats without perm_names use as their own (nv-gmmu-ver2, amd-gart,
 * amd-gpuvm); every other format names its own fields
 * (pt_format_perm_field()), so that diff prints writable for x86-64
 * where the entry files say writable (issue #34 item 4).
 */
static const struct {
	uint32_t bit;
	const char *generic;
} perm_fields[] = {
	{PT_PERM_READ_ONLY, "read_only=1"},
	{PT_PERM_ATOMIC_DISABLE, "atomic_disable=1"},
	{PT_PERM_PRIVILEGE, "privilege=1"},
	{PT_PERM_VOLATILE, "volatile=1"},
	{PT_PERM_ENCRYPTED, "encrypted=1"},
	{PT_PERM_NO_READ, "readable=0"},
	{PT_PERM_NO_WRITE, "writeable=0"},
	{PT_PERM_EXEC, "executable=1"},
	{PT_PERM_SNOOPED, "snooped=1"},
	{PT_PERM_TMZ, "tmz=1"},
	{PT_PERM_PXN, "pxn=1"},
	{PT_PERM_UXN, "uxn=1"},
	{PT_PERM_NS, "ns=1"},
};

/*
 * The fields that differ between two runs of format FMT, text "f: a -> b,
 * ..." and JSON names.  A rights bit the format names no single field for
 * (arm64 stage 2's XN[1:0]) shows as the maps flag words, which are field
 * names, before and after.
 */
static void attr_diff(const struct pt_format *fmt, const struct pt_run *a, const struct pt_run *b,
		      struct pt_buf *txt, struct pt_buf *names)
{
	char x[24], y[24], field[64];
	bool unnamed = false;

	if (a->page_size != b->page_size) {
		pt_size_str(a->page_size, x, sizeof x);
		pt_size_str(b->page_size, y, sizeof y);
		pt_buf_printf(txt, "%spage_size: %s -> %s", txt->len ? ", " : "", x, y);
		pt_buf_printf(names, "%s\"page_size\"", names->len ? ", " : "");
	}
	for (size_t i = 0; i < sizeof perm_fields / sizeof perm_fields[0]; i++) {
		unsigned va = !!(a->perm & perm_fields[i].bit), vb = !!(b->perm & perm_fields[i].bit);
		bool inverted;

		if (va == vb)
			continue;
		if (!pt_format_perm_field(fmt, perm_fields[i].bit, perm_fields[i].generic, field,
					  sizeof field, &inverted)) {
			unnamed = true;
			continue;
		}
		if (inverted) {
			va = !va;
			vb = !vb;
		}
		pt_buf_printf(txt, "%s%s: %u -> %u", txt->len ? ", " : "", field, va, vb);
		pt_buf_printf(names, "%s\"%s\"", names->len ? ", " : "", field);
	}
	if (strcmp(a->kind, b->kind)) {
		/* the format's own word for it (mtype, memory_type_name, attr_index...), as maps --json */
		pt_format_kind_key(fmt, field, sizeof field);
		pt_buf_printf(txt, "%s%s: %s -> %s", txt->len ? ", " : "", field, a->kind, b->kind);
		pt_buf_printf(names, "%s\"%s\"", names->len ? ", " : "", field);
	}
	if ((unnamed || !txt->len) && strcmp(a->flags, b->flags)) {
		pt_buf_printf(txt, "%sflags: %s -> %s", txt->len ? ", " : "", a->flags, b->flags);
		pt_buf_printf(names, "%s\"flags\"", names->len ? ", " : "");
	}
}

enum chg { CHG_NONE, CHG_REMOVED, CHG_ADDED, CHG_REMAPPED, CHG_CHANGED };
static const char *const chg_name[] = {"", "removed", "added", "remapped", "changed"};

struct seg {
	enum chg type;
	uint64_t s, e;
	const struct pt_run *a, *b;   /* the runs under it (NULL where none) */
	uint64_t pa_a, pa_b;          /* PAs at s */
	char key[512];                /* what must be equal to merge (attributes, changed fields) */
	char fields[512];             /* JSON names of changed fields */
};

static const char *space_a(const struct cli_ctxdiff *d, const struct pt_run *r)
{
	return d->fa->spaces[r->space];
}

static const char *space_b(const struct cli_ctxdiff *d, const struct pt_run *r)
{
	return d->fb->spaces[r->space];
}

static void side_json(struct pt_buf *o, const char *key, const struct pt_format *fmt,
		      const char *space, uint64_t pa, const struct pt_run *r)
{
	struct pt_jobj j = {0};
	char kk[PT_KIND_KEY_LEN];

	/* the keys maps --json uses for the same run (ptfs-tool(1) JSON) */
	pt_format_kind_key(fmt, kk, sizeof kk);
	pt_jobj_flags(&j, "flags", r->flags);
	pt_jobj_str(&j, kk, r->kind);
	pt_jobj_hex(&j, "pa", pa);
	pt_jobj_hex(&j, "page_size", r->page_size);
	pt_jobj_str(&j, "space", space);
	pt_buf_printf(o, ", \"%s\": ", key);
	pt_jobj_finish(&j, o);
}

static void seg_emit(struct cli_ctxdiff *d, const struct seg *g)
{
	const struct pt_format *fmt = d->fb ? d->fb : d->fa;
	int w = (int)fmt->va_digits;
	char size[24], page[24];

	if (g->type == CHG_NONE)
		return;
	d->changes++;
	pt_size_str(g->e - g->s, size, sizeof size);
	if (d->json) {
		pt_buf_puts(d->out, "{\"change\": ");
		pt_json_escape(d->out, chg_name[g->type]);
		pt_buf_puts(d->out, ", \"context\": ");
		pt_json_escape(d->out, d->name);
		if (g->type == CHG_CHANGED || g->type == CHG_REMAPPED)
			pt_buf_printf(d->out, ", \"fields\": [%s]", g->fields);
		if (g->b)
			side_json(d->out, "new", d->fb, space_b(d, g->b), g->pa_b, g->b);
		if (g->a)
			side_json(d->out, "old", d->fa, space_a(d, g->a), g->pa_a, g->a);
		pt_buf_printf(d->out, ", \"size\": \"0x%" PRIx64 "\", \"va_end\": \"0x%" PRIx64
			      "\", \"va_start\": \"0x%" PRIx64 "\"}\n", g->e - g->s, g->e, g->s);
		return;
	}
	pt_buf_printf(d->out, "%s 0x%0*" PRIx64 "-0x%0*" PRIx64 " %6s %s", d->name, w, g->s, w,
		      g->e, size, chg_name[g->type]);
	switch (g->type) {
	case CHG_REMOVED:
	case CHG_ADDED: {
		const struct pt_run *r = g->a ? g->a : g->b;

		pt_size_str(r->page_size, page, sizeof page);
		pt_buf_printf(d->out, " %s 0x%016" PRIx64 " %s %s %s\n",
			      g->a ? space_a(d, r) : space_b(d, r), g->a ? g->pa_a : g->pa_b, page,
			      r->flags, r->kind);
		break;
	}
	case CHG_REMAPPED:
		pt_buf_printf(d->out, " %s 0x%016" PRIx64 " -> %s 0x%016" PRIx64 "%s%s\n",
			      space_a(d, g->a), g->pa_a, space_b(d, g->b), g->pa_b,
			      g->key[0] ? ", " : "", g->key);
		break;
	default:
		pt_buf_printf(d->out, " %s\n", g->key);
		break;
	}
}

/* Whether NEXT continues CUR: one change, VA and both PAs contiguous, same attributes. */
static bool seg_joins(const struct seg *cur, const struct seg *next)
{
	uint64_t off = next->s - cur->s;

	if (cur->type != next->type || cur->e != next->s || strcmp(cur->key, next->key))
		return false;
	if (!!cur->a != !!next->a || !!cur->b != !!next->b)
		return false;
	if (cur->a && (cur->a->space != next->a->space || cur->pa_a + off != next->pa_a ||
		       cur->a->page_size != next->a->page_size || strcmp(cur->a->flags, next->a->flags) ||
		       strcmp(cur->a->kind, next->a->kind)))
		return false;
	if (cur->b && (cur->b->space != next->b->space || cur->pa_b + off != next->pa_b ||
		       cur->b->page_size != next->b->page_size || strcmp(cur->b->flags, next->b->flags) ||
		       strcmp(cur->b->kind, next->b->kind)))
		return false;
	return true;
}

static void seg_classify(const struct cli_ctxdiff *d, struct seg *g)
{
	struct pt_buf txt, names;

	g->key[0] = g->fields[0] = 0;
	if (g->a)
		g->pa_a = g->a->pa + (g->s - g->a->va);
	if (g->b)
		g->pa_b = g->b->pa + (g->s - g->b->va);
	if (!g->b) {
		g->type = CHG_REMOVED;
		return;
	}
	if (!g->a) {
		g->type = CHG_ADDED;
		return;
	}
	pt_buf_init(&txt);
	pt_buf_init(&names);
	attr_diff(d->fb ? d->fb : d->fa, g->a, g->b, &txt, &names);
	snprintf(g->key, sizeof g->key, "%s", txt.data ? txt.data : "");
	if (strcmp(space_a(d, g->a), space_b(d, g->b)) || g->pa_a != g->pa_b) {
		g->type = CHG_REMAPPED;
		snprintf(g->fields, sizeof g->fields, "\"pa\"%s%s", names.len ? ", " : "",
			 names.data ? names.data : "");
	} else {
		g->type = txt.len ? CHG_CHANGED : CHG_NONE;
		snprintf(g->fields, sizeof g->fields, "%s", names.data ? names.data : "");
	}
	pt_buf_free(&txt);
	pt_buf_free(&names);
}

/* The last VA of R: its end - 1 (a run that ends at the top of a 64-bit space has end 0). */
static uint64_t run_last(const struct pt_run *r)
{
	return r->end - 1;
}

/*
 * The mapping changes of one context pair (both runs lists sorted by VA,
 * disjoint).  Segments are walked by their last VA, inclusive, so that a
 * run at the top of a canonical 64-bit space (end 0) compares as any other.
 */
static void mappings_diff(struct cli_ctxdiff *d, const struct side *A, const struct side *B)
{
	size_t i = 0, j = 0;
	uint64_t x = 0;
	struct seg cur = {0}, next;

	while (i < A->n || j < B->n) {
		const struct pt_run *a = i < A->n ? &A->r[i] : NULL;
		const struct pt_run *b = j < B->n ? &B->r[j] : NULL;
		uint64_t sa = a ? (a->va > x ? a->va : x) : UINT64_MAX;
		uint64_t sb = b ? (b->va > x ? b->va : x) : UINT64_MAX;
		uint64_t s = sa < sb ? sa : sb, l;
		bool ina = a && a->va <= s && s <= run_last(a), inb = b && b->va <= s && s <= run_last(b);

		if (ina && inb)
			l = run_last(a) < run_last(b) ? run_last(a) : run_last(b);
		else if (ina)
			l = b && b->va > s && b->va <= run_last(a) ? b->va - 1 : run_last(a);
		else
			l = a && a->va > s && a->va <= run_last(b) ? a->va - 1 : run_last(b);
		memset(&next, 0, sizeof next);
		next.s = s;
		next.e = l + 1;
		next.a = ina ? a : NULL;
		next.b = inb ? b : NULL;
		seg_classify(d, &next);
		if (cur.type != CHG_NONE && seg_joins(&cur, &next)) {
			cur.e = next.e;
		} else {
			seg_emit(d, &cur);
			cur = next;
		}
		if (a && run_last(a) <= l)
			i++;
		if (b && run_last(b) <= l)
			j++;
		if (l == UINT64_MAX)
			break;
		x = l + 1;
	}
	seg_emit(d, &cur);
}

/* ---- fetch lines ---------------------------------------------------------- */

struct fetchout {
	struct pt_buf *out;
	const char *name;
	unsigned va_digits;
	enum pt_out fmt;
	unsigned lines;
};

static int fetch_one(void *ud, const struct pt_fetch_line *l)
{
	struct fetchout *f = ud;

	pt_render_fetch_line(f->out, f->name, l, f->va_digits, f->fmt);
	f->lines++;
	return 0;
}

/* --fetch-lines for one context pair: a context in one capture only has no line in both. */
static int fetch_pair(struct pt_buf *out, bool json, const char *name, const struct pt_context *a,
		      const struct pt_context *b, unsigned *changes)
{
	struct fetchout f = {.out = out, .name = name, .fmt = json ? PT_OUT_JSON : PT_OUT_TEXT};
	const char *why;
	pt_err err;

	if (!a || !b || strcmp(a->fmt->name, b->fmt->name))
		return CLI_EXIT_OK;
	f.va_digits = a->fmt->va_digits;
	err = pt_fetch_lines(a, b, fetch_one, &f, &why, NULL);
	*changes += f.lines;
	if (err == PT_E_UNSUPPORTED)
		return cli_fail(err, "diff: %s: more than %" PRIu64 " %s: fetch lines not compared",
				name, !strcmp(why, "tables") ? (uint64_t)PT_FETCH_TABLES_MAX :
				PT_SCAN_ENTRIES_MAX, why);
	if (err != PT_OK)
		return cli_fail(err, "diff: %s", name);
	return CLI_EXIT_OK;
}

/* ---- command ------------------------------------------------------------- */

struct diffrun {
	struct pt_buf *out, *tables;
	bool json, fetch, same_root_only;
	unsigned changes;
};

/* Whether the root tables of A and B differ (space by name, address). */
static bool root_differs(const struct pt_context *a, const struct pt_context *b)
{
	return a->root_addr != b->root_addr || strcmp(pt_context_space_name(a, a->root_space),
						      pt_context_space_name(b, b->root_space));
}

enum root_verdict { ROOT_DIFFERENT, ROOT_MOVED, ROOT_SKIPPED };

static void root_side(struct pt_buf *o, const char *key, const struct pt_context *c)
{
	struct pt_jobj j = {0};

	pt_jobj_hex(&j, "root_address", c->root_addr);
	pt_jobj_str(&j, "root_space", pt_context_space_name(c, c->root_space));
	pt_buf_printf(o, ", \"%s\": ", key);
	pt_jobj_finish(&j, o);
}

/*
 * The line a context whose root moved starts with (issue #39 item 8): two
 * snapshots of a vCPU running two processes have two roots and two
 * unrelated trees, and every change under them says only that; the root
 * line says it once.  The keys are info's (root_address, root_space).
 */
static void root_note(struct pt_buf *out, bool json, const char *name, const struct pt_context *a,
		      const struct pt_context *b, enum root_verdict v)
{
	static const char *const why[] = {"different address spaces", "the same mappings (the tables moved)",
					  "different roots: not compared (--same-root-only)"};

	if (json) {
		pt_buf_printf(out, "{\"change\": \"root\", \"compared\": %s, \"context\": ",
			      v == ROOT_SKIPPED ? "false" : "true");
		pt_json_escape(out, name);
		root_side(out, "new", b);
		root_side(out, "old", a);
		pt_buf_printf(out, ", \"same_mappings\": %s}\n",
			      v == ROOT_SKIPPED ? "null" : v == ROOT_MOVED ? "true" : "false");
		return;
	}
	pt_buf_printf(out, "%s root A %s:0x%" PRIx64 " B %s:0x%" PRIx64 ": %s\n", name,
		      pt_context_space_name(a, a->root_space), a->root_addr,
		      pt_context_space_name(b, b->root_space), b->root_addr, why[v]);
}

static const char *ann_of(const struct pt_context *c, const char *key)
{
	for (size_t i = 0; c && i < c->nannotations; i++)
		if (!strcmp(c->annotations[i].key, key))
			return c->annotations[i].value;
	return NULL;
}

static void proc_side(struct pt_buf *o, const char *key, const char *comm, const char *mm)
{
	struct pt_jobj j = {0};

	pt_jobj_str(&j, "comm", comm);
	pt_jobj_str(&j, "mm", mm);
	pt_buf_printf(o, ", \"%s\": ", key);
	pt_jobj_finish(&j, o);
}

/*
 * Two Linux processes of one pid (contexts pidN, core/linux: x-comm, x-mm)
 * are one process in both captures when their comm agrees; their address
 * space is the same when their mm_struct is (a pid is reused after an
 * exit, exec gives a new mm).  Where either differs one line says so
 * before the context's lines.  True: compare them (the comm agrees, or
 * the user named the context: PAIR_ANYWAY); false: not one process.
 */
static bool proc_pair(struct diffrun *r, const char *name, const struct pt_context *a, const struct pt_context *b,
		      bool pair_anyway)
{
	const char *ca = ann_of(a, "x-comm"), *cb = ann_of(b, "x-comm");
	const char *ma = ann_of(a, "x-mm"), *mb = ann_of(b, "x-mm");
	bool same_comm, same_mm;

	if (!a || !b || !ann_of(a, "x-pid") || !ann_of(b, "x-pid") || !ca || !cb || !ma || !mb)
		return true;
	same_comm = !strcmp(ca, cb);
	same_mm = !strcmp(ma, mb);
	/* the line counts as no change of its own, as a root line (the mappings' and only-in lines do) */
	if (same_comm && same_mm)
		return true;
	if (r->json) {
		pt_buf_printf(r->out, "{\"change\": \"process\", \"compared\": %s, \"context\": ",
			      same_comm || pair_anyway ? "true" : "false");
		pt_json_escape(r->out, name);
		proc_side(r->out, "new", cb, mb);
		proc_side(r->out, "old", ca, ma);
		pt_buf_printf(r->out, ", \"same_address_space\": %s, \"same_comm\": %s}\n",
			      same_mm ? "true" : "false", same_comm ? "true" : "false");
	} else if (same_comm) {
		pt_buf_printf(r->out, "# %s: comm %s, mm %s in A, %s in B: two different address spaces\n", name,
			      ca, ma, mb);
	} else {
		pt_buf_printf(r->out, "# %s: comm %s in A, %s in B: %s\n", name, ca, cb,
			      same_mm ? "the same address space, renamed" : "two different address spaces");
	}
	return same_comm || pair_anyway;
}

static int context_pair(struct diffrun *r, const char *name, const struct pt_context *a,
			const struct pt_context *b)
{
	struct cli_ctxdiff d = {.json = r->json, .name = name};
	bool moved = a && b && root_differs(a, b);
	struct pt_buf body;
	struct side A, B;
	pt_err err;

	if (moved && r->same_root_only) {
		if (!r->fetch) {
			root_note(r->out, r->json, name, a, b, ROOT_SKIPPED);
			r->changes++;
		}
		return CLI_EXIT_OK;
	}
	if (r->fetch)
		return fetch_pair(r->out, r->json, name, a, b, &r->changes);
	if (!a || !b) {
		if (r->json) {
			pt_buf_puts(r->out, "{\"change\": ");
			pt_json_escape(r->out, a ? "only_in_a" : "only_in_b");
			pt_buf_puts(r->out, ", \"context\": ");
			pt_json_escape(r->out, name);
			pt_buf_puts(r->out, "}\n");
		} else {
			pt_buf_printf(r->out, "%s only in %s\n", name, a ? "A" : "B");
		}
		r->changes++;
		return CLI_EXIT_OK;
	}
	/* the context's lines, after its root line (which says whether they are empty) */
	pt_buf_init(&body);
	d.out = &body;
	/* by name: a context may have its own copy of its format (ctx_setup) */
	if (strcmp(a->fmt->name, b->fmt->name)) {
		pt_buf_printf(&body, r->json ? "{\"change\": \"format\", \"context\": \"%s\"}\n" :
			      "%s format %s -> %s\n", name, a->fmt->name, b->fmt->name);
		r->changes++;
	}
	d.fa = a->fmt;
	d.fb = b->fmt;
	err = runs_load(a, &A);
	if (err == PT_OK)
		err = runs_load(b, &B);
	else
		B.r = NULL;
	if (err == PT_OK) {
		mappings_diff(&d, &A, &B);
		if (moved)
			root_note(r->out, r->json, name, a, b, d.changes ? ROOT_DIFFERENT : ROOT_MOVED);
		pt_buf_put(r->out, body.data, body.len);
		r->out->oom |= body.oom;
		d.out = r->tables;
		if (a->fmt == b->fmt)
			cli_diff_tables(&d, a, b);
	}
	pt_buf_free(&body);
	free(A.r);
	free(B.r);
	r->changes += d.changes;
	if (err == PT_E_UNSUPPORTED)
		return cli_fail(err, "diff: %s: more than %" PRIu64 " runs: not compared", name,
				PT_MAPS_RUNS_MAX);
	if (err != PT_OK)
		return cli_fail(err, "diff: %s", name);
	return CLI_EXIT_OK;
}

int cli_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"fetch-lines", no_argument, NULL, 'F'},
		{"same-root-only", no_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pt_capture *ca = NULL, *cb = NULL;
	struct pt_buf out, tables;
	struct diffrun r = {.out = &out, .tables = &tables};
	int c, st = CLI_EXIT_OK;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(diff_help, stdout);
			return CLI_EXIT_OK;
		case 'j':
			r.json = true;
			break;
		case 'F':
			r.fetch = true;
			break;
		case 'R':
			r.same_root_only = true;
			break;
		default:
			return cli_opt_error("diff", argv, c);
		}
	}
	if (argc - optind < 2 || argc - optind > 3)
		return cli_fail(PT_E_USAGE, "diff: needs CAPTURE_A CAPTURE_B [CONTEXT] (try 'ptfs-tool diff --help')");
	if (!cli_load(argv[optind], &ca, false, &st))
		return st;
	if (!cli_load(argv[optind + 1], &cb, false, &st)) {
		pt_capture_free(ca);
		return st;
	}
	pt_buf_init(&out);
	pt_buf_init(&tables);
	if (argc - optind == 3) {
		const char *name = argv[optind + 2];
		const struct pt_context *a = pt_capture_context_find(ca, name);
		const struct pt_context *b = pt_capture_context_find(cb, name);

		if (!a && !b)
			st = cli_fail(PT_E_NOTFOUND, "diff: no context '%s' in either capture", name);
		else if (r.fetch || proc_pair(&r, name, a, b, true))
			st = context_pair(&r, name, a, b);
	} else {
		for (size_t i = 0; i < pt_capture_context_count(ca) && st == CLI_EXIT_OK; i++) {
			const struct pt_context *a = pt_capture_context(ca, i), *b = pt_capture_context_find(cb, a->name);

			/* processes pair by pid and comm: one pid of two programs is two processes */
			if (r.fetch || proc_pair(&r, a->name, a, b, false))
				st = context_pair(&r, a->name, a, b);
			else if ((st = context_pair(&r, a->name, a, NULL)) == CLI_EXIT_OK)
				st = context_pair(&r, b->name, NULL, b);
		}
		for (size_t i = 0; i < pt_capture_context_count(cb) && st == CLI_EXIT_OK; i++) {
			const struct pt_context *b = pt_capture_context(cb, i);

			if (!pt_capture_context_find(ca, b->name))
				st = context_pair(&r, b->name, NULL, b);
		}
	}
	if (st == CLI_EXIT_OK && tables.len) {
		if (!r.json)
			pt_buf_puts(&out, "# tables\n");
		pt_buf_put(&out, tables.data, tables.len);
	}
	if (st == CLI_EXIT_OK && (out.oom || tables.oom))
		st = cli_fail(PT_E_NOMEM, "diff: out of memory");
	if (st == CLI_EXIT_OK && !cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	if (st == CLI_EXIT_OK && r.changes)
		st = CLI_EXIT_FINDINGS;
	pt_buf_free(&tables);
	pt_buf_free(&out);
	pt_capture_free(ca);
	pt_capture_free(cb);
	return st;
}
