/*
 * fuzz_ini — libFuzzer target for the capture.ini parser (core/ini.h).
 *
 * The input is the text of a capture.ini.  Both layers run: the lexical
 * parse and the version 1 schema; on success every typed value is touched
 * so ASan sees any dangling string.  Also feeds each line to the small
 * helpers (pt_ini_uint, pt_path_normalise, pt_ini_name_ok), which the
 * archive loader calls on member names and values.
 *
 * Invariants checked (abort -> libFuzzer reports a crash):
 *  - an error message is non-empty, starts "capture.ini:", names a line
 *    within the file and has no control character (a capture.ini must not
 *    drive the terminal it is reported on);
 *  - a path pt_path_normalise() accepts is relative, without "..", "."
 *    or empty components.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ini.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_err(const char *err, size_t size)
{
	unsigned line = 0;

	if (strncmp(err, "capture.ini:", 12) || sscanf(err + 12, "%u:", &line) != 1 || line == 0)
		abort();
	/* a line number past the last line (+1 for a missing final newline) is wrong */
	if (line > size + 2)
		abort();
	for (const char *p = err; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

static void check_path(const char *in)
{
	char *p = strdup(in);

	if (!p)
		return;
	if (pt_path_normalise(p)) {
		if (p[0] == '/' || p[0] == 0)
			abort();
		for (char *c = p; c;) {
			char *slash = strchr(c, '/');
			size_t n = slash ? (size_t)(slash - c) : strlen(c);

			if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
				abort();
			c = slash ? slash + 1 : NULL;
		}
	}
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pt_manifest *m = NULL;
	char err[1024] = "";
	pt_err rc;

	if (size > (1u << 20))
		return 0;
	rc = pt_manifest_parse((const char *)data, size, &m, err, sizeof err);
	if (rc != PT_OK) {
		if (m)
			abort();
		check_err(err, size);
	} else {
		volatile size_t sink = 0;

		/*
		 * an [iommu] section's device contexts are made at load, from memory;
		 * a capture whose memory is a dump takes the dump's format and contexts
		 */
		if (!m || (!m->dump && (!m->fmt || (m->nctx == 0 && m->niommu == 0))))
			abort();
		if (m->dump)
			check_path(m->dump_path);
		for (size_t i = 0; i < m->nmem; i++) {
			sink += strlen(m->mem[i].name) + strlen(m->mem[i].file) + strlen(m->mem[i].path);
			check_path(m->mem[i].path);
		}
		for (size_t i = 0; i < m->nctx; i++) {
			if (!pt_ini_name_ok(m->ctx[i].name))
				abort();
			for (size_t k = 0; k < m->ctx[i].nann; k++)
				sink += strlen(m->ctx[i].ann[k].key) + strlen(m->ctx[i].ann[k].value);
		}
		for (size_t k = 0; k < m->nann; k++)
			sink += strlen(m->ann[k].value);
		(void)sink;
		pt_manifest_free(m);
	}

	/* The helpers on each line of the input, as a C string. */
	{
		char *text = malloc(size + 1);
		char *save = NULL;

		if (!text)
			return 0;
		memcpy(text, data, size);
		text[size] = 0;
		for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			uint64_t v;

			(void)pt_ini_uint(line, &v);
			(void)pt_ini_name_ok(line);
			check_path(line);
		}
		free(text);
	}
	return 0;
}
