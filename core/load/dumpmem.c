/* SPDX-License-Identifier: MIT */
/*
 * dumpmem.c — a capture.ini whose memory is a dump ([memory NAME] dump =
 * FILE; man/ptfs-capture.5, "Memory from a dump"): registers are not in a
 * memory dump, so [iommu] sections (and any other section) are written in
 * a capture.ini beside it.
 *
 * The dump is opened as the directory source opens its members (no link
 * followed anywhere on the path, never blocking), told apart by its
 * content, and loaded by its own source (elf.c, kdump.c) on the same
 * loader: served in place, its [memory] windows, its cpuN/kernel contexts
 * and VMCOREINFO exactly as when it is loaded alone.  Then one generated
 * text is made: the dump's, with capture.ini's [capture] keys (but version
 * and format: the dump's) after the dump's own, and capture.ini's other
 * sections after it, each line keeping its origin ("capture.ini:12",
 * "guest.elf"), so that every message of the schema, the binding and the
 * seal names the line the user wrote.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_int.h"
#include "pt_extend.h"

/* The line range [FROM, TO] (1-based, of capture.ini) a section spans: to the next header. */
static void section_span(const struct pt_ini *ini, unsigned line, unsigned *from, unsigned *to)
{
	*from = line;
	*to = ini->nlines;
	for (size_t i = 0; i < ini->nsec; i++)
		if (ini->sec[i].line > line && ini->sec[i].line - 1 < *to)
			*to = ini->sec[i].line - 1;
}

/* Where each line of TEXT (LEN bytes) starts, and LEN after the last: *N lines (malloc'd). */
static size_t *line_index(const char *text, size_t len, size_t *n)
{
	size_t *at = NULL, k = 0, cap = 0;

	for (size_t i = 0; i <= len; i++) {
		/* a line starts at 0 and after each newline; LEN itself is the end */
		if (i < len && i && text[i - 1] != '\n')
			continue;
		if (!pt_vec_reserve(&at, &cap, k + 1, sizeof *at)) {
			free(at);
			return NULL;
		}
		at[k++] = i;
	}
	/* the last offset is the end, not a line */
	*n = k - 1;
	return at;
}

/* Line NO (1-based) of a text indexed by AT: *P, *PLEN (without its newline). */
static void line_get(const char *text, const size_t *at, size_t no, const char **p, size_t *plen)
{
	size_t s = at[no - 1], e = at[no];

	if (e > s && text[e - 1] == '\n')
		e--;
	*p = text + s;
	*plen = e - s;
}

/* The text being made: lines and their origins. */
struct newtext {
	char *text;
	size_t len, cap;
	char **origin;
	size_t n, ocap;
	bool *dump;             /* the line is the dump's */
	size_t dcap;
	bool oom;
};

/* Appends the PLEN bytes of P as one line from ORIGIN (DUMP: of the dump's text). */
static void nt_put(struct newtext *t, const char *p, size_t plen, const char *origin, bool dump)
{
	if (t->oom || !pt_vec_reserve(&t->text, &t->cap, t->len + plen + 2, 1) ||
	    !pt_vec_reserve(&t->origin, &t->ocap, t->n + 1, sizeof *t->origin) ||
	    !pt_vec_reserve(&t->dump, &t->dcap, t->n + 1, sizeof *t->dump)) {
		t->oom = true;
		return;
	}
	t->dump[t->n] = dump;
	memcpy(t->text + t->len, p, plen);
	t->len += plen;
	t->text[t->len++] = '\n';
	t->text[t->len] = 0;
	t->origin[t->n] = strdup(origin);
	t->oom = !t->origin[t->n++];
}

/*
 * The dump's generated text (in LD) and capture.ini (UTEXT, ULEN; parsed
 * into UM) as one text with each line's origin, into LD.
 */
static pt_err merge(struct pt_loader *ld, const struct pt_manifest *um, const char *utext, size_t ulen)
{
	const struct pt_ini *ini = um->ini;
	struct newtext t = {0};
	unsigned cfrom = 0, cto = 0, dfrom = 0, dto = 0;
	const struct pt_ini_section *csec = NULL;
	size_t *dat, *uat, dn = 0, un = 0, head = 1;
	const char *p;
	size_t n;
	char org[32];

	for (size_t i = 0; i < ini->nsec; i++) {
		if (!strcmp(ini->sec[i].type, "capture"))
			csec = &ini->sec[i];
		if (!strcmp(ini->sec[i].type, "memory") && ini->sec[i].name &&
		    !strcmp(ini->sec[i].name, um->dump_sec))
			section_span(ini, ini->sec[i].line, &dfrom, &dto);
	}
	if (csec)
		section_span(ini, csec->line, &cfrom, &cto);
	dat = line_index(ld->text, ld->len, &dn);
	uat = line_index(utext, ulen, &un);
	t.oom = !dat || !uat;
	/* the dump's [capture] section: its header and keys, up to the next header */
	while (!t.oom && head < dn && head < ld->nlines) {
		line_get(ld->text, dat, head + 1, &p, &n);
		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		if (n && *p == '[')
			break;
		head++;
	}
	for (size_t l = 1; !t.oom && l <= dn && l <= ld->nlines; l++) {
		line_get(ld->text, dat, l, &p, &n);
		nt_put(&t, p, n, ld->origin[l - 1], true);
		/* capture.ini's own [capture] keys after the dump's, but version and format (the dump's) */
		for (size_t k = 0; l == head && csec && k < csec->nkv; k++) {
			const struct pt_ini_kv *kv = &csec->kv[k];

			if (!strcmp(kv->key, "version") || !strcmp(kv->key, "format") || kv->line > un)
				continue;
			snprintf(org, sizeof org, "capture.ini:%u", kv->line);
			line_get(utext, uat, kv->line, &p, &n);
			nt_put(&t, p, n, org, false);
		}
	}
	/* capture.ini's other lines, but its [capture] and the section naming the dump */
	for (size_t l = 1; !t.oom && l <= un; l++) {
		if ((l >= cfrom && l <= cto) || (l >= dfrom && l <= dto))
			continue;
		snprintf(org, sizeof org, "capture.ini:%zu", l);
		line_get(utext, uat, l, &p, &n);
		nt_put(&t, p, n, org, false);
	}
	free(dat);
	free(uat);
	if (t.oom || !t.text) {
		for (size_t i = 0; i < t.n; i++)
			free(t.origin[i]);
		free(t.origin);
		free(t.dump);
		free(t.text);
		return pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", ld->path);
	}
	for (size_t i = 0; i < ld->nlines; i++)
		free(ld->origin[i]);
	free(ld->origin);
	free(ld->text);
	ld->text = t.text;
	ld->len = t.len;
	ld->textcap = t.cap;
	ld->origin = t.origin;
	ld->nlines = t.n;
	ld->origincap = t.ocap;
	free(ld->dumpline);
	ld->dumpline = t.dump;
	return PT_OK;
}

/* The value of "KEY = VALUE" in the dump's [capture] (its first lines), into OUT ("" if absent). */
static void dump_capture_key(const struct pt_loader *ld, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key), dn = 0, *dat = line_index(ld->text, ld->len, &dn);

	out[0] = 0;
	for (size_t l = 2; dat && l <= dn; l++) {
		const char *p;
		size_t n;

		line_get(ld->text, dat, l, &p, &n);
		if (n && *p == '[')
			break;
		if (n > klen + 3 && !strncmp(p, key, klen) && !strncmp(p + klen, " = ", 3)) {
			snprintf(out, len, "%.*s", (int)(n - klen - 3), p + klen + 3);
			break;
		}
	}
	free(dat);
}

/*
 * Opens the file KEY = WRITTEN (PATH normalised, at LINE) of UM's dump
 * section as the source opens its members: *FD, *ST, or the error set.
 */
static pt_err open_member(struct pt_loader *ld, const struct pt_manifest *um, const char *key, const char *written,
			  const char *path, unsigned line, int *fd, struct stat *st)
{
	const char *where = "capture.ini";

	if (!ld->open)
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s:%u: %s '%s' of [memory %s]: a dump is read in place "
			"from a capture directory, not from an archive (unpack it, or put capture.ini beside the dump "
			"in a directory)", where, line, key, written, um->dump_sec);
	*fd = ld->open(ld->resolve_ud, path, st);
	if (*fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s:%u: %s '%s' of [memory %s] is a symbolic link or "
			"under one (only regular files are read)", where, line, key, written, um->dump_sec);
	if (*fd < 0 && errno == ENOENT)
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s:%u: %s '%s' of [memory %s] is not in capture.ini's "
			"directory", where, line, key, written, um->dump_sec);
	if (*fd < 0)
		return pt_loader_fail(ld, PT_E_IO, "%s:%u: %s '%s' of [memory %s]: %s", where, line, key, written,
			um->dump_sec, strerror(errno));
	if (!S_ISREG(st->st_mode)) {
		close(*fd);
		*fd = -1;
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s:%u: %s '%s' of [memory %s] is a %s (only regular "
			"files are read)", where, line, key, written, um->dump_sec, pt_file_type_name(st->st_mode));
	}
	return PT_OK;
}

/*
 * system_map = FILE beside the dump: opened now, under the dump's rules,
 * and kept with the kernel's facts for the step after the load (route c,
 * core/linux/linux.c; the command line's System.map wins over it there).
 */
static pt_err open_system_map(struct pt_loader *ld, const struct pt_manifest *um)
{
	struct stat st;
	int fd = -1;
	pt_err rc;

	if (!um->system_map)
		return PT_OK;
	rc = open_member(ld, um, "system_map", um->system_map, um->system_map_path, um->system_map_line, &fd, &st);
	if (!rc && (rc = pt_loader_kernel_map(ld, fd, um->system_map)))
		return pt_loader_fail(ld, rc, "capture.ini:%u: system_map '%s': out of memory", um->system_map_line,
				      um->system_map);
	return rc;
}

pt_err pt_dumpmem_load(struct pt_loader *ld)
{
	struct pt_manifest *um = ld->cap->man;
	struct pt_probe p = {.fd = -1};
	const struct pt_source *src;
	uint8_t head[PT_PROBE_HEAD];
	char *utext = ld->text, fmt[64];
	size_t ulen = ld->len;
	struct stat st;
	ssize_t n;
	pt_err rc;

	ld->cap->man = NULL;
	ld->text = NULL;
	ld->len = ld->textcap = 0;
	rc = open_member(ld, um, "dump", um->dump, um->dump_path, um->dump_line, &p.fd, &st);
	if (rc)
		goto out;
	do
		n = pread(p.fd, head, sizeof head, 0);
	while (n < 0 && errno == EINTR);
	p.path = um->dump;
	p.st = &st;
	p.head = head;
	p.head_len = n > 0 ? (size_t)n : 0;
	/* told apart by the content, never the name (docs/design.md §3.2) */
	src = pt_source_best(ld->sources, &p);
	if (!src || !src->dump) {
		rc = pt_loader_fail(ld, PT_E_CAPTURE, "capture.ini:%u: dump '%s' of [memory %s] is neither an ELF "
			"core nor a kdump file%s%s", um->dump_line, um->dump, um->dump_sec,
			src && src->kind ? ": it reads as a " : "", src && src->kind ? src->kind : "");
		goto out;
	}
	ld->emitted = ld->generated = false;
	ld->as_memory = true;
	ld->cap->source_kind = src->kind;
	rc = src->load(ld, &p);
	ld->as_memory = false;
	if (rc) {
		/* the dump's own message ("guest.elf: PT_LOAD 3 ..."), after the line that named it */
		char msg[sizeof ld->cap->err];

		snprintf(msg, sizeof msg, "%s", ld->cap->err);
		pt_loader_fail(ld, rc, "capture.ini:%u: dump '%s' of [memory %s]: %s", um->dump_line, um->dump,
			       um->dump_sec, msg);
		goto out;
	}
	/* format: the dump's; a capture.ini that says another is wrong about the dump */
	dump_capture_key(ld, "format", fmt, sizeof fmt);
	for (size_t i = 0; i < um->ini->nsec; i++) {
		const struct pt_ini_section *s = &um->ini->sec[i];

		for (size_t k = 0; !strcmp(s->type, "capture") && k < s->nkv; k++)
			if (!strcmp(s->kv[k].key, "format") && strcmp(s->kv[k].value, fmt)) {
				rc = pt_loader_fail(ld, PT_E_CAPTURE, "capture.ini:%u: format '%s' in [capture], but the "
					"dump '%s' is of an %s guest (leave 'format' out: the dump's is taken)",
					s->kv[k].line, s->kv[k].value, um->dump, fmt);
				goto out;
			}
	}
	rc = open_system_map(ld, um);
	if (!rc)
		rc = merge(ld, um, utext, ulen);
out:
	if (p.fd >= 0)
		close(p.fd);
	free(utext);
	pt_manifest_free(um);
	return rc;
}

void pt_dumpmem_warnings(struct pt_loader *ld, size_t from)
{
	struct pt_capture *cap = ld->cap;

	for (size_t i = from; i < cap->nwarn; i++) {
		char *w = cap->warn[i], *end, *s;
		unsigned long line;

		if (strncmp(w, "capture.ini:", 12))
			continue;
		line = strtoul(w + 12, &end, 10);
		if (end == w + 12 || *end != ':' || line < 1 || line > ld->nlines)
			continue;
		if (asprintf(&s, "%s%s", ld->origin[line - 1], end) < 0)
			continue;
		free(w);
		cap->warn[i] = s;
	}
}
