/* SPDX-License-Identifier: MIT */
/*
 * scan.c — the anomaly scan of one context (pt_context_scan(), pt_walk.h):
 * every captured table once per level, its entries' counts and the
 * anomalies the decoder marked (pt_entry.anomalies) or the placement shows.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_walk.h"
#include "walk_int.h"

/* ---- anomaly scan ------------------------------------------------------- */

const char *pt_anomaly_name(enum pt_anomaly_kind k)
{
	switch (k) {
	case PT_AN_RESERVED_BITS:
		return "reserved_bits";
	case PT_AN_ENCRYPTED:
		return "encrypted";
	case PT_AN_KIND_UNKNOWN:
		return "kind_unknown";
	case PT_AN_KIND_NON_NATIVE:
		return "kind_non_native";
	case PT_AN_NOT_CAPTURED:
		return "not_captured";
	case PT_AN_UNSUPPORTED:
		return "unsupported";
	case PT_AN_TABLE_TWO_LEVELS:
		return "table_two_levels";
	case PT_AN_PA_NOT_CAPTURED:
		return "page_outside_capture";
	case PT_AN_ROOT_NOT_CAPTURED:
		return "root_not_captured";
	case PT_AN_UNUSUAL:
		return "unusual";
	case PT_AN_UNREADABLE:
		return "unreadable";
	}
	return "unknown";
}

/*
 * Tables seen during one scan, keyed by (space, addr), to find one table
 * claimed at two levels.  Open addressing; grows by doubling.
 */
struct seen {
	struct seen_slot {
		uint64_t addr;
		unsigned space;
		int8_t level;       /* first level the table was read at; -1 = empty slot */
		uint16_t levels;    /* every level it was read at (bit per level) */
		bool reported;
	} *slot;
	size_t cap, used;
};

static struct seen_slot *seen_find(struct seen *s, unsigned space, uint64_t addr)
{
	uint64_t h = (addr >> 8) * 0x9e3779b97f4a7c15ull ^ space;

	for (size_t i = h & (s->cap - 1);; i = (i + 1) & (s->cap - 1))
		if (s->slot[i].level < 0 || (s->slot[i].addr == addr && s->slot[i].space == space))
			return &s->slot[i];
}

static bool seen_grow(struct seen *s)
{
	struct seen old = *s;

	s->cap = old.cap ? old.cap * 2 : 256;
	s->used = 0;
	s->slot = malloc(s->cap * sizeof *s->slot);
	if (!s->slot) {
		*s = old;
		return false;
	}
	for (size_t i = 0; i < s->cap; i++)
		s->slot[i].level = -1;
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i].level >= 0) {
			*seen_find(s, old.slot[i].space, old.slot[i].addr) = old.slot[i];
			s->used++;
		}
	free(old.slot);
	return true;
}

struct scan {
	const struct pt_context *ctx;
	struct pt_stats *st;
	pt_anomaly_fn fn;
	void *ud;
	struct seen seen;
	struct pt_node node;
	pt_err err;
	struct pt_readctl *rc;   /* the table pass's (table_rc()) */
	pt_table_fn tfn;         /* pt_context_tables(): each (table, level) once, NULL: none */
	void *tud;
};

static void report(struct scan *sc, enum pt_anomaly_kind k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report(struct scan *sc, enum pt_anomaly_kind k, const char *fmt, ...)
{
	struct pt_anomaly a;
	va_list ap;

	sc->st->anomalies++;
	if (!sc->fn)
		return;
	a.kind = k;
	a.node = sc->node;
	va_start(ap, fmt);
	vsnprintf(a.detail, sizeof a.detail, fmt, ap);
	va_end(ap);
	sc->fn(sc->ud, &a);
}

static void check_entry(struct scan *sc, const struct pt_entry *e)
{
	if (e->reserved_mask[1])
		report(sc, PT_AN_RESERVED_BITS, "reserved_mask: 0x%016" PRIx64 "%016" PRIx64,
		       e->reserved_mask[1], e->reserved_mask[0]);
	else if (e->reserved_mask[0])
		report(sc, PT_AN_RESERVED_BITS, "reserved_mask: 0x%" PRIx64, e->reserved_mask[0]);
	if (e->anomalies & PT_EA_ZERO_BITS)
		report(sc, PT_AN_ENCRYPTED, "encrypted: 1 (documented: set to 0)");
	if (e->state == PT_ST_UNSUPPORTED)
		report(sc, PT_AN_UNSUPPORTED, "raw: 0x%" PRIx64, e->raw[0]);
	if (e->anomalies & PT_EA_UNUSUAL_LEAF)
		report(sc, PT_AN_UNUSUAL, "a leaf at the root level (raw: 0x%" PRIx64 ")", e->raw[0]);
	if (e->anomalies & PT_EA_UNUSUAL_POINTER)
		report(sc, PT_AN_UNUSUAL, "a pointer to a one-entry table (raw: 0x%" PRIx64 ")", e->raw[0]);
	if (e->kind >= 0 && (e->anomalies & PT_EA_KIND_UNKNOWN))
		report(sc, PT_AN_KIND_UNKNOWN, "kind: 0x%02x", (unsigned)e->kind);
	else if (e->kind >= 0 && (e->anomalies & PT_EA_KIND_NON_NATIVE))
		report(sc, PT_AN_KIND_NON_NATIVE, "kind: 0x%02x", (unsigned)e->kind);
}

static void scan_table(struct scan *sc, const struct pt_table *t);

/*
 * Records that T was reached; false when this table was already scanned at
 * this level.  Scanning each (table, level) once keeps the scan linear in the
 * captured tables even when hostile pointers alias one table many times
 * (the tree and va/ still show every alias; the counts and anomalies are
 * per table).
 */
static bool note_table(struct scan *sc, const struct pt_table *t)
{
	struct seen_slot *slot;

	if (sc->seen.used * 2 >= sc->seen.cap && !seen_grow(&sc->seen)) {
		sc->err = PT_E_NOMEM;
		return false;
	}
	slot = seen_find(&sc->seen, t->space, t->addr);
	if (slot->level < 0) {
		slot->level = t->level;
		slot->levels = 0;
		slot->space = t->space;
		slot->addr = t->addr;
		slot->reported = false;
		sc->seen.used++;
	}
	if (slot->levels & (1u << t->level))
		return false;
	if (slot->levels && !slot->reported) {
		const struct pt_level *levels = sc->ctx->fmt->levels;

		slot->reported = true;
		report(sc, PT_AN_TABLE_TWO_LEVELS, "table %s:0x%" PRIx64 " read as %s and %s",
		       pt_context_space_name(sc->ctx, t->space), t->addr, levels[slot->level].name,
		       levels[t->level].name);
	}
	slot->levels |= (uint16_t)(1u << t->level);
	sc->st->tables[t->level]++;
	if (sc->tfn && t->cover != PT_COVER_NONE)
		sc->tfn(sc->tud, t);
	return true;
}

/*
 * A table the dump holds but cannot read (a kdump page whose descriptor
 * or compressed bytes are corrupt) reads as if not captured: said here,
 * at the pointer to it (or the root), with the source's reason.  Asked
 * after the entries were read, so a readable table costs a page-slot hit.
 */
static bool unreadable(struct scan *sc, const struct pt_table *t)
{
	char why[120];

	if (t->cover == PT_COVER_NONE ||
	    !pt_wk_unreadable(t, t->addr, t->entries * sc->ctx->fmt->levels[t->level].entry_size, NULL,
			      why, sizeof why))
		return false;
	report(sc, PT_AN_UNREADABLE, "%s table %s:0x%" PRIx64 ": %s",
	       sc->ctx->fmt->levels[t->level].name, pt_context_space_name(sc->ctx, t->space), t->addr, why);
	return true;
}

/*
 * A table captured whole whose bytes no longer read (a live guest's RAM
 * file truncated under the mount, a dump file that shrank): every VA
 * through it walks not_captured, and the scan says so (issue #39 item 12:
 * info said `anomalies: 0`).  Not captured bytes are not_captured however
 * they went.
 */
static bool gone(struct scan *sc, const struct pt_table *t)
{
	bool root = sc->node.n == 0;

	if (unreadable(sc, t))
		return true;   /* a dump's page it holds but cannot read: its own reason */
	report(sc, root ? PT_AN_ROOT_NOT_CAPTURED : PT_AN_NOT_CAPTURED, "%s table %s:0x%" PRIx64
	       " %s: no (its bytes no longer read: the file behind them shrank)",
	       sc->ctx->fmt->levels[t->level].name, pt_context_space_name(sc->ctx, t->space), t->addr,
	       root ? "root_captured" : "target_captured");
	return true;
}

static void scan_table(struct scan *sc, const struct pt_table *tab)
{
	struct pt_table direct = *tab, *t = &direct;
	struct pt_entry e;
	/* the table pass alone follows pointers: the summary decode says where */
	unsigned flags = sc->tfn ? PT_DECODE_SUMMARY : 0;
	uint64_t copy[512];
	/* 0: too many entries to read whole (a hostile count; a table is at most 16 bytes an entry) */
	uint64_t len = t->entries <= (UINT64_C(1) << 32) ? t->entries * sc->ctx->fmt->levels[t->level].entry_size : 0;
	bool said = false;   /* its bytes' loss is reported */

	if (!note_table(sc, t))
		return;
	pt_table_direct(t);
	/*
	 * A table of a mapped file (a dump, a live guest's RAM) has no heap
	 * chunk to read in place: read its page once here, not its entries one
	 * by one (a live pa/ lookup sums every table: issue #39 item 10).
	 */
	if (!t->direct && t->cover == PT_COVER_FULL && len && len <= sizeof copy) {
		if (pt_wk_mem_read(t, t->addr, copy, (size_t)len))
			t->direct = (const uint8_t *)copy;
		else
			said = gone(sc, t);
	} else if (!t->direct && t->cover == PT_COVER_FULL && len <= (UINT64_C(1) << 20)) {
		/* a flat table of up to 1 MiB (a GART's): probed a page at a time, read by entries below */
		for (uint64_t off = 0; off < len && !said; off += sizeof copy)
			if (!pt_wk_mem_read(t, t->addr + off, copy,
					    (size_t)(len - off < sizeof copy ? len - off : sizeof copy)))
				said = gone(sc, t);
	}
	for (uint64_t i = 0; sc->err == PT_OK && pt_table_next(t, &i, false, flags, &e, sc->rc); i++) {
		/* counts: the scan of one table is bounded by its non-zero entries */
		struct pt_table child;

		sc->node.s[sc->node.n].level = t->level;
		sc->node.s[sc->node.n].index = i;
		sc->node.n++;
		sc->st->entries[t->level]++;
		if (e.state == PT_ST_MAPPED)
			sc->st->mapped[t->level]++;
		check_entry(sc, &e);
		if (e.state == PT_ST_POINTER && sc->node.n < PT_MAX_DEPTH) {
			for (unsigned w = 0; w < 2; w++) {
				if (!pt_table_child(t, i, &e, w, &child))
					continue;
				if (child.cover != PT_COVER_FULL)
					report(sc, PT_AN_NOT_CAPTURED, "%s table %s:0x%" PRIx64
					       " target_captured: %s",
					       sc->ctx->fmt->levels[child.level].name,
					       pt_context_space_name(sc->ctx, child.space), child.addr,
					       pt_cover_name(child.cover));
				if (child.cover != PT_COVER_NONE)
					scan_table(sc, &child);
			}
		}
		sc->node.n--;
	}
	if (!said)
		unreadable(sc, t);
}

/*
 * The table pass's read control: the caller's cancel, and a bound of
 * PT_SCAN_ENTRIES_MAX entries (or the caller's, if lower), so that the scan
 * ends in bounded time even on mapped zero memory.
 */
static void table_rc(struct pt_readctl *tc, const struct pt_readctl *rc)
{
	pt_readctl_init(tc, rc ? rc->cancel : NULL, rc ? rc->cancel_ud : NULL, PT_SCAN_ENTRIES_MAX);
	if (!rc)
		return;
	tc->polls = rc->polls;
	tc->cancelled = rc->cancelled;
	tc->cut = rc->cut;
	if (rc->work_left < tc->work_left)
		tc->work_left = rc->work_left;
}

/* What the table pass did, back into the caller's RC: the units it spent and a cancel. */
static void table_rc_done(struct pt_readctl *rc, const struct pt_readctl *tc, uint64_t before)
{
	if (!rc)
		return;
	rc->polls = tc->polls;
	rc->cancelled = tc->cancelled;
	if (rc->work_left != UINT64_MAX) {
		rc->work_left -= before - tc->work_left;
		rc->cut = tc->cut && rc->work_left == 0;
	}
}

pt_err pt_context_scan(const struct pt_context *ctx, struct pt_stats *st,
		       pt_anomaly_fn fn, void *ud, struct pt_readctl *rc)
{
	struct scan sc = {.ctx = ctx, .st = st, .fn = fn, .ud = ud, .err = PT_OK};
	struct pt_readctl tc;
	struct pt_page_iter it;
	struct pt_page pg;
	struct pt_table root;

	memset(st, 0, sizeof *st);
	sc.node.ctx = ctx;
	sc.node.n = 0;
	if (!seen_grow(&sc.seen))
		return PT_E_NOMEM;
	pt_table_root(ctx, &root);
	/*
	 * A root with no captured byte leaves every VA not_captured: that is
	 * not a clean capture.  A partly captured root is normal (e.g. a flat
	 * table of 131072 entries where only the used pages were dumped).
	 */
	if (root.cover == PT_COVER_NONE && root.entries)
		report(&sc, PT_AN_ROOT_NOT_CAPTURED, "%s table %s:0x%" PRIx64 " root_captured: no",
		       ctx->fmt->levels[root.level].name, pt_context_space_name(ctx, root.space), root.addr);
	/* Mapped zero memory is read entry by entry: bound the table scan too. */
	table_rc(&tc, rc);
	sc.rc = &tc;
	{
		uint64_t before = tc.work_left;

		scan_table(&sc, &root);
		table_rc_done(rc, &tc, before);
	}
	st->tables_truncated = tc.cut;
	free(sc.seen.slot);
	if (sc.err != PT_OK)
		return sc.err;

	pt_pages_init(&it, ctx, 0, rc);
	it.budget = PT_SCAN_ENTRIES_MAX;
	while (pt_pages_next(&it, &pg)) {
		unsigned sh = 0;

		if (st->pages == PT_SCAN_PAGES_MAX) {
			st->pages_truncated = true;
			st->truncated_va = pg.va;
			break;
		}
		while (sh < 63 && ((uint64_t)1 << sh) < pg.size)
			sh++;
		st->pages++;
		st->bytes_by_shift[sh] += pg.size;
	}
	if (it.cut) {
		st->pages_truncated = true;
		st->truncated_va = it.cut_va;
	}
	return PT_OK;
}

/*
 * The table pass alone, each (table, level) handed to FN (ptfs-tool
 * snapshot copies them): the scan's rule, so that what is copied is what
 * info counts.
 */
pt_err pt_context_tables(const struct pt_context *ctx, pt_table_fn fn, void *ud, struct pt_readctl *rc,
			 bool *cut)
{
	struct pt_stats st;
	struct scan sc = {.ctx = ctx, .st = &st, .err = PT_OK, .tfn = fn, .tud = ud};
	struct pt_readctl tc;
	struct pt_table root;
	uint64_t before;

	memset(&st, 0, sizeof st);
	*cut = false;
	sc.node.ctx = ctx;
	if (!seen_grow(&sc.seen))
		return PT_E_NOMEM;
	pt_table_root(ctx, &root);
	table_rc(&tc, rc);
	sc.rc = &tc;
	before = tc.work_left;
	scan_table(&sc, &root);
	table_rc_done(rc, &tc, before);
	*cut = tc.cut || tc.cancelled;
	free(sc.seen.slot);
	return sc.err;
}

/* pt_context_tables_sum(): FNV-1a over the 8 bytes of V. */
static uint64_t sum_mix(uint64_t h, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * UINT64_C(0x100000001b3);
	return h;
}

struct tsum {
	uint64_t h;
	struct pt_readctl *rc;
};

/*
 * T's bytes into the sum, a page at a time and not decoded: what changed
 * is any byte of a table (a live pa/ lookup sums every table of every
 * context: issue #39 item 10).  Bytes not captured add their offset once.
 */
static void sum_table(void *ud, const struct pt_table *t)
{
	struct tsum *s = ud;
	uint64_t buf[512], len;

	s->h = sum_mix(sum_mix(sum_mix(s->h, t->space), t->addr), (uint64_t)t->level);
	if (t->entries > UINT64_MAX / 16)
		return;
	len = t->entries * t->ctx->fmt->levels[t->level].entry_size;
	for (uint64_t off = 0; off < len && !pt_readctl_poll(s->rc); off += sizeof buf) {
		size_t n = (size_t)(len - off < sizeof buf ? len - off : sizeof buf);

		if (!pt_wk_mem_read(t, t->addr + off, buf, n)) {
			s->h = sum_mix(s->h, off | UINT64_C(1) << 63);
			continue;
		}
		if (n % 8)
			memset((uint8_t *)buf + n, 0, 8 - n % 8);
		for (size_t w = 0; w < (n + 7) / 8; w++)
			s->h = (s->h ^ buf[w]) * UINT64_C(0x100000001b3) + w;
	}
}

pt_err pt_context_tables_sum(const struct pt_context *ctx, uint64_t *sum, struct pt_readctl *rc)
{
	struct tsum s = {.h = UINT64_C(0xcbf29ce484222325), .rc = rc};
	bool cut = false;
	pt_err err = pt_context_tables(ctx, sum_table, &s, rc, &cut);

	*sum = sum_mix(s.h, cut);
	return err;
}

/*
 * The load-time line for a root with no captured byte (issue #20 item 5):
 * such a context mounts an empty top directory, and before this only
 * `ptfs-tool check` said why.  One wording for ptfs and every ptfs-tool
 * command: they print it (a warning, or the refusal under strict).
 */
bool pt_context_root_missing(const struct pt_context *ctx, char *msg, size_t len)
{
	struct pt_table root;
	char name[256];

	char why[120];

	pt_table_root(ctx, &root);
	/* a root of no entries is no table (arm-smmuv3 bypass and abort streams): nothing to capture */
	if (!root.entries)
		return false;
	pt_text_escape(name, sizeof name, ctx->name);
	/* the dump holds it but cannot read it (a corrupt kdump page): say which page, and why */
	if (root.cover != PT_COVER_NONE &&
	    pt_wk_unreadable(&root, root.addr, root.entries * ctx->fmt->levels[root.level].entry_size, NULL,
			     why, sizeof why)) {
		snprintf(msg, len, "context '%s': its root table (%s at %s:0x%" PRIx64 ") cannot be read: "
			 "%s: every VA of it reads unreadable", name, ctx->fmt->levels[root.level].name,
			 pt_context_space_name(ctx, root.space), root.addr, why);
		return true;
	}
	if (root.cover != PT_COVER_NONE)
		return false;
	snprintf(msg, len, "context '%s': its root table (%s at %s:0x%" PRIx64 ") is not captured: "
		 "every VA of it reads not_captured", name, ctx->fmt->levels[root.level].name,
		 pt_context_space_name(ctx, root.space), root.addr);
	return true;
}
