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
#include "src_umr_keys.h"
#include "src_umr_regs.h"

#define VA_LIMIT (1ull << 48)   /* VRAM offsets and bus addresses fit 48 bits (PTE address 47:12) */
#define MAX_NAME 96

/* Sizes fit 32 bits: a log is at most PT_UMR_MAX_SIZE bytes. */
struct rec_mem {
	uint64_t addr;
	uint32_t len;
	uint32_t off;            /* into the byte pool */
	uint32_t line;
	uint32_t region;
	uint8_t space;
};

struct parser {
	const char *s;
	size_t len, pos;
	unsigned line;
	const char *name;
	char *err;
	size_t errlen;
	struct umr_keys k;       /* the MMIO@ records, folded */
	struct rec_mem *mem;
	size_t nmem, cmem;
	uint8_t *pool;
	size_t npool, cpool;
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

static int peek(const struct parser *p)
{
	return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

/* Blanks, newlines and ';' comments between records. */
static void skip_blank(struct parser *p)
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

static void skip_space(struct parser *p)
{
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\r'))
		p->pos++;
}

/* Hex number with optional 0x; false past 64 bits (*WIDE set) or with no digit. */
static bool parse_hex(struct parser *p, uint64_t *out, unsigned *digits, bool *wide)
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
static pt_err read_head(struct parser *p, enum kw *kw, uint64_t *addr, bool *has_addr)
{
	size_t st = p->pos;
	char key[16];
	size_t n = 0;
	bool wide;

	while (p->pos < p->len && p->s[p->pos] >= 'A' && p->s[p->pos] <= 'Z')
		p->pos++;
	n = p->pos - st;
	if (n == 0 || n >= sizeof key) {
		seterr(p, p->line, "expected a umr record (MMIO@, VRAM@, SYSRAM@, ...)");
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
			seterr(p, p->line, "unknown record %s", key);
			return PT_E_SYNTAX;
		}
		*kw = KW_OTHER;
	}
	*has_addr = false;
	if (peek(p) == '@') {
		unsigned nd;

		p->pos++;
		if (pt_hex_digit(peek(p)) < 0) {
			seterr(p, p->line, "%s@ without a hex address", key);
			return PT_E_SYNTAX;
		}
		if (!parse_hex(p, addr, &nd, &wide)) {
			seterr(p, p->line, "%s@ address wider than 64 bits", key);
			return PT_E_VALUE;
		}
		*has_addr = true;
	}
	if (*kw != KW_OTHER && !*has_addr) {
		seterr(p, p->line, "%s without @ADDRESS", key);
		return PT_E_SYNTAX;
	}
	skip_space(p);
	if (peek(p) != '=') {
		seterr(p, p->line, "%s: expected '='", key);
		return PT_E_SYNTAX;
	}
	p->pos++;
	skip_space(p);
	if (peek(p) != '{') {
		seterr(p, p->line, "%s: expected '{'", key);
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
static void read_comment_name(struct parser *p, char *name)
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

static pt_err read_mmio(struct parser *p, uint64_t addr, unsigned line)
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
			seterr(p, line, "MMIO@0x%llx: record not closed by '}'", (unsigned long long)addr);
			rc = PT_E_TRUNCATED;
			goto out;
		}
		if (pt_hex_digit(peek(p)) < 0) {
			seterr(p, p->line, "MMIO@0x%llx: expected a hex value", (unsigned long long)addr);
			rc = PT_E_SYNTAX;
			goto out;
		}
		if (!parse_hex(p, &v, &nd, &wide) || v > 0xffffffffu) {
			seterr(p, p->line, "MMIO@0x%llx: value wider than 32 bits", (unsigned long long)addr);
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
			seterr(p, line, "MMIO@0x%llx: record not closed by '}'", (unsigned long long)addr);
			rc = PT_E_TRUNCATED;
		} else {
			seterr(p, p->line, "MMIO@0x%llx: expected ',' or '}'", (unsigned long long)addr);
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

static pt_err read_bytes(struct parser *p, enum kw kw, uint64_t addr, unsigned line)
{
	const char *key = kw == KW_VRAM ? "VRAM" : "SYSRAM";
	size_t start = p->npool;
	int hi = -1;
	struct rec_mem *r;

	for (;;) {
		int c = peek(p), h;

		if (c < 0) {
			seterr(p, line, "%s@0x%llx: record not closed by '}'", key, (unsigned long long)addr);
			return PT_E_TRUNCATED;
		}
		p->pos++;
		if (c == '}')
			break;
		if ((h = pt_hex_digit(c)) >= 0) {
			if (c == '0' && hi < 0 && (peek(p) == 'x' || peek(p) == 'X')) {
				seterr(p, p->line, "%s@0x%llx: 0x prefix inside a byte list (bytes are bare hex pairs)",
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
		seterr(p, p->line, "%s@0x%llx: '%c' inside a byte list", key, (unsigned long long)addr,
		       c >= 0x20 && c < 0x7f ? c : '?');
		return PT_E_SYNTAX;
	}
	if (hi >= 0) {
		seterr(p, line, "%s@0x%llx: odd number of hex digits (truncated byte)", key, (unsigned long long)addr);
		return PT_E_TRUNCATED;
	}
	if (p->npool == start) {
		seterr(p, line, "%s@0x%llx: empty record", key, (unsigned long long)addr);
		return PT_E_VALUE;
	}
	if (addr >= VA_LIMIT || p->npool - start > VA_LIMIT - addr) {
		seterr(p, line, "%s@0x%llx: %zu bytes run past 2^48", key, (unsigned long long)addr, p->npool - start);
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

static pt_err skip_other(struct parser *p, unsigned line)
{
	while (p->pos < p->len && p->s[p->pos] != '}') {
		if (p->s[p->pos] == '\n')
			p->line++;
		p->pos++;
	}
	if (p->pos >= p->len) {
		seterr(p, line, "record not closed by '}'");
		return PT_E_TRUNCATED;
	}
	p->pos++;
	return PT_OK;
}

bool pt_umr_detect(const char *text, size_t len)
{
	struct parser p = { .s = text, .len = len < 4096 ? len : 4096, .line = 1, .name = "" };
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

/* The first conflict of the log: the lowest line where a register reads another value. */
struct conflict {
	unsigned line, first_line;
	uint32_t value, first;
	char what[64];
};

/*
 * Register R takes key M: its first value if R has none.  A value M holds
 * that R's first value is not (a snapshot needs one value; a register that
 * changed between reads is not one) is a conflict at its line; the lowest
 * such line of the log is the one reported, as reading in file order would.
 */
static void set_reg(struct pt_umr_reg *r, const struct rec_mmio *m, bool by_name, const char *what,
		    struct conflict *c)
{
	unsigned line = 0;
	uint32_t v = 0;

	if (!r->has) {
		r->has = true;
		r->value = m->v0;
		r->line = m->line;
		r->by_name = by_name;
	}
	if (m->v0 != r->value) {
		line = m->line;
		v = m->v0;
	} else if (m->line1) {
		line = m->line1;
		v = m->v1;
	}
	if (line && (!c->line || line < c->line)) {
		c->line = line;
		c->value = v;
		c->first = r->value;
		c->first_line = r->line;
		snprintf(c->what, sizeof c->what, "%s", what);
	}
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
static const struct rec_mem *first_holder(const struct parser *p, size_t i, unsigned space, uint64_t a)
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
static pt_err merge_mem(struct parser *p, struct pt_umr_log *log)
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
		seterr(p, r->line, "%s@0x%llx conflicts with line %u at 0x%llx",
		       r->space == PT_UMR_VRAM ? "VRAM" : "SYSRAM", (unsigned long long)r->addr,
		       first_holder(p, i, r->space, r->addr + k)->line, (unsigned long long)(r->addr + k));
		return PT_E_VALUE;
	}
	return PT_OK;
}

/* ---- the whole file ---- */

#define MAX_WARN 32

static void add_warn(struct pt_umr_log *log, const struct parser *p, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add_warn(struct pt_umr_log *log, const struct parser *p, unsigned line, const char *fmt, ...)
{
	char msg[400], full[512];
	va_list ap;

	if (log->nwarn >= MAX_WARN) {
		log->nwarn_more++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(full, sizeof full, "%s:%u: %s", p->name, line, msg);
	log->warn[log->nwarn] = strdup(full);
	if (log->warn[log->nwarn])
		log->nwarn++;
}

/*
 * The generation the comment names tell when the caller gave none: the one
 * whose address table agrees with the most named records (gfx9 and gfx10
 * share the GFX hub's addresses: then the names' style decides), 0 when no
 * name agrees with any.
 */
static unsigned gen_from_names(const struct parser *p, unsigned style)
{
	size_t best_n = 0;
	unsigned best = 0;

	for (unsigned g = 9; g <= 12; g++) {
		size_t n = 0;

		for (size_t i = 0; i < p->k.n; i++) {
			struct regid nm = {0}, ad;

			if (pt_umr_reg_by_name(p->k.names + p->k.v[i].name, &nm) == 1 &&
			    pt_umr_reg_by_addr(g, p->k.v[i].addr, &ad) && pt_umr_same_reg(&nm, nm.hub_known, &ad))
				n += p->k.v[i].count;
		}
		if (n > best_n || (n == best_n && n && style == 10 && best == 9)) {
			best = g;
			best_n = n;
		}
	}
	return best;
}

/*
 * Which register key M is: by address on gfx GEN (names are hints), or by
 * name when GEN is 0.  A name that disagrees is warned about once per key,
 * its other records counted with the warnings not kept.
 */
static bool classify_one(struct parser *p, struct pt_umr_log *log, unsigned gen,
			 const struct rec_mmio *m, struct regid *id, bool *by_name)
{
	struct regid nm = {0};
	const char *mname = p->k.names + m->name;
	int byname = pt_umr_reg_by_name(mname, &nm);
	char a[64], b[64];
	size_t nw = log->nwarn + log->nwarn_more;

	*by_name = false;
	if (!gen) {
		/* No generation: names alone, as umr's comment writer puts them. */
		if (byname != 1)
			return false;
		*id = nm;
		*by_name = true;
		return true;
	}
	if (!pt_umr_reg_by_addr(gen, m->addr, id)) {
		if (byname == 1) {
			add_warn(log, p, m->line, "the comment names %s, but MMIO@0x%llx is no VM register on gfx%u:"
				 " ignored (umr reads registers by address)",
				 pt_umr_reg_label(nm.is_ctx, nm.hub, nm.vmid, nm.reg, a, sizeof a),
				 (unsigned long long)m->addr, gen);
			log->nwarn_more += m->count - 1;
		}
		return false;
	}
	if (byname == 0) {
		/* A register name of something else (gfx900.mmSOMETHING_ELSE): the address wins. */
		add_warn(log, p, m->line, "the comment names %s, but MMIO@0x%llx is %s on gfx%u: read as %s",
			 mname, (unsigned long long)m->addr,
			 pt_umr_reg_label(id->is_ctx, id->hub, id->vmid, id->reg, b, sizeof b), gen, b);
	} else if (byname == 1) {
		if (pt_umr_same_reg(&nm, nm.hub_known, id))
			*by_name = true;
		else
			add_warn(log, p, m->line, "the comment names %s, but MMIO@0x%llx is %s on gfx%u: read as %s",
				 pt_umr_reg_label(nm.is_ctx, nm.hub, nm.vmid, nm.reg, a, sizeof a),
				 (unsigned long long)m->addr,
				 pt_umr_reg_label(id->is_ctx, id->hub, id->vmid, id->reg, b, sizeof b), gen,
				 b);
	}
	if (log->nwarn + log->nwarn_more > nw)
		log->nwarn_more += m->count - 1;
	return true;
}

static pt_err classify(struct parser *p, unsigned gfx, struct pt_umr_log *log)
{
	struct pt_umr_ctx all[PT_UMR_HUB__COUNT][PT_UMR_MAX_VMID + 1];
	bool used[PT_UMR_HUB__COUNT][PT_UMR_MAX_VMID + 1] = { { false } };
	unsigned line9 = 0, line10 = 0;
	size_t n9 = 0, n10 = 0;
	struct conflict cf = {0};

	memset(all, 0, sizeof all);
	/* What the names' style says: a hint only (umr ignores comments). */
	for (size_t i = 0; i < p->k.n; i++) {
		struct regid id = {0};

		if (pt_umr_reg_by_name(p->k.names + p->k.v[i].name, &id) != 1)
			continue;
		if (id.gen == 9 && !line9)
			line9 = p->k.v[i].line;
		if (id.gen == 10 && !line10)
			line10 = p->k.v[i].line;
		n9 += id.gen == 9 ? p->k.v[i].count : 0;
		n10 += id.gen == 10 ? p->k.v[i].count : 0;
	}
	log->gfx_names = line9 && !line10 ? 9 : line10 && !line9 ? 10 : 0;
	/* Mixed names (umr's navi10 files): the style most names have breaks a gfx9/gfx10 tie. */
	log->gfx = gfx ? gfx : gen_from_names(p, n10 && n10 >= n9 ? 10 : 9);

	for (size_t i = 0; i < p->k.n; i++) {
		const struct rec_mmio *m = &p->k.v[i];
		struct regid id;
		bool by_name;
		char what[64];

		if (!classify_one(p, log, log->gfx, m, &id, &by_name))
			continue;
		pt_umr_reg_label(id.is_ctx, id.hub, id.vmid, id.reg, what, sizeof what);
		if (id.is_ctx)
			set_reg(&all[id.hub][id.vmid].reg[id.reg], m, by_name, what, &cf);
		else
			set_reg(&log->hub[id.hub][id.reg], m, by_name, what, &cf);
	}
	if (cf.line) {
		seterr(p, cf.line, "%s reads 0x%x here but 0x%x on line %u", cf.what, cf.value, cf.first,
		       cf.first_line);
		return PT_E_VALUE;
	}
	for (unsigned h = 0; h < PT_UMR_HUB__COUNT; h++)
		for (unsigned v = 0; v <= PT_UMR_MAX_VMID; v++) {
			struct pt_umr_ctx *c = &all[h][v];
			bool any = false;

			for (unsigned r = 0; r < PT_UMR_CREG__COUNT; r++)
				any |= c->reg[r].has;
			if (!any)
				continue;
			used[h][v] = true;
			c->hub = h;
			c->vmid = v;
			c->base.has = c->reg[PT_UMR_BASE_LO].has && c->reg[PT_UMR_BASE_HI].has;
			c->base.value = (uint64_t)c->reg[PT_UMR_BASE_HI].value << 32 | c->reg[PT_UMR_BASE_LO].value;
			c->start.has = c->reg[PT_UMR_START_LO].has && c->reg[PT_UMR_START_HI].has;
			c->start.value = (uint64_t)c->reg[PT_UMR_START_HI].value << 32 | c->reg[PT_UMR_START_LO].value;
			c->end.has = c->reg[PT_UMR_END_LO].has && c->reg[PT_UMR_END_HI].has;
			c->end.value = (uint64_t)c->reg[PT_UMR_END_HI].value << 32 | c->reg[PT_UMR_END_LO].value;
			/* CNTL fields per docs/design.md §2.4 and its sources (§7) (gc_9_0_sh_mask.h) */
			c->depth = (c->reg[PT_UMR_CNTL].value >> 1) & 3;
			c->block_size = (c->reg[PT_UMR_CNTL].value >> 3) & 0xf;
			log->nctx++;
		}
	if (log->nctx) {
		size_t k = 0;

		log->ctx = calloc(log->nctx, sizeof *log->ctx);
		if (!log->ctx)
			return PT_E_NOMEM;
		for (unsigned h = 0; h < PT_UMR_HUB__COUNT; h++)
			for (unsigned v = 0; v <= PT_UMR_MAX_VMID; v++)
				if (used[h][v])
					log->ctx[k++] = all[h][v];
		log->nctx = k;
	}
	return PT_OK;
}

static void parser_free(struct parser *p)
{
	umr_keys_free(&p->k);
	free(p->mem);
	free(p->pool);
}

pt_err pt_umr_parse(const char *text, size_t len, const char *name, unsigned gfx,
		    struct pt_umr_log **out, char *err, size_t errlen)
{
	struct parser p = { .s = text, .len = len, .line = 1, .name = name ? name : "umr log",
			    .err = err, .errlen = errlen };
	struct pt_umr_log *log;
	pt_err rc = PT_OK;

	*out = NULL;
	if (err && errlen)
		err[0] = 0;
	if (gfx && (gfx < 9 || gfx > 12)) {
		seterr(&p, 1, "gfx %u is not 9, 10, 11 or 12", gfx);
		return PT_E_USAGE;
	}
	if (len > PT_UMR_MAX_SIZE) {
		seterr(&p, 1, "larger than %u MiB", PT_UMR_MAX_SIZE >> 20);
		return PT_E_VALUE;
	}
	if (memchr(text, 0, len)) {
		const char *z = memchr(text, 0, len);
		unsigned line = 1;

		for (const char *c = text; c < z; c++)
			line += *c == '\n';
		seterr(&p, line, "NUL byte: not a umr log");
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
		rc = log->warn ? classify(&p, gfx, log) : PT_E_NOMEM;
	}
	if (!rc)
		rc = merge_mem(&p, log);
	parser_free(&p);
	if (rc) {
		if (rc == PT_E_NOMEM)
			seterr(&p, p.line, "out of memory");
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

