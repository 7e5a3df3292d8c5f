/* SPDX-License-Identifier: MIT */
/*
 * src_umr.c — umr test logs and envdefs (pt_src_umr.h).
 *
 * Syntax and replay semantics from docs/design.md §3.1-§3.2 and their sources (§7)
 * (umr src/lib/testing_harness.c): records `KEY[@HEX] = { ... }` in any
 * order, `;` comments to end of line, MMIO@ holds 32-bit words separated by
 * commas (the writer puts the register name in the comment), VRAM@ and
 * SYSRAM@ hold bytes in memory order as pairs of hex digits.
 *
 * Where umr is lenient we fail closed instead: umr skips any non-hex
 * character inside a byte list, so `0x01` reads as 00 01 and a `;` comment
 * inside braces would feed its letters into memory; both are errors here.
 *
 * Here: the records read and the memory merged; the registers classified
 * into contexts is src_umr_ctx.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_num.h"
#include "pt_src_umr.h"
#include "pt_error.h"
#include "pt_vec.h"
#include "src_umr_int.h"
#include "src_umr_keys.h"
#include "src_umr_regs.h"

#define VA_LIMIT (1ull << 48)   /* VRAM offsets and bus addresses fit 48 bits (PTE address 47:12) */

static int peek(const struct pt_umr_parser *p)
{
	return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

/* Blanks, newlines and ';' comments between records. */
static void skip_blank(struct pt_umr_parser *p)
{
	while (p->pos < p->len) {
		char c = p->s[p->pos];

		if (c == '\n') {
			p->line++;
			p->pos++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			p->pos++;
		} else if (c == ';') {
			while (p->pos < p->len && p->s[p->pos] != '\n')
				p->pos++;
		} else {
			break;
		}
	}
}

static void skip_space(struct pt_umr_parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\r'))
		p->pos++;
}

/* Hex number with optional 0x; false past 64 bits (*WIDE set) or with no digit. */
static bool parse_hex(struct pt_umr_parser *p, uint64_t *out, unsigned *digits, bool *wide)
{
	uint64_t v = 0;
	unsigned nd = 0;

	*wide = false;
	if (p->pos + 1 < p->len && p->s[p->pos] == '0' && (p->s[p->pos + 1] == 'x' || p->s[p->pos + 1] == 'X') &&
	    p->pos + 2 < p->len && pt_hex_digit((unsigned char)p->s[p->pos + 2]) >= 0)
		p->pos += 2;
	while (p->pos < p->len && pt_hex_digit((unsigned char)p->s[p->pos]) >= 0) {
		if (v >> 60)
			*wide = true;
		v = (v << 4) | (uint64_t)pt_hex_digit((unsigned char)p->s[p->pos]);
		nd++;
		p->pos++;
	}
	*out = v;
	if (digits)
		*digits = nd;
	return !*wide;
}

enum kw { KW_MMIO, KW_VRAM, KW_SYSRAM, KW_OTHER };

static const char *const other_kw[] = {
	/* umr records without page-table content (§2.2), plus the demo's VMID@/MAPVA@ */
	"DISCOVERY", "GCACONFIG", "RINGDATA", "VGPR", "SGPR", "WAVESTATUS", "SQ", "VMID", "MAPVA",
};

/* Reads KEY[@ADDR] = {; false if it is not one.  Leaves pos after '{'. */
static pt_err read_head(struct pt_umr_parser *p, enum kw *kw, uint64_t *addr, bool *has_addr)
{
	size_t st = p->pos;
	char key[16];
	size_t n = 0;
	bool wide;

	while (p->pos < p->len && p->s[p->pos] >= 'A' && p->s[p->pos] <= 'Z')
		p->pos++;
	n = p->pos - st;
	if (n == 0 || n >= sizeof key) {
		pt_umr_seterr(p, p->line, "expected a umr record (MMIO@, VRAM@, SYSRAM@, ...)");
		return PT_E_SYNTAX;
	}
	memcpy(key, p->s + st, n);
	key[n] = 0;
	if (!strcmp(key, "MMIO"))
		*kw = KW_MMIO;
	else if (!strcmp(key, "VRAM"))
		*kw = KW_VRAM;
	else if (!strcmp(key, "SYSRAM"))
		*kw = KW_SYSRAM;
	else {
		size_t i;

		for (i = 0; i < sizeof other_kw / sizeof other_kw[0]; i++)
			if (!strcmp(key, other_kw[i]))
				break;
		if (i == sizeof other_kw / sizeof other_kw[0]) {
			pt_umr_seterr(p, p->line, "unknown record %s", key);
			return PT_E_SYNTAX;
		}
		*kw = KW_OTHER;
	}
	*has_addr = false;
	if (peek(p) == '@') {
		unsigned nd;

		p->pos++;
		if (pt_hex_digit(peek(p)) < 0) {
			pt_umr_seterr(p, p->line, "%s@ without a hex address", key);
			return PT_E_SYNTAX;
		}
		if (!parse_hex(p, addr, &nd, &wide)) {
			pt_umr_seterr(p, p->line, "%s@ address wider than 64 bits", key);
			return PT_E_VALUE;
		}
		*has_addr = true;
	}
	if (*kw != KW_OTHER && !*has_addr) {
		pt_umr_seterr(p, p->line, "%s without @ADDRESS", key);
		return PT_E_SYNTAX;
	}
	skip_space(p);
	if (peek(p) != '=') {
		pt_umr_seterr(p, p->line, "%s: expected '='", key);
		return PT_E_SYNTAX;
	}
	p->pos++;
	skip_space(p);
	if (peek(p) != '{') {
		pt_umr_seterr(p, p->line, "%s: expected '{'", key);
		return PT_E_SYNTAX;
	}
	p->pos++;
	return PT_OK;
}

static bool grow(void **v, size_t *cap, size_t need, size_t elem)
{
	return pt_vec_reserve(v, cap, need, elem);
}

/* The first word of the comment after '}' on the record's closing line. */
static void read_comment_name(struct pt_umr_parser *p, char *name)
{
	size_t n = 0;

	name[0] = 0;
	skip_space(p);
	if (peek(p) != ';')
		return;
	p->pos++;
	skip_space(p);
	while (p->pos < p->len && n + 1 < MAX_NAME) {
		char c = p->s[p->pos];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'))
			break;
		name[n++] = c;
		p->pos++;
	}
	name[n] = 0;
	/* the rest of the comment is prose ("mmMC_VM_FB_OFFSET=0x40") */
	while (p->pos < p->len && p->s[p->pos] != '\n')
		p->pos++;
}

/* A record's values: a few on the stack, more (a rare long record) on the heap. */
#define MMIO_INLINE 16

static pt_err read_mmio(struct pt_umr_parser *p, uint64_t addr, unsigned line)
{
	uint32_t inl[MMIO_INLINE], *val = inl;
	size_t nval = 0, cval = MMIO_INLINE;
	char name[MAX_NAME];
	pt_err rc = PT_OK;

	for (;;) {
		uint64_t v;
		unsigned nd;
		bool wide;

		skip_blank(p);
		if (p->pos >= p->len) {
			pt_umr_seterr(p, line, "MMIO@0x%llx: record not closed by '}'", (unsigned long long)addr);
			rc = PT_E_TRUNCATED;
			goto out;
		}
		if (pt_hex_digit(peek(p)) < 0) {
			pt_umr_seterr(p, p->line, "MMIO@0x%llx: expected a hex value", (unsigned long long)addr);
			rc = PT_E_SYNTAX;
			goto out;
		}
		if (!parse_hex(p, &v, &nd, &wide) || v > 0xffffffffu) {
			pt_umr_seterr(p, p->line, "MMIO@0x%llx: value wider than 32 bits", (unsigned long long)addr);
			rc = PT_E_VALUE;
			goto out;
		}
		if (nval == cval) {
			uint32_t *nv = val == inl ? malloc(2 * cval * sizeof *nv) : val;

			if (!nv || (val != inl && !pt_vec_resize(&nv, 2 * cval, sizeof *nv))) {
				rc = PT_E_NOMEM;
				goto out;
			}
			if (val == inl)
				memcpy(nv, inl, sizeof inl);
			val = nv;
			cval *= 2;
		}
		val[nval++] = (uint32_t)v;
		skip_blank(p);
		if (peek(p) == ',') {
			p->pos++;
			continue;
		}
		if (peek(p) == '}') {
			p->pos++;
			break;
		}
		if (p->pos >= p->len) {
			pt_umr_seterr(p, line, "MMIO@0x%llx: record not closed by '}'", (unsigned long long)addr);
			rc = PT_E_TRUNCATED;
		} else {
			pt_umr_seterr(p, p->line, "MMIO@0x%llx: expected ',' or '}'", (unsigned long long)addr);
			rc = PT_E_SYNTAX;
		}
		goto out;
	}
	read_comment_name(p, name);
	rc = umr_keys_fold(&p->k, addr, name, line, val, nval);
out:
	if (val != inl)
		free(val);
	return rc;
}

static pt_err read_bytes(struct pt_umr_parser *p, enum kw kw, uint64_t addr, unsigned line)
{
	const char *key = kw == KW_VRAM ? "VRAM" : "SYSRAM";
	size_t start = p->npool;
	int hi = -1;
	struct rec_mem *r;

	for (;;) {
		int c = peek(p), h;

		if (c < 0) {
			pt_umr_seterr(p, line, "%s@0x%llx: record not closed by '}'", key, (unsigned long long)addr);
			return PT_E_TRUNCATED;
		}
		p->pos++;
		if (c == '}')
			break;
		if ((h = pt_hex_digit(c)) >= 0) {
			if (c == '0' && hi < 0 && (peek(p) == 'x' || peek(p) == 'X')) {
				pt_umr_seterr(p, p->line, "%s@0x%llx: 0x prefix inside a byte list (bytes are bare hex pairs)",
				       key, (unsigned long long)addr);
				return PT_E_SYNTAX;
			}
			if (hi < 0) {
				hi = h;
				continue;
			}
			if (!grow((void **)&p->pool, &p->cpool, p->npool + 1, 1))
				return PT_E_NOMEM;
			p->pool[p->npool++] = (uint8_t)(hi << 4 | h);
			hi = -1;
			continue;
		}
		if (c == '\n')
			p->line++;
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '_' || c == ',')
			continue;
		pt_umr_seterr(p, p->line, "%s@0x%llx: '%c' inside a byte list", key, (unsigned long long)addr,
		       c >= 0x20 && c < 0x7f ? c : '?');
		return PT_E_SYNTAX;
	}
	if (hi >= 0) {
		pt_umr_seterr(p, line, "%s@0x%llx: odd number of hex digits (truncated byte)", key, (unsigned long long)addr);
		return PT_E_TRUNCATED;
	}
	if (p->npool == start) {
		pt_umr_seterr(p, line, "%s@0x%llx: empty record", key, (unsigned long long)addr);
		return PT_E_VALUE;
	}
	if (addr >= VA_LIMIT || p->npool - start > VA_LIMIT - addr) {
		pt_umr_seterr(p, line, "%s@0x%llx: %zu bytes run past 2^48", key, (unsigned long long)addr, p->npool - start);
		return PT_E_VALUE;
	}
	if (p->nmem) {
		const struct rec_mem *q = &p->mem[p->nmem - 1];

		/*
		 * The record before read again, byte for byte (a log that polls
		 * one entry): nothing it could conflict with that the first read
		 * does not, so it costs nothing (issue #26 item 4).
		 */
		if (q->space == (kw == KW_VRAM ? PT_UMR_VRAM : PT_UMR_SYSMEM) && q->addr == addr &&
		    q->len == p->npool - start && !memcmp(p->pool + q->off, p->pool + start, q->len)) {
			p->npool = start;
			return PT_OK;
		}
	}
	if (!grow((void **)&p->mem, &p->cmem, p->nmem + 1, sizeof *p->mem))
		return PT_E_NOMEM;
	r = &p->mem[p->nmem++];
	r->space = kw == KW_VRAM ? PT_UMR_VRAM : PT_UMR_SYSMEM;
	r->addr = addr;
	r->len = (uint32_t)(p->npool - start);
	r->off = (uint32_t)start;
	r->line = line;
	return PT_OK;
}

static pt_err skip_other(struct pt_umr_parser *p, unsigned line)
{
	while (p->pos < p->len && p->s[p->pos] != '}') {
		if (p->s[p->pos] == '\n')
			p->line++;
		p->pos++;
	}
	if (p->pos >= p->len) {
		pt_umr_seterr(p, line, "record not closed by '}'");
		return PT_E_TRUNCATED;
	}
	p->pos++;
	return PT_OK;
}

bool pt_umr_detect(const char *text, size_t len)
{
	struct pt_umr_parser p = { .s = text, .len = len < 4096 ? len : 4096, .line = 1, .name = "" };
	enum kw kw;
	uint64_t addr;
	bool has;

	if (memchr(text, 0, p.len))
		return false;
	skip_blank(&p);
	if (p.pos >= p.len)
		return false;
	return read_head(&p, &kw, &addr, &has) == PT_OK;
}

/* ---- memory merge ---- */

static int cmp_mem(const void *a, const void *b)
{
	const struct rec_mem *x = *(const struct rec_mem *const *)a, *y = *(const struct rec_mem *const *)b;

	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The first record before record I of P->mem (file order) holding byte A of SPACE. */
static const struct rec_mem *first_holder(const struct pt_umr_parser *p, size_t i, unsigned space, uint64_t a)
{
	for (size_t k = 0; k < i; k++)
		if (p->mem[k].space == space && a >= p->mem[k].addr && a - p->mem[k].addr < p->mem[k].len)
			return &p->mem[k];
	return NULL;
}

/*
 * Regions: unions of overlapping or adjacent records of one space, their
 * bytes in one buffer (log->bytes).  A byte is the one of the first record
 * (in file order) that holds it: records are copied last to first, then
 * each is compared with what it reads as; the first record that differs
 * is the first conflict met in file order.  No per-byte owner map: the
 * cost is the records' bytes and the regions' bytes (issue #26 item 4).
 */
static pt_err merge_mem(struct pt_umr_parser *p, struct pt_umr_log *log)
{
	struct rec_mem **ord;
	size_t nreg = 0, total = 0;

	if (!p->nmem)
		return PT_OK;
	ord = malloc(p->nmem * sizeof *ord);
	if (!ord)
		return PT_E_NOMEM;
	for (size_t i = 0; i < p->nmem; i++)
		ord[i] = &p->mem[i];
	qsort(ord, p->nmem, sizeof *ord, cmp_mem);
	log->mem = calloc(p->nmem, sizeof *log->mem);
	if (!log->mem) {
		free(ord);
		return PT_E_NOMEM;
	}
	for (size_t i = 0; i < p->nmem; i++) {
		struct rec_mem *r = ord[i];
		struct pt_umr_mem *g = nreg ? &log->mem[nreg - 1] : NULL;

		if (g && g->space == r->space && r->addr <= g->addr + g->len) {
			uint64_t end = r->addr + r->len;

			if (end > g->addr + g->len)
				g->len = (size_t)(end - g->addr);
			if (r->line < g->line)
				g->line = r->line;
		} else {
			g = &log->mem[nreg++];
			g->space = r->space;
			g->addr = r->addr;
			g->len = r->len;
			g->line = r->line;
		}
		r->region = (uint32_t)(nreg - 1);
	}
	free(ord);
	log->nmem = nreg;
	for (size_t i = 0; i < nreg; i++)
		total += log->mem[i].len;
	log->bytes = malloc(total);
	if (!log->bytes)
		return PT_E_NOMEM;
	total = 0;
	for (size_t i = 0; i < nreg; i++) {
		log->mem[i].data = log->bytes + total;
		total += log->mem[i].len;
	}
	for (size_t i = p->nmem; i-- > 0;) {
		const struct rec_mem *r = &p->mem[i];
		const struct pt_umr_mem *g = &log->mem[r->region];

		memcpy(g->data + (r->addr - g->addr), p->pool + r->off, r->len);
	}
	for (size_t i = 0; i < p->nmem; i++) {
		const struct rec_mem *r = &p->mem[i];
		const uint8_t *d = log->mem[r->region].data + (r->addr - log->mem[r->region].addr);
		const uint8_t *src = p->pool + r->off;
		size_t k = 0;

		if (!memcmp(d, src, r->len))
			continue;
		while (d[k] == src[k])
			k++;
		pt_umr_seterr(p, r->line, "%s@0x%llx conflicts with line %u at 0x%llx",
		       r->space == PT_UMR_VRAM ? "VRAM" : "SYSRAM", (unsigned long long)r->addr,
		       first_holder(p, i, r->space, r->addr + k)->line, (unsigned long long)(r->addr + k));
		return PT_E_VALUE;
	}
	return PT_OK;
}

/* ---- the whole file ---- */
static void parser_free(struct pt_umr_parser *p)
{
	umr_keys_free(&p->k);
	free(p->mem);
	free(p->pool);
}

pt_err pt_umr_parse(const char *text, size_t len, const char *name, unsigned gfx,
		    struct pt_umr_log **out, char *err, size_t errlen)
{
	struct pt_umr_parser p = { .s = text, .len = len, .line = 1, .name = name ? name : "umr log",
			    .err = err, .errlen = errlen };
	struct pt_umr_log *log;
	pt_err rc = PT_OK;

	*out = NULL;
	if (err && errlen)
		err[0] = 0;
	if (gfx && (gfx < 9 || gfx > 12)) {
		pt_umr_seterr(&p, 1, "gfx %u is not 9, 10, 11 or 12", gfx);
		return PT_E_USAGE;
	}
	if (len > PT_UMR_MAX_SIZE) {
		pt_umr_seterr(&p, 1, "larger than %u MiB", PT_UMR_MAX_SIZE >> 20);
		return PT_E_VALUE;
	}
	if (memchr(text, 0, len)) {
		const char *z = memchr(text, 0, len);
		unsigned line = 1;

		for (const char *c = text; c < z; c++)
			line += *c == '\n';
		pt_umr_seterr(&p, line, "NUL byte: not a umr log");
		return PT_E_SYNTAX;
	}
	for (;;) {
		enum kw kw;
		uint64_t addr = 0;
		bool has_addr;
		unsigned line;

		skip_blank(&p);
		if (p.pos >= p.len)
			break;
		line = p.line;
		rc = read_head(&p, &kw, &addr, &has_addr);
		if (!rc)
			rc = kw == KW_MMIO ? read_mmio(&p, addr, line)
			   : kw == KW_OTHER ? skip_other(&p, line)
			   : read_bytes(&p, kw, addr, line);
		if (rc)
			break;
	}
	log = rc ? NULL : calloc(1, sizeof *log);
	if (!rc && !log)
		rc = PT_E_NOMEM;
	if (!rc) {
		log->nmmio = p.k.nrecords;
		log->warn = calloc(MAX_WARN, sizeof *log->warn);
		rc = log->warn ? pt_umr_classify(&p, gfx, log) : PT_E_NOMEM;
	}
	if (!rc)
		rc = merge_mem(&p, log);
	parser_free(&p);
	if (rc) {
		if (rc == PT_E_NOMEM)
			pt_umr_seterr(&p, p.line, "out of memory");
		pt_umr_free(log);
		return rc;
	}
	*out = log;
	return PT_OK;
}

void pt_umr_free(struct pt_umr_log *log)
{
	if (!log)
		return;
	free(log->bytes);
	free(log->mem);
	free(log->ctx);
	for (size_t i = 0; i < log->nwarn; i++)
		free(log->warn[i]);
	free(log->warn);
	free(log);
}

const struct pt_umr_ctx *pt_umr_ctx_find(const struct pt_umr_log *log, unsigned hub, unsigned vmid)
{
	for (size_t i = 0; i < log->nctx; i++)
		if (log->ctx[i].hub == hub && log->ctx[i].vmid == vmid)
			return &log->ctx[i];
	return NULL;
}

