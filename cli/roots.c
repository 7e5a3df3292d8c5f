/* SPDX-License-Identifier: MIT */
/*
 * roots.c — `ptfs-tool roots CAPTURE [--format F | --iommu TYPE] [--space S]
 * [--json]`: which pages of a dump could be the root of an address space
 * (or an IOMMU's root, device or stream table), each with its score, the
 * counts behind it and the capture.ini section to paste.  The scans are the
 * core's (core/walk/roots.c, roots_iommu.c); this file parses, shows
 * progress on a terminal and prints.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pt_roots.h"

static const char roots_help[] =
	"Usage: ptfs-tool roots [OPTIONS] CAPTURE\n"
	"\n"
	"Scans every captured page of CAPTURE for tables that could be the root of\n"
	"an address space, in the geometry of each distinct context (without\n"
	"contexts: the format's own), and prints each candidate, best first (score,\n"
	"then address), as a comment line and the capture.ini section to paste:\n"
	"  # score=S format=F kind=K space=SP root=0xADDR valid=V levels=L/N tables=T\n"
	"  #   bad_tables=B bad_entries=E leaves=F uncaptured=U [ref=CTX] [root_of=CTX]\n"
	"  #   [root_of=pidN] [twin=0xADDR]  (one line)\n"
	"  [SECTION root-ADDR]\n"
	"  KEY = VALUE\n"
	"KIND is what the format's rule says (x86-64 Linux: process, the table of a\n"
	"process whose upper half equals context REF's root; process_user, its PTI\n"
	"user copy at TWIN), else table.  A table that is a candidate in two formats\n"
	"(an x86-64 process table also decodes as a VT-d table) is listed once, in\n"
	"the format of the context whose root it is, else of the one its kernel half\n"
	"relates it to, else the CPU's.  A Linux process's table (its mm->pgd, or\n"
	"the PTI user copy) also says root_of=pidN (ptfs-tool tasks).  A last line\n"
	"`# summary:` counts them.\n"
	"  --format F       only format F (default: the formats of the contexts)\n"
	"  --space S        only space S\n"
	"  --min-score N    leave out the candidates no rule names (kind table) that\n"
	"                   score below N (default 10; 0 lists every one)\n"
	"  --json           one JSON object per candidate, then {\"summary\": {...}}\n"
	"  --iommu TYPE     IOMMU tables in place of page-table roots: TYPE's root table\n"
	"                   (intel-vtd, legacy or scalable), device table (amd-vi) or\n"
	"                   stream table (arm-smmuv3, linear or 2-level), each with the\n"
	"                   [iommu] section that reads it (--format F is a device's\n"
	"                   page tables: intel-vtd's second level, a [vtd] section):\n"
	"  # score=S type=T mode=M space=SP table=0xADDR devices=D contexts=C good=G\n"
	"  #   bad=B uncaptured=U tables=N leaves=L [root_of=IOMMU] [cut]  (one line)\n"
	"Exit status 0 (however many are found), 2 error.\n";

/* Scan progress on a terminal, as the load shows it (cli_load). */
static void on_progress(void *ud, uint64_t done, uint64_t total)
{
	bool *shown = ud;

	if (!total)
		return;
	fprintf(stderr, "\rptfs-tool: roots: scanning: %3u%%",
		(unsigned)(done >= total ? 100 : done * 100 / total));
	*shown = true;
}

static const char *geom_name(const struct pt_root_cand *c)
{
	return c->geom ? c->geom->name : NULL;
}

static void text_one(struct pt_buf *b, const struct pt_root_cand *c)
{
	pt_buf_printf(b, "# score=%u format=%s kind=%s space=%s root=0x%" PRIx64 " valid=%u levels=%u/%u"
		      " tables=%" PRIu64 " bad_tables=%" PRIu64 " bad_entries=%" PRIu64 " leaves=%" PRIu64
		      " uncaptured=%" PRIu64, c->score, c->fmt->name, c->kind, pt_roots_space_name(c), c->addr,
		      c->valid, c->levels, c->nlevels, c->tables, c->bad_tables, c->bad_entries,
		      c->leaves, c->uncaptured);
	if (c->ref)
		pt_buf_printf(b, " ref=%s", c->ref->name);
	if (c->root_of)
		pt_buf_printf(b, " root_of=%s", c->root_of->name);
	/* a Linux process's tables: its pidN too, where a vCPU's name came first */
	if (c->proc && c->proc != c->root_of)
		pt_buf_printf(b, " root_of=%s", c->proc->name);
	if (c->has_twin)
		pt_buf_printf(b, " twin=0x%" PRIx64, c->twin);
	pt_buf_puts(b, "\n");
	if (!pt_roots_section(c, b))
		pt_buf_printf(b, "# (%s has no capture.ini keys for a root)\n", c->fmt->name);
	pt_buf_puts(b, "\n");
}

static void json_one(struct pt_buf *b, const struct pt_root_cand *c)
{
	struct pt_jobj o = {0};
	struct pt_buf sec;

	pt_buf_init(&sec);
	pt_jobj_u(&o, "bad_entries", c->bad_entries);
	pt_jobj_u(&o, "bad_tables", c->bad_tables);
	pt_jobj_str(&o, "format", c->fmt->name);
	pt_jobj_str(&o, "geometry", geom_name(c));
	pt_jobj_str(&o, "root_kind", c->kind);
	pt_jobj_u(&o, "leaves", c->leaves);
	pt_jobj_u(&o, "level_count", c->nlevels);
	pt_jobj_u(&o, "levels_clean", c->levels);
	pt_jobj_hex(&o, "pa", c->addr);
	pt_jobj_str(&o, "ref", c->ref ? c->ref->name : NULL);
	pt_jobj_str(&o, "root_of", c->root_of ? c->root_of->name : NULL);
	if (c->proc)
		pt_jobj_str(&o, "process", c->proc->name);
	pt_jobj_u(&o, "score", c->score);
	if (pt_roots_section(c, &sec))
		pt_jobj_str(&o, "section", sec.data);
	else
		pt_jobj_str(&o, "section", NULL);
	pt_jobj_str(&o, "space", pt_roots_space_name(c));
	pt_jobj_u(&o, "tables", c->tables);
	if (c->has_twin)
		pt_jobj_hex(&o, "twin_pa", c->twin);
	else
		pt_jobj_str(&o, "twin_pa", NULL);
	pt_jobj_u(&o, "uncaptured", c->uncaptured);
	pt_jobj_u(&o, "valid_entries", c->valid);
	pt_jobj_finish(&o, b);
	pt_buf_puts(b, "\n");
	pt_buf_free(&sec);
}

/* Each kind's count, kinds in name order (a format's rule names them). */
static size_t kind_counts(const struct pt_roots *r, const char **names, size_t *counts, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++) {
		size_t k = 0;

		while (k < n && strcmp(names[k], r->c[i].kind) < 0)
			k++;
		if (k < n && !strcmp(names[k], r->c[i].kind)) {
			counts[k]++;
			continue;
		}
		if (n == max)
			continue;
		memmove(names + k + 1, names + k, (n - k) * sizeof *names);
		memmove(counts + k + 1, counts + k, (n - k) * sizeof *counts);
		names[k] = r->c[i].kind;
		counts[k] = 1;
		n++;
	}
	return n;
}

static void summary(struct pt_buf *b, const struct pt_roots *r, bool json)
{
	const char *names[16];
	size_t counts[16], nk = kind_counts(r, names, counts, 16);

	if (json) {
		struct pt_jobj o = {0}, s = {0}, k = {0};

		for (size_t i = 0; i < nk; i++)
			pt_jobj_u(&k, names[i], counts[i]);
		pt_jobj_u(&s, "candidates", r->n);
		pt_jobj_u(&s, "geometries", r->geometries);
		pt_jobj_obj(&s, "kinds", &k);
		pt_jobj_u(&s, "pages", r->pages);
		pt_jobj_u(&s, "tables", r->decoded);
		pt_jobj_obj(&o, "summary", &s);
		pt_jobj_finish(&o, b);
		pt_buf_puts(b, "\n");
		return;
	}
	pt_buf_printf(b, "# summary: %zu candidates (", r->n);
	for (size_t i = 0; i < nk; i++)
		pt_buf_printf(b, "%s%s %zu", i ? ", " : "", names[i], counts[i]);
	pt_buf_printf(b, "%s); %" PRIu64 " pages and %" PRIu64 " tables decoded in %u geometr%s\n",
		      nk ? "" : "none", r->pages, r->decoded, r->geometries,
		      r->geometries == 1 ? "y" : "ies");
}

static void io_text(struct pt_buf *b, const struct pt_iommu_cand *c)
{
	pt_buf_printf(b, "# score=%u type=%s mode=%s space=%s table=0x%" PRIx64 " devices=%u contexts=%u"
		      " good=%u bad=%u uncaptured=%u tables=%" PRIu64 " leaves=%" PRIu64, c->score, c->type,
		      c->mode ? c->mode : "-", c->space, c->addr, c->devices, c->contexts, c->good, c->bad,
		      c->uncaptured, c->tables, c->leaves);
	if (c->root_of)
		pt_buf_printf(b, " root_of=%s", c->root_of);
	pt_buf_puts(b, c->cut ? " cut\n" : "\n");
	pt_roots_iommu_section(c, b);
	pt_buf_puts(b, "\n");
}

static void io_json(struct pt_buf *b, const struct pt_iommu_cand *c)
{
	struct pt_jobj o = {0};
	struct pt_buf sec;
	enum pt_iommu_kind kind = pt_iommu_format_find(c->type)->kind;
	bool vtd = kind == PT_IOMMU_KIND_VTD, vi = kind == PT_IOMMU_KIND_AMDVI;

	pt_buf_init(&sec);
	pt_roots_iommu_section(c, &sec);
	pt_jobj_u(&o, "bad", c->bad);
	pt_jobj_u(&o, "contexts", c->contexts);
	pt_jobj_bool(&o, "cut", c->cut);
	if (vi)
		pt_jobj_hex(&o, "dev_table_base", c->reg);
	pt_jobj_u(&o, "devices", c->devices);
	pt_jobj_u(&o, "good", c->good);
	pt_jobj_u(&o, "leaves", c->leaves);
	pt_jobj_str(&o, "mode", c->mode);
	pt_jobj_hex(&o, "pa", c->addr);
	pt_jobj_str(&o, "root_of", c->root_of);
	if (vtd)
		pt_jobj_hex(&o, "rtaddr", c->reg);
	pt_jobj_u(&o, "score", c->score);
	pt_jobj_str(&o, "section", sec.data);
	pt_jobj_str(&o, "space", c->space);
	if (!vtd && !vi) {
		pt_jobj_hex(&o, "strtab_base", c->addr);
		pt_jobj_hex(&o, "strtab_base_cfg", c->reg2);
	}
	pt_jobj_u(&o, "tables", c->tables);
	pt_jobj_str(&o, "type", c->type);
	pt_jobj_u(&o, "uncaptured", c->uncaptured);
	pt_jobj_finish(&o, b);
	pt_buf_puts(b, "\n");
	pt_buf_free(&sec);
}

static int run_iommu(const struct pt_capture *cap, struct pt_iommu_roots_opts *o, bool json)
{
	struct pt_iommu_roots r;
	struct pt_buf b;
	bool shown = false, ok;
	char err[600];
	pt_err e;

	if (isatty(STDERR_FILENO)) {
		o->progress = on_progress;
		o->progress_ud = &shown;
	}
	e = pt_roots_iommu_scan(cap, o, &r, NULL, err, sizeof err);
	if (shown)
		fputs("\n", stderr);
	if (e != PT_OK)
		return cli_fail(e, "roots: %s", err[0] ? err : pt_strerror(e));
	pt_buf_init(&b);
	for (size_t i = 0; i < r.n; i++)
		(json ? io_json : io_text)(&b, &r.c[i]);
	if (json) {
		struct pt_jobj s = {0}, top = {0};

		pt_jobj_u(&s, "candidates", r.n);
		pt_jobj_u(&s, "pages", r.pages);
		pt_jobj_str(&s, "type", o->type);
		pt_jobj_obj(&top, "summary", &s);
		pt_jobj_finish(&top, &b);
		pt_buf_puts(&b, "\n");
	} else {
		pt_buf_printf(&b, "# summary: %zu %s table candidates; %" PRIu64 " pages decoded\n", r.n,
			      o->type, r.pages);
	}
	ok = cli_write_buf(&b);
	pt_buf_free(&b);
	pt_roots_iommu_free(&r);
	return ok ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}

static int run(const struct pt_capture *cap, struct pt_roots_opts *o, bool json)
{
	struct pt_roots r;
	struct pt_buf b;
	bool shown = false, ok;
	char err[600];
	pt_err e;

	if (isatty(STDERR_FILENO)) {
		o->progress = on_progress;
		o->progress_ud = &shown;
	}
	e = pt_roots_scan(cap, o, &r, NULL, err, sizeof err);
	if (shown)
		fputs("\n", stderr);
	if (e != PT_OK)
		return cli_fail(e, "roots: %s", err[0] ? err : pt_strerror(e));
	pt_buf_init(&b);
	for (size_t i = 0; i < r.n; i++) {
		if (json)
			json_one(&b, &r.c[i]);
		else
			text_one(&b, &r.c[i]);
		if (b.len >= 64 * 1024) {
			if (!cli_write_buf(&b))
				break;
			pt_buf_reset(&b);
		}
	}
	summary(&b, &r, json);
	for (unsigned t = 0; !json && o->format && pt_iommu_format_list[t]; t++)
		if (!strcmp(o->format, pt_iommu_format_list[t]->name))
			pt_buf_printf(&b, "# (these are %s page tables; the IOMMU's own tables: --iommu %s)\n",
				      o->format, o->format);
	ok = cli_write_buf(&b);
	pt_buf_free(&b);
	pt_roots_free(&r);
	return ok ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}

int cli_roots(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{"format", required_argument, NULL, 'F'},
		{"space", required_argument, NULL, 'S'},
		{"min-score", required_argument, NULL, 'M'},
		{"iommu", required_argument, NULL, 'I'},
		{NULL, 0, NULL, 0},
	};
	struct pt_roots_opts o = {.min_score = 10};
	struct pt_iommu_roots_opts io = {0};
	uint64_t v;
	struct pt_capture *cap;
	bool json = false;
	int c, st = CLI_EXIT_OK;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(roots_help, stdout);
			return CLI_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'F':
			if (!pt_format_find(optarg)) {
				char list[512];

				pt_format_list(list, sizeof list, ", ", " or ");
				return cli_fail(PT_E_VALUE, "roots: unknown --format '%s' (%s)", optarg, list);
			}
			o.format = optarg;
			break;
		case 'S':
			o.space = optarg;
			break;
		case 'I': {
			unsigned t = 0;

			while (pt_iommu_format_list[t] && strcmp(pt_iommu_format_list[t]->name, optarg))
				t++;
			if (!pt_iommu_format_list[t])
				return cli_fail(PT_E_VALUE, "roots: unknown --iommu '%s' (intel-vtd, amd-vi or"
						" arm-smmuv3)", optarg);
			io.type = optarg;
			break;
		}
		case 'M':
			if (!cli_parse_u64(optarg, &v) || v > 100)
				return cli_fail(PT_E_VALUE, "roots: bad --min-score '%s' (0 to 100)%s", optarg,
						cli_parse_u64(optarg, &v) ? "" : cli_num_hint(optarg));
			o.min_score = (unsigned)v;
			break;
		default:
			return cli_opt_error("roots", argv, c);
		}
	}
	if (argc - optind != 1)
		return cli_fail(PT_E_USAGE, "roots: needs CAPTURE (try 'ptfs-tool roots --help')");
	if (io.type && o.format)
		return cli_fail(PT_E_USAGE, "roots: --iommu and --format are two scans: give one (--format %s"
				" finds a device's page tables, --iommu %s the IOMMU's own tables)", o.format,
				io.type);
	/* finding the tables is the point: a dump with no root of its own is scanned too */
	if (!cli_load_as(argv[optind], &cap, false, true, &st))
		return st;
	io.space = o.space;
	io.min_score = o.min_score;
	st = io.type ? run_iommu(cap, &io, json) : run(cap, &o, json);
	pt_capture_free(cap);
	return st;
}
