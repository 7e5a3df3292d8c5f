/* SPDX-License-Identifier: MIT */
/*
 * build.c — `ptfs-tool build SPEC OUT`: a capture from a list of mappings
 * (issue #25 item 4), so that nobody needs a hardware manual to make a
 * test capture.
 *
 * SPEC is a capture.ini without [memory] sections and without root
 * addresses; its context sections hold repeatable lines
 *     map = VA SIZE SPACE PA [FLAG,...]
 * The spec, less its map lines and plus the root keys each format's
 * build_keys hook writes, is loaded once as it is (no memory: the contexts'
 * geometry is what its keys say); core/walk/build.c then allocates and
 * encodes the tables; the spec plus the real root keys and one [memory]
 * section per space is written to OUT (a .tar.gz, or a directory) with the
 * tables; and OUT is loaded again and every page of every map line walked:
 * it must give the line back (space, PA, each flag), or build fails.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "capout.h"
#include "cli.h"
#include "pt_build.h"

static const char build_help[] =
	"Usage: ptfs-tool build [--force] SPEC OUT\n"
	"\n"
	"Writes a capture to OUT (a .tar.gz archive, or a directory that does not\n"
	"exist or is empty) from SPEC, a capture.ini without [memory] sections and\n"
	"without root addresses whose context sections hold lines\n"
	"\n"
	"    map = VA SIZE SPACE PA [FLAG,...]\n"
	"\n"
	"(numbers decimal or 0x hex, SIZE may end in K, M or G; SPACE a space of\n"
	"the context as its section names it, e.g. gpa for a guest with\n"
	"space = gpa; FLAG a one-bit leaf field to set, as maps prints it, e.g.\n"
	"read_only).  Tables are allocated in the context's space (in a translated\n"
	"space, at addresses its translator is made to map) and written by the\n"
	"format's encoder, pages as large as the levels and the alignment allow;\n"
	"the capture is then walked page by page and must give SPEC back, or OUT\n"
	"is not written.  It is written under a temporary name beside OUT and\n"
	"renamed to OUT when complete; a symbolic link at OUT is refused.\n"
	"\n"
	"  --force    replace an existing archive OUT (a non-empty directory is\n"
	"             refused even so)\n";

/* Trims blanks at both ends of S in place. */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

/* One `map =` value: VA SIZE SPACE PA [FLAG,...]. */
static int parse_map(struct spec *sp, struct spec_section *sec, char *v, unsigned line)
{
	struct spec_map m = { .line = line };
	char *tok[5] = { 0 }, *save = NULL;
	unsigned n = 0;

	for (char *t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (*t == ';' || *t == '#')
			break;                 /* a comment after the line */
		if (n == 5)
			return cli_fail(PT_E_VALUE, "%s:%u: map = VA SIZE SPACE PA [FLAG,...]: too many words",
					sp->path, line);
		tok[n++] = t;
	}
	if (n < 4)
		return cli_fail(PT_E_VALUE, "%s:%u: map = VA SIZE SPACE PA [FLAG,...]: %u words",
				sp->path, line, n);
	if (!cli_parse_u64(tok[0], &m.va) || !cli_parse_size(tok[1], &m.size) ||
	    !cli_parse_u64(tok[3], &m.pa)) {
		const char *b = pt_num_bare_hex(tok[0]) ? tok[0] : pt_num_bare_hex(tok[1]) ? tok[1] :
				pt_num_bare_hex(tok[3]) ? tok[3] : NULL;

		return cli_fail(PT_E_VALUE, "%s:%u: map: VA, SIZE and PA are numbers (decimal, or hex with 0x)%s",
				sp->path, line, b ? cli_num_hint(b) : "");
	}
	m.space = strdup(tok[2]);
	if (!m.space)
		return cli_fail(PT_E_NOMEM, "build: out of memory");
	if (n == 5 && strcmp(tok[4], "-") != 0) {
		char *fs = NULL;

		for (char *f = strtok_r(tok[4], ",", &fs); f; f = strtok_r(NULL, ",", &fs)) {
			if (m.nflags == SPEC_FLAGS_MAX)
				return cli_fail(PT_E_VALUE, "%s:%u: more than %d flags", sp->path, line,
						SPEC_FLAGS_MAX);
			if (!(m.flags[m.nflags++] = strdup(f)))
				return cli_fail(PT_E_NOMEM, "build: out of memory");
		}
	}
	if (!pt_vec_reserve(&sec->maps, &sec->mapcap, sec->nmaps + 1, sizeof *sec->maps))
		return cli_fail(PT_E_NOMEM, "build: out of memory");
	sec->maps[sec->nmaps++] = m;
	return CLI_EXIT_OK;
}

/* A header line "[type name]" opens a section. */
static int open_section(struct spec *sp, char *l, unsigned line)
{
	struct spec_section *sec;
	char *close = strchr(l, ']'), *name;

	if (!close)
		return cli_fail(PT_E_VALUE, "%s:%u: a section header needs ']'", sp->path, line);
	*close = 0;
	if (!pt_vec_reserve(&sp->sec, &sp->seccap, sp->nsec + 1, sizeof *sp->sec))
		return cli_fail(PT_E_NOMEM, "build: out of memory");
	sec = &sp->sec[sp->nsec++];
	memset(sec, 0, sizeof *sec);
	l = trim(l + 1);
	name = strpbrk(l, " \t");
	if (name)
		*name++ = 0;
	snprintf(sec->type, sizeof sec->type, "%s", l);
	snprintf(sec->name, sizeof sec->name, "%s", name ? trim(name) : "");
	sec->line = line;
	return CLI_EXIT_OK;
}

/* Reads SPEC into SP: sections, their keys, their map lines; every other line kept. */
static int spec_read(struct spec *sp, const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	unsigned line = 0;
	int st = CLI_EXIT_OK;

	sp->path = path;
	if (!f)
		return cli_fail(PT_E_IO, "%s: %s", path, strerror(errno));
	while (st == CLI_EXIT_OK && getline(&buf, &cap, f) >= 0) {
		char *l = trim(buf), *eq;
		struct spec_section *sec = sp->nsec ? &sp->sec[sp->nsec - 1] : NULL;
		struct spec_line *sl;

		line++;
		l[strcspn(l, "\n")] = 0;
		if (*l == '[') {
			st = open_section(sp, l, line);
			continue;
		}
		if (!*l || *l == '#' || *l == ';')
			continue;
		eq = strchr(l, '=');
		if (!sec || !eq) {
			st = cli_fail(PT_E_VALUE, "%s:%u: expected [section] or key = value", path, line);
			break;
		}
		*eq = 0;
		if (strcmp(trim(l), "map") == 0) {
			st = parse_map(sp, sec, eq + 1, line);
			continue;
		}
		if (!pt_vec_reserve(&sec->kv, &sec->kvcap, sec->nkv + 1, sizeof *sec->kv)) {
			st = cli_fail(PT_E_NOMEM, "build: out of memory");
			break;
		}
		sl = &sec->kv[sec->nkv++];
		sl->key = strdup(trim(l));
		sl->value = strdup(trim(eq + 1));
		sl->line = line;
		if (!sl->key || !sl->value)
			st = cli_fail(PT_E_NOMEM, "build: out of memory");
	}
	free(buf);
	fclose(f);
	return st;
}

void cli_spec_free(struct spec *sp)
{
	for (size_t i = 0; i < sp->nsec; i++) {
		struct spec_section *sec = &sp->sec[i];

		for (size_t k = 0; k < sec->nkv; k++) {
			free(sec->kv[k].key);
			free(sec->kv[k].value);
		}
		for (size_t k = 0; k < sec->nmaps; k++) {
			free(sec->maps[k].space);
			for (unsigned j = 0; j < sec->maps[k].nflags; j++)
				free(sec->maps[k].flags[j]);
		}
		free(sec->kv);
		free(sec->maps);
	}
	free(sp->sec);
}

/* The format of context section SEC (NULL: not a context section). */
static const struct pt_format *section_format(const struct spec *sp, const struct spec_section *sec)
{
	const char *f = cli_spec_get((void *)sec, "format");

	/* A context section is [pdb] or a format's own type; `format =` then names another. */
	if (strcmp(sec->type, "pdb") != 0 && !pt_format_by_section(sec->type))
		return NULL;
	if (f)
		return pt_format_find(f);
	if (strcmp(sec->type, "pdb") == 0) {
		for (size_t i = 0; i < sp->nsec; i++)
			if (strcmp(sp->sec[i].type, "capture") == 0)
				return pt_format_find(cli_spec_get(&sp->sec[i], "format") ?
						      cli_spec_get(&sp->sec[i], "format") : "");
		return NULL;
	}
	return pt_format_by_section(sec->type);
}

/* Checks the spec's shape: contexts with maps, no [memory], maps in order and apart. */
static int spec_check(struct spec *sp)
{
	for (size_t i = 0; i < sp->nsec; i++) {
		struct spec_section *sec = &sp->sec[i];

		if (strcmp(sec->type, "memory") == 0)
			return cli_fail(PT_E_VALUE, "%s:%u: a build spec has no [memory] sections: the "
					"builder writes them", sp->path, sec->line);
		sec->fmt = section_format(sp, sec);
		if (sec->nmaps && !sec->fmt)
			return cli_fail(PT_E_VALUE, "%s:%u: map lines in [%s] (not a context section)",
					sp->path, sec->maps[0].line, sec->type);
		if (sec->fmt && (!sec->fmt->encode || !sec->fmt->build_keys))
			return cli_fail(PT_E_UNSUPPORTED, "%s:%u: format %s cannot be built yet (no encoder)",
					sp->path, sec->line, sec->fmt->name);
		for (size_t k = 0; k < sec->nmaps; k++) {
			const struct spec_map *m = &sec->maps[k];

			if (m->size == 0 || m->va + m->size - 1 < m->va)
				return cli_fail(PT_E_VALUE, "%s:%u: map: SIZE is 0 or the range wraps",
						sp->path, m->line);
			for (size_t j = 0; j < k; j++) {
				const struct spec_map *o = &sec->maps[j];

				if (m->va <= o->va + o->size - 1 && o->va <= m->va + m->size - 1)
					return cli_fail(PT_E_VALUE, "%s:%u: map overlaps line %u",
							sp->path, m->line, o->line);
			}
			if (k == 0 || m->va < sec->va_lo)
				sec->va_lo = m->va;
			if (k == 0 || m->va + m->size - 1 > sec->va_hi)
				sec->va_hi = m->va + m->size - 1;
		}
	}
	return CLI_EXIT_OK;
}

int cli_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct spec sp = { 0 };
	bool force = false;
	int c, st;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(build_help, stdout);
			return CLI_EXIT_OK;
		}
		if (c == 'f') {
			force = true;
			continue;
		}
		return cli_opt_error("build", argv, c);
	}
	if (argc - optind != 2)
		return cli_fail(PT_E_USAGE, "build: needs SPEC OUT (try 'ptfs-tool build --help')");
	{
		struct capout co;

		/* before the spec's work: an OUT that cannot be written is said first */
		capout_init(&co, "build", argv[optind + 1], force);
		if (!capout_check(&co))
			return CLI_EXIT_ERROR;
	}
	st = spec_read(&sp, argv[optind]);
	if (st == CLI_EXIT_OK)
		st = spec_check(&sp);
	if (st == CLI_EXIT_OK)
		st = cli_build_run(&sp, argv[optind + 1], force);
	cli_spec_free(&sp);
	return st;
}
