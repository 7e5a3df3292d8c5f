/* SPDX-License-Identifier: MIT */
/*
 * test_iotree: the IOMMU tree (core/view/iotree.c, iotab.c): every listed
 * name looks up to the same node, whose parent is the directory; absent
 * entries are not listed but resolve when named; entry files name the
 * device context; hostile tables (a context table that is the root table,
 * reserved bits, a 2^32-entry stream table over a small capture, an L1STD
 * pointing at the stream table) give one warning line, bounded work.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_tree.h"
#include "testutil.h"

#define BASE 0x100000ull
static uint8_t mem[0x20000];

static void put(uint64_t pa, uint64_t v)
{
	tu_put64(mem, sizeof mem, pa - BASE, v);
}

struct kids {
	char names[64][32];
	struct pt_tnode n[64];
	unsigned count;
};

static bool collect(void *ud, const char *name, const struct pt_tnode *child, uint64_t next)
{
	struct kids *k = ud;

	(void)next;
	if (k->count == 64)
		return false;
	snprintf(k->names[k->count], sizeof k->names[0], "%s", name);
	k->n[k->count++] = *child;
	return true;
}

/* The node at slash-separated PATH from the root (must resolve). */
static struct pt_tnode at(const struct pt_tree *t, const char *path)
{
	struct pt_tnode n, c;
	char buf[256], *save = NULL;

	pt_tree_root(&n);
	snprintf(buf, sizeof buf, "%s", path);
	for (char *p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		ck_assert_msg(pt_tree_lookup(t, &n, p, &c) == PT_OK, "%s: no %s", path, p);
		n = c;
	}
	return n;
}

/* The names DIR lists, space-separated; each one looks up to the listed node, its parent DIR. */
static void lists(const struct pt_tree *t, const char *dir, const char *want)
{
	struct pt_tnode d = at(t, dir), c, p;
	struct kids k = {.count = 0};
	char got[1024] = "";

	ck_assert_int_eq(pt_tree_list(t, &d, 0, collect, &k, NULL), PT_OK);
	for (unsigned i = 0; i < k.count; i++) {
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "",
			 k.names[i]);
		ck_assert_int_eq(pt_tree_lookup(t, &d, k.names[i], &c), PT_OK);
		ck_assert_msg(memcmp(&c, &k.n[i], sizeof c) == 0, "%s/%s: lookup != listing", dir,
			      k.names[i]);
		ck_assert_int_eq(pt_tree_parent(t, &c, &p), PT_OK);
		ck_assert_msg(memcmp(&p, &d, sizeof p) == 0, "%s/%s: parent", dir, k.names[i]);
	}
	ck_assert_msg(strcmp(got, want) == 0, "%s lists '%s', not '%s'", dir, got, want);
}

static void file_has(const struct pt_tree *t, const char *path, const char *want)
{
	struct pt_tnode n = at(t, path);
	struct pt_buf b;

	ck_assert_int_eq(pt_tree_kind(&n), PT_TK_FILE);
	pt_buf_init(&b);
	ck_assert_int_eq(pt_tree_render(t, &n, &b, NULL), PT_OK);
	pt_buf_put(&b, "", 1);
	ck_assert_msg(strstr(b.data, want) != NULL, "%s: no '%s' in\n%s", path, want, b.data);
	pt_buf_free(&b);
}

static void absent(const struct pt_tree *t, const char *dir, const char *name)
{
	struct pt_tnode d = at(t, dir), c;

	ck_assert_int_eq(pt_tree_lookup(t, &d, name, &c), PT_E_NOTFOUND);
}

/* VT-d legacy: bus 0 with three devices, bus 2 pointing at the root table, bus 3 reserved bits. */
START_TEST(vtd_legacy)
{
	struct tu_cap k;
	struct pt_tree *t;

	memset(mem, 0, sizeof mem);
	put(BASE + 0x10000, 0x110000 | 3);            /* a one-entry second-level table, AW 39 */
	put(BASE, 0x101000 | 1);                       /* bus 0 */
	put(BASE + 16 * 2, BASE | 1);                  /* bus 2: the root table itself */
	put(BASE + 16 * 3, 0x101000 | 1 << 4 | 1);     /* bus 3: reserved bit 4 */
	put(0x101000 + 16 * 0x10, 0x110000 | 1);       /* 00:02.0 second-level, DID 7 */
	put(0x101000 + 16 * 0x10 + 8, 1 | 7 << 8);
	put(0x101000 + 16 * 0x18, 2 << 2 | 1);         /* 00:03.0 pass-through, DID 7 */
	put(0x101000 + 16 * 0x18 + 8, 1 | 7 << 8);
	put(0x101000 + 16 * 0x20 + 8, 1 | 9 << 8);     /* 00:04.0 not present */
	k = tu_cap_load("intel-vtd", BASE, mem, sizeof mem,
			"[iommu dmar0]\ntype = intel-vtd\nrtaddr = 0x100000\n");
	ck_assert_int_eq(k.rc, PT_OK);
	ck_assert_int_eq(pt_tree_new(k.c, false, &t), PT_OK);
	lists(t, "", "capture dmar0.00:02.0 dmar0.00:03.0 dmar0 pa");
	lists(t, "dmar0", "root devices info");
	lists(t, "dmar0/root", "0 2 3");
	lists(t, "dmar0/root/0", "entry context");
	lists(t, "dmar0/root/2", "entry");
	lists(t, "dmar0/root/3", "entry");
	lists(t, "dmar0/root/0/context", "16 24");
	/* absent: not listed, resolves by name in its table; no table past 255 */
	file_has(t, "dmar0/root/0/context/32", "present: 0\n");
	file_has(t, "dmar0/root/0/context/32", "context: none (not present)\n");
	absent(t, "dmar0/root/0/context", "256");
	absent(t, "dmar0/root/0/context", "016");
	absent(t, "dmar0/root/2", "context");
	absent(t, "dmar0/root", "256");
	file_has(t, "dmar0/root/0/context/16", "did: 0x7\n");
	file_has(t, "dmar0/root/0/context/16", "translation: second-level\ncontext: dmar0.00:02.0\n");
	file_has(t, "dmar0/root/0/context/24", "translation: pass-through\ncontext: dmar0.00:03.0\n");
	file_has(t, "dmar0/root/0/context/16", "address: sysmem 0x101100\n");
	file_has(t, "dmar0/root/2/entry", "warning: its context table is the root table: not read\n");
	file_has(t, "dmar0/root/3/entry", "reserved: word0 0x10\nwarning: reserved bits are set");
	pt_tree_free(t);
	tu_cap_free(&k);
}
END_TEST

/* The whole text of the file at PATH equals WANT. */
static void file_is(const struct pt_tree *t, const char *path, const char *want)
{
	struct pt_tnode n = at(t, path);
	struct pt_buf b;

	pt_buf_init(&b);
	ck_assert_int_eq(pt_tree_render(t, &n, &b, NULL), PT_OK);
	pt_buf_put(&b, "", 1);
	ck_assert_msg(strcmp(b.data, want) == 0, "%s is\n%s\nnot\n%s", path, b.data, want);
	pt_buf_free(&b);
}

/*
 * Issue #39 item 5: Linux's AMD-Vi device table (drivers/iommu/amd/init.c
 * marks every DTE V, TV: translation blocked) with two real devices: the
 * 126 blocked DTEs are in the tree and counted in info, contexts only with
 * all_entries; devices lists the two; the forms users paste
 * (0000:00:03.0, QEMU's 00:03.00) resolve to the canonical context, in the
 * tree as a symlink that is never listed.
 */
START_TEST(amdvi_linux_blocked)
{
	struct tu_cap k;
	struct pt_tree *t;
	struct pt_capture *all;
	struct pt_tnode n;
	char link[64];
	const struct pt_context *c3;

	memset(mem, 0, sizeof mem);
	for (unsigned d = 0; d < 128; d++)
		put(BASE + 32 * d, 3);                              /* V, TV, Mode 0, IR = IW = 0 */
	put(BASE + 32 * 0x18, 0x110000 | 1 << 9 | 3 | 3ull << 61);   /* 00:03.0 Mode 1, IR, IW */
	put(BASE + 32 * 0x18 + 8, 5);                                 /* DomainID 5 */
	put(0x110000, 0x120000 | 1 | 3ull << 61);                     /* IOVA 0 -> 0x120000 */
	put(0x110000 + 8 * 7, 0x127000 | 1 | 3ull << 61);             /* IOVA 0x7000 -> 0x127000 */
	put(BASE + 32 * 0x20, 3 | 3ull << 61);                        /* 00:04.0 pass-through */
	put(BASE + 32 * 0x20 + 8, 6);
	k = tu_cap_load("amd-vi", BASE, mem, sizeof mem,
			"[iommu ivhd0]\ntype = amd-vi\ndev_table_base = 0x100000\n");
	ck_assert_int_eq(k.rc, PT_OK);
	ck_assert_uint_eq(pt_capture_context_count(k.c), 2);
	ck_assert_int_eq(pt_tree_new(k.c, false, &t), PT_OK);
	lists(t, "", "capture ivhd0.00:03.0 ivhd0.00:04.0 ivhd0 pa");
	lists(t, "ivhd0", "dte devices info");
	file_has(t, "ivhd0/dte/0", "translation: blocked\ncontext: none (every request is refused");
	file_has(t, "ivhd0/dte/32", "translation: pass-through\ncontext: ivhd0.00:04.0\n");
	file_has(t, "ivhd0/info", "contexts: 2\nblocked: 126 (in the tables, not contexts");
	file_is(t, "ivhd0/devices",
		"00:03.0 context=ivhd0.00:03.0 translation=host domain=5 levels=1 pages=2"
		" root=sysmem:0x110000\n"
		"00:04.0 context=ivhd0.00:04.0 translation=pass-through domain=6\n");
	/* the other spellings */
	c3 = pt_capture_context_find(k.c, "ivhd0.00:03.0");
	ck_assert_ptr_nonnull(c3);
	ck_assert_ptr_eq(pt_capture_context_alias(k.c, "ivhd0.0000:00:03.0"), c3);
	ck_assert_ptr_eq(pt_capture_context_alias(k.c, "ivhd0.00:03.00"), c3);
	ck_assert_ptr_eq(pt_capture_context_alias(k.c, "ivhd0.00:03.0"), NULL);    /* canonical: no alias */
	ck_assert_ptr_eq(pt_capture_context_alias(k.c, "ivhd0.0001:00:03.0"), NULL);  /* another segment */
	ck_assert_ptr_eq(pt_capture_context_alias(k.c, "ivhd0.00:05.0"), NULL);   /* blocked: no context */
	ck_assert_ptr_eq(pt_capture_context_alias(k.c, "ivhd0.00:03.08"), NULL);  /* function 8 */
	n = at(t, "ivhd0.0000:00:03.0");
	ck_assert_int_eq(pt_tree_kind(&n), PT_TK_LINK);
	ck_assert_int_eq(pt_tree_readlink(t, &n, link, sizeof link), PT_OK);
	ck_assert_str_eq(link, "ivhd0.00:03.0");
	n = at(t, "ivhd0.00:03.00");
	ck_assert_int_eq(pt_tree_readlink(t, &n, link, sizeof link), PT_OK);
	ck_assert_str_eq(link, "ivhd0.00:03.0");
	absent(t, "", "ivhd0.00:05.0");
	pt_tree_free(t);
	/* all_entries: every blocked DTE a context too */
	all = pt_capture_new();
	ck_assert_int_eq(pt_capture_load_opts(all, k.dir, &(struct pt_load_opts){.all_entries = true}),
			 PT_OK);
	ck_assert_uint_eq(pt_capture_context_count(all), 128);
	ck_assert_ptr_nonnull(pt_capture_context_find(all, "ivhd0.00:05.0"));
	ck_assert_int_eq(pt_tree_new(all, true, &t), PT_OK);
	file_has(t, "ivhd0/info", "contexts: 128\nblocked: 126 (contexts too: all_entries)");
	file_has(t, "ivhd0/dte/0", "translation: blocked\ncontext: ivhd0.00:00.0\n");
	pt_tree_free(t);
	pt_capture_free(all);
	tu_cap_free(&k);
}
END_TEST

/*
 * The IOMMU tree numbers its own nodes through the tree (pt_tree_ino_pack(),
 * the provider's packing that fs/ino.c calls): every node listed has one
 * number that unpacks to it, in ROOM bits; a context's node is not the
 * subtree's to number; a tree whose IOMMU does not fit is left out of the
 * root with one line saying so.
 */
START_TEST(ino_through_provider)
{
	const char *dirs[] = {"ivhd0", "ivhd0/dte"};
	struct tu_cap k;
	struct pt_tree *t;
	struct pt_tnode n, back;
	char why[256] = "", warn[512];
	uint64_t bits;
	unsigned packed = 0;

	memset(mem, 0, sizeof mem);
	put(BASE + 32 * 0x18, 0x110000 | 1 << 9 | 3 | 3ull << 61);
	put(BASE + 32 * 0x18 + 8, 5);
	put(0x110000, 0x120000 | 1 | 3ull << 61);
	k = tu_cap_load("amd-vi", BASE, mem, sizeof mem,
			"[iommu ivhd0]\ntype = amd-vi\ndev_table_base = 0x100000\n");
	ck_assert_int_eq(k.rc, PT_OK);
	ck_assert_int_eq(pt_tree_new(k.c, false, &t), PT_OK);
	for (unsigned d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
		struct pt_tnode dir = at(t, dirs[d]);
		struct kids kk = {.count = 0};

		ck_assert_int_eq(pt_tree_list(t, &dir, 0, collect, &kk, NULL), PT_OK);
		kk.n[kk.count++] = dir;
		for (unsigned i = 0; i < kk.count; i++) {
			ck_assert_int_eq(pt_tree_ino_pack(t, &kk.n[i], 40, &bits), PT_OK);
			/* AMD-Vi: kind (5) and DeviceID (16) bits, one IOMMU takes no index bits */
			ck_assert_uint_lt(bits, UINT64_C(1) << 21);
			ck_assert_int_eq(pt_tree_ino_unpack(t, bits, 40, &back), PT_OK);
			ck_assert_msg(memcmp(&back, &kk.n[i], sizeof back) == 0, "%s child %u", dirs[d], i);
			/* a stray bit above the fields names nothing */
			ck_assert_int_eq(pt_tree_ino_unpack(t, bits | UINT64_C(1) << 30, 40, &back),
					 PT_E_NOTFOUND);
			packed++;
		}
	}
	ck_assert_uint_eq(packed, 6);   /* ivhd0/ and its dte/ devices info; dte/ and its 24 */
	n = at(t, "ivhd0/dte/24");
	ck_assert_int_eq(pt_tree_ino_pack(t, &n, 20, &bits), PT_E_NOTFOUND);   /* 21 bits do not fit 20 */
	ck_assert_int_eq(pt_tree_ino_pack(NULL, &n, 40, &bits), PT_E_NOTFOUND);
	n.type = PT_TN_IODIR;                                                   /* a file's kind as a directory */
	ck_assert_int_eq(pt_tree_ino_pack(t, &n, 40, &bits), PT_E_NOTFOUND);
	n = at(t, "ivhd0.00:03.0");
	ck_assert_int_eq(pt_tree_ino_pack(t, &n, 40, &bits), PT_E_USAGE);       /* the front end numbers it */
	pt_tree_root(&n);
	ck_assert_int_eq(pt_tree_ino_pack(t, &n, 40, &bits), PT_E_USAGE);
	/* fits 21 bits: nothing said, nothing hidden; 20: left out of the root, its context stays */
	ck_assert_int_eq(pt_tree_ino_check(t, 21, 1, why, sizeof why, warn, sizeof warn), PT_OK);
	ck_assert_str_eq(warn, "");
	lists(t, "", "capture ivhd0.00:03.0 ivhd0 pa");
	ck_assert_int_eq(pt_tree_ino_check(t, 20, 1, why, sizeof why, warn, sizeof warn), PT_OK);
	ck_assert_msg(strstr(warn, "[iommu ivhd0]: its tree needs 21 inode bits and 1 contexts leave 20:"
			     " ivhd0/ is left out of the mount") != NULL, "%s", warn);
	lists(t, "", "capture ivhd0.00:03.0 pa");
	absent(t, "", "ivhd0");
	ck_assert_int_eq(pt_tree_nlink(t, &n, &bits, NULL), PT_OK);
	ck_assert_uint_eq(bits, 2 + 1 + 1);   /* the context and pa/, no ivhd0/ */
	pt_tree_free(t);
	tu_cap_free(&k);
}
END_TEST

/* SMMUv3 linear, LOG2SIZE 32 over a 128 KiB capture: bounded by what is captured. */
START_TEST(smmu_huge_linear)
{
	struct tu_cap k;
	struct pt_tree *t;
	struct pt_readctl rc;

	memset(mem, 0, sizeof mem);
	put(BASE + 64 * 3, 4 << 1 | 1);                /* SID 3 bypass */
	put(BASE + 64 * 1000, 0);                      /* SID 1000 absent */
	put(BASE + 64 * 1500, 0 << 1 | 1);             /* SID 1500 abort */
	k = tu_cap_load("arm-smmuv3", BASE, mem, sizeof mem,
			"[iommu smmu0]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n"
			"strtab_base_cfg = 0x20\n");
	ck_assert_int_eq(k.rc, PT_OK);
	ck_assert_int_eq(pt_tree_new(k.c, false, &t), PT_OK);
	lists(t, "smmu0", "ste devices info");
	lists(t, "smmu0/ste", "3 1500");
	/* SID 1500 aborts: in the tree, counted, no context; sid=0x3 is smmu0.sid3 */
	lists(t, "", "capture smmu0.sid3 smmu0 pa");
	file_has(t, "smmu0/ste/1500/entry", "context: none (every request is refused");
	file_has(t, "smmu0/info", "contexts: 1\nblocked: 1 ");
	file_is(t, "smmu0/devices", "sid=3 context=smmu0.sid3 translation=bypass\n");
	ck_assert_ptr_eq(pt_capture_context_alias(k.c, "smmu0.sid=0x3"),
			 pt_capture_context_find(k.c, "smmu0.sid3"));
	ck_assert_ptr_eq(pt_capture_context_alias(k.c, "smmu0.sid=3"),
			 pt_capture_context_find(k.c, "smmu0.sid3"));
	ck_assert_ptr_eq(pt_capture_context_alias(k.c, "smmu0.sid=03"), NULL);   /* the number rule */
	lists(t, "smmu0/ste/3", "entry");
	file_has(t, "smmu0/ste/3/entry", "translation: bypass\n");
	file_has(t, "smmu0/ste/1500/entry", "translation: abort\n");
	absent(t, "smmu0/ste", "4294967296");
	absent(t, "smmu0/ste", "4000000");   /* in the table, not captured */
	/* a work bound ends the listing early, never in error */
	pt_readctl_init(&rc, NULL, NULL, 10);
	{
		struct pt_tnode d = at(t, "smmu0/ste");
		struct kids kk = {.count = 0};

		ck_assert_int_eq(pt_tree_list(t, &d, 0, collect, &kk, &rc), PT_OK);
		ck_assert(rc.cut);
	}
	pt_tree_free(t);
	tu_cap_free(&k);
}
END_TEST

/* SMMUv3 2-level: an L1STD pointing at the stream table, one with Span past SPLIT + 1. */
START_TEST(smmu_two_level_hostile)
{
	struct tu_cap k;
	struct pt_tree *t;

	memset(mem, 0, sizeof mem);
	/* LOG2SIZE 10, SPLIT 8, FMT 1: 4 L1STDs */
	put(BASE, 0x101000 | 9);                       /* L1 0 -> 256 STEs at 0x101000 */
	put(BASE + 8, BASE | 9);                       /* L1 1 -> the L1 table itself */
	put(BASE + 16, 0x102000 | 12);                 /* L1 2: Span 12 > SPLIT + 1 */
	put(0x101000 + 64 * 5, 4 << 1 | 1);            /* SID 5 bypass */
	k = tu_cap_load("arm-smmuv3", BASE, mem, sizeof mem,
			"[iommu smmu0]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n"
			"strtab_base_cfg = 0x1020a\n");
	ck_assert_int_eq(k.rc, PT_OK);
	ck_assert_int_eq(pt_tree_new(k.c, false, &t), PT_OK);
	lists(t, "smmu0", "l1 devices info");
	lists(t, "smmu0/l1", "0 1 2");
	lists(t, "smmu0/l1/0/ste", "5");
	lists(t, "smmu0/l1/0/ste/5", "entry");
	absent(t, "smmu0/l1/1/ste", "5");   /* SID 5 is in L1 0's span */
	/* the L1 table read as STEs: its word 0 (V set) and L1 0's STE table 4 KiB on */
	lists(t, "smmu0/l1/1/ste", "256 325");
	lists(t, "smmu0/l1/2", "entry");
	file_has(t, "smmu0/l1/2/entry", "warning: Span is above SPLIT + 1");
	file_has(t, "smmu0/l1/0/ste/5/entry", "context: smmu0.sid5\n");
	pt_tree_free(t);
	tu_cap_free(&k);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("iotree");
	TCase *tc = tcase_create("vtd");

	tcase_add_test(tc, vtd_legacy);
	tcase_add_test(tc, amdvi_linux_blocked);
	tcase_add_test(tc, ino_through_provider);
	suite_add_tcase(s, tc);
	tc = tcase_create("smmu");
	tcase_add_test(tc, smmu_huge_linear);
	tcase_add_test(tc, smmu_two_level_hostile);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
