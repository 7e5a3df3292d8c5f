/*
 * fuzz_qmp — libFuzzer target for the live source's parsers
 * (core/sources/pt_src_qmp.h): what a QMP server answers.
 *
 * Input: one selector byte, then text.  Selector % 4: 0 the JSON reader
 * (pt_json_parse: a whole QMP message), 1 `info mtree -f` text
 * (pt_qmp_mtree of region "ram", pt_qmp_mmio), 2 `info registers -a` text
 * (pt_qmp_regs) and an `xp` answer, 3 what a gdbstub sends
 * (core/sources/pt_src_gdb.h: a packet, target description XML, a thread
 * list, a register).  The socket conversations themselves are tested
 * against fake servers (check_tests/test_live*.sh).
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

#include "pt_src_gdb.h"
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

/* What a gdbstub sends: each parser on the same text; packets decoded one after the other. */
static void gdb_text(const char *text, size_t len)
{
	char err[512], *out, *href[8];
	size_t used, olen, off = 0, nh = 0, n = 0;
	unsigned next = 0, num, bits, pid[32], tid[32];
	bool found = false, more;
	uint64_t v;

	while (off < len) {
		if (pt_gdb_unframe(text + off, len - off, &out, &olen, &used, err, sizeof err) != PT_OK) {
			check_line(err);
			break;
		}
		if (!out && !used)
			break;
		if (out && (olen >= PT_GDB_MAX_REPLY || out[olen]))
			abort();
		free(out);
		off += used;
		if (!out)
			break;
	}
	if (pt_gdb_xml_reg(text, &next, "TTBR0_EL1", &found, &num, &bits, err, sizeof err) != PT_OK)
		check_line(err);
	else if (found && (!bits || bits > 4096))
		abort();
	if (pt_gdb_xml_includes(text, href, 8, &nh, err, sizeof err) != PT_OK)
		check_line(err);
	for (size_t i = 0; i < nh; i++)
		free(href[i]);
	/* PT_GDB_MAX_THREADS ids would not fit these arrays: a short reply only */
	if (len < 64 && pt_gdb_threads(text, pid, tid, &n, &more, err, sizeof err) != PT_OK)
		check_line(err);
	if (pt_gdb_reg_value(text, 64, &v, err, sizeof err) != PT_OK)
		check_line(err);
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
	switch (data[0] % 4) {
	case 3:
		gdb_text(text, size - 1);
		break;
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
