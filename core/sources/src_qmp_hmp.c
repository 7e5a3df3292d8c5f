/* SPDX-License-Identifier: MIT */
/*
 * src_qmp_hmp.c — the parsers of the HMP text the live source asks QEMU
 * for over QMP (pt_src_qmp.h): `info mtree -f` (QEMU system/memory.c
 * mtree_print_flatview), `xp` (monitor/misc.c memory_dump) and x86
 * `info registers -a` (target/i386/cpu-dump.c).  Pure: text in, facts out,
 * for the unit tests and the fuzzer.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_num.h"
#include "pt_src_qmp.h"
#include "pt_vec.h"

/* ---- HMP text ---- */

/* A hex number of 1..16 digits at *P (no 0x), advancing *P; false if none or longer. */
static bool hex_at(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int d;

	while ((d = pt_hex_digit(**p)) >= 0) {
		if (*p - s >= 16)
			return false;
		x = x << 4 | (uint64_t)d;
		(*p)++;
	}
	*v = x;
	return *p > s;
}

static int cmp_range(const void *a, const void *b)
{
	const struct pt_qmp_range *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

/*
 * One range line "  START-END (prio P, TYPE): NAME[ @OFF][ ...]" of MR:
 * 1 taken, 0 not MR's (or not a range line), -1 malformed.  IO: MR is a
 * device's MMIO (TYPE i/o), else RAM (TYPE ram or rom).
 */
static int range_line(const char *l, size_t n, const char *mr, bool io, struct pt_qmp_range *r)
{
	const char *p = l, *e = l + n, *name, *colon;
	size_t ml = strlen(mr);
	uint64_t start, end;

	while (p < e && *p == ' ')
		p++;
	if (p >= e || pt_hex_digit(*p) < 0)
		return 0;   /* a header line of the view (" Root memory region: system") */
	if (!hex_at(&p, &start) || *p != '-')
		return -1;
	p++;
	if (!hex_at(&p, &end) || end < start || strncmp(p, " (prio ", 7))
		return -1;
	colon = memchr(p, ')', (size_t)(e - p));
	if (!colon || colon + 2 >= e || colon[1] != ':' || colon[2] != ' ')
		return -1;
	/* RAM and ROM regions only: an i/o region of the same name is no memory (and the reverse) */
	if (io ? !memmem(p, (size_t)(colon - p), "i/o", 3) :
		 !memmem(p, (size_t)(colon - p), "ram", 3) && !memmem(p, (size_t)(colon - p), "rom", 3))
		return 0;
	name = colon + 3;
	if ((size_t)(e - name) < ml || memcmp(name, mr, ml) || (name + ml < e && name[ml] != ' '))
		return 0;
	p = name + ml;
	r->off = 0;
	if (e - p > 2 && p[0] == ' ' && p[1] == '@') {
		p += 2;
		if (!hex_at(&p, &r->off))
			return -1;
	}
	if (end == UINT64_MAX && start == 0)
		return -1;   /* 2^64 bytes: no backend is that large */
	r->base = start;
	r->len = end - start + 1;
	return 1;
}

/* The ranges of MR (IO: as in range_line) in the view of "memory", unsorted; *SEEN: that view was there. */
static pt_err mtree_scan(const char *text, const char *mr, bool io, struct pt_qmp_range **out, size_t *n,
			 bool *seen_view, char *err, size_t errlen)
{
	struct pt_qmp_range *v = NULL;
	size_t nv = 0, cap = 0;
	unsigned line = 0;
	bool in_view = false, mine = false, seen = false;

	*out = NULL;
	*n = 0;
	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		struct pt_qmp_range r;
		int k;

		line++;
		if (len && l[len - 1] == '\r')
			len--;
		if (len >= 9 && !strncmp(l, "FlatView ", 9)) {
			in_view = true;
			mine = false;
		} else if (in_view && len > 5 && !strncmp(l, " AS \"", 5)) {
			/* the view of address space "memory" (QEMU's address_space_memory) */
			if (len >= 13 && !strncmp(l + 5, "memory\",", 8))
				mine = seen = true;
		} else if (mine && (k = range_line(l, len, mr, io, &r)) != 0) {
			if (k < 0) {
				free(v);
				return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info mtree -f:%u: not a range line "
						  "'START-END (prio P, TYPE): NAME [@OFFSET]'", line);
			}
			if (nv >= PT_QMP_MAX_RANGES) {
				free(v);
				return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info mtree -f: more than %u ranges of "
						  "'%s'", PT_QMP_MAX_RANGES, mr);
			}
			if (!pt_vec_reserve(&v, &cap, nv < 16 ? 16 : nv + 1, sizeof *v)) {
				free(v);
				return pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
			}
			r.line = line;
			v[nv++] = r;
		}
		l = e ? e + 1 : NULL;
	}
	*out = v;
	*n = nv;
	*seen_view = seen;
	return PT_OK;
}

pt_err pt_qmp_mtree(const char *text, const char *mr, struct pt_qmp_range **out, size_t *n,
		    char *err, size_t errlen)
{
	bool seen;
	pt_err rc = mtree_scan(text, mr, false, out, n, &seen, err, errlen);

	if (rc)
		return rc;
	if (!seen || !*n) {
		free(*out);
		*out = NULL;
		*n = 0;
		if (!seen)
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info mtree -f shows no flat view of address "
					  "space \"memory\"");
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info mtree -f: address space \"memory\" maps no "
				  "RAM of backend '%s'", mr);
	}
	qsort(*out, *n, sizeof **out, cmp_range);
	return PT_OK;
}

pt_err pt_qmp_mmio(const char *text, const char *name, bool *found, struct pt_qmp_range *at, char *err,
		   size_t errlen)
{
	struct pt_qmp_range *v;
	size_t n;
	bool seen;
	pt_err rc = mtree_scan(text, name, true, &v, &n, &seen, err, errlen);

	*found = false;
	if (rc)
		return rc;
	if (n > 1) {
		unsigned l1 = v[0].line, l2 = v[1].line;

		free(v);
		/* one device of a kind: two windows would need a name per IOMMU the user could not tell apart */
		return pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "info mtree -f:%u and :%u: two MMIO windows "
				  "'%s' in address space \"memory\": one such IOMMU is read live", l1, l2, name);
	}
	if (n) {
		*at = v[0];
		*found = true;
	}
	free(v);
	return PT_OK;
}

pt_err pt_qmp_xp(const char *text, uint64_t addr, uint64_t *v, char *err, size_t errlen)
{
	const char *p = text;
	char line[48], show[48];
	uint64_t at;

	if (hex_at(&p, &at) && at == addr && !strncmp(p, ": 0x", 4)) {
		p += 4;
		if (hex_at(&p, v)) {
			while (*p == '\r' || *p == '\n' || *p == ' ')
				p++;
			if (!*p)
				return PT_OK;
		}
	}
	/* its first line: HMP ends every line with CR LF */
	snprintf(line, sizeof line, "%.*s", (int)strcspn(text, "\r\n"), text);
	pt_text_escape(show, sizeof show, line);
	return pt_err_fmt(err, errlen, PT_E_CAPTURE, "xp of 0x%" PRIx64 " answered '%s', not "
			  "'%016" PRIx64 ": 0xVALUE'", addr, show, addr);
}

/* Register KEY's value in line L (tokens "KEY=HEX"): 1 found, 0 absent, -1 not a 64-bit hex value. */
static int reg_in(const char *l, size_t n, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i + kl < n; i++) {
		const char *p;

		if ((i && l[i - 1] != ' ') || memcmp(l + i, key, kl) || l[i + kl] != '=')
			continue;
		p = l + i + kl + 1;
		if (!hex_at(&p, v) || (p < l + n && *p != ' '))
			return -1;
		return 1;
	}
	return 0;
}

pt_err pt_qmp_regs(const char *text, struct pt_qmp_cpu **out, size_t *n, char *err, size_t errlen)
{
	static const struct { const char *key; unsigned bit; size_t off; } regs[] = {
		{"CR0", PT_QMP_R_CR0, offsetof(struct pt_qmp_cpu, cr0)},
		{"CR3", PT_QMP_R_CR3, offsetof(struct pt_qmp_cpu, cr3)},
		{"CR4", PT_QMP_R_CR4, offsetof(struct pt_qmp_cpu, cr4)},
		{"EFER", PT_QMP_R_EFER, offsetof(struct pt_qmp_cpu, efer)},
	};
	struct pt_qmp_cpu *v = NULL, *c = NULL;
	size_t nv = 0;

	*out = NULL;
	*n = 0;
	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);

		if (len && l[len - 1] == '\r')
			len--;   /* the monitor ends its lines with CRLF */
		if (len > 4 && !strncmp(l, "CPU#", 4)) {
			char *end;
			unsigned long idx = strtoul(l + 4, &end, 10);

			if (nv >= PT_QMP_MAX_CPUS || idx >= PT_QMP_MAX_CPUS || end == l + 4) {
				char raw[24], show[100];

				snprintf(raw, sizeof raw, "%.*s", len > 20 ? 20 : (int)len, l);
				pt_text_escape(show, sizeof show, raw);
				free(v);
				return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info registers -a: '%s' is not CPU#N "
						  "with N below %u", show, PT_QMP_MAX_CPUS);
			}
			if (!pt_vec_resize(&v, nv + 1, sizeof *v)) {
				free(v);
				return pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
			}
			c = &v[nv++];
			memset(c, 0, sizeof *c);
			c->index = (unsigned)idx;
		} else if (c) {
			for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
				uint64_t x;
				int k = reg_in(l, len, regs[i].key, &x);

				if (k < 0) {
					unsigned idx = c->index;

					free(v);
					return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info registers -a: CPU#%u %s is not "
							  "a hex value of at most 16 digits", idx, regs[i].key);
				}
				if (k > 0 && !(c->seen & regs[i].bit)) {
					memcpy((char *)c + regs[i].off, &x, sizeof x);
					c->seen |= regs[i].bit;
				}
			}
		}
		l = e ? e + 1 : NULL;
	}
	if (!nv)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info registers -a shows no CPU#N (not an x86 guest?)");
	*out = v;
	*n = nv;
	return PT_OK;
}
