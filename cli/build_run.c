/* SPDX-License-Identifier: MIT */
/*
 * build_run.c — the run of `ptfs-tool build` (build.c reads the spec):
 * load the spec's contexts for their geometry, build the tables
 * (core/walk/build.c), write OUT, and walk OUT back against the spec.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "capout.h"
#include "cli.h"
#include "pt_build.h"

/* The spec's getter (build.h): build.c reads sections through it too, and calls this file, never the reverse. */
const char *cli_spec_get(void *ud, const char *key)
{
	const struct spec_section *sec = ud;

	for (size_t i = 0; i < sec->nkv; i++)
		if (strcmp(sec->kv[i].key, key) == 0)
			return sec->kv[i].value;
	return NULL;
}

/* capture.ini text with, per line, the spec line it came from (0: generated). */
struct ini_out {
	struct pt_buf text;
	unsigned *from;
	size_t nlines, cap;
};

static void ini_line(struct ini_out *o, unsigned from, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void ini_line(struct ini_out *o, unsigned from, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	pt_buf_puts(&o->text, line);
	pt_buf_puts(&o->text, "\n");
	if (pt_vec_reserve(&o->from, &o->cap, o->nlines + 1, sizeof *o->from))
		o->from[o->nlines++] = from;
}

/* The spec as capture.ini: its keys, each context's root keys, and B's memory (B may be NULL). */
static void ini_write(const struct spec *sp, const struct pt_build *b, struct ini_out *o)
{
	for (size_t i = 0; i < sp->nsec; i++) {
		const struct spec_section *sec = &sp->sec[i];

		ini_line(o, sec->line, sec->name[0] ? "[%s %s]" : "[%s]%s", sec->type, sec->name);
		for (size_t k = 0; k < sec->nkv; k++)
			ini_line(o, sec->kv[k].line, "%s = %s", sec->kv[k].key, sec->kv[k].value);
		if (sec->fmt) {
			struct pt_build_keys k = {
				.space = sec->root_space, .root = sec->root,
				.va_lo = sec->va_lo, .va_hi = sec->va_hi,
				.get = cli_spec_get, .ud = (void *)sec,
			};
			struct pt_buf keys;
			char *save = NULL;

			pt_buf_init(&keys);
			sec->fmt->build_keys(&k, &keys);
			for (char *l = keys.len ? strtok_r(keys.data, "\n", &save) : NULL; l;
			     l = strtok_r(NULL, "\n", &save))
				ini_line(o, sec->line, "%s", l);
			pt_buf_free(&keys);
		}
		ini_line(o, 0, "%s", "");
	}
	for (size_t i = 0; b && i < pt_build_blob_count(b); i++) {
		const struct pt_build_blob *bl = pt_build_blob(b, i);

		ini_line(o, 0, "[memory tables.%s]", bl->space);
		ini_line(o, 0, "space = %s", bl->space);
		ini_line(o, 0, "base = 0x%" PRIx64, bl->base);
		ini_line(o, 0, "file = mem/%s.bin", bl->space);
		ini_line(o, 0, "%s", "");
	}
}

static void ini_free(struct ini_out *o)
{
	pt_buf_free(&o->text);
	free(o->from);
}

/* A loader message about line N of the generated capture.ini, told as the spec's line. */
static int load_fail(const struct spec *sp, const struct ini_out *o, const char *msg)
{
	const char *p = strstr(msg, "capture.ini:");
	unsigned long n;

	if (p && (n = strtoul(p + 12, NULL, 10)) > 0 && n <= o->nlines && o->from[n - 1]) {
		const char *rest = strchr(p + 12, ':');

		return cli_fail(PT_E_VALUE, "%s:%u:%s", sp->path, o->from[n - 1], rest ? rest + 1 : "");
	}
	return cli_fail(PT_E_VALUE, "%s: %s", sp->path, msg);
}

/* Loads the spec (no memory) from a scratch directory: the contexts' geometry. */
static int geometry_load(const struct spec *sp, struct pt_capture **cap, char *dir, size_t dlen)
{
	struct ini_out o = { 0 };
	char path[4200];
	FILE *f;
	int st = CLI_EXIT_OK;

	snprintf(dir, dlen, "%s/ptfs-build.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return cli_fail(PT_E_IO, "build: a scratch directory: %s", strerror(errno));
	pt_buf_init(&o.text);
	ini_write(sp, NULL, &o);
	snprintf(path, sizeof path, "%s/capture.ini", dir);
	f = fopen(path, "w");
	if (!f || fwrite(o.text.data, 1, o.text.len, f) != o.text.len || fclose(f) != 0)
		st = cli_fail(PT_E_IO, "build: %s: %s", path, strerror(errno));
	*cap = pt_capture_new();
	if (st == CLI_EXIT_OK && (!*cap || pt_capture_load(*cap, dir) != PT_OK))
		st = *cap ? load_fail(sp, &o, pt_capture_error(*cap)) : cli_fail(PT_E_NOMEM, "build");
	unlink(path);
	rmdir(dir);
	ini_free(&o);
	return st;
}

/*
 * Tables of each space go in the first 2 MiB-aligned window of 64 MiB from
 * 1 MiB up that no mapped page of that space overlaps, so that a table
 * never aliases a mapped page and stays within narrow address fields
 * (VER2 video memory: 37 bits).  In a translated space the window also
 * avoids the translator's own map lines (their VAs are that space's
 * addresses): the builder maps the window there itself.
 */
static bool window_free(const struct spec *sp, const char *space, const char *xlate, uint64_t lo,
			uint64_t *next)
{
	const uint64_t hi = lo + (UINT64_C(64) << 20);

	for (size_t s = 0; s < sp->nsec; s++)
		for (size_t m = 0; sp->sec[s].fmt && m < sp->sec[s].nmaps; m++) {
			const struct spec_map *mp = &sp->sec[s].maps[m];
			bool in = strcmp(mp->space, space) == 0;
			uint64_t a = in ? mp->pa : mp->va;

			if (!in && !(xlate && strcmp(sp->sec[s].name, xlate) == 0))
				continue;
			if (a < hi && lo < a + mp->size) {
				*next = (a + mp->size + 0x1fffff) & ~(uint64_t)0x1fffff;
				return false;
			}
		}
	return true;
}

static void place_spaces(const struct spec *sp, const struct pt_capture *geo, struct pt_build *b)
{
	for (unsigned id = 0; id < pt_capture_space_count(geo); id++) {
		const char *name = pt_capture_space_name(geo, id);
		const struct pt_context *x = pt_capture_space_translate(geo, id);
		uint64_t base = UINT64_C(1) << 20, next = base;

		while (!window_free(sp, name, x ? x->name : NULL, base, &next) && next > base)
			base = next;
		pt_build_space(b, name, base);
	}
}

/* Builds every context's tables into B; roots in the sections. */
static int tables_build(struct spec *sp, const struct pt_capture *geo, struct pt_build *b)
{
	char err[512];

	place_spaces(sp, geo, b);
	for (size_t i = 0; i < sp->nsec; i++) {
		struct spec_section *sec = &sp->sec[i];
		const struct pt_context *ctx;
		unsigned id;

		if (!sec->fmt)
			continue;
		ctx = pt_capture_context_find(geo, sec->name);
		if (!ctx)
			return cli_fail(PT_E_VALUE, "%s:%u: [%s %s] made no context", sp->path, sec->line,
					sec->type, sec->name);
		if (pt_build_context(b, ctx, &sec->root, &id, err, sizeof err) != PT_OK)
			return cli_fail(PT_E_VALUE, "%s:%u: %s", sp->path, sec->line, err);
		sec->root_space = ctx->root_space;
		for (size_t k = 0; k < sec->nmaps; k++) {
			const struct spec_map *m = &sec->maps[k];

			if (pt_build_map(b, id, m->va, m->size, m->space, m->pa,
					 (const char *const *)m->flags, m->nflags, err, sizeof err) != PT_OK)
				return cli_fail(PT_E_VALUE, "%s:%u: %s", sp->path, m->line, err);
		}
	}
	if (pt_build_finish(b, err, sizeof err) != PT_OK)
		return cli_fail(PT_E_VALUE, "%s: %s", sp->path, err);
	return CLI_EXIT_OK;
}

/* B's blobs as the members of OUT: mem/SPACE.bin (NAMES holds the names). */
static struct capout_member *blob_members(const struct pt_build *b, char (**names)[256])
{
	size_t n = pt_build_blob_count(b);
	struct capout_member *m = calloc(n ? n : 1, sizeof *m);

	*names = calloc(n ? n : 1, sizeof **names);
	if (!m || !*names) {
		free(m);
		free(*names);
		*names = NULL;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct pt_build_blob *bl = pt_build_blob(b, i);

		snprintf((*names)[i], sizeof (*names)[i], "mem/%s.bin", bl->space);
		m[i] = (struct capout_member){ (*names)[i], bl->data, (size_t)bl->size };
	}
	return m;
}

/* Whether FLAG is one of the comma-separated words of FLAGS. */
static bool has_word(const char *flags, const char *flag)
{
	size_t n = strlen(flag);

	for (const char *p = flags; (p = strstr(p, flag)); p += n)
		if ((p == flags || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
			return true;
	return false;
}

/* What walk W gave, for a message: "fault=unmapped" or "gpa 0x10000 (flags r,w)". */
static void walk_text(const struct pt_context *ctx, const struct pt_walk *w, char *buf, size_t len)
{
	char flags[PT_FLAGS_LEN];

	if (w->fault == PT_FAULT_STAGE2 && !pt_walk_has_leaf(w)) {
		/* a table read in a translated space faulted: say which stage, where */
		snprintf(buf, len, "fault=stage2:%s in %s at %s:0x%" PRIx64, pt_fault_name(w->s2.fault),
			 w->s2.ctx ? w->s2.ctx->name : "?", pt_capture_space_name(ctx->cap, w->s2.space),
			 w->s2.addr);
		return;
	}
	if (!pt_walk_has_leaf(w) || w->leaf_step < 0) {
		snprintf(buf, len, "fault=%s", pt_fault_name(w->fault));
		return;
	}
	pt_format_flags(ctx->fmt, &w->steps[w->leaf_step].entry, flags, sizeof flags);
	snprintf(buf, len, "%s 0x%" PRIx64 " (flags %s)", pt_context_space_name(ctx, w->space), w->pa,
		 flags[0] ? flags : "-");
}

/* Walks one page of map line M at OFF into W: its space, its PA, each flag. */
static bool verify_page(const struct pt_context *ctx, const struct spec_map *m, uint64_t off,
			struct pt_walk *w)
{
	char flags[PT_FLAGS_LEN];
	bool ok;

	pt_walk_va(ctx, m->va + off, w);
	/* a page whose stage 2 faults is still this context's page (the stage-2 spec says where it lands) */
	ok = pt_walk_has_leaf(w) && w->leaf_step >= 0 &&
	     strcmp(pt_context_space_name(ctx, w->space), m->space) == 0 && w->pa == m->pa + off;
	if (ok) {
		pt_format_flags(ctx->fmt, &w->steps[w->leaf_step].entry, flags, sizeof flags);
		for (unsigned f = 0; ok && f < m->nflags; f++)
			ok = has_word(flags, m->flags[f]);
	}
	return ok;
}

/*
 * Walks every page of every map line of SP in OUT: the spec back, or an
 * error saying what the walk gave instead.  Every entry was decoded back
 * as it was written (core/walk/build.c), so a difference here is the
 * context's own walk (a flag its set-up implies, a stage 2 that faults),
 * not an encoder's.
 */
static int verify(const struct spec *sp, const char *out, uint64_t *pages)
{
	struct pt_capture *cap;
	int st;

	if (!cli_load(out, &cap, false, &st))
		return st;
	for (size_t i = 0; i < sp->nsec; i++) {
		const struct spec_section *sec = &sp->sec[i];
		const struct pt_context *ctx = sec->fmt ? pt_capture_context_find(cap, sec->name) : NULL;

		for (size_t k = 0; ctx && k < sec->nmaps; k++) {
			const struct spec_map *m = &sec->maps[k];

			for (uint64_t off = 0; off < m->size;) {
				struct pt_walk w;
				char got[PT_FLAGS_LEN + 128];

				if (!verify_page(ctx, m, off, &w)) {
					walk_text(ctx, &w, got, sizeof got);
					pt_capture_free(cap);
					return cli_fail(PT_E_VALUE, "%s:%u: VA 0x%" PRIx64 " of the built capture walks"
							" to %s, not to %s 0x%" PRIx64 " with the flags asked",
							sp->path, m->line, m->va + off, got, m->space, m->pa + off);
				}
				(*pages)++;
				off += w.page_va + w.page_size - (m->va + off);
			}
		}
	}
	pt_capture_free(cap);
	return CLI_EXIT_OK;
}

int cli_build_run(struct spec *sp, const char *out, bool force)
{
	struct pt_capture *geo = NULL;
	struct pt_build *b = pt_build_new();
	struct ini_out o = { 0 };
	char dir[4096];
	uint64_t pages = 0, bytes = 0;
	size_t nctx = 0, nmaps = 0;
	struct capout co;
	struct capout_member *mem = NULL;
	char (*names)[256] = NULL;
	int st;

	capout_init(&co, "build", out, force);
	if (!b)
		return cli_fail(PT_E_NOMEM, "build: out of memory");
	st = geometry_load(sp, &geo, dir, sizeof dir);
	if (st == CLI_EXIT_OK)
		st = tables_build(sp, geo, b);
	pt_buf_init(&o.text);
	if (st == CLI_EXIT_OK) {
		ini_write(sp, b, &o);
		mem = blob_members(b, &names);
		st = mem ? capout_write(&co, o.text.data, o.text.len, mem, pt_build_blob_count(b))
			 : cli_fail(PT_E_NOMEM, "build: out of memory");
	}
	pt_capture_free(geo);   /* after the writes: the blobs' and contexts' names */
	/* the temporary is walked back; only a capture that gives SPEC back becomes OUT */
	if (st == CLI_EXIT_OK) {
		st = verify(sp, capout_path(&co), &pages);
		if (st == CLI_EXIT_OK)
			st = capout_commit(&co);
		else
			capout_remove(&co);
	}
	if (st == CLI_EXIT_OK) {
		for (size_t i = 0; i < sp->nsec; i++) {
			nctx += sp->sec[i].fmt != NULL;
			nmaps += sp->sec[i].nmaps;
		}
		for (size_t i = 0; i < pt_build_blob_count(b); i++)
			bytes += pt_build_blob(b, i)->size;
		printf("%s: %zu contexts, %zu maps, %" PRIu64 " pages, %" PRIu64 " bytes of tables; "
		       "every page walks back to its map line\n", out, nctx, nmaps, pages, bytes);
	}
	ini_free(&o);
	free(mem);
	free(names);
	pt_build_free(b);
	return st;
}
