/* SPDX-License-Identifier: MIT */
/*
 * audit.c — `ptfs-tool audit CAPTURE CONTEXT LEGS`: every page of every leg
 * (VA SIZE ACCESS [EXPECTED_PA]) is walked and gets one verdict:
 *
 *   ok             mapped, the access is allowed, the PA is the expected one
 *   access_denied  mapped, but a permission bit forbids the access
 *   pa_mismatch    mapped and allowed, but not at EXPECTED_PA + offset
 *   unmapped       the walk faults (the reason names the fault and level)
 *
 * A page is the walker's page when mapped; an unmapped stretch is the span
 * of the entry the walk faulted at (e.g. one invalid directory entry over
 * 512 MiB is one record, not 131072 lines).  A record's `va` is the first VA of the leg in
 * it; `page_va` and `page_size` are the page or span as the table has it.
 *
 * Privilege: the audit models a non-privileged accessor (a GPU user
 * workload), so a page whose entry sets a privilege bit is access_denied with reason
 * `privilege`; --privileged audits a privileged accessor instead.  An atomic
 * is a read-modify-write: it needs read and write permission as well as
 * atomic_disable = 0.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum access {
	ACC_R = 1,
	ACC_W = 2,
	ACC_ATOMIC = 4,
};

struct leg {
	unsigned line;
	uint64_t va, size;
	unsigned access;         /* enum access bits */
	const char *access_name; /* as written: r, w, rw, atomic */
	bool has_pa;
	uint64_t pa;
};

struct legs {
	struct leg *v;
	size_t n, cap;
};

enum verdict { V_OK = 0, V_PA_MISMATCH, V_UNMAPPED, V_ACCESS_DENIED, V__COUNT };
static const char *const verdict_names[V__COUNT] = {
	"ok", "pa_mismatch", "unmapped", "access_denied",
};

static const char audit_help[] =
	"Usage: ptfs-tool audit [--json] [--privileged] CAPTURE CONTEXT LEGS\n"
	"\n"
	"Checks every page of every leg of the LEGS file against CONTEXT.  A leg is a\n"
	"line `VA SIZE ACCESS [EXPECTED_PA]`: VA and EXPECTED_PA 0x hex or decimal,\n"
	"SIZE with an optional K, M or G suffix, ACCESS r, w, rw or atomic; `#` starts\n"
	"a comment.  Each page gets ok, pa_mismatch, unmapped or access_denied with\n"
	"its reason: the walk fault, or the entry field that denies it: read_only,\n"
	"writeable=0, readable=0, atomic_disable, privilege, or the format's own\n"
	"name for one of them:\n";
/* After the per-format names (print_help: from the format table). */
static const char audit_help2[] =
	"Accesses are non-privileged unless --privileged.\n"
	"Exit status: 0 when every page is ok, 1 otherwise, 2 on an error.\n";

static int legs_add(struct legs *l, const struct leg *g)
{
	if (!pt_vec_reserve(&l->v, &l->cap, l->n + 1, sizeof *l->v))
		return cli_fail(PT_E_NOMEM, "out of memory");
	l->v[l->n++] = *g;
	return CLI_EXIT_OK;
}

static bool parse_access(const char *s, struct leg *g)
{
	static const struct {
		const char *name;
		unsigned bits;
	} acc[] = {
		{"r", ACC_R}, {"w", ACC_W}, {"rw", ACC_R | ACC_W}, {"atomic", ACC_ATOMIC},
	};

	for (size_t i = 0; i < sizeof acc / sizeof acc[0]; i++)
		if (strcmp(s, acc[i].name) == 0) {
			g->access = acc[i].bits;
			g->access_name = acc[i].name;
			return true;
		}
	return false;
}

/* Reads the whole legs file first, so that a syntax error costs no capture load. */
static int legs_read(const char *path, struct legs *l)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int st = CLI_EXIT_OK;

	if (!f)
		return cli_fail(PT_E_IO, "%s: %s", path, strerror(errno));
	while (st == CLI_EXIT_OK && getline(&line, &cap, f) >= 0) {
		char *tok[5], *save = NULL, *p;
		struct leg g = {.line = ++lineno};
		unsigned n = 0;

		if ((p = strchr(line, '#')))
			*p = '\0';
		for (p = strtok_r(line, " \t\r\n", &save); p; p = strtok_r(NULL, " \t\r\n", &save))
			tok[n < 5 ? n++ : 4] = p;
		if (n == 0)
			continue;
		if (n < 3 || n > 4) {
			st = cli_fail(PT_E_VALUE, "%s:%u: expected VA SIZE ACCESS [EXPECTED_PA]", path, lineno);
		} else if (!cli_parse_u64(tok[0], &g.va)) {
			st = cli_fail(PT_E_VALUE, "%s:%u: bad VA '%s'%s", path, lineno, tok[0], cli_num_hint(tok[0]));
		} else if (!cli_parse_size(tok[1], &g.size) || g.size == 0) {
			st = cli_fail(PT_E_VALUE, "%s:%u: bad SIZE '%s'%s", path, lineno, tok[1],
				      pt_num_bare_hex(tok[1]) ? cli_num_hint(tok[1]) : "");
		} else if (g.va + (g.size - 1) < g.va) {
			st = cli_fail(PT_E_VALUE, "%s:%u: VA + SIZE wraps around", path, lineno);
		} else if (!parse_access(tok[2], &g)) {
			st = cli_fail(PT_E_VALUE, "%s:%u: bad ACCESS '%s' (r, w, rw or atomic)",
				      path, lineno, tok[2]);
		} else if (n == 4 && !cli_parse_u64(tok[3], &g.pa)) {
			st = cli_fail(PT_E_VALUE, "%s:%u: bad EXPECTED_PA '%s'%s", path, lineno, tok[3],
				      cli_num_hint(tok[3]));
		} else if (n == 4 && g.pa + (g.size - 1) < g.pa) {
			st = cli_fail(PT_E_VALUE, "%s:%u: EXPECTED_PA + SIZE wraps around", path, lineno);
		} else {
			g.has_pa = n == 4;
			st = legs_add(l, &g);
		}
	}
	if (st == CLI_EXIT_OK && ferror(f))
		st = cli_fail(PT_E_IO, "%s: %s", path, strerror(errno));
	free(line);
	fclose(f);
	return st;
}

/* The name FMT gives the entry field behind PERM (one bit), else GENERIC. */
static const char *perm_name(const struct pt_format *fmt, uint32_t perm, const char *generic)
{
	for (const struct pt_perm_name *p = fmt->perm_names; p && p->perm; p++)
		if (p->perm == perm)
			return p->name;
	return generic;
}

/*
 * The help text: each format's own reason names (perm_names, where they
 * differ from the generic ones) come from the format table, so that the
 * help names no format by hand.
 */
static void print_help(void)
{
	static const struct pt_perm_name generic[] = {
		{PT_PERM_READ_ONLY, "read_only"}, {PT_PERM_NO_WRITE, "writeable=0"},
		{PT_PERM_NO_READ, "readable=0"}, {PT_PERM_ATOMIC_DISABLE, "atomic_disable"},
		{PT_PERM_PRIVILEGE, "privilege"},
	};
	const struct pt_format *f;

	fputs(audit_help, stdout);
	for (unsigned i = 0; (f = pt_format_at(i)); i++) {
		unsigned n = 0;

		for (size_t g = 0; g < sizeof generic / sizeof generic[0]; g++) {
			const char *own = perm_name(f, generic[g].perm, generic[g].name);

			if (strcmp(own, generic[g].name) != 0)
				printf("%s%s (%s)", n++ ? ", " : "  ", own, generic[g].name);
		}
		if (n)
			printf(" in %s\n", f->name);
	}
	fputs(audit_help2, stdout);
}

/* Why ACCESS is denied on a page with PERM; "" when it is allowed. */
static void denied(const struct pt_format *fmt, unsigned access, uint32_t perm, bool privileged,
		   char *buf, size_t len)
{
	static const struct {
		uint32_t perm;
		unsigned access;
		const char *why;
	} rules[] = {
		{PT_PERM_NO_READ, ACC_R | ACC_ATOMIC, "readable=0"},
		{PT_PERM_READ_ONLY, ACC_W | ACC_ATOMIC, "read_only"},
		{PT_PERM_NO_WRITE, ACC_W | ACC_ATOMIC, "writeable=0"},
		{PT_PERM_ATOMIC_DISABLE, ACC_ATOMIC, "atomic_disable"},
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if ((perm & rules[i].perm) && (access & rules[i].access))
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s",
					      n ? "," : "", perm_name(fmt, rules[i].perm, rules[i].why));
	if ((perm & PT_PERM_PRIVILEGE) && !privileged)
		snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? "," : "",
			 perm_name(fmt, PT_PERM_PRIVILEGE, "privilege"));
}

struct record {
	const struct leg *leg;
	uint64_t va, page_va, page_size;
	enum verdict verdict;
	bool mapped;
	unsigned space;
	uint64_t pa;
	bool has_expected;
	uint64_t expected;
	char reason[200];
};

/* R as a text line into B, or (JSON) as an object of PAGES. */
static void emit(struct pt_buf *b, struct pt_jarr *pages, const struct pt_context *ctx,
		 const char *legs, const struct record *r, bool json)
{
	struct pt_jobj o = {0};
	char vaname[40], size[32];

	pt_size_str(r->page_size, size, sizeof size);
	if (!json) {
		pt_va_name(ctx->fmt, r->va, vaname, sizeof vaname);
		pt_buf_printf(b, "%s:%u %s %s %s %s", legs, r->leg->line, vaname, size,
			      r->leg->access_name, verdict_names[r->verdict]);
		if (r->mapped)
			pt_buf_printf(b, " %s 0x%" PRIx64, pt_context_space_name(ctx, r->space), r->pa);
		else
			pt_buf_puts(b, " - -");
		if (r->reason[0])
			pt_buf_printf(b, " %s", r->reason);
		pt_buf_puts(b, "\n");
		return;
	}
	/* 64-bit values as "0x..." strings (docs/design.md §5); pt_jobj sorts the keys. */
	pt_jobj_str(&o, "access", r->leg->access_name);
	if (r->has_expected)
		pt_jobj_hex(&o, "expected_pa", r->expected);
	else
		pt_jobj_raw(&o, "expected_pa", "null");
	pt_jobj_u(&o, "leg_line", r->leg->line);
	if (r->mapped)
		pt_jobj_hex(&o, "pa", r->pa);
	else
		pt_jobj_raw(&o, "pa", "null");
	pt_jobj_hex(&o, "page_size", r->page_size);
	pt_jobj_hex(&o, "page_va", r->page_va);
	pt_jobj_str(&o, "reason", r->reason);
	pt_jobj_str(&o, "space", r->mapped ? pt_context_space_name(ctx, r->space) : NULL);
	pt_jobj_hex(&o, "va", r->va);
	pt_jobj_str(&o, "verdict", verdict_names[r->verdict]);
	pt_jarr_obj(pages, &o);
}

/*
 * Fills R for the page at VA of leg G; returns the VA after the page (or
 * the span the walk faulted on), or 0 when the walk reached the top of the
 * VA space or the end of the context's range.
 */
static uint64_t audit_page(const struct pt_context *ctx, const struct leg *g, uint64_t va,
			   bool privileged, struct record *r)
{
	struct pt_walk w;
	uint64_t next;

	memset(r, 0, sizeof *r);
	r->leg = g;
	r->va = va;
	r->has_expected = g->has_pa;
	r->expected = g->pa + (va - g->va);
	pt_walk_va(ctx, va, &w);
	if (w.fault == PT_FAULT_NONE) {
		r->mapped = true;
		r->page_va = w.page_va;
		r->page_size = w.page_size;
		r->space = w.space;
		r->pa = w.pa;
		denied(ctx->fmt, g->access, w.perm, privileged, r->reason, sizeof r->reason);
		if (r->reason[0]) {
			r->verdict = V_ACCESS_DENIED;
		} else if (g->has_pa && w.pa != r->expected) {
			const struct pt_entry *leaf = &w.steps[w.leaf_step].entry;

			r->verdict = V_PA_MISMATCH;
			snprintf(r->reason, sizeof r->reason, "expected 0x%" PRIx64 "%s", r->expected,
				 leaf->address_complete ? "" : " (address_complete: false)");
		} else {
			r->verdict = V_OK;
		}
		next = w.page_va + w.page_size;
		return next > va ? next : 0;
	}

	if (pt_walk_aperture_hit(&w)) {
		/* Translated by the memory controller without the table (docs/design.md §2.2): mapped. */
		r->mapped = true;
		r->space = w.aperture.space;
		r->pa = w.aperture.pa;
		r->page_va = va;
		r->page_size = g->va + (g->size - 1) - va + 1;
		if (w.aperture.last >= va && w.aperture.last - va + 1 < r->page_size)
			r->page_size = w.aperture.last - va + 1;
		{
			struct pt_table root;

			/* The record stops where the table's range starts (the walk resumes there). */
			pt_table_root(ctx, &root);
			if (va < root.va_base && root.va_base - va < r->page_size)
				r->page_size = root.va_base - va;
		}
		if (g->has_pa && w.aperture.pa != r->expected) {
			r->verdict = V_PA_MISMATCH;
			snprintf(r->reason, sizeof r->reason, "aperture %s: expected 0x%" PRIx64,
				 w.aperture.name, r->expected);
		} else {
			r->verdict = V_OK;
			snprintf(r->reason, sizeof r->reason, "aperture %s", w.aperture.name);
		}
		next = va + r->page_size;
		return next > va ? next : 0;
	}
	r->verdict = V_UNMAPPED;
	if (w.fault == PT_FAULT_OUT_OF_RANGE) {
		struct pt_table root;

		pt_table_root(ctx, &root);
		snprintf(r->reason, sizeof r->reason, "out_of_range%s%s", w.aperture.hit ? ": aperture " : "",
			 w.aperture.hit ? w.aperture.name : "");
		/*
		 * No entry spans this: the record covers the rest of the leg, up to
		 * where the context's range starts (then the walk resumes there).
		 */
		r->page_va = va;
		r->page_size = g->va + (g->size - 1) - va + 1;
		if (va < root.va_base && root.va_base - va < r->page_size) {
			r->page_size = root.va_base - va;
			return root.va_base;
		}
		return 0;
	}
	if (w.fault_step >= 0) {
		const struct pt_walk_step *s = &w.steps[w.fault_step];
		const struct pt_level *l = &ctx->fmt->levels[s->table.level];
		unsigned shift = s->table.page_shift;

		r->page_size = shift < 64 ? (uint64_t)1 << shift : 0;
		/* The entry's span, as the walker anchors pages (a context's first VA need not be page-aligned). */
		r->page_va = pt_table_entry_va(&s->table, s->index);
		snprintf(r->reason, sizeof r->reason, "%s at %s %" PRIu64 ": %s",
			 pt_fault_name(w.fault), l->name, s->index,
			 s->verdict && *s->verdict ? s->verdict : pt_fault_name(w.fault));
	} else {
		r->page_size = 4096;
		r->page_va = va & ~(uint64_t)4095;
		snprintf(r->reason, sizeof r->reason, "%s", pt_fault_name(w.fault));
	}
	next = r->page_va + r->page_size;
	return next > va ? next : 0;
}

int cli_audit(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"privileged", no_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t count[V__COUNT] = {0}, npages = 0;
	bool json = false, privileged = false;
	const struct pt_context *ctx;
	const char *legs_path;
	char *legs_shown;
	struct legs legs = {0};
	struct pt_capture *cap;
	struct pt_buf out;
	/* one page record a line, as before pt_jobj */
	struct pt_jarr pages = {.sep = ",\n"};
	struct pt_jobj top = {0}, summary = {0};
	int c, st = CLI_EXIT_OK;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hjp", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			print_help();
			return CLI_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'p':
			privileged = true;
			break;
		default:
			return cli_opt_error("audit", argv, c);
		}
	}
	if (argc - optind != 3)
		return cli_fail(PT_E_USAGE, "audit: needs CAPTURE CONTEXT LEGS (try 'ptfs-tool audit --help')");
	legs_path = argv[optind + 2];
	if ((st = legs_read(legs_path, &legs)) != CLI_EXIT_OK) {
		free(legs.v);
		return st;
	}
	if (!cli_load(argv[optind], &cap, false, &st)) {
		free(legs.v);
		return st;
	}
	ctx = cli_context(cap, argv[optind + 1]);
	if (!ctx) {
		pt_capture_free(cap);
		free(legs.v);
		return CLI_EXIT_ERROR;
	}

	/* each text line starts with the legs path: shown escaped, like every name */
	legs_shown = cli_escape(legs_path);
	pt_buf_init(&out);
	for (size_t i = 0; i < legs.n; i++) {
		const struct leg *g = &legs.v[i];
		uint64_t last = g->va + (g->size - 1), va = g->va;

		for (;;) {
			struct record r;
			uint64_t next = audit_page(ctx, g, va, privileged, &r);

			emit(&out, &pages, ctx, legs_shown ? legs_shown : "?", &r, json);
			count[r.verdict]++;
			npages++;
			if (next == 0 || next > last || next <= va)
				break;
			va = next;
		}
	}
	if (json) {
		pt_jobj_u(&summary, "access_denied", count[V_ACCESS_DENIED]);
		pt_jobj_u(&summary, "ok", count[V_OK]);
		pt_jobj_u(&summary, "pa_mismatch", count[V_PA_MISMATCH]);
		pt_jobj_u(&summary, "pages", npages);
		pt_jobj_u(&summary, "unmapped", count[V_UNMAPPED]);
		pt_jobj_arr(&top, "results", &pages);   /* "pages" is a count everywhere else */
		pt_jobj_obj(&top, "summary", &summary);
		pt_jobj_finish(&top, &out);
		pt_buf_puts(&out, "\n");
	} else {
		pt_buf_printf(&out, "total: %" PRIu64 " pages: %" PRIu64 " ok, %" PRIu64 " pa_mismatch, %"
			      PRIu64 " unmapped, %" PRIu64 " access_denied\n", npages, count[V_OK],
			      count[V_PA_MISMATCH], count[V_UNMAPPED], count[V_ACCESS_DENIED]);
	}
	if (!cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	else
		st = count[V_OK] == npages ? CLI_EXIT_OK : CLI_EXIT_FINDINGS;
	pt_buf_free(&pages.b);
	pt_buf_free(&out);
	free(legs_shown);
	pt_capture_free(cap);
	free(legs.v);
	return st;
}
