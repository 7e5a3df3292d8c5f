/* SPDX-License-Identifier: MIT */
/*
 * build.c — page tables from mappings (pt_build.h), for ptfs-tool build.
 *
 * The builder mirrors the walker: it starts at a context's root table (the
 * geometry pt_table_root() gives), indexes each level as pt_walk_va()
 * does, and where the walker would follow a pointer it allocates the table
 * (pt_table_child()'s geometry: a level's own index bits and span).  A
 * mapping is cut into the largest pages the level table allows at each VA:
 * a leaf is placed at the first level on the path that may hold one
 * (a LEAF level, or a directory level with a leaf_shift) where the VA, the
 * PA and the rest of the mapping are aligned to its span; a dual entry
 * points at its big table where a big page fits, else at its small table.
 *
 * Entries are recorded first (slots) and encoded at the end, so that a
 * dual entry that gains its second table is written once, whole.  Every
 * encoded entry is decoded again and compared with the request: the state,
 * the page or table address and space, and each requested flag field.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_build.h"
#include "pt_vec.h"
#include "pt_walk.h"

#define BUILD_DEFAULT_BASE (UINT64_C(1) << 20)
#define BUILD_FLAGS_MAX 16

enum slot_kind { SLOT_EMPTY = 0, SLOT_LEAF, SLOT_POINTER };

struct slot {
	uint8_t kind;
	uint8_t space;             /* leaf: space id of the page */
	uint8_t nflags;
	uint32_t child[2];         /* pointer: node index + 1 of the table (0: none) */
	uint64_t pa;               /* leaf */
	uint64_t page_size;        /* leaf */
	const char *const *flags;  /* leaf: the mapping's flag names (owned by the caller) */
};

/* One table being built. */
struct node {
	unsigned ctx;              /* context handle */
	int level;                 /* index into the context's level table */
	unsigned space;            /* space id (the context's format) */
	uint64_t addr;             /* its address in that space */
	uint64_t entries;
	unsigned page_shift;
	uint64_t va_base;
	struct slot *slots;        /* entries of them */
};

struct bspace {
	char *name;                /* the capture's name of the space (pt_context_space_name()) */
	uint64_t base, next;       /* allocation: [base, next) is used */
	uint8_t *data;             /* next - base bytes */
	size_t cap;
	/*
	 * A translated space ([space NAME] translate = CTX): its bytes are
	 * written at BACK_ADDR of space BACK (an index into spaces), which the
	 * translating context maps [base, next) to (resolve_spaces()).
	 */
	const struct pt_context *xlate;
	int back;
	unsigned back_space;       /* the translator's format space index of BACK */
	uint64_t back_addr;
	const char *back_flag;     /* a one-bit field its pages need to be readable, or NULL */
	const char **back_flags;   /* what its map's slots point at (allocated: the array of spaces moves) */
	bool resolved;
};

struct bctx {
	const struct pt_context *ctx;
	uint32_t root;             /* node index */
};

struct pt_build {
	struct node *nodes;
	size_t nnodes, nodecap;
	struct bspace *spaces;
	size_t nspaces, spacecap;
	struct bctx *ctxs;
	size_t nctxs, ctxcap;
	struct pt_build_blob *blobs;
	size_t nblobs;
};

static pt_err fail(char *err, size_t len, pt_err rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static pt_err fail(char *err, size_t len, pt_err rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return rc;
}

struct pt_build *pt_build_new(void)
{
	return calloc(1, sizeof(struct pt_build));
}

void pt_build_free(struct pt_build *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nnodes; i++)
		free(b->nodes[i].slots);
	for (size_t i = 0; i < b->nspaces; i++) {
		free(b->spaces[i].data);
		free(b->spaces[i].name);
		free(b->spaces[i].back_flags);
	}
	free(b->nodes);
	free(b->spaces);
	free(b->ctxs);
	free(b->blobs);
	free(b);
}

static struct bspace *space_get(struct pt_build *b, const char *name, bool create)
{
	for (size_t i = 0; i < b->nspaces; i++)
		if (strcmp(b->spaces[i].name, name) == 0)
			return &b->spaces[i];
	if (!create || !pt_vec_reserve(&b->spaces, &b->spacecap, b->nspaces + 1, sizeof *b->spaces))
		return NULL;
	struct bspace *s = &b->spaces[b->nspaces];

	memset(s, 0, sizeof *s);
	s->name = strdup(name);
	if (!s->name)
		return NULL;
	s->base = s->next = BUILD_DEFAULT_BASE;
	s->back = -1;
	b->nspaces++;
	return s;
}

pt_err pt_build_space(struct pt_build *b, const char *space, uint64_t base)
{
	struct bspace *s = space_get(b, space, true);

	if (!s)
		return PT_E_NOMEM;
	if (s->next != s->base)
		return PT_E_VALUE;   /* already allocated from */
	s->base = s->next = (base + 0xfff) & ~UINT64_C(0xfff);
	return PT_OK;
}

/* A zeroed table of ENTRIES entries of SIZE bytes in S, ALIGN-aligned (a power of two). */
static pt_err space_alloc(struct bspace *s, uint64_t bytes, uint64_t align, uint64_t *addr)
{
	uint64_t a = (s->next + align - 1) & ~(align - 1);
	uint64_t end = a + ((bytes + 0xfff) & ~UINT64_C(0xfff));
	size_t need = (size_t)(end - s->base);

	if (end < a || end - s->base > (UINT64_C(1) << 34))
		return PT_E_VALUE;   /* 16 GiB of tables: not a test capture */
	if (need > s->cap) {
		size_t old = s->cap;

		/* at least 64 KiB, then doubling: the capacity is the power of two at or above NEED */
		if (!pt_vec_reserve(&s->data, &s->cap, need > (1 << 16) ? need : 1 << 16, 1))
			return PT_E_NOMEM;
		memset(s->data + old, 0, s->cap - old);
	}
	s->next = end;
	*addr = a;
	return PT_OK;
}

/* A new table node (its slots zeroed); *IDX its index. */
static pt_err node_new(struct pt_build *b, unsigned ctx, int level, uint64_t entries,
		       unsigned page_shift, uint64_t va_base, uint32_t *idx, char *err, size_t len)
{
	const struct pt_context *c = b->ctxs[ctx].ctx;
	const struct pt_level *l = &c->fmt->levels[level];
	/* the capture's name: a guest's `space = gpa` puts its tables in gpa, where the walker reads them */
	const char *sname = pt_context_space_name(c, c->root_space);
	struct bspace *s = space_get(b, sname, true);
	uint64_t bytes = entries * l->entry_size, align = 4096;
	struct node *n;
	pt_err rc;

	if (!s || !pt_vec_reserve(&b->nodes, &b->nodecap, b->nnodes + 1, sizeof *b->nodes))
		return PT_E_NOMEM;
	/* A table smaller than a page (VER2's 256-byte big tables) still gets one: simple, legal. */
	rc = space_alloc(s, bytes, align, &b->nodes[b->nnodes].addr);
	if (rc != PT_OK)
		return fail(err, len, rc, "%s: cannot allocate a %s table of %" PRIu64 " bytes in %s",
			    c->name, l->name, bytes, sname);
	n = &b->nodes[b->nnodes];
	n->ctx = ctx;
	n->level = level;
	n->space = c->root_space;
	n->entries = entries;
	n->page_shift = page_shift;
	n->va_base = va_base;
	n->slots = calloc(entries ? entries : 1, sizeof *n->slots);
	if (!n->slots)
		return PT_E_NOMEM;
	*idx = (uint32_t)b->nnodes++;
	return PT_OK;
}

pt_err pt_build_context(struct pt_build *b, const struct pt_context *ctx, uint64_t *root,
			unsigned *id, char *err, size_t errlen)
{
	struct pt_table t;
	uint32_t r;
	pt_err rc;

	if (!ctx->fmt->encode)
		return fail(err, errlen, PT_E_UNSUPPORTED, "%s: format %s cannot be built (no encoder)",
			    ctx->name, ctx->fmt->name);
	if (!pt_vec_reserve(&b->ctxs, &b->ctxcap, b->nctxs + 1, sizeof *b->ctxs))
		return PT_E_NOMEM;
	b->ctxs[b->nctxs].ctx = ctx;
	pt_table_root(ctx, &t);
	rc = node_new(b, (unsigned)b->nctxs, 0, t.entries, t.page_shift, t.va_base, &r, err, errlen);
	if (rc != PT_OK)
		return rc;
	b->ctxs[b->nctxs].root = r;
	*id = (unsigned)b->nctxs++;
	*root = b->nodes[r].addr;
	return PT_OK;
}

static bool aligned(uint64_t v, unsigned shift)
{
	return shift >= 64 || (v & ((UINT64_C(1) << shift) - 1)) == 0;
}

/* The page at VA goes where: the node and slot of its leaf, and its span (*SHIFT). */
static pt_err place(struct pt_build *b, unsigned id, uint64_t va, uint64_t pa, uint64_t rem,
		    uint32_t *node, struct slot **out, unsigned *shift, char *err, size_t len)
{
	const struct pt_context *c = b->ctxs[id].ctx;
	const struct pt_level *lv0 = c->fmt->levels;
	uint32_t ni = b->ctxs[id].root;
	uint64_t shown = pt_va_at(c->fmt, va);   /* VA is a slot: messages name the VA */

	for (unsigned depth = 0; depth < PT_MAX_DEPTH; depth++) {
		struct node *n = &b->nodes[ni];
		const struct pt_level *l = &lv0[n->level];
		unsigned ps = n->page_shift;
		uint64_t idx = (va - n->va_base) >> ps;
		bool fits = aligned(va, ps) && aligned(pa, ps) && (ps >= 64 || rem >= UINT64_C(1) << ps);
		struct slot *s;
		unsigned which = 0;

		if (va < n->va_base || idx >= n->entries)
			return fail(err, len, PT_E_VALUE, "VA 0x%" PRIx64 " is outside %s's %s table",
				    shown, c->name, l->name);
		s = &n->slots[idx];
		if (s->kind == SLOT_LEAF)
			return fail(err, len, PT_E_VALUE, "VA 0x%" PRIx64 " is already mapped", shown);
		if (l->role == PT_ROLE_LEAF || (l->leaf_shift && s->kind == SLOT_EMPTY && fits)) {
			if (!fits)
				return fail(err, len, PT_E_VALUE, "VA 0x%" PRIx64 " / PA 0x%" PRIx64
					    " is not aligned to the smallest page there (%s: %" PRIu64 " bytes)",
					    shown, pa, l->name, UINT64_C(1) << ps);
			if (s->kind != SLOT_EMPTY)
				return fail(err, len, PT_E_VALUE, "VA 0x%" PRIx64 " is already mapped", shown);
			*node = ni;
			*out = s;
			*shift = ps;
			return PT_OK;
		}
		if (l->role == PT_ROLE_DUAL && l->child[0] >= 0) {
			unsigned bs = lv0[l->child[0]].va_shift;

			which = (l->child[1] >= 0 && !(aligned(va, bs) && aligned(pa, bs) && rem >= UINT64_C(1) << bs));
		}
		if (l->child[which] < 0)
			return fail(err, len, PT_E_UNSUPPORTED, "%s: a %s entry points at no table",
				    c->name, l->name);
		if (!s->child[which]) {
			const struct pt_level *cl = &lv0[l->child[which]];
			uint32_t ci;
			pt_err rc = node_new(b, id, l->child[which], UINT64_C(1) << cl->bits, cl->va_shift,
					     n->va_base + (idx << ps), &ci, err, len);

			if (rc != PT_OK)
				return rc;
			n = &b->nodes[ni];          /* node_new may move the array */
			n->slots[idx].kind = SLOT_POINTER;
			n->slots[idx].child[which] = ci + 1;
		}
		ni = n->slots[idx].child[which] - 1;
	}
	return fail(err, len, PT_E_UNSUPPORTED, "%s: no level holds a page at VA 0x%" PRIx64, c->name, shown);
}

static void slot_entry(const struct pt_build *b, const struct node *n, const struct slot *s,
		       struct pt_entry *e);
static pt_err slot_check(const struct pt_context *c, const struct node *n, uint64_t idx,
			 const uint8_t *raw, const struct pt_entry *want, char *err, size_t len);

/*
 * The first page a map line puts at a level is encoded at once into a
 * scratch entry and checked, so that a flag the level has no one-bit field
 * for is reported on the map line that asks for it.
 */
static pt_err leaf_try(const struct pt_build *b, const struct node *n, const struct slot *s,
		       char *err, size_t len)
{
	const struct pt_context *c = b->ctxs[n->ctx].ctx;
	struct pt_entry e;
	uint8_t raw[16] = { 0 };
	pt_err rc;

	slot_entry(b, n, s, &e);
	rc = c->fmt->encode((unsigned)n->level, &e, raw, err, len);
	return rc != PT_OK ? rc : slot_check(c, n, (uint64_t)(s - n->slots), raw, &e, err, len);
}

/* The smallest page CTX maps: its finest leaf level, or a flat root's page. */
static unsigned min_page_shift(const struct pt_context *ctx)
{
	unsigned m = 64;

	for (unsigned i = 0; ctx->fmt->levels[i].name; i++) {
		const struct pt_level *l = &ctx->fmt->levels[i];
		unsigned s = !l->bits ? ctx->root_page_shift : l->role == PT_ROLE_LEAF ? l->va_shift :
			     l->leaf_shift;

		if (s && s < m)
			m = s;
	}
	return m;
}

/*
 * The format space index of the space CTX calls NAME in its capture (a
 * guest's `space = gpa` renames x86-64's one space; VT-d's `space` and
 * `output_space` choose two of its three), or -1.
 */
static int ctx_space(const struct pt_context *c, const char *name)
{
	for (unsigned i = 0; i < PT_CONTEXT_SPACES && c->fmt->spaces[i]; i++)
		if ((!c->space_used || (c->space_used >> i & 1)) &&
		    strcmp(pt_context_space_name(c, i), name) == 0)
			return (int)i;
	return -1;
}

/* "context C has no space 'X' (its spaces: a, b)". */
static pt_err no_space(const struct pt_context *c, const char *name, char *err, size_t len)
{
	char list[256] = "";
	size_t off = 0;

	for (unsigned i = 0; i < PT_CONTEXT_SPACES && c->fmt->spaces[i] && off < sizeof list; i++)
		if (!c->space_used || (c->space_used >> i & 1))
			off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", off ? ", " : "",
						pt_context_space_name(c, i));
	return fail(err, len, PT_E_VALUE, "context %s has no space '%s' (its spaces: %s)", c->name, name, list);
}

pt_err pt_build_map(struct pt_build *b, unsigned id, uint64_t va, uint64_t size,
		    const char *space, uint64_t pa, const char *const *flags, size_t nflags,
		    char *err, size_t errlen)
{
	const struct pt_context *c = b->ctxs[id].ctx;
	int sp = ctx_space(c, space);

	if (sp < 0)
		return no_space(c, space, err, errlen);
	if (nflags > BUILD_FLAGS_MAX)
		return fail(err, errlen, PT_E_VALUE, "more than %d flags", BUILD_FLAGS_MAX);
	if (size == 0 || va + size - 1 < va || pa + size - 1 < pa)
		return fail(err, errlen, PT_E_VALUE, "size 0x%" PRIx64 " is empty or wraps", size);
	/* A canonical format's tables see a VA's slot (pt_va_slot()), as the walker does. */
	if (!pt_va_in_space(c->fmt, va) || !pt_va_in_space(c->fmt, va + size - 1) ||
	    pt_va_slot(c->fmt, va + size - 1) < pt_va_slot(c->fmt, va))
		return fail(err, errlen, PT_E_VALUE, "VA 0x%" PRIx64 "..0x%" PRIx64 " is not in %s's"
			    " %u-bit VA space", va, va + size - 1, c->name, c->fmt->va_bits);
	va = pt_va_slot(c->fmt, va);
	/* Checked before any table is allocated, so a refused map leaves none behind. */
	if (!aligned(va | pa | size, min_page_shift(c)))
		return fail(err, errlen, PT_E_VALUE, "VA 0x%" PRIx64 ", PA 0x%" PRIx64 " and size 0x%" PRIx64
			    " are not all aligned to the smallest page (%" PRIu64 " bytes)", va, pa, size,
			    UINT64_C(1) << min_page_shift(c));
	int tried = -1;

	while (size) {
		struct slot *s = NULL;
		unsigned shift = 0;
		uint32_t ni = 0;
		pt_err rc = place(b, id, va, pa, size, &ni, &s, &shift, err, errlen);
		uint64_t span = UINT64_C(1) << shift;

		if (rc != PT_OK)
			return rc;
		s->kind = SLOT_LEAF;
		s->space = (uint8_t)sp;
		s->pa = pa;
		s->page_size = span;
		s->flags = flags;
		s->nflags = (uint8_t)nflags;
		if (b->nodes[ni].level != tried) {
			tried = b->nodes[ni].level;
			rc = leaf_try(b, &b->nodes[ni], s, err, errlen);
			if (rc != PT_OK) {
				s->kind = SLOT_EMPTY;
				return rc;
			}
		}
		va += span;
		pa += span;
		size -= span;
	}
	return PT_OK;
}

/* The request for slot S of node N, as a summary the encoder inverts. */
static void slot_entry(const struct pt_build *b, const struct node *n, const struct slot *s,
		       struct pt_entry *e)
{
	const struct pt_context *c = b->ctxs[n->ctx].ctx;
	const struct pt_level *l = &c->fmt->levels[n->level];

	memset(e, 0, offsetof(struct pt_entry, fields));
	e->size = l->entry_size;
	e->kind = -1;
	if (s->kind == SLOT_LEAF) {
		e->state = PT_ST_MAPPED;
		e->leaf = true;
		e->space = s->space;
		e->pa = s->pa + c->space_bias[s->space];
		e->page_size = s->page_size;
		for (unsigned i = 0; i < s->nflags; i++)
			pt_entry_push(e, s->flags[i], PT_FK_BIT, 1, 0, NULL);
		return;
	}
	e->state = PT_ST_POINTER;
	for (unsigned w = 0; w < 2; w++) {
		const struct node *ch;

		if (!s->child[w])
			continue;
		ch = &b->nodes[s->child[w] - 1];
		e->target[w].present = true;
		e->target[w].level = (int8_t)ch->level;
		e->target[w].space = ch->space;
		e->target[w].addr = ch->addr + c->space_bias[ch->space];
		/* the table's geometry, for a format whose pointer says it (a level, a fragment size) */
		e->target[w].shift = (uint8_t)ch->page_shift;
		while (ch->entries >> e->target[w].bits > 1)
			e->target[w].bits++;
	}
}

/* "'read' is not a one-bit field of intel-vtd's pt entries (those are: r, w, ...)". */
static pt_err bad_flag(const struct pt_context *c, const struct pt_level *l, const struct pt_entry *got,
		       const char *flag, char *err, size_t len)
{
	char list[512] = "";
	size_t off = 0;

	for (unsigned i = 0; i < got->nfields && off < sizeof list; i++)
		if (got->fields[i].kind == PT_FK_BIT)
			off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", off ? ", " : "",
						got->fields[i].key);
	return fail(err, len, PT_E_VALUE, "'%s' is not a one-bit field of %s's %s entries (%s%s)", flag,
		    c->fmt->name, l->name, off ? "those are: " : "it has none", list);
}

/* Decodes what slot S became and compares it with the request E. */
static pt_err slot_check(const struct pt_context *c, const struct node *n, uint64_t idx,
			 const uint8_t *raw, const struct pt_entry *want, char *err, size_t len)
{
	const struct pt_level *l = &c->fmt->levels[n->level];
	struct pt_entry got;
	bool ok;

	if (c->fmt->decode((unsigned)n->level, n->page_shift, raw, 0, &got) != PT_OK)
		return fail(err, len, PT_E_VALUE, "%s %s[%" PRIu64 "]: the encoded entry does not decode",
			    c->name, l->name, idx);
	ok = got.state == want->state;
	if (ok && want->state == PT_ST_MAPPED)
		ok = got.space == want->space && got.pa == want->pa;
	for (unsigned w = 0; ok && want->state == PT_ST_POINTER && w < 2; w++)
		ok = got.target[w].present == want->target[w].present &&
		     (!want->target[w].present || (got.target[w].addr == want->target[w].addr &&
						   got.target[w].space == want->target[w].space));
	for (unsigned i = 0; ok && i < want->nfields; i++) {
		const struct pt_field *f = pt_entry_field(&got, want->fields[i].key);

		if (!f || f->v != 1 || f->kind != PT_FK_BIT)
			return bad_flag(c, l, &got, want->fields[i].key, err, len);
	}
	if (!ok)
		return fail(err, len, PT_E_VALUE, "%s %s[%" PRIu64 "]: the %s encoder wrote an entry that "
			    "decodes as something else (state %s)", c->name, l->name, idx,
			    c->fmt->name, pt_state_name(got.state));
	return PT_OK;
}

static pt_err node_encode(struct pt_build *b, const struct node *n, char *err, size_t len)
{
	const struct pt_context *c = b->ctxs[n->ctx].ctx;
	const struct pt_level *l = &c->fmt->levels[n->level];
	struct bspace *sp = space_get(b, pt_context_space_name(c, n->space), false);
	struct pt_entry e;

	for (uint64_t i = 0; i < n->entries; i++) {
		const struct slot *s = &n->slots[i];
		uint8_t *raw = sp->data + (n->addr - sp->base) + i * l->entry_size;
		pt_err rc;

		if (s->kind == SLOT_EMPTY)
			continue;
		slot_entry(b, n, s, &e);
		rc = c->fmt->encode((unsigned)n->level, &e, raw, err, len);
		if (rc != PT_OK)
			return rc;
		rc = slot_check(c, n, i, raw, &e, err, len);
		if (rc != PT_OK)
			return rc;
	}
	return PT_OK;
}

/* The bare page a probe of X writes at LEVEL in space SP: no flags, a PA off every table. */
static void probe_entry(const struct pt_context *x, int level, unsigned shift, unsigned sp,
			struct pt_entry *e)
{
	memset(e, 0, offsetof(struct pt_entry, fields));
	e->size = x->fmt->levels[level].entry_size;
	e->kind = -1;
	e->state = PT_ST_MAPPED;
	e->leaf = true;
	e->space = sp;
	e->pa = (UINT64_C(1) << (shift > 21 ? shift : 21)) + x->space_bias[sp];
	e->page_size = UINT64_C(1) << shift;
}

/* Whether X's finest page at LEVEL in space SP with flags FL[0..N) decodes as a readable page there. */
static bool probe_page(const struct pt_context *x, int level, unsigned shift, unsigned sp,
		       const char *const *fl, size_t n)
{
	struct pt_entry e, got;
	uint8_t raw[16] = { 0 };
	char msg[256];

	probe_entry(x, level, shift, sp, &e);
	for (size_t i = 0; i < n; i++)
		pt_entry_push(&e, fl[i], PT_FK_BIT, 1, 0, NULL);
	return x->fmt->encode((unsigned)level, &e, raw, msg, sizeof msg) == PT_OK &&
	       x->fmt->decode((unsigned)level, shift, raw, 0, &got) == PT_OK &&
	       got.state == PT_ST_MAPPED && got.space == sp && got.pa == e.pa &&
	       !(got.perm & PT_PERM_NO_READ);
}

/*
 * Where translator X puts the pages that hold another space's tables: the
 * first of its spaces (its table space first) in which its encoder writes
 * a page that decodes as readable (a stage-2 read denied is a fault:
 * walk/xlate.c), other than AVOID (the translated space) and with the first
 * one-bit field that makes it readable where a bare page is not (AMD-Vi's
 * ir, arm64 stage 2's s2ap_read).  False: X has no such page.
 */
static bool back_probe(const struct pt_context *x, const char *avoid, unsigned *space,
		       const char **flag)
{
	unsigned shift = min_page_shift(x);
	int level = -1;

	for (int i = 0; x->fmt->levels[i].name && level < 0; i++) {
		const struct pt_level *l = &x->fmt->levels[i];

		if (l->bits && ((l->role == PT_ROLE_LEAF && l->va_shift == shift) || l->leaf_shift == shift))
			level = i;
	}
	if (level < 0)
		return false;
	for (unsigned k = 0; k <= PT_CONTEXT_SPACES; k++) {
		unsigned sp = k == 0 ? x->root_space : k - 1;
		struct pt_entry got;
		uint8_t raw[16] = { 0 };
		char msg[256];
		struct pt_entry e;

		if (sp >= PT_CONTEXT_SPACES || (k && sp == x->root_space) || (k && !x->fmt->spaces[sp]) ||
		    ctx_space(x, pt_context_space_name(x, sp)) != (int)sp ||
		    strcmp(pt_context_space_name(x, sp), avoid) == 0)
			continue;
		*flag = NULL;
		if (probe_page(x, level, shift, sp, NULL, 0)) {
			*space = sp;
			return true;
		}
		/* the one-bit fields a page there has: one of them may grant the read */
		probe_entry(x, level, shift, sp, &e);
		if (x->fmt->encode((unsigned)level, &e, raw, msg, sizeof msg) != PT_OK ||
		    x->fmt->decode((unsigned)level, shift, raw, 0, &got) != PT_OK)
			continue;
		for (unsigned f = 0; f < got.nfields; f++)
			if (got.fields[f].kind == PT_FK_BIT && got.fields[f].v == 0 &&
			    probe_page(x, level, shift, sp, &got.fields[f].key, 1)) {
				*space = sp;
				*flag = got.fields[f].key;
				return true;
			}
	}
	return false;
}

/* The handle of context X in B, or -1. */
static int ctx_handle(const struct pt_build *b, const struct pt_context *x)
{
	for (size_t i = 0; i < b->nctxs; i++)
		if (b->ctxs[i].ctx == x)
			return (int)i;
	return -1;
}

/* Finds each translated space's translator and where its bytes go (no allocation yet). */
static pt_err spaces_bind(struct pt_build *b, char *err, size_t len)
{
	const struct pt_capture *cap = b->nctxs ? b->ctxs[0].ctx->cap : NULL;

	for (size_t i = 0; cap && i < b->nspaces; i++) {
		struct bspace *s = &b->spaces[i];
		int id = pt_capture_space_find(cap, s->name);
		const struct pt_context *x = id >= 0 ? pt_capture_space_translate(cap, (unsigned)id) : NULL;
		unsigned sp;
		const char *flag;

		if (!x)
			continue;
		s->xlate = x;
		if (ctx_handle(b, x) < 0)
			return fail(err, len, PT_E_VALUE, "space %s is translated by %s, which is not built",
				    s->name, x->name);
		if (!back_probe(x, s->name, &sp, &flag))
			return fail(err, len, PT_E_UNSUPPORTED, "space %s is translated by %s, which maps"
				    " no readable %s page the builder can write for the tables there",
				    s->name, x->name, x->fmt->name);
		s->back_flag = flag;
		s->back_space = sp;
		s->back = -1;
		for (size_t k = 0; k < b->nspaces; k++)
			if (strcmp(b->spaces[k].name, pt_context_space_name(x, sp)) == 0)
				s->back = (int)k;
		if (s->back < 0)
			return fail(err, len, PT_E_VALUE, "space %s: no allocation in %s", s->name,
				    pt_context_space_name(x, sp));
	}
	return PT_OK;
}

/* Whether space K lies below a translated space not yet resolved (its translator's tables or pages are there). */
static bool below_pending(const struct pt_build *b, size_t k)
{
	for (size_t i = 0; i < b->nspaces; i++) {
		const struct bspace *s = &b->spaces[i];

		if (i == k || !s->xlate || s->resolved)
			continue;
		if ((size_t)s->back == k ||
		    strcmp(pt_context_space_name(s->xlate, s->xlate->root_space), b->spaces[k].name) == 0)
			return true;
	}
	return false;
}

/*
 * The tables of a translated space ([space NAME] translate = CTX) are at
 * its own addresses, as the walker reads them (walk/xlate.c): the
 * translator maps [base, next) to as many bytes allocated in its page
 * space, where they are written (a nested walk reads a guest's tables
 * through its stage 2: Intel SDM Vol. 3C 29.3.2).  Spaces are resolved top
 * down: one whose translator's tables or pages are in a space still to
 * resolve waits for it (at most three stages: load/spaces.c).
 */
static pt_err spaces_resolve(struct pt_build *b, size_t *order, size_t *norder, char *err, size_t len)
{
	pt_err rc = spaces_bind(b, err, len);

	*norder = 0;
	for (size_t round = 0; rc == PT_OK && round < b->nspaces; round++)
		for (size_t i = 0; rc == PT_OK && i < b->nspaces; i++) {
			struct bspace *s = &b->spaces[i];
			uint64_t size = s->next - s->base, addr;
			const char *fl[1] = { s->back_flag };
			int xid;

			if (!s->xlate || s->resolved || below_pending(b, i))
				continue;
			s->resolved = true;
			if (!size)
				continue;
			xid = ctx_handle(b, s->xlate);
			rc = space_alloc(&b->spaces[s->back], size, 4096, &addr);
			if (rc != PT_OK)
				return fail(err, len, rc, "%s: cannot allocate %" PRIu64 " bytes for the tables"
					    " of %s", b->spaces[s->back].name, size, s->name);
			s->back_addr = addr;
			s->back_flags = malloc(sizeof *s->back_flags);
			if (!s->back_flags)
				return PT_E_NOMEM;
			s->back_flags[0] = fl[0];
			rc = pt_build_map(b, (unsigned)xid, s->base, size, b->spaces[s->back].name, addr,
					  s->back_flags, fl[0] ? 1 : 0, err, len);
			if (rc != PT_OK) {
				char why[512];

				snprintf(why, sizeof why, "%s", err);
				return fail(err, len, rc, "the tables in %s (%s 0x%" PRIx64 "..0x%" PRIx64 ") through"
					    " %s: %s", s->name, s->name, s->base, s->next - 1, s->xlate->name, why);
			}
			order[(*norder)++] = i;
		}
	return rc;
}

pt_err pt_build_finish(struct pt_build *b, char *err, size_t errlen)
{
	size_t order[PT_CONTEXT_SPACES * 4], norder = 0;
	pt_err rc;

	if (b->nspaces > sizeof order / sizeof *order)
		return fail(err, errlen, PT_E_VALUE, "more than %zu spaces", sizeof order / sizeof *order);
	rc = spaces_resolve(b, order, &norder, err, errlen);
	if (rc != PT_OK)
		return rc;
	for (size_t i = 0; i < b->nnodes; i++) {
		rc = node_encode(b, &b->nodes[i], err, errlen);
		if (rc != PT_OK)
			return rc;
	}
	/* top down: a space's bytes land in its backing before those move further down */
	for (size_t k = 0; k < norder; k++) {
		const struct bspace *s = &b->spaces[order[k]];
		struct bspace *t = &b->spaces[s->back];

		memcpy(t->data + (s->back_addr - t->base), s->data, (size_t)(s->next - s->base));
	}
	free(b->blobs);
	b->blobs = calloc(b->nspaces ? b->nspaces : 1, sizeof *b->blobs);
	if (!b->blobs)
		return PT_E_NOMEM;
	b->nblobs = 0;
	for (size_t i = 0; i < b->nspaces; i++) {
		const struct bspace *s = &b->spaces[i];

		if (s->next == s->base || s->xlate)
			continue;   /* a translated space's bytes are in its backing */
		b->blobs[b->nblobs++] = (struct pt_build_blob){ s->name, s->base, s->next - s->base, s->data };
	}
	return PT_OK;
}

size_t pt_build_blob_count(const struct pt_build *b)
{
	return b->nblobs;
}

const struct pt_build_blob *pt_build_blob(const struct pt_build *b, size_t i)
{
	return i < b->nblobs ? &b->blobs[i] : NULL;
}
