/* SPDX-License-Identifier: MIT */
/*
 * src_gem5.c — gem5 GPUFS checkpoints (pt_src_gem5.h).
 *
 * m5.cpt is INI-like text written by gem5's serialize code
 * (docs/design.md §3.1-§3.2 and their sources (§7)): "[a.b.c]" section headers, "key=value"
 * lines, decimal values, arrays space-separated, a "## checkpoint generated"
 * first line.  core/ini.c is not used: its 4096-byte lines and strict keys
 * do not fit gartTableKey/Value, which hold one number per shadowed PTE.
 * Keys we do not use are skipped (they change between gem5 versions); a line
 * that is none of the above is an error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_src_gem5.h"
#include "pt_error.h"
#include "pt_vec.h"

struct line {
	const char *s;
	size_t n;
	unsigned no;
};

struct sec {
	const char *name;
	size_t n;
	unsigned line;
	size_t first, last;      /* key lines [first, last) in the line array */
};

struct parser {
	const char *name;
	char *err;
	size_t errlen;
	struct line *ln;         /* key=value lines */
	size_t nln;
	struct sec *sec;
	size_t nsec;
};

static void seterr(struct parser *p, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void seterr(struct parser *p, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pt_error_vat(p->err, p->errlen, p->name, line, fmt, ap);
	va_end(ap);
}

static const char *const reg_names[PT_G5_REG__COUNT] = {
	"VM_CONTEXT0_PAGE_TABLE_BASE_ADDR", "VM_CONTEXT0_PAGE_TABLE_START_ADDR",
	"VM_CONTEXT0_PAGE_TABLE_END_ADDR", "MC_VM_FB_LOCATION_BASE", "MC_VM_FB_LOCATION_TOP",
	"MC_VM_FB_OFFSET", "MC_VM_AGP_BASE", "MC_VM_AGP_BOT", "MC_VM_AGP_TOP",
	"MC_VM_SYSTEM_APERTURE_LOW_ADDR", "MC_VM_SYSTEM_APERTURE_HIGH_ADDR",
};

const char *pt_gem5_reg_name(unsigned r)
{
	return r < PT_G5_REG__COUNT ? reg_names[r] : "?";
}

/*
 * The [...GPUVM] keys and how each converts back (§1.2, AMDGPUVM::writeMMIO):
 * gem5 stores bits(val,23,0) << 24 (TOP registers | 0xffffff) and
 * bits(val,29,0) << 18, so the shift is exact and the low bits are fixed.
 */
static const struct {
	const char *key;
	unsigned reg;
	unsigned shift;          /* 0: raw */
	unsigned width;          /* bits of the raw register field */
	bool top;                /* low bits all ones when written */
} gpuvm_keys[] = {
	{ "vm0PTBase", PT_G5_PT_BASE, 0, 64, false },
	{ "vm0PTStart", PT_G5_PT_START, 0, 64, false },
	{ "vm0PTEnd", PT_G5_PT_END, 0, 64, false },
	{ "vmContext0.fbBase", PT_G5_FB_BASE, 24, 24, false },
	{ "vmContext0.fbTop", PT_G5_FB_TOP, 24, 24, true },
	{ "vmContext0.fbOffset", PT_G5_FB_OFFSET, 24, 24, false },
	{ "vmContext0.agpBase", PT_G5_AGP_BASE, 24, 24, false },
	{ "vmContext0.agpBot", PT_G5_AGP_BOT, 24, 24, false },
	{ "vmContext0.agpTop", PT_G5_AGP_TOP, 24, 24, true },
	{ "vmContext0.sysAddrL", PT_G5_SYS_LOW, 18, 30, false },
	{ "vmContext0.sysAddrH", PT_G5_SYS_HIGH, 18, 30, false },
};

/* Splits the text into sections and key lines. */
static pt_err scan(struct parser *p, const char *text, size_t len)
{
	size_t pos = 0, cln = 0, csec = 0;
	unsigned no = 0;

	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;

		pos += n + (nl != NULL);
		no++;
		if (n && s[n - 1] == '\r')
			n--;
		if (n == 0 || s[0] == '#')
			continue;
		if (s[0] == '[') {
			struct sec *x;

			if (s[n - 1] != ']' || n < 3) {
				seterr(p, no, "section header without ']'");
				return PT_E_SYNTAX;
			}
			if (!pt_vec_reserve(&p->sec, &csec, p->nsec + 1, sizeof *p->sec))
				return PT_E_NOMEM;
			x = &p->sec[p->nsec++];
			x->name = s + 1;
			x->n = n - 2;
			x->line = no;
			x->first = x->last = p->nln;
			continue;
		}
		if (!memchr(s, '=', n) || s[0] == '=') {
			seterr(p, no, "not a [section] or key=value line");
			return PT_E_SYNTAX;
		}
		if (!p->nsec) {
			seterr(p, no, "key=value before the first [section]");
			return PT_E_SYNTAX;
		}
		if (!pt_vec_reserve(&p->ln, &cln, p->nln + 1, sizeof *p->ln))
			return PT_E_NOMEM;
		p->ln[p->nln].s = s;
		p->ln[p->nln].n = n;
		p->ln[p->nln].no = no;
		p->nln++;
		p->sec[p->nsec - 1].last = p->nln;
	}
	return PT_OK;
}

static bool sec_is(const struct sec *x, const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b);

	return x->n == an + bn && !memcmp(x->name, a, an) && !memcmp(x->name + an, b, bn);
}

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);

	return n >= k && !memcmp(s + n - k, suf, k);
}

/* The value of KEY in X, NULL if absent; a key given twice is an error. */
static pt_err find_key(struct parser *p, const struct sec *x, const char *key, struct line *val, bool *found)
{
	size_t k = strlen(key);

	*found = false;
	for (size_t i = x->first; i < x->last; i++) {
		const struct line *l = &p->ln[i];

		if (l->n > k && l->s[k] == '=' && !memcmp(l->s, key, k)) {
			if (*found) {
				seterr(p, l->no, "%s given twice (line %u)", key, val->no);
				return PT_E_VALUE;
			}
			*found = true;
			val->s = l->s + k + 1;
			val->n = l->n - k - 1;
			val->no = l->no;
		}
	}
	return PT_OK;
}

/* One decimal 64-bit number at *S (S advances); false on junk or overflow. */
static bool dec64(const char **s, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *c = *s;

	if (c >= end || *c < '0' || *c > '9')
		return false;
	for (; c < end && *c >= '0' && *c <= '9'; c++) {
		if (v > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*c - '0');
	}
	*s = c;
	*out = v;
	return true;
}

static pt_err get_u64(struct parser *p, const struct sec *x, const char *key, uint64_t *v, unsigned *line,
		      bool *found)
{
	struct line l;
	const char *c;
	pt_err rc = find_key(p, x, key, &l, found);

	if (rc || !*found)
		return rc;
	c = l.s;
	if (!dec64(&c, l.s + l.n, v) || c != l.s + l.n) {
		seterr(p, l.no, "%s: not a decimal number below 2^64", key);
		return PT_E_VALUE;
	}
	*line = l.no;
	return PT_OK;
}

static pt_err get_str(struct parser *p, const struct sec *x, const char *key, char **out, unsigned *line)
{
	struct line l;
	bool found;
	pt_err rc = find_key(p, x, key, &l, &found);

	if (rc)
		return rc;
	if (!found) {
		seterr(p, x->line, "[%.*s] has no %s", (int)(x->n > 200 ? 200 : x->n), x->name, key);
		return PT_E_NOTFOUND;
	}
	/* A store's file lies beside m5.cpt: a plain name, never a path. */
	if (!l.n || memchr(l.s, '/', l.n) || (l.n <= 2 && l.s[0] == '.' && (l.n == 1 || l.s[1] == '.'))) {
		seterr(p, l.no, "%s is not a file name beside m5.cpt", key);
		return PT_E_VALUE;
	}
	for (size_t i = 0; i < l.n; i++)
		if ((unsigned char)l.s[i] < 0x20 || l.s[i] == 0x7f) {
			seterr(p, l.no, "%s holds a control character", key);
			return PT_E_VALUE;
		}
	*out = strndup(l.s, l.n);
	if (!*out)
		return PT_E_NOMEM;
	*line = l.no;
	return PT_OK;
}

static pt_err read_store(struct parser *p, const struct sec *x, unsigned id, struct pt_gem5_store *st)
{
	bool found;
	unsigned line;
	pt_err rc;

	st->section = strndup(x->name, x->n);
	if (!st->section)
		return PT_E_NOMEM;
	st->store_id = id;
	st->line = x->line;
	if ((rc = get_str(p, x, "filename", &st->file, &line)))
		return rc;
	if ((rc = get_u64(p, x, "range_size", &st->size, &line, &found)))
		return rc;
	if (!found) {
		seterr(p, x->line, "[%s] has no range_size", st->section);
		return PT_E_NOTFOUND;
	}
	return PT_OK;
}

/* "storeN" after PREFIX "." in X: N, or -1. */
static long store_index(const struct sec *x, const char *pre, size_t pn)
{
	const char *c = x->name + pn, *end = x->name + x->n;
	long v = 0;

	if (x->n < pn + 7 || memcmp(x->name, pre, pn) || memcmp(c, ".store", 6))
		return -1;
	c += 6;
	if (c == end)
		return -1;
	for (; c < end; c++) {
		if (*c < '0' || *c > '9' || v > 1000)
			return -1;
		v = v * 10 + (*c - '0');
	}
	return v;
}

static pt_err read_gpuvm(struct parser *p, const struct sec *x, struct pt_gem5_cpt *c)
{
	uint64_t mmb = 0, mmt = 0;
	unsigned lb = 0, lt = 0;
	bool fb, fm, tm;
	pt_err rc;

	for (size_t i = 0; i < sizeof gpuvm_keys / sizeof gpuvm_keys[0]; i++) {
		struct pt_gem5_regval *r = &c->reg[gpuvm_keys[i].reg];
		uint64_t v, low;
		unsigned line, sh = gpuvm_keys[i].shift;

		if ((rc = get_u64(p, x, gpuvm_keys[i].key, &v, &line, &fb)))
			return rc;
		if (!fb)
			continue;
		if (sh) {
			low = v & ((1ull << sh) - 1);
			/* never written reads 0; otherwise the low bits are what gem5 puts there */
			if ((low && !(gpuvm_keys[i].top && low == (1ull << sh) - 1)) ||
			    (v >> sh) >> gpuvm_keys[i].width) {
				seterr(p, line, "%s = %llu is not a value gem5 writes (bits %u..%u << %u)",
				       gpuvm_keys[i].key, (unsigned long long)v, gpuvm_keys[i].width - 1, 0, sh);
				return PT_E_VALUE;
			}
			v >>= sh;
		}
		r->has = true;
		r->raw = v;
		r->line = line;
		r->key = gpuvm_keys[i].key;
	}
	/*
	 * gem5 presets only the MMHUB FB aperture the driver reads; the GFX hub's
	 * FB_LOCATION is usually never written (§1.4 pitfalls).
	 */
	if ((rc = get_u64(p, x, "mmhubBase", &mmb, &lb, &fm)) || (rc = get_u64(p, x, "mmhubTop", &mmt, &lt, &tm)))
		return rc;
	if (c->reg[PT_G5_FB_BASE].has && c->reg[PT_G5_FB_TOP].has && !c->reg[PT_G5_FB_BASE].raw &&
	    !c->reg[PT_G5_FB_TOP].raw && fm && tm) {
		if ((mmb & 0xffffff) || (mmb >> 24) >> 24 || ((mmt & 0xffffff) && (mmt & 0xffffff) != 0xffffff) ||
		    (mmt >> 24) >> 24) {
			seterr(p, (mmb & 0xffffff) || (mmb >> 48) ? lb : lt, "mmhubBase/mmhubTop are not 24-bit values << 24");
			return PT_E_VALUE;
		}
		c->reg[PT_G5_FB_BASE] = (struct pt_gem5_regval){ true, mmb >> 24, lb, "mmhubBase" };
		c->reg[PT_G5_FB_TOP] = (struct pt_gem5_regval){ true, mmt >> 24, lt, "mmhubTop" };
		c->fb_from_mmhub = true;
	}
	{
		struct line l;
		const char *s, *end;
		unsigned k = 0;

		if ((rc = find_key(p, x, "ptBase", &l, &fb)))
			return rc;
		if (fb) {
			s = l.s;
			end = l.s + l.n;
			while (s < end) {
				uint64_t v;

				if (k == PT_GEM5_VMIDS || !dec64(&s, end, &v)) {
					seterr(p, l.no, "ptBase: not %u decimal numbers below 2^64", PT_GEM5_VMIDS);
					return PT_E_VALUE;
				}
				c->pt_base[k++] = v;
				if (s < end && *s == ' ')
					s++;
			}
			if (k != PT_GEM5_VMIDS) {
				seterr(p, l.no, "ptBase holds %u values, not %u", k, PT_GEM5_VMIDS);
				return PT_E_VALUE;
			}
			c->has_pt_base = true;
			c->pt_base_line = l.no;
		}
	}
	return PT_OK;
}

static int cmp_store(const void *a, const void *b)
{
	const struct pt_gem5_store *x = a, *y = b;

	return x->store_id < y->store_id ? -1 : x->store_id > y->store_id;
}

/* "start:end[:intlvMatch:masks...]" (m5 params.py AddrRange.__str__, end exclusive). */
static bool parse_range(const struct line *l, uint64_t *start, uint64_t *end)
{
	const char *c = l->s, *e = l->s + l->n;

	if (!dec64(&c, e, start) || c == e || *c != ':')
		return false;
	c++;
	if (!dec64(&c, e, end) || (c != e && *c != ':'))
		return false;
	/* interleaving fields: the ranges that share start:end merge into one store */
	return *end > *start;
}

struct crange {
	uint64_t start, end;
	unsigned line;
};

static int cmp_crange(const void *a, const void *b)
{
	const struct crange *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Host store addresses from config.ini (§1.4): the System's memories= lists
 * its memory interfaces, each with range=; PhysicalMemory makes one store
 * per distinct range of the in-address-map, non-null ones, in address order.
 */
static pt_err sys_from_config(const char *cfg, size_t clen, const char *sys, size_t sn,
			      struct pt_gem5_cpt *c, char *err, size_t errlen)
{
	struct parser q = { .name = "config.ini", .err = err, .errlen = errlen };
	const struct sec *sx = NULL;
	struct crange *r = NULL;
	size_t nr = 0, rcap = 0;
	struct line mem;
	bool found;
	pt_err rc;

	if (memchr(cfg, 0, clen)) {
		seterr(&q, 1, "NUL byte: not a config.ini");
		return PT_E_SYNTAX;
	}
	if ((rc = scan(&q, cfg, clen)))
		goto out;
	for (size_t i = 0; i < q.nsec && !sx; i++)
		if (q.sec[i].n == sn && !memcmp(q.sec[i].name, sys, sn))
			sx = &q.sec[i];
	if (!sx) {
		seterr(&q, 1, "no [%.*s] section for the checkpoint's host memory", (int)(sn > 200 ? 200 : sn), sys);
		rc = PT_E_NOTFOUND;
		goto out;
	}
	if ((rc = find_key(&q, sx, "memories", &mem, &found)))
		goto out;
	if (!found) {
		seterr(&q, sx->line, "[%.*s] has no memories=", (int)(sn > 200 ? 200 : sn), sys);
		rc = PT_E_NOTFOUND;
		goto out;
	}
	for (const char *p = mem.s, *e = mem.s + mem.n; p < e;) {
		const char *w = p;
		const struct sec *mx = NULL;
		struct line v;
		uint64_t st, en;

		while (p < e && *p != ' ')
			p++;
		if (p == w) {
			p++;
			continue;
		}
		for (size_t i = 0; i < q.nsec && !mx; i++)
			if (q.sec[i].n == (size_t)(p - w) && !memcmp(q.sec[i].name, w, (size_t)(p - w)))
				mx = &q.sec[i];
		if (!mx) {
			seterr(&q, mem.no, "memories= names %.*s, which has no section", (int)(p - w > 200 ? 200 : p - w), w);
			rc = PT_E_NOTFOUND;
			goto out;
		}
		if ((rc = find_key(&q, mx, "in_addr_map", &v, &found)))
			goto out;
		if (found && v.n == 5 && (!memcmp(v.s, "false", 5) || !memcmp(v.s, "False", 5)))
			continue;
		if ((rc = find_key(&q, mx, "null", &v, &found)))
			goto out;
		if (found && v.n == 4 && (!memcmp(v.s, "true", 4) || !memcmp(v.s, "True", 4)))
			continue;
		if ((rc = find_key(&q, mx, "range", &v, &found)))
			goto out;
		if (!found || !parse_range(&v, &st, &en)) {
			seterr(&q, found ? v.no : mx->line, "range is not start:end with start < end");
			rc = PT_E_VALUE;
			goto out;
		}
		if (!pt_vec_reserve(&r, &rcap, nr + 1, sizeof *r)) {
			rc = PT_E_NOMEM;
			goto out;
		}
		r[nr++] = (struct crange){ st, en, v.no };
	}
	if (nr)
		qsort(r, nr, sizeof *r, cmp_crange);
	{
		size_t k = 0;

		for (size_t i = 0; i < nr; i++) {
			if (k && r[i].start == r[k - 1].start && r[i].end == r[k - 1].end)
				continue;   /* interleaved parts of one range */
			if (k && r[i].start < r[k - 1].end) {
				seterr(&q, r[i].line, "range overlaps the one on line %u", r[k - 1].line);
				rc = PT_E_VALUE;
				goto out;
			}
			r[k++] = r[i];
		}
		nr = k;
	}
	if (nr != c->nsys) {
		seterr(&q, mem.no, "%zu memory ranges, but m5.cpt has %zu host memory stores", nr, c->nsys);
		rc = PT_E_VALUE;
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		if (r[i].end - r[i].start != c->sys[i].size) {
			seterr(&q, r[i].line, "range holds %llu bytes, but store%zu's range_size is %llu",
			       (unsigned long long)(r[i].end - r[i].start), i, (unsigned long long)c->sys[i].size);
			rc = PT_E_VALUE;
			goto out;
		}
		c->sys[i].base = r[i].start;
		c->sys[i].config_line = r[i].line;
	}
	rc = PT_OK;
out:
	if (rc == PT_E_NOMEM)
		seterr(&q, 1, "out of memory");
	free(r);
	free(q.ln);
	free(q.sec);
	return rc;
}

/*
 * No start addresses are saved (§1.4).  gem5's x86 GPUFS layouts put
 * store0 at 0 (at most 3 GiB, or 128 MiB on the stdlib board) and store1
 * at 4 GiB; anything else has no convention to fall back on.
 */
static pt_err sys_by_convention(struct parser *p, struct pt_gem5_cpt *c)
{
	if (c->nsys > 2) {
		seterr(p, c->sys[2].line, "%zu host memory stores: their addresses need config.ini", c->nsys);
		return PT_E_UNSUPPORTED;
	}
	if (c->nsys >= 1 && c->sys[0].size > (3ull << 30) && c->nsys == 2) {
		seterr(p, c->sys[0].line, "store0 holds %llu bytes, more than the 3 GiB below the 4 GiB store1",
		       (unsigned long long)c->sys[0].size);
		return PT_E_UNSUPPORTED;
	}
	if (c->nsys == 2) {
		c->sys[1].base = 4ull << 30;
		if (c->sys[1].size > UINT64_MAX - c->sys[1].base) {
			seterr(p, c->sys[1].line, "store1 runs past 2^64");
			return PT_E_VALUE;
		}
	}
	c->sys_by_convention = c->nsys > 0;
	return PT_OK;
}

/*
 * The host memory PM's stores, numbered in order, placed by CONFIG (the
 * run's config.ini, CONFIG_LEN bytes) or else by convention.  *OWN_ERR:
 * config.ini's parser wrote the message.
 */
static pt_err read_host(struct parser *p, const struct sec *pm, struct pt_gem5_cpt *c,
			const char *config, size_t config_len, bool *own_err)
{
	size_t syscap = 0;
	pt_err rc;

	for (size_t i = 0; i < p->nsec; i++) {
		const struct sec *x = &p->sec[i];
		long id = store_index(x, pm->name, pm->n);

		if (id < 0)
			continue;
		if (!pt_vec_reserve(&c->sys, &syscap, c->nsys + 1, sizeof *c->sys))
			return PT_E_NOMEM;
		memset(&c->sys[c->nsys], 0, sizeof *c->sys);
		if ((rc = read_store(p, x, (unsigned)id, &c->sys[c->nsys++])))
			return rc;
	}
	if (c->nsys)   /* qsort(NULL, 0) is undefined (found by fuzz_gem5) */
		qsort(c->sys, c->nsys, sizeof *c->sys, cmp_store);
	for (size_t i = 0; i < c->nsys; i++)
		if (i && c->sys[i].store_id == c->sys[i - 1].store_id) {
			seterr(p, c->sys[i].line, "host memory store%u given twice (line %u)", c->sys[i].store_id,
			       c->sys[i - 1].line);
			return PT_E_VALUE;
		} else if (c->sys[i].store_id != i) {
			seterr(p, c->sys[i].line, "host memory store%u without store%zu", c->sys[i].store_id, i);
			return PT_E_VALUE;
		}
	if (!config)
		return sys_by_convention(p, c);
	rc = sys_from_config(config, config_len, pm->name, pm->n - 8, c, p->err, p->errlen);
	*own_err = rc != PT_OK;
	return rc;
}

pt_err pt_gem5_parse(const char *text, size_t len, const char *name, const char *device,
		     const char *config, size_t config_len, struct pt_gem5_cpt **out, char *err, size_t errlen)
{
	struct parser p = { .name = name ? name : "m5.cpt", .err = err, .errlen = errlen };
	struct pt_gem5_cpt *c = NULL;
	const struct sec *gv = NULL, *pm = NULL;
	size_t dn = 0;
	bool own_err = false;   /* config.ini's parser wrote the message */
	pt_err rc;

	*out = NULL;
	if (err && errlen)
		err[0] = 0;
	if (len > PT_GEM5_MAX_SIZE) {
		seterr(&p, 1, "larger than %u MiB", PT_GEM5_MAX_SIZE >> 20);
		return PT_E_VALUE;
	}
	if (memchr(text, 0, len)) {
		unsigned line = 1;

		for (const char *q = text; *q; q++)
			line += *q == '\n';
		seterr(&p, line, "NUL byte: not an m5.cpt");
		return PT_E_SYNTAX;
	}
	if ((rc = scan(&p, text, len)))
		goto fail;
	/* The device: the prefix before ".GPUVM" (§1.6: never a fixed name). */
	for (size_t i = 0; i < p.nsec && !gv; i++) {
		const struct sec *x = &p.sec[i];

		if (x->n > 6 && ends_with(x->name, x->n, ".GPUVM") &&
		    (!device || (strlen(device) == x->n - 6 && !memcmp(x->name, device, x->n - 6))))
			gv = x;
	}
	if (!gv) {
		if (device)
			seterr(&p, 1, "no [%.100s.GPUVM] section", device);
		else
			seterr(&p, 1, "no [*.GPUVM] section (gem5 before v23.0 saves no GPU VM registers)");
		rc = PT_E_NOTFOUND;
		goto fail;
	}
	dn = gv->n - 6;
	c = calloc(1, sizeof *c);
	if (!c || !(c->device = strndup(gv->name, dn))) {
		rc = PT_E_NOMEM;
		goto fail;
	}
	c->gpuvm_line = gv->line;
	if ((rc = read_gpuvm(&p, gv, c)))
		goto fail;
	for (size_t i = 0; i < p.nsec; i++) {
		const struct sec *x = &p.sec[i];
		long id;

		if (sec_is(x, gv->name, dn, ".deviceMem")) {
			uint64_t n;
			unsigned line;
			bool f;

			if ((rc = get_u64(&p, x, "nbr_of_stores", &n, &line, &f)))
				goto fail;
			/* PhysicalMemory merges the interleaved VRAM ranges into one store at 0 (§1.3) */
			if (f && n != 1) {
				seterr(&p, line, "device memory in %llu stores (gem5 writes one)", (unsigned long long)n);
				rc = PT_E_UNSUPPORTED;
				goto fail;
			}
		} else if (x->n > dn + 10 && !memcmp(x->name, gv->name, dn) && !memcmp(x->name + dn, ".deviceMem", 10) &&
			   (id = store_index(x, x->name, dn + 10)) >= 0) {
			if (id != 0 || c->has_vram) {
				seterr(&p, x->line, "a second device-memory store");
				rc = PT_E_UNSUPPORTED;
				goto fail;
			}
			if ((rc = read_store(&p, x, 0, &c->vram)))
				goto fail;
			c->has_vram = true;
		} else if (ends_with(x->name, x->n, ".physmem")) {
			if (pm) {
				seterr(&p, x->line, "a second host memory (first: line %u)", pm->line);
				rc = PT_E_UNSUPPORTED;
				goto fail;
			}
			pm = x;
		}
	}
	if (pm && (rc = read_host(&p, pm, c, config, config_len, &own_err)))
		goto fail;
	free(p.ln);
	free(p.sec);
	*out = c;
	return PT_OK;
fail:
	if (rc == PT_E_NOMEM && !own_err)
		seterr(&p, 1, "out of memory");
	free(p.ln);
	free(p.sec);
	pt_gem5_free(c);
	return rc;
}

void pt_gem5_free(struct pt_gem5_cpt *c)
{
	if (!c)
		return;
	free(c->device);
	free(c->vram.section);
	free(c->vram.file);
	for (size_t i = 0; i < c->nsys; i++) {
		free(c->sys[i].section);
		free(c->sys[i].file);
	}
	free(c->sys);
	free(c);
}

bool pt_gem5_detect_members(const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *s = names[i], *sl;

		while (s[0] == '.' && s[1] == '/')
			s += 2;
		sl = strchr(s, '/');
		if (!strcmp(s, "m5.cpt") || (sl && sl > s && !strcmp(sl + 1, "m5.cpt")))
			return true;
	}
	return false;
}

bool pt_gem5_detect_text(const char *text, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;

		pos += n + 1;
		if (n && s[n - 1] == '\r')
			n--;
		if (n > 8 && s[0] == '[' && s[n - 1] == ']' && ends_with(s, n - 1, ".GPUVM"))
			return true;
	}
	return false;
}
