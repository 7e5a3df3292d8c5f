/* SPDX-License-Identifier: MIT */
/*
 * src_umr_ctx.c — a umr log's MMIO@ registers classified into contexts
 * (docs/design.md §3.2): each folded key (src_umr_keys.c) named by address
 * on the log's generation (the comment names a hint, a disagreeing name
 * warned about once per key) or by name when no generation is known, the
 * generation itself guessed from the names, each hub and VMID's registers
 * gathered into one context, and the first register that reads two values
 * the log's conflict.  src_umr.c's parse calls in here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_src_umr.h"
#include "src_umr_int.h"
#include "src_umr_keys.h"
#include "src_umr_regs.h"

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

static void add_warn(struct pt_umr_log *log, const struct pt_umr_parser *p, unsigned line,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add_warn(struct pt_umr_log *log, const struct pt_umr_parser *p, unsigned line,
		     const char *fmt, ...)
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
static unsigned gen_from_names(const struct pt_umr_parser *p, unsigned style)
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
static bool classify_one(struct pt_umr_parser *p, struct pt_umr_log *log, unsigned gen,
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

pt_err pt_umr_classify(struct pt_umr_parser *p, unsigned gfx, struct pt_umr_log *log)
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
		pt_umr_seterr(p, cf.line, "%s reads 0x%x here but 0x%x on line %u", cf.what, cf.value, cf.first,
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
