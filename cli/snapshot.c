/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c — `ptfs-tool snapshot SOURCE OUT` (issue #33 item 2): a
 * capture archive of a live guest's page tables as they are at one moment,
 * to be kept and diffed later (ptfs-tool diff, a mount's vs/).
 *
 * SOURCE is loaded as every command loads it (a QMP socket: the contexts
 * are the vCPUs' registers read then).  The guest is stopped (unless the
 * user had stopped it: then it is neither stopped nor continued, the rule
 * of -o pause), every table each context's tables reach is found by the
 * scan's table pass (pt_context_tables()) and its 4 KiB pages copied, the
 * maps of every context are summed, and the guest continued.  OUT gets the
 * [capture] keys, each context's section as the load set it up
 * (pt_context_section()) and one [memory] section per run of contiguous
 * table pages, windows into one member per space (mem/SPACE.bin): the
 * tables and nothing else of RAM, so walk/ resolves every VA to its page
 * but the pages' bytes are not there.  Nothing in OUT depends on the time:
 * the same guest state gives the same bytes.  OUT is written under a
 * temporary name (outfile.h), loaded back, and each context's maps must sum
 * as the guest's did while it was stopped; only then is it renamed to OUT.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capout.h"
#include "cli.h"

#define SNAP_PAGE 4096u
/* Table pages one snapshot copies at most (4 GiB): a bound on the work and the archive. */
#define SNAP_PAGES_MAX (UINT64_C(1) << 20)

static const char snapshot_help[] =
	"Usage: ptfs-tool snapshot [--force] SOURCE OUT\n"
	"\n"
	"Writes the page tables of SOURCE, a live guest (a running QEMU's QMP\n"
	"socket), to OUT (a .tar.gz archive, or a directory that does not exist or\n"
	"is empty) as a capture: each context's section as SOURCE's load made it,\n"
	"and every 4 KiB page holding a table its tables reach, copied with the\n"
	"guest stopped (a guest already stopped is left stopped).  No other page of\n"
	"RAM is copied: walk/ of OUT resolves each VA, its bytes are not there.\n"
	"The same guest state gives the same bytes (no time is recorded).  OUT is\n"
	"written under a temporary name beside it, loaded back and every context's\n"
	"maps compared with the guest's while it was stopped: only then is it\n"
	"renamed to OUT.  A symbolic link at OUT is refused.\n"
	"\n"
	"  --force    replace an existing archive OUT (a non-empty directory is\n"
	"             refused even so)\n";

struct tpage {
	unsigned space;   /* capture space id */
	uint64_t pa;      /* page-aligned */
};

struct snap {
	struct tpage *pg;
	size_t n, cap;
	bool nomem, over;
};

/* pt_context_tables(): the pages table T lies in. */
static void on_table(void *ud, const struct pt_table *t)
{
	struct snap *s = ud;
	const struct pt_context *ctx = t->ctx;
	uint64_t len = t->entries * ctx->fmt->levels[t->level].entry_size;
	uint64_t end = t->addr + len < t->addr ? UINT64_MAX : t->addr + len;
	unsigned id = pt_context_space(ctx, t->space);

	for (uint64_t a = t->addr & ~(uint64_t)(SNAP_PAGE - 1); a < end && !s->nomem && !s->over;
	     a += SNAP_PAGE) {
		if (s->n >= SNAP_PAGES_MAX) {
			s->over = true;
			break;
		}
		if (!pt_vec_reserve(&s->pg, &s->cap, s->n + 1, sizeof *s->pg)) {
			s->nomem = true;
			break;
		}
		s->pg[s->n++] = (struct tpage){ id, a };
		if (a > UINT64_MAX - SNAP_PAGE)
			break;
	}
}

static int tpage_cmp(const void *a, const void *b)
{
	const struct tpage *x = a, *y = b;

	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	return x->pa < y->pa ? -1 : x->pa > y->pa;
}

/* The maps of a context in one number: every page the walker resolves, and where a bound cut it. */
struct digest {
	uint64_t pages, hash;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	/* FNV-1a over the 8 bytes of V */
	for (unsigned i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * UINT64_C(0x100000001b3);
	return h;
}

static void digest_ctx(const struct pt_context *ctx, struct digest *d)
{
	struct pt_page_iter it;
	struct pt_page pg;

	d->pages = 0;
	d->hash = UINT64_C(0xcbf29ce484222325);
	pt_pages_init(&it, ctx, 0, NULL);
	it.budget = PT_SCAN_ENTRIES_MAX;
	while (pt_pages_next(&it, &pg)) {
		d->pages++;
		d->hash = mix(mix(mix(mix(d->hash, pg.va), pg.size), pg.space), pg.pa);
		d->hash = mix(mix(d->hash, pg.leaf.raw[0]), pg.leaf.raw[1]);
	}
	d->hash = mix(mix(d->hash, it.cut), it.cut ? it.cut_va : 0);
}

/*
 * With the guest stopped: the table pages of every context into S (sorted,
 * each once), their bytes into *DATA (SNAP_PAGE each, in S's order), each
 * context's maps summed into DG.
 */
static int copy_tables(struct pt_capture *cap, struct snap *s, uint8_t **data, struct digest *dg)
{
	const struct pt_mem *mem = pt_capture_mem(cap);
	size_t k = 0;

	for (size_t i = 0; i < pt_capture_context_count(cap); i++) {
		const struct pt_context *ctx = pt_capture_context(cap, i);
		bool cut = false;

		for (unsigned sp = 0; sp < pt_capture_space_count(cap); sp++)
			if (pt_context_xlate(ctx, sp))
				return cli_fail(PT_E_UNSUPPORTED, "snapshot: space %s is translated: its tables "
						"are not copied", pt_capture_space_name(cap, sp));
		if (pt_context_tables(ctx, on_table, s, NULL, &cut) != PT_OK || s->nomem)
			return cli_fail(PT_E_NOMEM, "snapshot: out of memory");
		if (s->over || cut)
			return cli_fail(PT_E_UNSUPPORTED, "snapshot: context '%s' reaches more tables than a "
					"snapshot copies (%s)", ctx->name, s->over ? "4 GiB of table pages" :
					"the scan's bound on entries");
		digest_ctx(ctx, &dg[i]);
	}
	/* an [iommu]'s own root, context, PASID, device and stream tables: its devices come from them */
	for (size_t i = 0; i < pt_capture_iommu_count(cap); i++) {
		struct pt_iommu_info io;
		const uint64_t *pg;
		size_t n = pt_capture_iommu_pages(cap, i, &pg);

		pt_capture_iommu(cap, i, &io);
		if (s->n + n > SNAP_PAGES_MAX)
			return cli_fail(PT_E_UNSUPPORTED, "snapshot: [iommu %s] reaches more tables than a snapshot "
					"copies (4 GiB of table pages)", io.name);
		if (!pt_vec_reserve(&s->pg, &s->cap, s->n + n, sizeof *s->pg))
			return cli_fail(PT_E_NOMEM, "snapshot: out of memory");
		for (size_t k2 = 0; k2 < n; k2++)
			s->pg[s->n++] = (struct tpage){ io.space, pg[k2] };
	}
	if (s->n)
		qsort(s->pg, s->n, sizeof *s->pg, tpage_cmp);
	for (size_t i = 0; i < s->n; i++)
		if (!k || tpage_cmp(&s->pg[k - 1], &s->pg[i]))
			s->pg[k++] = s->pg[i];
	s->n = k;
	*data = malloc(s->n ? s->n * SNAP_PAGE : 1);
	if (!*data)
		return cli_fail(PT_E_NOMEM, "snapshot: out of memory");
	/* a page the source cannot read (not RAM) stays out: the self-check says if a table needed it */
	k = 0;
	for (size_t i = 0; i < s->n; i++)
		if (pt_mem_read(mem, s->pg[i].space, s->pg[i].pa, *data + k * SNAP_PAGE, SNAP_PAGE))
			s->pg[k++] = s->pg[i];
	s->n = k;
	return CLI_EXIT_OK;
}

/* capture.ini of the snapshot: [capture], each context's section, a [memory] per run of pages. */
static int ini_text(struct pt_capture *cap, const char *source, const struct snap *s, struct pt_buf *ini)
{
	char esc[1024];
	const char *v;

	pt_buf_printf(ini, "[capture]\nversion = 1\nformat = %s\n", pt_capture_format(cap)->name);
	if ((v = pt_capture_gpu(cap)))
		pt_buf_printf(ini, "gpu = %s\n", v);
	if ((v = pt_capture_description(cap)))
		pt_buf_printf(ini, "description = %s\n", v);
	pt_text_escape(esc, sizeof esc, source);
	pt_buf_printf(ini, "x-snapshot = ptfs-tool snapshot of %s: its tables only (%zu pages), copied with "
		      "the guest stopped\n", esc, s->n);
	/* the source's own notes (x-live: the QEMU version and RAM backend), under the snapshot's name */
	for (size_t i = 0; i < pt_capture_annotation_count(cap); i++) {
		const struct pt_kv *kv = pt_capture_annotation(cap, i);

		pt_buf_printf(ini, "x-snapshot-of-%s = %s\n", kv->key + 2, kv->value);
	}
	for (size_t i = 0; i < pt_capture_context_count(cap); i++) {
		const struct pt_context *ctx = pt_capture_context(cap, i);

		if (ctx->iommu)
			continue;   /* a device its [iommu] section finds again in the copied tables */
		pt_buf_puts(ini, "\n");
		if (!pt_context_section(ctx, ini))
			return cli_fail(ini->oom ? PT_E_NOMEM : PT_E_UNSUPPORTED, "snapshot: context '%s' has no "
					"section of its own: not copied", ctx->name);
	}
	for (size_t i = 0; i < pt_capture_iommu_count(cap); i++) {
		pt_buf_puts(ini, "\n");
		if (!pt_capture_iommu_section(cap, i, ini))
			return cli_fail(PT_E_NOMEM, "snapshot: out of memory");
	}
	for (size_t i = 0, run = 0; i < s->n; run++) {
		const char *space = pt_capture_space_name(cap, s->pg[i].space);
		size_t j = i + 1, off = i;

		/* the offset of the run in its space's member: pages of that space before it */
		while (off > 0 && s->pg[off - 1].space == s->pg[i].space)
			off--;
		while (j < s->n && s->pg[j].space == s->pg[i].space && s->pg[j].pa == s->pg[j - 1].pa + SNAP_PAGE)
			j++;
		pt_buf_printf(ini, "\n[memory tables.%zu]\nspace = %s\nbase = 0x%" PRIx64 "\nfile = mem/%s.bin\n"
			      "offset = 0x%zx\nlength = 0x%zx\n", run, space, s->pg[i].pa, space,
			      (i - off) * SNAP_PAGE, (j - i) * SNAP_PAGE);
		i = j;
	}
	return ini->oom ? cli_fail(PT_E_NOMEM, "snapshot: out of memory") : CLI_EXIT_OK;
}

/* OUT loaded back: each context's maps as DG says the guest's were. */
static int self_check(const struct pt_capture *live, const char *path, const char *out,
		      const struct digest *dg)
{
	struct pt_capture *cap;
	int st;

	if (!cli_load(path, &cap, true, &st))
		return st;
	st = CLI_EXIT_OK;   /* cli_load sets it only when it fails */
	for (size_t i = 0; i < pt_capture_context_count(live) && st == CLI_EXIT_OK; i++) {
		const struct pt_context *x = pt_capture_context(live, i);
		const struct pt_context *y = pt_capture_context_find(cap, x->name);
		struct digest d;

		if (y)
			digest_ctx(y, &d);
		if (!y || d.pages != dg[i].pages || d.hash != dg[i].hash)
			st = cli_fail(PT_E_CAPTURE, "snapshot: %s: context '%s' does not map what the guest's "
				      "mapped while it was stopped (%" PRIu64 " pages, the guest %" PRIu64 ")",
				      out, x->name, y ? d.pages : 0, dg[i].pages);
	}
	pt_capture_free(cap);
	return st;
}

/* The members: one per space, its pages in address order (NAMES holds their names). */
static size_t members(struct pt_capture *cap, const struct snap *s, const uint8_t *data,
		      struct capout_member *m, char (*names)[256])
{
	size_t n = 0;

	for (size_t i = 0; i < s->n;) {
		size_t j = i;

		while (j < s->n && s->pg[j].space == s->pg[i].space)
			j++;
		snprintf(names[n], sizeof names[n], "mem/%s.bin", pt_capture_space_name(cap, s->pg[i].space));
		m[n] = (struct capout_member){ names[n], data + i * SNAP_PAGE, (j - i) * SNAP_PAGE };
		n++;
		i = j;
	}
	return n;
}

/* Stops the guest, copies, continues it; then writes OUT and checks it. */
static int snapshot(struct pt_capture *cap, const char *source, const char *out, bool force)
{
	size_t nctx = pt_capture_context_count(cap), nspaces = pt_capture_space_count(cap), nm;
	struct digest *dg = calloc(nctx ? nctx : 1, sizeof *dg);
	struct capout_member *m = calloc(nspaces ? nspaces : 1, sizeof *m);
	char (*names)[256] = calloc(nspaces ? nspaces : 1, sizeof *names), msg[1024];
	struct snap s = { 0 };
	uint8_t *data = NULL;
	struct capout co;
	struct pt_buf ini;
	bool stopped = false;
	pt_err rc;
	int st;

	pt_buf_init(&ini);
	capout_init(&co, "snapshot", out, force);
	if (!dg || !m || !names) {
		st = cli_fail(PT_E_NOMEM, "snapshot: out of memory");
		goto done;
	}
	rc = pt_capture_live_pause(cap, &stopped, msg, sizeof msg);
	if (rc != PT_OK) {
		st = cli_fail(rc, "snapshot: %s", msg);
		goto done;
	}
	st = copy_tables(cap, &s, &data, dg);
	rc = pt_capture_live_resume(cap, stopped, msg, sizeof msg);
	if (rc != PT_OK && st == CLI_EXIT_OK)
		st = cli_fail(rc, "snapshot: %s (the guest is left stopped)", msg);
	if (st == CLI_EXIT_OK)
		st = ini_text(cap, source, &s, &ini);
	nm = st == CLI_EXIT_OK ? members(cap, &s, data, m, names) : 0;
	if (st == CLI_EXIT_OK)
		st = capout_write(&co, ini.data, ini.len, m, nm);
	/* the temporary is checked; only a snapshot that maps what the guest did becomes OUT */
	if (st == CLI_EXIT_OK) {
		st = self_check(cap, capout_path(&co), out, dg);
		if (st == CLI_EXIT_OK)
			st = capout_commit(&co);
		else
			capout_remove(&co);
	}
	if (st == CLI_EXIT_OK)
		printf("%s: %zu contexts, %zu table pages (%zu bytes) copied with the guest stopped%s; every "
		       "context maps what the guest's did\n", out, nctx, s.n, s.n * SNAP_PAGE,
		       stopped ? "" : " (it was stopped already, and is left so)");
done:
	pt_buf_free(&ini);
	free(data);
	free(s.pg);
	free(names);
	free(m);
	free(dg);
	return st;
}

int cli_snapshot(int argc, char **argv)
{
	static const struct option opts[] = {
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pt_capture *cap;
	struct capout co;
	bool force = false;
	int c, st;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'f') {
			force = true;
			continue;
		}
		if (c != 'h')
			return cli_opt_error("snapshot", argv, c);
		fputs(snapshot_help, stdout);
		return CLI_EXIT_OK;
	}
	if (argc - optind != 2)
		return cli_fail(PT_E_USAGE, "snapshot: needs SOURCE OUT (try 'ptfs-tool snapshot --help')");
	capout_init(&co, "snapshot", argv[optind + 1], force);
	/* before the guest is stopped: an OUT that cannot be written stops nothing */
	if (!capout_check(&co))
		return CLI_EXIT_ERROR;
	/* a live Linux guest's pidN have no section of their own: the vCPUs' and IOMMUs' contexts are copied */
	cli_no_tasks();
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	/* a capture of a file never changes: it is its own snapshot */
	if (!pt_capture_is_live(cap))
		st = cli_fail(PT_E_USAGE, "snapshot: %s is a capture of a file, not a live guest: it never "
			      "changes (copy it)", argv[optind]);
	else
		st = snapshot(cap, argv[optind], argv[optind + 1], force);
	pt_capture_free(cap);
	return st;
}
