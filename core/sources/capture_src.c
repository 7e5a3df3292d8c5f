/* SPDX-License-Identifier: MIT */
/*
 * capture_src.c — captures other tools write, read natively (DESIGN §3.1):
 * umr test logs / envdefs and gem5 checkpoint directories.
 *
 * A source is turned into what a capture.ini would say — [memory] sections
 * naming members held in memory, and context sections of key = value lines
 * — and then goes through the same schema checks (manifest.c, so every
 * key reaches its format's ctx_key hook) and the same binding
 * (pt_loader_bind) as a capture archive.  The text is never shown: each of
 * its lines remembers the source line it came from, and a message about
 * line N of it is reported against that source line instead.  So the
 * formats' own checks, with their words, apply unchanged, and this file
 * names no format's internals beyond the register keys the sources hold.
 */
#include <archive.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_int.h"
#include "pt_src_gem5.h"
#include "pt_src_umr.h"

/* The formats sources produce contexts of (DESIGN §3.1). */
#define FMT_VMID0 "amd-gart"
#define FMT_VMIDN "amd-gpuvm"

/* The capture.ini text being written, with the source of every line. */
struct gen {
	char *text;
	size_t len, cap;
	char **origin;        /* [line - 1]: "run.envdef:12" or NULL */
	size_t nlines, ocap;
	bool nomem;
};

static void gen_line(struct gen *g, const char *origin, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void gen_line(struct gen *g, const char *origin, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	int n;

	if (g->nomem)
		return;
	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	/* pt_ini_grow() doubles once: grow the text until the line fits. */
	while (n >= 0 && g->len + (size_t)n + 1 >= g->cap)
		if (!pt_ini_grow(&g->text, &g->cap, g->cap, 1))
			n = -1;
	if (n < 0 || !pt_ini_grow(&g->origin, &g->ocap, g->nlines, sizeof *g->origin)) {
		free(line);
		g->nomem = true;
		return;
	}
	memcpy(g->text + g->len, line, (size_t)n);
	g->len += (size_t)n;
	g->text[g->len++] = '\n';
	free(line);
	g->origin[g->nlines] = origin ? strdup(origin) : NULL;
	g->nlines++;
}

static void gen_free(struct gen *g)
{
	for (size_t i = 0; i < g->nlines; i++)
		free(g->origin[i]);
	free(g->origin);
	free(g->text);
}

/*
 * Rewrites the load error "capture.ini:N: msg" (N a line of the generated
 * text) as "ORIGIN: msg", or "SOURCE: msg" where the line has no origin.
 */
static void remap_error(struct loader *ld, const struct gen *g, const char *label)
{
	char *msg = ld->cap->err, *end;
	unsigned long line;
	char copy[sizeof ld->cap->err];

	if (strncmp(msg, "capture.ini:", 12))
		return;
	line = strtoul(msg + 12, &end, 10);
	if (end == msg + 12 || *end != ':')
		return;
	snprintf(copy, sizeof copy, "%s", end + 1);
	pt_capture_set_error(ld->cap, "%s:%s",
			     line >= 1 && line <= g->nlines && g->origin[line - 1] ? g->origin[line - 1] : label,
			     copy);
}

static pt_err resolve_src(struct loader *ld, const struct pt_manifest_mem *mm,
			  const char *root, struct member **out)
{
	(void)root;
	for (size_t i = 0; i < ld->nm; i++)
		if (!strcmp(ld->m[i].name, mm->path)) {
			*out = &ld->m[i];
			return PT_OK;
		}
	pt_capture_set_error(ld->cap, "%s: internal: member %s missing", ld->path, mm->path);
	return PT_E_CAPTURE;
}

/* Parses the generated text and binds it like a capture archive. */
static pt_err gen_finish(struct loader *ld, struct gen *g, const char *label)
{
	pt_err rc;

	if (g->nomem) {
		pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
		return PT_E_NOMEM;
	}
	{
		char err[sizeof ld->cap->err];

		rc = pt_manifest_parse_mixed(g->text, g->len, &ld->cap->man, err, sizeof err);
		if (rc)
			pt_capture_set_error(ld->cap, "%s", err);
	}
	if (!rc)
		rc = pt_loader_bind(ld, resolve_src, "");
	if (rc)
		remap_error(ld, g, label);
	return rc;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	while (s && s[1] == 0 && s > p) {     /* "dir/" names dir */
		const char *t = s;

		while (t > p && t[-1] != '/')
			t--;
		return t;
	}
	return s ? s + 1 : p;
}

/* A member holding LEN bytes of DATA (all zero chunks free). */
static pt_err add_member(struct loader *ld, const char *name, const uint8_t *data, size_t len)
{
	struct member *m = pt_member_new(ld, name);

	if (!m)
		return PT_E_NOMEM;
	m->kind = MK_DATA;
	m->size = len;
	return pt_member_write(m, true, 0, data, len);
}

/* ---- umr ---- */

bool pt_loader_is_umr(int fd)
{
	char buf[4096];
	ssize_t n = pread(fd, buf, sizeof buf, 0);

	return n > 0 && pt_umr_detect(buf, (size_t)n);
}

static const char *const hub_prefix[PT_UMR_HUB__COUNT] = {"", "mmhub."};

/* The context name of HUB/VMID: vmidN (GFX hub), mmhub.vmidN (DESIGN §3.1). */
static void ctx_name(char *out, size_t len, unsigned hub, unsigned vmid)
{
	snprintf(out, len, "%svmid%u", hub < PT_UMR_HUB__COUNT ? hub_prefix[hub] : "?", vmid);
}

static void umr_origin(char *out, size_t len, const char *label, unsigned line)
{
	snprintf(out, len, "%s:%u", label, line);
}

/* The VMID0 context of a umr log: the GART registers (fmt_gart.c's keys). */
static void umr_gart(struct loader *ld, struct gen *g, const struct pt_umr_log *log,
		     const struct pt_umr_ctx *c, const char *label, const struct pt_format *fmt)
{
	static const char *const ckey[] = {"VM_CONTEXT0_PAGE_TABLE_BASE_ADDR",
		"VM_CONTEXT0_PAGE_TABLE_START_ADDR", "VM_CONTEXT0_PAGE_TABLE_END_ADDR"};
	const struct pt_umr_reg64 *v[3] = {&c->base, &c->start, &c->end};
	const unsigned lo[3] = {PT_UMR_BASE_LO, PT_UMR_START_LO, PT_UMR_END_LO};
	char name[32], o[512];

	ctx_name(name, sizeof name, c->hub, c->vmid);
	umr_origin(o, sizeof o, label, c->reg[lo[0]].line ? c->reg[lo[0]].line : 1);
	gen_line(g, o, "[%s %s]", fmt->ctx_section, name);
	for (unsigned i = 0; i < 3; i++) {
		if (v[i]->has) {
			umr_origin(o, sizeof o, label, c->reg[lo[i]].line);
			gen_line(g, o, "%s = 0x%" PRIx64, ckey[i], v[i]->value);
			gen_line(g, o, "x-from-%s = %s:%u+%u", ckey[i], label, c->reg[lo[i]].line,
				 c->reg[lo[i] + 1].line);
		} else if (i == 2 && v[0]->has && v[1]->has) {
			/*
			 * Hand-made envdefs omit END (umr's own test0 does;
			 * capture-sources.md §2.5): the last page of the 48-bit
			 * VA, said in info and a warning, never silent.
			 */
			gen_line(g, NULL, "%s = 0xfffffffff", ckey[i]);
			gen_line(g, NULL, "x-from-%s = not in the log: the last 4 KiB page of the 48-bit VA",
				 ckey[i]);
			pt_capture_warn(ld->cap, "%s: %s not in the log: the last 4 KiB page of the 48-bit VA",
					name, ckey[i]);
		}
	}
	for (unsigned r = 0; r < PT_UMR_HREG__COUNT; r++) {
		const struct pt_umr_reg *h = &log->hub[c->hub][r];

		if (!h->has)
			continue;
		umr_origin(o, sizeof o, label, h->line);
		gen_line(g, o, "%s = 0x%" PRIx32, pt_umr_hreg_name(r), h->value);
		gen_line(g, o, "x-from-%s = %s:%u", pt_umr_hreg_name(r), label, h->line);
	}
}

/* A VMID >= 1 context: the [vm] keys of the amd-gpuvm format. */
static void umr_gpuvm(struct gen *g, const struct pt_umr_log *log, const struct pt_umr_ctx *c,
		      const char *label, const struct pt_format *fmt)
{
	static const char *const ckey[] = {"page_table_base_addr", "page_table_start_addr",
		"page_table_end_addr"};
	const struct pt_umr_reg64 *v[3] = {&c->base, &c->start, &c->end};
	const unsigned lo[3] = {PT_UMR_BASE_LO, PT_UMR_START_LO, PT_UMR_END_LO};
	char name[32], o[512];
	const struct pt_umr_reg *fbo = &log->hub[c->hub][PT_UMR_FB_OFFSET];

	ctx_name(name, sizeof name, c->hub, c->vmid);
	umr_origin(o, sizeof o, label, c->reg[PT_UMR_CNTL].line ? c->reg[PT_UMR_CNTL].line : 1);
	gen_line(g, o, "[%s %s]", fmt->ctx_section, name);
	gen_line(g, NULL, "gfx = %u", log->gfx);
	if (c->reg[PT_UMR_CNTL].has) {
		gen_line(g, o, "cntl = 0x%" PRIx32, c->reg[PT_UMR_CNTL].value);
		gen_line(g, o, "x-from-cntl = %s:%u", label, c->reg[PT_UMR_CNTL].line);
	}
	for (unsigned i = 0; i < 3; i++) {
		if (!v[i]->has)
			continue;
		umr_origin(o, sizeof o, label, c->reg[lo[i]].line);
		gen_line(g, o, "%s = 0x%" PRIx64, ckey[i], v[i]->value);
		gen_line(g, o, "x-from-%s = %s:%u+%u", ckey[i], label, c->reg[lo[i]].line,
			 c->reg[lo[i] + 1].line);
	}
	if (fbo->has) {
		umr_origin(o, sizeof o, label, fbo->line);
		gen_line(g, o, "fb_offset = 0x%" PRIx32, fbo->value);
	}
}

pt_err pt_loader_load_umr(struct loader *ld, int fd)
{
	const struct pt_format *f0 = pt_format_find(FMT_VMID0), *fn = pt_format_find(FMT_VMIDN);
	const char *label = base_name(ld->path);
	struct pt_umr_log *log = NULL;
	struct gen g = {0};
	char *text = NULL, err[1024], why[256] = "";
	size_t len = 0;
	ssize_t n;
	unsigned nctx = 0;
	pt_err rc;

	ld->cap->source_kind = "umr log";
	if (ld->total > PT_UMR_MAX_SIZE) {
		pt_capture_set_error(ld->cap, "larger than %u MiB: not a umr log ptfs reads",
				     PT_UMR_MAX_SIZE >> 20);
		return PT_E_CAPTURE;
	}
	text = malloc((size_t)ld->total + 1);
	if (!text) {
		pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
		return PT_E_NOMEM;
	}
	while (len < ld->total && (n = pread(fd, text + len, (size_t)ld->total - len, (off_t)len)) > 0)
		len += (size_t)n;
	rc = pt_umr_parse(text, len, label, ld->opts->gfx, &log, err, sizeof err);
	free(text);
	if (rc) {
		pt_capture_set_error(ld->cap, "%s", err);
		return rc;
	}
	gen_line(&g, NULL, "[capture]");
	gen_line(&g, NULL, "version = 1");
	gen_line(&g, NULL, "format = %s", f0->name);
	for (size_t i = 0; i < log->nmem; i++) {
		const struct pt_umr_mem *m = &log->mem[i];
		const char *sp = m->space == PT_UMR_VRAM ? "vram" : "sysmem";
		char name[64], o[512];

		snprintf(name, sizeof name, "%s-0x%" PRIx64, sp, m->addr);
		umr_origin(o, sizeof o, label, m->line);
		gen_line(&g, o, "[memory %s]", name);
		gen_line(&g, o, "space = %s", sp);
		gen_line(&g, o, "base = 0x%" PRIx64, m->addr);
		gen_line(&g, o, "file = %s", name);
		if (add_member(ld, name, m->data, m->len)) {
			g.nomem = true;
			break;
		}
	}
	for (size_t i = 0; i < log->nctx; i++) {
		const struct pt_umr_ctx *c = &log->ctx[i];
		char name[32];

		ctx_name(name, sizeof name, c->hub, c->vmid);
		if (c->vmid == 0) {
			if (!c->base.has || !c->start.has) {
				snprintf(why, sizeof why, "%s: page table %s registers not in the log",
					 name, c->base.has ? "START" : "BASE");
				pt_capture_warn(ld->cap, "%s: no context", why);
				continue;
			}
			umr_gart(ld, &g, log, c, label, f0);
			nctx++;
		} else if (!fn) {
			snprintf(why, sizeof why, "%s: %s contexts are not supported by this build",
				 name, FMT_VMIDN);
			pt_capture_warn(ld->cap, "%s", why);
		} else if (!log->gfx) {
			pt_capture_set_error(ld->cap, "MMIO names do not tell the GFX generation: "
					     "pass -o gfx=9|10|11|12 (ptfs-tool: --gfx N)");
			rc = PT_E_USAGE;
			goto out;
		} else if (!c->base.has || !c->start.has || !c->end.has) {
			/* A VMID the log touched but did not read whole: reported, never guessed. */
			snprintf(why, sizeof why, "%s: page table %s registers not in the log", name,
				 !c->base.has ? "BASE" : !c->start.has ? "START" : "END");
			pt_capture_warn(ld->cap, "%s: no context", why);
		} else {
			umr_gpuvm(&g, log, c, label, fn);
			nctx++;
		}
	}
	if (!nctx && !log->gfx && log->nmmio) {
		/* Unnamed registers are recognised by gfx9 address only once the generation is known. */
		pt_capture_set_error(ld->cap, "MMIO names do not tell the GFX generation: "
				     "pass -o gfx=9|10|11|12 (ptfs-tool: --gfx N)");
		rc = PT_E_USAGE;
		goto out;
	}
	if (!nctx) {
		pt_capture_set_error(ld->cap, "no VM context this build can read (%zu MMIO records)%s%s",
				     log->nmmio, why[0] ? ": " : "", why);
		rc = PT_E_CAPTURE;
		goto out;
	}
	rc = gen_finish(ld, &g, label);
out:
	gen_free(&g);
	pt_umr_free(log);
	return rc;
}

/* ---- gem5 ---- */


bool pt_loader_is_gem5_dir(int dfd)
{
	struct stat st;

	return fstatat(dfd, "m5.cpt", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       fstatat(dfd, "capture.ini", &st, AT_SYMLINK_NOFOLLOW) != 0;
}

/* Reads a whole small file at DFD/NAME (at most MAX bytes); *TEXT NULL if absent. */
static pt_err read_file(struct loader *ld, int dfd, const char *name, size_t max, char **text, size_t *len)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	size_t got = 0;
	ssize_t n;

	*text = NULL;
	*len = 0;
	if (fd < 0)
		return errno == ENOENT ? PT_OK : PT_E_IO;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		close(fd);
		pt_capture_set_error(ld->cap, "%s/%s: not a regular file of at most %zu MiB", ld->path, name,
				     max >> 20);
		return PT_E_CAPTURE;
	}
	*text = malloc((size_t)st.st_size + 1);
	if (!*text) {
		close(fd);
		return PT_E_NOMEM;
	}
	while (got < (size_t)st.st_size && (n = read(fd, *text + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	*len = got;
	return PT_OK;
}

/*
 * Streams the (gzip'd or plain) image DFD/FILE into a member of SIZE bytes:
 * one pass, zero chunks never allocated, progress in compressed bytes.
 */
static pt_err load_image(struct loader *ld, int dfd, const char *file, const uint8_t *buf_in,
			 size_t buf_len, const char *mname, uint64_t size, uint64_t *done)
{
	int fd = buf_in ? -1 : openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct archive *a = NULL;
	struct archive_entry *e;
	struct member *m;
	pt_err rc = PT_OK;

	if (!buf_in && fd < 0) {
		pt_capture_set_error(ld->cap, "%s/%s: %s", ld->path, file, strerror(errno));
		return PT_E_CAPTURE;
	}
	m = pt_member_new(ld, mname);
	a = archive_read_new();
	if (!m || !a) {
		rc = PT_E_NOMEM;
		goto out;
	}
	m->kind = MK_DATA;
	m->size = size;
	archive_read_support_filter_all(a);
	archive_read_support_format_raw(a);
	if ((buf_in ? archive_read_open_memory(a, buf_in, buf_len) : archive_read_open_fd(a, fd, 1 << 16)) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		pt_capture_set_error(ld->cap, "%s/%s: %s", ld->path, file, archive_error_string(a));
		rc = PT_E_ARCHIVE;
		goto out;
	}
	for (;;) {
		const void *buf;
		size_t len;
		la_int64_t off;
		int r = archive_read_data_block(a, &buf, &len, &off);

		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK) {
			pt_capture_set_error(ld->cap, "%s/%s: %s", ld->path, file, archive_error_string(a));
			rc = PT_E_ARCHIVE;
			goto out;
		}
		if ((uint64_t)off > size || len > size - (uint64_t)off) {
			pt_capture_set_error(ld->cap, "%s/%s: image larger than its range_size 0x%" PRIx64,
					     ld->path, file, size);
			rc = PT_E_CAPTURE;
			goto out;
		}
		rc = pt_member_write(m, true, (uint64_t)off, buf, len);
		if (rc)
			goto out;
		pt_loader_progress(ld, *done + (uint64_t)archive_filter_bytes(a, -1), false);
	}
	*done += (uint64_t)archive_filter_bytes(a, -1);
out:
	if (rc == PT_E_NOMEM)
		pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
	if (a)
		archive_read_free(a);
	if (fd >= 0)
		close(fd);
	return rc;
}

static uint64_t file_size(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? (uint64_t)st.st_size : 0;
}

/* ---- gem5 checkpoints in an archive ---- */

/* The prefix of m5.cpt among the members ("" or "dir/"), or NULL. */
static const char *gem5_prefix(struct loader *ld)
{
	for (size_t i = 0; i < ld->nm; i++) {
		const char *n = ld->m[i].name, *sl = strchr(n, '/');

		if (ld->m[i].kind != MK_DATA && ld->m[i].kind != MK_INPLACE)
			continue;
		if (!strcmp(n, "m5.cpt"))
			return "";
		if (sl && !strchr(sl + 1, '/') && !strcmp(sl + 1, "m5.cpt") && !ld->many_topdirs)
			return n;
	}
	return NULL;
}

bool pt_loader_is_gem5_members(struct loader *ld)
{
	return gem5_prefix(ld) != NULL;
}

/* A copy of member PREFIX+NAME's bytes (malloc'd, *LEN bytes), or NULL with *FOUND false. */
static uint8_t *member_bytes(struct loader *ld, const char *prefix, size_t plen, const char *name,
			     size_t *len, bool *found)
{
	*found = false;
	for (size_t i = 0; i < ld->nm; i++) {
		const struct member *m = &ld->m[i];
		uint8_t *out;

		if (strncmp(m->name, prefix, plen) || strcmp(m->name + plen, name) ||
		    (m->kind != MK_DATA && m->kind != MK_INPLACE))
			continue;
		*found = true;
		if (m->size > SIZE_MAX - 1)
			return NULL;
		out = calloc(1, (size_t)m->size + 1);
		if (!out)
			return NULL;
		if (m->kind == MK_INPLACE) {
			memcpy(out, m->ptr, (size_t)m->size);
		} else {
			for (size_t c = 0; c < m->nc; c++) {
				uint64_t off = m->c[c].idx << CHUNK_SHIFT, n = m->c[c].len;

				if (off >= m->size)
					continue;
				if (n > m->size - off)
					n = m->size - off;
				memcpy(out + off, m->c[c].data, (size_t)n);
			}
		}
		*len = (size_t)m->size;
		return out;
	}
	return NULL;
}

/* A gem5 checkpoint: the directory DFD, or (DFD < 0) the archive's members under PREFIX. */
static pt_err load_gem5(struct loader *ld, int dfd, const char *prefix)
{
	size_t plen = prefix ? strlen(prefix) : 0;
	bool found;
	const struct pt_format *f0 = pt_format_find(FMT_VMID0), *fn = pt_format_find(FMT_VMIDN);
	const char *label = "m5.cpt";
	struct pt_gem5_cpt *cpt = NULL;
	struct gen g = {0};
	char *text = NULL, *config = NULL, err[1024], o[512];
	size_t len, config_len = 0;
	uint64_t done = 0;
	int pfd;
	pt_err rc;

	ld->cap->source_kind = "gem5 checkpoint";
	if (dfd < 0) {
		text = (char *)member_bytes(ld, prefix, plen, "m5.cpt", &len, &found);
		if (!text) {
			pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
			return PT_E_NOMEM;
		}
		/* An archive of m5out/: config.ini beside the checkpoint directory. */
		if (plen)
			config = (char *)member_bytes(ld, "", 0, "config.ini", &config_len, &found);
		pfd = -1;
	} else {
		rc = read_file(ld, dfd, "m5.cpt", PT_GEM5_MAX_SIZE, &text, &len);
		if (rc)
			return rc;
		/* The run's config.ini sits in the checkpoint's parent (m5out/). */
		pfd = openat(dfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (pfd >= 0) {
		if (read_file(ld, pfd, "config.ini", 64u << 20, &config, &config_len))
			ld->cap->err[0] = 0;    /* unreadable: the convention, said below */
		close(pfd);
	}
	rc = pt_gem5_parse(text, len, label, NULL, config, config_len, &cpt, err, sizeof err);
	free(text);
	free(config);
	if (rc) {
		pt_capture_set_error(ld->cap, "%s", err);
		return rc;
	}
	if (cpt->sys_by_convention && cpt->nsys)
		pt_capture_warn(ld->cap, "no config.ini beside the checkpoint: host stores placed by "
				"the x86 GPUFS convention (store0 at 0, store1 at 4 GiB)");
	gen_line(&g, NULL, "[capture]");
	gen_line(&g, NULL, "version = 1");
	gen_line(&g, NULL, "format = %s", f0->name);
	if (dfd >= 0) {
		ld->total = 0;
		if (cpt->has_vram)
			ld->total += file_size(dfd, cpt->vram.file);
		for (size_t i = 0; i < cpt->nsys; i++)
			ld->total += file_size(dfd, cpt->sys[i].file);
	}
	for (size_t i = 0; i <= cpt->nsys && !rc; i++) {
		const struct pt_gem5_store *s = i == 0 ? (cpt->has_vram ? &cpt->vram : NULL) : &cpt->sys[i - 1];

		if (!s)
			continue;
		snprintf(o, sizeof o, "%s:%u", label, s->line);
		gen_line(&g, o, "[memory %s]", s->section);
		gen_line(&g, o, "space = %s", i == 0 ? "vram" : "sysmem");
		gen_line(&g, o, "base = 0x%" PRIx64, s->base);
		if (dfd >= 0) {
			gen_line(&g, o, "file = %s", s->file);
			rc = load_image(ld, dfd, s->file, NULL, 0, s->file, s->size, &done);
		} else {
			/* The archive member is the compressed image: inflate it into a member of its own. */
			size_t blen = 0;
			uint8_t *b = member_bytes(ld, prefix, plen, s->file, &blen, &found);
			char mname[600];

			snprintf(mname, sizeof mname, "gem5.image/%s", s->file);
			gen_line(&g, o, "file = %s", mname);
			if (!found) {
				pt_capture_set_error(ld->cap, "%s:%u: %s%s is not in the archive", label, s->line,
						     prefix, s->file);
				rc = PT_E_CAPTURE;
			} else if (!b) {
				pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
				rc = PT_E_NOMEM;
			} else {
				rc = load_image(ld, -1, s->file, b, blen, mname, s->size, &done);
			}
			free(b);
		}
	}
	pt_loader_progress(ld, done, true);
	if (rc)
		goto out;
	snprintf(o, sizeof o, "%s:%u", label, cpt->gpuvm_line);
	gen_line(&g, o, "[%s vmid0]", f0->ctx_section);
	for (unsigned r = 0; r < PT_G5_REG__COUNT; r++) {
		if (!cpt->reg[r].has)
			continue;
		snprintf(o, sizeof o, "%s:%u", label, cpt->reg[r].line);
		gen_line(&g, o, "%s = 0x%" PRIx64, pt_gem5_reg_name(r), cpt->reg[r].raw);
		gen_line(&g, o, "x-from-%s = %s:%u %s", pt_gem5_reg_name(r), label, cpt->reg[r].line,
			 cpt->reg[r].key);
	}
	for (unsigned v = 1; cpt->has_pt_base && v < PT_GEM5_VMIDS; v++) {
		if (!cpt->pt_base[v])
			continue;
		if (!fn) {
			pt_capture_warn(ld->cap, "vmid%u: %s contexts are not supported by this build",
					v, FMT_VMIDN);
			continue;
		}
		snprintf(o, sizeof o, "%s:%u", label, cpt->pt_base_line);
		gen_line(&g, o, "[%s vmid%u]", fn->ctx_section, v);
		gen_line(&g, o, "gfx = 9");
		gen_line(&g, o, "page_table_base_addr = 0x%" PRIx64, cpt->pt_base[v]);
		/*
		 * gem5 keeps only the root of a VMID > 0 (ptStart/ptEnd are never
		 * written): its walker (pagetable_walker.cc) and Linux gmc_v9_0 use
		 * 4 levels over the 48-bit VA, a 512-entry root indexed from VA
		 * bit 39, block size 0 — the checkpoint's model, stated, not guessed.
		 */
		gen_line(&g, o, "page_table_start_addr = 0x0");
		gen_line(&g, o, "page_table_end_addr = 0xfffffffff");
		gen_line(&g, o, "page_table_depth = 3");
		gen_line(&g, o, "page_table_block_size = 0");
		if (cpt->reg[PT_G5_FB_OFFSET].has)
			gen_line(&g, o, "fb_offset = 0x%" PRIx64, cpt->reg[PT_G5_FB_OFFSET].raw);
		gen_line(&g, o, "x-from-page_table_base_addr = %s:%u ptBase[%u]", label,
			 cpt->pt_base_line, v);
		gen_line(&g, o, "x-geometry = gem5 model: 4 levels, 48-bit VA (ptStart/ptEnd not saved)");
	}
	rc = gen_finish(ld, &g, label);
out:
	gen_free(&g);
	pt_gem5_free(cpt);
	return rc;
}

pt_err pt_loader_load_gem5_dir(struct loader *ld, int dfd)
{
	return load_gem5(ld, dfd, NULL);
}

pt_err pt_loader_load_gem5_members(struct loader *ld)
{
	const char *p = gem5_prefix(ld);
	char prefix[MAX_MEMBER_NAME + 1];
	size_t n;

	if (!p)
		return PT_E_CAPTURE;
	/* p is "" (m5.cpt at the root) or the member "dir/m5.cpt": keep "dir/". */
	n = *p ? strlen(p) - strlen("m5.cpt") : 0;
	if (n > MAX_MEMBER_NAME)
		return PT_E_CAPTURE;
	memcpy(prefix, p, n);
	prefix[n] = 0;
	return load_gem5(ld, -1, prefix);
}
