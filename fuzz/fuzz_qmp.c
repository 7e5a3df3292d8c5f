/*
 * fuzz_qmp — libFuzzer target for the live source's parsers
 * (core/sources/pt_src_qmp.h): what a QMP server answers.
 *
 * Input: one selector byte, then text.  Selector % 3: 0 the JSON reader
 * (pt_json_parse: a whole QMP message), 1 `info mtree -f` text
 * (pt_qmp_mtree of region "ram"), 2 `info registers -a` text
 * (pt_qmp_regs).  The socket conversation itself is tested against a fake
 * server (check_tests/test_live.sh).
 *
 * Invariants checked (abort -> libFuzzer reports a crash):
 *  - an error is one line without control characters;
 *  - JSON: an object's keys and strings are NUL-terminated within what
 *    was given; a value found by pt_json_get is one of the object's;
 *  - mtree: ranges sorted by base, none empty, at most PT_QMP_MAX_RANGES;
 *  - regs: at least one vCPU, indices below PT_QMP_MAX_CPUS.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pt_src_qmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_line(const char *s)
{
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			abort();
}

static void walk_json(const struct pt_json *j, size_t len)
{
	if (j->s && strlen(j->s) > len * 3)
		abort();
	for (size_t i = 0; i < j->n; i++) {
		if (j->type == PT_JSON_OBJ && pt_json_get(j, j->key[i]) == NULL)
			abort();
		walk_json(&j->kid[i], len);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "", *text;
	size_t n = 0;

	if (size < 1)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	switch (data[0] % 3) {
	case 0: {
		struct pt_json *j = pt_json_parse(text, size - 1);

		if (j)
			walk_json(j, size);
		pt_json_free(j);
		break;
	}
	case 1: {
		struct pt_qmp_range *r = NULL;

		if (pt_qmp_mtree(text, "ram", &r, &n, err, sizeof err) == PT_OK) {
			if (!n || n > PT_QMP_MAX_RANGES)
				abort();
			for (size_t i = 0; i < n; i++)
				if (!r[i].len || (i && r[i - 1].base > r[i].base))
					abort();
		} else {
			check_line(err);
		}
		free(r);
		/* the same text's MMIO window of an IOMMU (qmp.c iommus) */
		{
			struct pt_qmp_range w;
			bool found;

			if (pt_qmp_mmio(text, "intel_iommu", &found, &w, err, sizeof err) == PT_OK) {
				if (found && !w.len)
					abort();
			} else {
				check_line(err);
			}
		}
		break;
	}
	default: {
		struct pt_qmp_cpu *c = NULL;

		if (pt_qmp_regs(text, &c, &n, err, sizeof err) == PT_OK) {
			if (!n)
				abort();
			for (size_t i = 0; i < n; i++)
				if (c[i].index >= PT_QMP_MAX_CPUS)
					abort();
		} else {
			check_line(err);
		}
		free(c);
		/* an xp answer (qmp.c xp) */
		{
			uint64_t v;

			if (pt_qmp_xp(text, 0xfed90020, &v, err, sizeof err) != PT_OK)
				check_line(err);
		}
		break;
	}
	}
	free(text);
	return 0;
}
