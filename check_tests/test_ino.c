/*
 * test_ino: the inode scheme of the mount (fs/ino.c), compiled in directly:
 * no mount, FUSE only for its types.  Every node type round-trips, numbers
 * are distinct and pinned (stable across builds), the widest VAs fit and
 * what cannot be packed is refused.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include "fmt_gart.h"
#include "fmt_ver2.h"
#include "ptfs.h"
#include "pt_tree.h"
#include "testutil.h"
#include "test_ino_io.h"

/*
 * A 57-bit VER3-shaped level table (docs/design.md §2.3 and its sources (§7):
 * pde4 .. pde0 dual, 4 KiB small pages): the widest path the scheme must
 * hold, 3 + 1+9+9+9+8+1+9 = 49 bits.
 */
static const struct pt_level v3_levels[] = {
	{"pde4",      0, 56, 1, 8,  PT_ROLE_DIR,  0,  {1, -1}},
	{"pde3",      1, 47, 9, 8,  PT_ROLE_DIR,  0,  {2, -1}},
	{"pde2",      2, 38, 9, 8,  PT_ROLE_DIR,  0,  {3, -1}},
	{"pde1",      3, 29, 9, 8,  PT_ROLE_DIR,  0,  {4, -1}},
	{"pde0",      4, 21, 8, 16, PT_ROLE_DUAL, 21, {5, 6}},
	{"pte_big",   5, 16, 5, 8,  PT_ROLE_LEAF,  0,  {-1, -1}},
	{"pte_small", 5, 12, 9, 8,  PT_ROLE_LEAF,  0,  {-1, -1}},
	{NULL,        0, 0,  0, 0,  0,            0,  {-1, -1}},
};
/* pdb1 is the real nv-gmmu-ver3 format (core/fmt_ver3.c): the same geometry. */
extern const struct pt_format pt_format_ver3;
/* The same tree with a full 64-bit VA space: the widest va/ name. */
static const struct pt_format v64_fmt = {.name = "v64", .levels = v3_levels, .va_bits = 64};
static const struct pt_format v65_fmt = {.name = "v65", .levels = v3_levels, .va_bits = 65};

/* One index bit more at pde3: 50 path bits, one too many. */
static const struct pt_level wide_levels[] = {
	{"pde4",      0, 57, 1,  8,  PT_ROLE_DIR,  0,  {1, -1}},
	{"pde3",      1, 47, 10, 8,  PT_ROLE_DIR,  0,  {2, -1}},
	{"pde2",      2, 38, 9,  8,  PT_ROLE_DIR,  0,  {3, -1}},
	{"pde1",      3, 29, 9,  8,  PT_ROLE_DIR,  0,  {4, -1}},
	{"pde0",      4, 21, 8,  16, PT_ROLE_DUAL, 21, {5, 6}},
	{"pte_big",   5, 16, 5,  8,  PT_ROLE_LEAF,  0,  {-1, -1}},
	{"pte_small", 5, 12, 9,  8,  PT_ROLE_LEAF,  0,  {-1, -1}},
	{NULL,        0, 0,  0,  0,  0,            0,  {-1, -1}},
};
static const struct pt_format wide_fmt = {.name = "wide", .levels = wide_levels, .va_bits = 58};

enum { C_VER2, C_GART, C_V3, C_V64, NCTX };

static struct pt_context ctxs[NCTX];
static struct ptfs_ctx pcs[NCTX];
static struct ptfs fs;

static void setup(void)
{
	static const struct {
		const char *name;
		const struct pt_format *fmt;
		uint64_t root_entries;
	} def[NCTX] = {
		{"pdb0", &pt_format_ver2, 4},
		{"gart0", &pt_format_gart, UINT64_C(1) << 20},
		{"pdb1", &pt_format_ver3, 2},
		{"pdb2", &v64_fmt, 2},
	};
	char why[256];

	memset(ctxs, 0, sizeof ctxs);
	memset(pcs, 0, sizeof pcs);
	memset(&fs, 0, sizeof fs);
	for (unsigned i = 0; i < NCTX; i++) {
		ctxs[i].name = def[i].name;
		ctxs[i].index = i;
		ctxs[i].fmt = def[i].fmt;
		ctxs[i].root_entries = def[i].root_entries;
		ctxs[i].ini_line = 10 + i;
		ck_assert_msg(ptfs_ino_setup(&pcs[i], &ctxs[i], i, why, sizeof why) == PT_OK,
			      "%s", why);
	}
	fs.nctx = NCTX;
	fs.nready = fs.nctx;
	fs.ctx = pcs;
}

static struct pt_tnode id_of(enum pt_tnode_type type, unsigned ctx)
{
	struct pt_tnode id;

	memset(&id, 0, sizeof id);
	id.type = type;
	id.ctx = ctx;
	id.node.ctx = &ctxs[ctx];
	return id;
}

/* Appends step (LEVEL, INDEX) to ID's node. */
static void step(struct pt_tnode *id, int level, uint64_t index)
{
	id->node.s[id->node.n].level = (int8_t)level;
	id->node.s[id->node.n].index = index;
	id->node.n++;
}

/* Encodes ID, decodes it back and checks every field survives; returns the number. */
static fuse_ino_t round_trip(const struct pt_tnode *id)
{
	struct pt_tnode back;
	fuse_ino_t ino = ptfs_ino_encode(&fs, id);

	ck_assert_msg(ino != 0, "type %d ctx %u not packed", id->type, id->ctx);
	ck_assert_int_eq(ptfs_ino_decode(&fs, ino, &back), 0);
	ck_assert_int_eq(back.type, id->type);
	if (id->type == PT_TN_ROOT || id->type == PT_TN_CAPTURE || id->type == PT_TN_TASKS || id->type == PT_TN_PCI)
		return ino;
	if (id->type == PT_TN_PADIR || id->type == PT_TN_PASPACE || id->type == PT_TN_PAFILE) {
		/* no context: the space and the address are the payload */
		ck_assert_uint_eq(back.choice, id->choice);
		ck_assert_uint_eq(back.va, id->va);
		ck_assert_uint_eq(ptfs_ino_encode(&fs, &back), ino);
		return ino;
	}
	ck_assert_uint_eq(back.ctx, id->ctx);
	ck_assert_ptr_eq(back.node.ctx, &ctxs[id->ctx]);
	ck_assert_uint_eq(back.va, id->va);
	ck_assert_uint_eq(back.node.n, id->node.n);
	for (unsigned k = 0; k < id->node.n; k++) {
		ck_assert_int_eq(back.node.s[k].level, id->node.s[k].level);
		ck_assert_uint_eq(back.node.s[k].index, id->node.s[k].index);
	}
	if (id->type == PT_TN_TABLEDIR || id->type == PT_TN_VSFILE)
		ck_assert_uint_eq(back.choice, id->choice);
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &back), ino);
	return ino;
}

/* Every kind of node of context C, deepest paths with the largest indices. */
static size_t all_nodes(unsigned c, struct pt_tnode *out)
{
	static const enum pt_tnode_type fixed[] = {
		PT_TN_CTXDIR, PT_TN_INFO, PT_TN_MAPS, PT_TN_VADIR, PT_TN_WALKDIR, PT_TN_ENTRIES,
		PT_TN_SVG, PT_TN_VSDIR, PT_TN_CTXALIAS,
	};
	const struct ptfs_ctx *pc = &pcs[c];
	size_t n = 0;
	struct pt_tnode id;

	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		out[n++] = id_of(fixed[i], c);
	out[n++] = id_of(PT_TN_TABLEDIR, c);            /* the root table */
	id = id_of(PT_TN_VSFILE, c);                    /* vs/OTHER: the first and the last other context */
	id.choice = c == 0 ? 1 : 0;
	out[n++] = id;
	id.choice = c == NCTX - 1 ? NCTX - 2 : NCTX - 1;
	out[n++] = id;
	id = id_of(PT_TN_VALINK, c);
	out[n++] = id;                                    /* page 0 */
	id.va = pt_va_slot_last(pc->ctx->fmt) & ~UINT64_C(0xfff);   /* the last page of the space */
	out[n++] = id;
	id = id_of(PT_TN_WALKFILE, c);
	out[n++] = id;
	id.va = ptfs_walk_limit(&fs) - 1;                      /* the widest walk/ VA */
	out[n++] = id;
	id.va = 0x201234;
	out[n++] = id;
	if (c == C_GART) {
		id = id_of(PT_TN_ENTRYFILE, c);
		step(&id, 0, (UINT64_C(1) << 20) - 1);
		out[n++] = id;
		id.node.s[0].index = 0;
		out[n++] = id;
		return n;
	}
	/* down the single-child levels to pde0, then both children of the dual PDE */
	{
		unsigned nl = pc->nlevels;
		int dual = (int)nl - 3;   /* pde0: before pte_big and pte_small */
		struct pt_tnode path = id_of(PT_TN_ENTRYDIR, c);

		for (int l = 0; l <= dual; l++) {
			step(&path, l, (UINT64_C(1) << pc->idx_bits[l]) - 1);
			path.type = PT_TN_ENTRYDIR;
			out[n++] = path;
			path.type = PT_TN_ENTRYFILE;
			out[n++] = path;
			path.type = PT_TN_TABLEDIR;
			path.choice = 0;
			out[n++] = path;
			if (l == dual) {
				path.choice = 1;
				out[n++] = path;
			}
		}
		for (int ch = 0; ch < 2; ch++) {
			struct pt_tnode leaf = path;
			int lv = dual + 1 + ch;

			leaf.type = PT_TN_ENTRYFILE;
			leaf.choice = 0;
			step(&leaf, lv, (UINT64_C(1) << pc->idx_bits[lv]) - 1);
			out[n++] = leaf;
			leaf.node.s[leaf.node.n - 1].index = 0;
			out[n++] = leaf;
		}
	}
	return n;
}

START_TEST(round_trip_every_type)
{
	struct pt_tnode ids[64], g;

	g = id_of(PT_TN_ROOT, 0);
	ck_assert_uint_eq(round_trip(&g), 1);
	g = id_of(PT_TN_CAPTURE, 0);
	ck_assert_uint_eq(round_trip(&g), 2);
	g = id_of(PT_TN_TASKS, 0);
	ck_assert_uint_eq(round_trip(&g), 4);
	g = id_of(PT_TN_PCI, 0);
	ck_assert_uint_eq(round_trip(&g), 5);
	for (unsigned c = 0; c < NCTX; c++) {
		size_t n = all_nodes(c, ids);
		bool seen[PT_TN__COUNT] = {false};

		for (size_t i = 0; i < n; i++) {
			round_trip(&ids[i]);
			seen[ids[i].type] = true;
		}
		for (int t = PT_TN_CTXDIR; t < PT_TN__COUNT; t++)
			ck_assert_msg(seen[t] || (c == C_GART && t == PT_TN_ENTRYDIR) ||
				      t == PT_TN_CAPTURE || t == PT_TN_TASKS || t == PT_TN_PCI || (t >= PT_TN_PADIR && t <= PT_TN_PAFILE) ||   /* pa/: test pa_nodes */
				      t == PT_TN_IODIR || t == PT_TN_IOFILE,   /* no context: test iommu_nodes */
				      "context %u: type %d untested", c, t);
	}
}
END_TEST

START_TEST(distinct)
{
	struct pt_tnode ids[64];
	fuse_ino_t all[NCTX * 64 + 3];
	size_t n = 0;

	all[n++] = PTFS_INO_ROOT;
	all[n++] = PTFS_INO_CAPTURE;
	all[n++] = PTFS_INO_TASKS;
	for (unsigned c = 0; c < NCTX; c++) {
		size_t k = all_nodes(c, ids);

		for (size_t i = 0; i < k; i++)
			all[n++] = ptfs_ino_encode(&fs, &ids[i]);
	}
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_ne(all[i], 0);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(all[i] != all[j], "nodes %zu and %zu share 0x%llx", i, j,
				      (unsigned long long)all[i]);
	}
}
END_TEST

/* The numbers themselves are part of the contract (docs/design.md §4: stable). */
START_TEST(stable)
{
	struct pt_tnode id = id_of(PT_TN_CTXDIR, 0);

	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), UINT64_C(0x2000000000000001));
	id = id_of(PT_TN_WALKDIR, 1);
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), UINT64_C(0x4000000000000005));
	id = id_of(PT_TN_WALKFILE, 0);
	id.va = 0x201234;
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), UINT64_C(0x3000000000201234));
	id = id_of(PT_TN_VALINK, 0);
	id.va = 0x201000;
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), UINT64_C(0x2010000000000201));
	id = id_of(PT_TN_TABLEDIR, 0);   /* root table: n = 0 */
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), UINT64_C(0x2008000000000000));
	id = id_of(PT_TN_ENTRYFILE, 0);  /* pde3/1: n = 1, index 1 */
	step(&id, 0, 1);
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), UINT64_C(0x200c000000000009));
	/* a second setup of the same contexts gives the same numbers */
	setup();
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), UINT64_C(0x200c000000000009));
}
END_TEST

START_TEST(widest_va)
{
	struct pt_tnode id = id_of(PT_TN_VALINK, C_V64);
	struct pt_tnode back;
	fuse_ino_t ino;

	/* the last page of a 64-bit space and of a 57-bit one */
	id.va = UINT64_C(0xfffffffffffff000);
	ino = round_trip(&id);
	ck_assert_int_eq(ptfs_ino_decode(&fs, ino, &back), 0);
	ck_assert_uint_eq(back.va, UINT64_C(0xfffffffffffff000));
	id = id_of(PT_TN_VALINK, C_V3);
	id.va = (UINT64_C(1) << 57) - 0x1000;
	round_trip(&id);
	ck_assert(!pt_va_in_space(pcs[C_V3].ctx->fmt, UINT64_C(1) << 57));
	ck_assert(pt_va_in_space(pcs[C_V64].ctx->fmt, UINT64_MAX));
	/* walk/: every byte VA below 2^53, in any context */
	for (unsigned c = 0; c < NCTX; c++) {
		id = id_of(PT_TN_WALKFILE, c);
		id.va = ptfs_walk_limit(&fs) - 1;
		round_trip(&id);
	}
	ck_assert_uint_eq(ptfs_walk_limit(&fs), UINT64_C(1) << 60);   /* 4 contexts: C = 3 */
}
END_TEST

/*
 * A canonical format (issue #21 item 4): the test format of the VER3 shape
 * with 57-bit VAs sign-extended to 64 (x86-64 LA57's width).  va/ links of
 * both halves and walk/ files of canonical and nearly canonical VAs get
 * distinct numbers that decode back; a VA outside the space has none.
 */
START_TEST(canonical_vas)
{
	static const struct pt_format canon = {.name = "canon57", .levels = v3_levels,
					       .va_bits = 57, .va_canonical = true};
	static const uint64_t walks[] = {
		0, 0x201234, 0x00ffffffffffffffull, 0xff00000000000000ull, UINT64_MAX,
		0xff11000012345678ull, 0x0100000000000000ull /* not canonical, still named */,
	};
	struct pt_context c = ctxs[C_V3];
	struct ptfs_ctx pc;
	struct ptfs one;
	struct pt_tnode id, back;
	fuse_ino_t ino[16];
	size_t n = 0;
	char why[256];

	c.fmt = &canon;
	memset(&pc, 0, sizeof pc);
	ck_assert_int_eq(ptfs_ino_setup(&pc, &c, 0, why, sizeof why), PT_OK);
	memset(&one, 0, sizeof one);
	one.nctx = 1;
	one.nready = one.nctx;
	one.ctx = &pc;
	memset(&id, 0, sizeof id);
	id.type = PT_TN_VALINK;
	id.node.ctx = &c;
	/* the same low 57 bits in both halves: two pages, two numbers */
	id.va = 0xff00000012345000ull;
	ino[n++] = ptfs_ino_encode(&one, &id);
	id.va = 0x0000000012345000ull;
	ino[n++] = ptfs_ino_encode(&one, &id);
	id.va = 0xfffffffffffff000ull;
	ino[n++] = ptfs_ino_encode(&one, &id);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_ne(ino[i], 0);
		ck_assert_int_eq(ptfs_ino_decode(&one, ino[i], &back), 0);
		ck_assert_int_eq(back.type, PT_TN_VALINK);
	}
	ck_assert_uint_eq((ptfs_ino_decode(&one, ino[0], &back), back.va), 0xff00000012345000ull);
	id.va = 0x0100000000000000ull;   /* not canonical: no link */
	ck_assert_uint_eq(ptfs_ino_encode(&one, &id), 0);
	id.type = PT_TN_WALKFILE;
	for (size_t i = 0; i < sizeof walks / sizeof walks[0]; i++) {
		id.va = walks[i];
		ino[n] = ptfs_ino_encode(&one, &id);
		ck_assert_msg(ino[n] != 0, "walk/0x%llx not packed", (unsigned long long)walks[i]);
		ck_assert_int_eq(ptfs_ino_decode(&one, ino[n], &back), 0);
		ck_assert_int_eq(back.type, PT_TN_WALKFILE);
		ck_assert_uint_eq(back.va, walks[i]);
		for (size_t j = 0; j < n; j++)
			ck_assert_uint_ne(ino[j], ino[n]);
		n++;
	}
	id.va = 0x8000000000000000ull;   /* far outside the space: past the walk/ limit */
	ck_assert_uint_eq(ptfs_ino_encode(&one, &id), 0);
}
END_TEST

/*
 * walk/ names past the walk bits (issue #34 item 5): a slot held from
 * lookup to forget numbers them; the same name held twice is one slot,
 * each slot decodes to its own VA and context, a forgotten slot decodes to
 * nothing and is reused, a forged slot number or another context's is
 * ENOENT.
 */
START_TEST(walk_slots)
{
	static const uint64_t far[] = {
		0x8000000000000000ull, 0xdead000000000100ull, UINT64_MAX, 0x7fffffffffffffffull,
	};
	struct pt_tnode id, back;
	fuse_ino_t ino[4];
	uint32_t slot[4], again;
	unsigned ctx;
	uint64_t va;

	fs.wslots = ptfs_wslots_new();
	ck_assert_ptr_nonnull(fs.wslots);
	memset(&id, 0, sizeof id);
	id.type = PT_TN_WALKFILE;
	id.ctx = C_VER2;
	id.node.ctx = &ctxs[C_VER2];
	for (unsigned i = 0; i < 4; i++) {
		id.va = far[i];
		id.choice = 0;
		ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);   /* past the bits: no number alone */
		ck_assert_int_eq(ptfs_wslot_hold(fs.wslots, C_VER2, far[i], &slot[i]), 0);
		id.choice = slot[i] + 1;
		ino[i] = ptfs_ino_encode(&fs, &id);
		ck_assert_uint_ne(ino[i], 0);
		ck_assert_int_eq(ptfs_ino_decode(&fs, ino[i], &back), 0);
		ck_assert_int_eq(back.type, PT_TN_WALKFILE);
		ck_assert_uint_eq(back.ctx, C_VER2);
		ck_assert_uint_eq(back.va, far[i]);
		ck_assert(ptfs_ino_wslot(&fs, ino[i], &again) && again == slot[i]);
		for (unsigned j = 0; j < i; j++)
			ck_assert_uint_ne(ino[j], ino[i]);
	}
	ck_assert_uint_eq(ptfs_wslot_held(fs.wslots), 4);
	/* a second lookup of a held name: the same slot, counted twice */
	ck_assert_int_eq(ptfs_wslot_hold(fs.wslots, C_VER2, far[1], &again), 0);
	ck_assert_uint_eq(again, slot[1]);
	ptfs_wslot_forget(fs.wslots, slot[1], 1);
	ck_assert_int_eq(ptfs_ino_decode(&fs, ino[1], &back), 0);   /* still held once */
	ptfs_wslot_forget(fs.wslots, slot[1], 1);
	ck_assert_int_eq(ptfs_ino_decode(&fs, ino[1], &back), ENOENT);
	ck_assert_uint_eq(ptfs_wslot_held(fs.wslots), 3);
	/* the freed slot is reused by the next name; the old number names it now, never far[1] */
	ck_assert_int_eq(ptfs_wslot_hold(fs.wslots, C_VER2, 0x9000000000000000ull, &again), 0);
	ck_assert_uint_eq(again, slot[1]);
	ck_assert(ptfs_wslot_get(fs.wslots, again, &ctx, &va) && va == 0x9000000000000000ull);
	/* a slot held for another context does not decode under this one */
	id.ctx = C_V3;
	id.node.ctx = &ctxs[C_V3];
	id.choice = slot[0] + 1;
	ck_assert_int_eq(ptfs_ino_decode(&fs, ptfs_ino_encode(&fs, &id), &back), ENOENT);
	/* a number with a slot never handed out, or stray bits above the slot */
	ck_assert_int_eq(ptfs_ino_decode(&fs, (ino[0] & ~UINT64_C(0xffffff0)) | (UINT64_C(999) << 4), &back), ENOENT);
	ck_assert_int_eq(ptfs_ino_decode(&fs, ino[0] | UINT64_C(1) << 40, &back), ENOENT);
	/* a VA inside the bits never takes a slot's number form */
	ck_assert(!ptfs_ino_wslot(&fs, PTFS_INO_ROOT, &again));
	ptfs_wslots_free(fs.wslots);
	fs.wslots = NULL;
}
END_TEST

/*
 * Issue #39 item 12: walk/ names are the user's VAs, each lookup under one
 * mutex.  4096 VAs that differ in their low 12 bits only, and 4096 chosen so
 * that the old hash (the top 12 bits of (va ^ ctx << 56) * K) put them all
 * in one bucket, are spread: no chain longer than a few.  Under the old
 * hash the chosen set was one chain of 4096.
 */
START_TEST(walk_slot_chains)
{
	const uint64_t k = UINT64_C(0x9e3779b97f4a7c15);
	uint64_t kinv = k;   /* K^-1 mod 2^64 by Newton's iteration: each step doubles the good bits */
	unsigned buckets = 0, longest;
	uint32_t slot;

	for (unsigned i = 0; i < 6; i++)
		kinv *= 2 - k * kinv;
	ck_assert_uint_eq(k * kinv, 1);
	for (unsigned set = 0; set < 2; set++) {
		struct ptfs_wslots *t = ptfs_wslots_new();

		ck_assert_ptr_nonnull(t);
		for (uint64_t j = 1; j <= 4096; j++) {
			uint64_t va = set == 0 ? UINT64_C(0xdead000000000000) | (j - 1) :
				      (j * kinv) ^ (uint64_t)C_VER2 << 56;

			if (set == 1)   /* the old hash's bucket: 0 for every one of them */
				ck_assert_uint_eq(((va ^ (uint64_t)C_VER2 << 56) * k) >> 52, 0);
			ck_assert_int_eq(ptfs_wslot_hold(t, C_VER2, va, &slot), 0);
		}
		ck_assert_uint_eq(ptfs_wslot_held(t), 4096);
		longest = ptfs_wslot_chain_max(t, &buckets);
		ck_assert_uint_ge(buckets, 4096);
		/* 4096 keys in >= 4096 buckets: a random hash's longest chain is about 7 */
		ck_assert_msg(longest <= 12, "set %u: a chain of %u in %u buckets", set, longest, buckets);
		/* every slot still found, and freed, through its own chain */
		for (uint64_t j = 1; j <= 4096; j++) {
			uint64_t va = set == 0 ? UINT64_C(0xdead000000000000) | (j - 1) :
				      (j * kinv) ^ (uint64_t)C_VER2 << 56;
			unsigned c;
			uint64_t back;

			ck_assert_int_eq(ptfs_wslot_hold(t, C_VER2, va, &slot), 0);
			ck_assert(ptfs_wslot_get(t, slot, &c, &back) && back == va && c == C_VER2);
			ptfs_wslot_forget(t, slot, 2);
		}
		ck_assert_uint_eq(ptfs_wslot_held(t), 0);
		ck_assert_uint_eq(ptfs_wslot_chain_max(t, NULL), 0);
		ptfs_wslots_free(t);
	}
}
END_TEST

/* The deepest VER3 tree path (6 tables, a dual PDE0 choice) in the entry node types. */
START_TEST(ver3_deepest)
{
	static const enum pt_tnode_type types[] = {PT_TN_ENTRYDIR, PT_TN_ENTRYFILE};

	ck_assert_uint_eq(pcs[C_V3].nlevels, 7);
	for (unsigned t = 0; t < sizeof types / sizeof types[0]; t++) {
		struct pt_tnode id = id_of(types[t], C_V3);

		step(&id, 0, 1);      /* pde4[1]: VAs from 2^56 */
		step(&id, 1, 511);
		step(&id, 2, 511);
		step(&id, 3, 511);
		step(&id, 4, 255);    /* the dual PDE0 ... */
		step(&id, 6, 511);    /* ... its small table */
		ck_assert_uint_eq(id.node.n, 6);
		round_trip(&id);
	}
}
END_TEST

START_TEST(refused)
{
	struct pt_tnode id, back;
	struct pt_context c = ctxs[C_VER2];
	struct ptfs_ctx pc;
	char why[256];

	/* VAs that cannot be packed */
	id = id_of(PT_TN_WALKFILE, 0);
	id.va = ptfs_walk_limit(&fs);
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);
	id = id_of(PT_TN_VALINK, C_VER2);
	id.va = UINT64_C(1) << 49;                /* past VER2's space */
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);
	id.va = 0x201234;                         /* not a page's first VA */
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);
	/* paths the level table does not allow */
	id = id_of(PT_TN_ENTRYFILE, C_VER2);
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);   /* an entry needs a step */
	step(&id, 0, 4);                                    /* pde3 has 2 index bits */
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);
	id = id_of(PT_TN_ENTRYFILE, C_VER2);
	step(&id, 1, 0);                                    /* a path starts at the root */
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);
	id = id_of(PT_TN_CTXDIR, NCTX);                    /* no such context */
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);
	/* forged numbers */
	ck_assert_int_eq(ptfs_ino_decode(&fs, 0, &back), ENOENT);
	ck_assert_int_eq(ptfs_ino_decode(&fs, 6, &back), ENOENT);   /* 3 is pa/, 4 tasks, 5 pci */
	ck_assert_int_eq(ptfs_ino_decode(&fs, 15, &back), ENOENT);
	ck_assert_int_eq(ptfs_ino_decode(&fs, UINT64_C(0x2000000000000000), &back), ENOENT);
	/* a stray bit between the walk bit (60) and the VALINK bit (52) */
	ck_assert_int_eq(ptfs_ino_decode(&fs, UINT64_C(0x2020000000000001), &back), ENOENT);
	ck_assert_int_eq(ptfs_ino_decode(&fs, UINT64_C(0x2000000000000011), &back), ENOENT);
	/* code 6 is map.svg, 7 vs/, 8 + the other context above bit 4 vs/OTHER (fs/ino.c) */
	ck_assert_int_eq(ptfs_ino_decode(&fs, UINT64_C(0x2000000000000006), &back), 0);
	ck_assert_int_eq(back.type, PT_TN_SVG);
	ck_assert_int_eq(ptfs_ino_decode(&fs, UINT64_C(0x2000000000000007), &back), 0);
	ck_assert_int_eq(back.type, PT_TN_VSDIR);
	ck_assert_int_eq(ptfs_ino_decode(&fs, UINT64_C(0x2000000000000018), &back), 0);
	ck_assert_int_eq(back.type, PT_TN_VSFILE);
	ck_assert_uint_eq(back.choice, 1);
	/* vs/ of the context itself, of a context that does not exist, a stray bit */
	ck_assert_int_eq(ptfs_ino_decode(&fs, UINT64_C(0x2000000000000008), &back), ENOENT);
	ck_assert_int_eq(ptfs_ino_decode(&fs, UINT64_C(0x2000000000000008) | (uint64_t)NCTX << 4,
					 &back), ENOENT);
	ck_assert_int_eq(ptfs_ino_decode(&fs, UINT64_C(0x2000000000000018) | UINT64_C(1) << 30,
					 &back), ENOENT);
	id = id_of(PT_TN_VSFILE, C_VER2);
	id.choice = C_VER2;                                 /* vs/SELF has no number */
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);
	id.choice = NCTX;
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);
	ck_assert_int_eq(ptfs_ino_decode(&fs, UINT64_C(0x200e000000000000), &back), ENOENT);
	ck_assert_int_eq(ptfs_ino_decode(&fs, ((uint64_t)NCTX + 1) << 61 | 1, &back), ENOENT);
	ck_assert_int_eq(ptfs_ino_decode(&fs, UINT64_C(0x200c000000000000) | UINT64_C(1) << 40,
					 &back), ENOENT);
	/* contexts and formats the scheme cannot number */
	ck_assert_int_eq(ptfs_ino_setup(&pc, &c, 1048573, why, sizeof why), PT_OK);
	c.ini_line = 4711;
	ck_assert_int_eq(ptfs_ino_setup(&pc, &c, 1048574, why, sizeof why), PT_E_UNSUPPORTED);
	ck_assert_str_eq(why, "capture.ini:4711: more than 1048574 contexts (the inode scheme "
			 "numbers at most 1048574)");
	c.fmt = &v65_fmt;
	ck_assert_int_eq(ptfs_ino_setup(&pc, &c, 0, why, sizeof why), PT_E_UNSUPPORTED);
	c.fmt = &wide_fmt;
	c.root_entries = 2;
	ck_assert_int_eq(ptfs_ino_setup(&pc, &c, 0, why, sizeof why), PT_E_UNSUPPORTED);
	ck_assert_str_eq(why, "context pdb0: tree paths need 50 inode bits (at most 49)");
}
END_TEST

/*
 * pa/ (no context): ino 3, pa/SPACE 16 + space, pa/SPACE/ADDR the walk bit +
 * 4 space bits + the address: below 2^(59-C), 2^56 with 4 contexts (C = 3).
 */
START_TEST(pa_nodes)
{
	struct pt_tnode id, back;
	fuse_ino_t all[64];
	size_t n = 0;

	memset(&id, 0, sizeof id);
	id.type = PT_TN_PADIR;
	ck_assert_uint_eq(all[n++] = round_trip(&id), 3);
	id.type = PT_TN_PASPACE;
	for (id.choice = 0; id.choice < 16; id.choice++)
		ck_assert_uint_eq(all[n++] = round_trip(&id), 16 + id.choice);
	id.choice = 16;
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);   /* space ids below 16 */
	ck_assert_uint_eq(ptfs_pa_limit(&fs), UINT64_C(1) << 56);
	id.type = PT_TN_PAFILE;
	id.choice = 16;
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);
	for (id.choice = 0; id.choice < 16; id.choice += 9) {
		id.va = 0;
		all[n++] = round_trip(&id);
		id.va = 0x10000234;
		all[n++] = round_trip(&id);
		id.va = ptfs_pa_limit(&fs) - 1;                   /* the widest address */
		all[n++] = round_trip(&id);
		id.va = ptfs_pa_limit(&fs);                       /* too wide: ENOENT */
		ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), 0);
	}
	id.choice = 1;
	id.va = 0x10000234;
	ck_assert_uint_eq(ptfs_ino_encode(&fs, &id), UINT64_C(1) << 60 | UINT64_C(1) << 56 | 0x10000234);
	all[n++] = PTFS_INO_ROOT;
	all[n++] = PTFS_INO_CAPTURE;
	id = id_of(PT_TN_WALKFILE, 0);
	all[n++] = ptfs_ino_encode(&fs, &id);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(all[i] != all[j], "nodes %zu and %zu share 0x%llx", i, j,
				      (unsigned long long)all[i]);
	/* context 0 numbers that are no node */
	ck_assert_int_eq(ptfs_ino_decode(&fs, 32, &back), ENOENT);
	ck_assert_int_eq(ptfs_ino_decode(&fs, UINT64_C(1) << 59, &back), ENOENT);
}
END_TEST

/*
 * The context field is as wide as the capture needs (bits of nctx + 1), so
 * walk/ gets the rest: 1 context 61-bit VAs (every 59-bit one), up to 62
 * contexts every 57-bit VA (VER3, x86-64 LA57), 63 contexts 56, 1022 53.
 */
START_TEST(adaptive_width)
{
	static struct ptfs_ctx many[1022];
	static const struct {
		size_t nctx;
		unsigned walk_bits;
	} cases[] = {{1, 61}, {2, 61}, {3, 60}, {4, 60}, {62, 57}, {63, 56}, {1022, 53}};
	struct pt_context c = ctxs[C_VER2];
	struct ptfs wide;
	char why[256];

	for (unsigned i = 0; i < 1022; i++)
		ck_assert_int_eq(ptfs_ino_setup(&many[i], &c, i, why, sizeof why), PT_OK);
	memset(&wide, 0, sizeof wide);
	wide.ctx = many;
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		uint64_t limit = UINT64_C(1) << cases[k].walk_bits;
		struct pt_tnode id, back;
		fuse_ino_t ino;

		wide.nctx = cases[k].nctx;
		wide.nready = wide.nctx;
		ck_assert_uint_eq(ptfs_walk_limit(&wide), limit);
		/* the widest walk/ VA of the last context round-trips, one more is refused */
		memset(&id, 0, sizeof id);
		id.type = PT_TN_WALKFILE;
		id.ctx = (unsigned)cases[k].nctx - 1;
		id.node.ctx = &c;
		id.va = limit - 1;
		ino = ptfs_ino_encode(&wide, &id);
		ck_assert_uint_ne(ino, 0);
		ck_assert_int_eq(ptfs_ino_decode(&wide, ino, &back), 0);
		ck_assert_int_eq(back.type, PT_TN_WALKFILE);
		ck_assert_uint_eq(back.ctx, id.ctx);
		ck_assert_uint_eq(back.va, limit - 1);
		id.va = limit;
		ck_assert_uint_eq(ptfs_ino_encode(&wide, &id), 0);
		/* the other nodes of that context keep their payloads */
		id.type = PT_TN_VALINK;
		id.va = (UINT64_C(1) << 49) - 0x1000;
		ino = ptfs_ino_encode(&wide, &id);
		ck_assert_int_eq(ptfs_ino_decode(&wide, ino, &back), 0);
		ck_assert_int_eq(back.type, PT_TN_VALINK);
		ck_assert_uint_eq(back.va, id.va);
		id.type = PT_TN_WALKDIR;
		ino = ptfs_ino_encode(&wide, &id);
		ck_assert_int_eq(ptfs_ino_decode(&wide, ino, &back), 0);
		ck_assert_int_eq(back.type, PT_TN_WALKDIR);
		ck_assert_uint_eq(back.ctx, id.ctx);
	}
}
END_TEST

/*
 * A format whose pointers skip levels (AMD-Vi Next Level, Mode 5): a path
 * through consecutive rows and one that skips rows (l5/1/l2/5/l1/7) each
 * get one number that decodes back, the two differ, and the widest path
 * still fits (one skip bit more than before).
 */
START_TEST(skipping_paths)
{
	static const struct pt_level lv[] = {
		{"l5", 0, 48, 9, 8, PT_ROLE_DIR, 48, {1, -1}},
		{"l4", 1, 39, 9, 8, PT_ROLE_DIR, 39, {2, -1}},
		{"l3", 2, 30, 9, 8, PT_ROLE_DIR, 30, {3, -1}},
		{"l2", 3, 21, 9, 8, PT_ROLE_DIR, 21, {4, -1}},
		{"l1", 4, 12, 9, 8, PT_ROLE_DIR, 12, {-1, -1}},
		{NULL, 0, 0, 0, 0, 0, 0, {-1, -1}},
	};
	static const struct pt_format vi = {.name = "skip5", .levels = lv, .va_bits = 57,
					    .skips_levels = true};
	struct pt_context c = ctxs[C_V3];
	struct ptfs_ctx pc;
	struct ptfs one;
	struct pt_tnode id, back;
	fuse_ino_t full, skip, table;
	char why[256];

	c.fmt = &vi;
	c.root_entries = 512;
	memset(&pc, 0, sizeof pc);
	ck_assert_msg(ptfs_ino_setup(&pc, &c, 0, why, sizeof why) == PT_OK, "%s", why);
	memset(&one, 0, sizeof one);
	one.nctx = 1;
	one.nready = one.nctx;
	one.ctx = &pc;
	memset(&id, 0, sizeof id);
	id.type = PT_TN_ENTRYDIR;
	id.node.ctx = &c;
	for (int l = 0; l < 5; l++)
		step(&id, l, 511);
	full = ptfs_ino_encode(&one, &id);
	ck_assert_uint_ne(full, 0);
	ck_assert_int_eq(ptfs_ino_decode(&one, full, &back), 0);
	ck_assert_uint_eq(back.node.n, 5);
	ck_assert_int_eq(back.node.s[4].level, 4);
	id.node.n = 0;
	step(&id, 0, 1);
	step(&id, 3, 5);
	step(&id, 4, 7);
	skip = ptfs_ino_encode(&one, &id);
	ck_assert_uint_ne(skip, 0);
	ck_assert_uint_ne(skip, full);
	ck_assert_int_eq(ptfs_ino_decode(&one, skip, &back), 0);
	ck_assert_uint_eq(back.node.n, 3);
	ck_assert_int_eq(back.node.s[1].level, 3);
	ck_assert_uint_eq(back.node.s[1].index, 5);
	ck_assert_int_eq(back.node.s[2].level, 4);
	ck_assert_uint_eq(ptfs_ino_encode(&one, &back), skip);
	/* the table a skipping pointer shows, and a path that goes up: none */
	id.type = PT_TN_TABLEDIR;
	id.node.n = 1;
	table = ptfs_ino_encode(&one, &id);
	ck_assert_uint_ne(table, 0);
	id.type = PT_TN_ENTRYDIR;
	id.node.n = 0;
	step(&id, 0, 1);
	step(&id, 3, 5);
	step(&id, 2, 7);
	ck_assert_uint_eq(ptfs_ino_encode(&one, &id), 0);
}
END_TEST

/* ---- wide context counts and the IOMMU tree ----------------------------- */

/* Encodes ID in WFS, decodes it back: the same node, one number. */
static fuse_ino_t wide_trip(const struct ptfs *wfs, const struct pt_tnode *id)
{
	struct pt_tnode back;
	fuse_ino_t ino = ptfs_ino_encode(wfs, id);

	ck_assert_msg(ino != 0, "type %d ctx %u not packed", id->type, id->ctx);
	ck_assert_int_eq(ptfs_ino_decode(wfs, ino, &back), 0);
	ck_assert_int_eq(back.type, id->type);
	ck_assert_uint_eq(back.ctx, id->ctx);
	ck_assert_uint_eq(back.va, id->va);
	ck_assert_uint_eq(back.choice, id->choice);
	ck_assert_uint_eq(back.node.n, id->node.n);
	ck_assert_uint_eq(ptfs_ino_encode(wfs, &back), ino);
	return ino;
}

/*
 * 65,536 and 1,048,574 contexts (C = 17 and 20): the last context's nodes
 * round-trip with the context in the top C bits, a stray bit is ENOENT,
 * and a path wider than what C leaves is refused by ptfs_ino_check().
 */
START_TEST(wide_contexts)
{
	static const size_t counts[] = {65536, 1048574};
	static const unsigned cbits[] = {17, 20};

	for (unsigned t = 0; t < 2; t++) {
		size_t n = counts[t];
		struct ptfs_ctx *big = calloc(n, sizeof *big);
		struct ptfs wfs;
		struct pt_tnode id;
		fuse_ino_t ino;
		char why[256], warn[512];
		unsigned k = (unsigned)(n - 1);

		ck_assert_ptr_nonnull(big);
		for (size_t i = 0; i < n; i++)
			big[i] = pcs[1];   /* gart0: 23 path bits, fit at any width */
		memset(&wfs, 0, sizeof wfs);
		wfs.nctx = n;
		wfs.nready = wfs.nctx;
		wfs.ctx = big;
		ck_assert_int_eq(ptfs_ino_check(&wfs, why, sizeof why, warn, sizeof warn), PT_OK);
		id = id_of(PT_TN_CTXDIR, 1);
		id.ctx = k;
		ino = wide_trip(&wfs, &id);
		ck_assert_uint_eq(ino >> (64 - cbits[t]), (uint64_t)k + 1);
		ck_assert_int_eq(ptfs_ino_decode(&wfs, ino | UINT64_C(1) << 30, &id), ENOENT);
		id = id_of(PT_TN_INFO, 1);
		id.ctx = 0;
		wide_trip(&wfs, &id);
		id = id_of(PT_TN_TABLEDIR, 1);
		id.ctx = k;
		wide_trip(&wfs, &id);
		id = id_of(PT_TN_ENTRYFILE, 1);
		id.ctx = k;
		step(&id, 0, (UINT64_C(1) << 20) - 1);
		wide_trip(&wfs, &id);
		id = id_of(PT_TN_VALINK, 1);
		id.ctx = k;
		id.va = UINT64_C(0x3ff000);
		wide_trip(&wfs, &id);
		id = id_of(PT_TN_WALKFILE, 1);
		id.ctx = k;
		id.va = UINT64_C(0x1234);
		wide_trip(&wfs, &id);
		id = id_of(PT_TN_VSFILE, 1);
		id.ctx = k;
		id.choice = 7;
		wide_trip(&wfs, &id);
		memset(&id, 0, sizeof id);
		id.type = PT_TN_PAFILE;
		id.va = 0x12345;
		wide_trip(&wfs, &id);
		/* pdb0 (NV VER2): 41 path bits; 1,048,574 contexts leave 39 */
		big[3] = pcs[0];
		ck_assert_int_eq(ptfs_ino_check(&wfs, why, sizeof why, warn, sizeof warn),
				 t ? PT_E_UNSUPPORTED : PT_OK);
		if (t)
			ck_assert_str_eq(why, "capture.ini:10: context pdb0: tree paths need 41 inode"
					 " bits; 1048574 contexts leave 39");
		free(big);
	}
}
END_TEST


static Suite *suite(void)
{
	Suite *s = suite_create("ino");
	TCase *tc = tcase_create("scheme");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, round_trip_every_type);
	tcase_add_test(tc, distinct);
	tcase_add_test(tc, stable);
	tcase_add_test(tc, widest_va);
	tcase_add_test(tc, canonical_vas);
	tcase_add_test(tc, skipping_paths);
	tcase_add_test(tc, ver3_deepest);
	tcase_add_test(tc, walk_slot_chains);
	tcase_add_test(tc, refused);
	tcase_add_test(tc, pa_nodes);
	suite_add_tcase(s, tc);
	tc = tcase_create("walk slots");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, walk_slots);
	suite_add_tcase(s, tc);
	tc = tcase_create("width");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, adaptive_width);
	tcase_add_test(tc, wide_contexts);
	ino_io_tests(tc);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
