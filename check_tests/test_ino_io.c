/* SPDX-License-Identifier: MIT */
/*
 * test_ino_io: the inode numbers of an IOMMU's tree (fs/ino.c): the
 * context field's all-ones value, the IOMMU's own widths, stray bits and
 * the other type refused, and an IOMMU whose tree cannot be numbered left
 * out of the mount with one warning.  Part of test_ino (test_ino.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ptfs.h"
#include "pt_tree.h"
#include "testutil.h"
#include "test_ino_io.h"

/* Encodes ID in FS, decodes it back: the same node, one number. */
static fuse_ino_t io_trip(const struct ptfs *fs, const struct pt_tnode *id)
{
	struct pt_tnode back;
	fuse_ino_t ino = ptfs_ino_encode(fs, id);

	ck_assert_msg(ino != 0, "kind %u not packed", pt_io_kind_of(id));
	ck_assert_int_eq(ptfs_ino_decode(fs, ino, &back), 0);
	ck_assert_int_eq(back.type, id->type);
	ck_assert_uint_eq(back.va, id->va);
	ck_assert_uint_eq(back.choice, id->choice);
	ck_assert_uint_eq(ptfs_ino_encode(fs, &back), ino);
	return ino;
}

/* An IOMMU tree's nodes in a capture with one [iommu]: context field all ones. */
START_TEST(iommu_nodes)
{
	static uint8_t mem[0x4000];
	struct tu_cap k;
	struct pt_tree *tree;
	struct ptfs ifs;
	struct pt_tnode id, back;
	fuse_ino_t ino[6];
	char why[256], warn[512];
	static const unsigned kinds[6] = {PT_IO_TOP, PT_IO_VROOT, PT_IO_VBUS, PT_IO_VROOTENT,
					  PT_IO_VCTXDIR, PT_IO_VCTX};
	static const uint64_t as[6] = {0, 0, 0, 0, 0, 0x10};

	tu_put64(mem, sizeof mem, 0, 0x101000 | 1);            /* bus 0 -> context table */
	tu_put64(mem, sizeof mem, 0x1000 + 16 * 0x10, 0x102000 | 1);
	tu_put64(mem, sizeof mem, 0x1000 + 16 * 0x10 + 8, 1 | 5 << 8);
	k = tu_cap_load("intel-vtd", 0x100000, mem, sizeof mem,
			"[iommu dmar0]\ntype = intel-vtd\nrtaddr = 0x100000\n");
	ck_assert_int_eq(k.rc, PT_OK);
	ck_assert_int_eq(pt_tree_new(k.c, false, &tree), PT_OK);
	memset(&ifs, 0, sizeof ifs);
	ifs.nctx = pt_capture_context_count(k.c);
	ifs.nready = ifs.nctx;
	ck_assert_uint_eq(ifs.nctx, 1);
	ifs.ctx = calloc(ifs.nctx, sizeof *ifs.ctx);
	ck_assert_int_eq(ptfs_ino_setup(&ifs.ctx[0], pt_capture_context(k.c, 0), 0, why, sizeof why),
			 PT_OK);
	ifs.tree = tree;
	ifs.cap = k.c;
	ck_assert_int_eq(ptfs_ino_check(&ifs, why, sizeof why, warn, sizeof warn), PT_OK);
	for (unsigned i = 0; i < 6; i++) {
		memset(&id, 0, sizeof id);
		id.type = i == 3 || i == 5 ? PT_TN_IOFILE : PT_TN_IODIR;
		id.va = pt_io_pack(kinds[i], as[i], 0);
		ino[i] = io_trip(&ifs, &id);
		ck_assert_uint_eq(ino[i] >> 62, 3);   /* C = 2: the context field all ones */
		for (unsigned j = 0; j < i; j++)
			ck_assert_uint_ne(ino[i], ino[j]);
		/* stray bits above the fields, the other type */
		ck_assert_int_eq(ptfs_ino_decode(&ifs, ino[i] | UINT64_C(1) << 40, &back), ENOENT);
		id.type = id.type == PT_TN_IOFILE ? PT_TN_IODIR : PT_TN_IOFILE;
		ck_assert_uint_eq(ptfs_ino_encode(&ifs, &id), 0);
	}
	memset(&id, 0, sizeof id);
	id.type = PT_TN_IOFILE;
	id.va = pt_io_pack(PT_IO_VCTX, 0x10000, 0);   /* a requester ID past 16 bits */
	ck_assert_uint_eq(ptfs_ino_encode(&ifs, &id), 0);
	id.va = pt_io_pack(PT_IO_VCTX, 0x10, 0);
	id.choice = 1;                                /* no such [iommu] */
	ck_assert_uint_eq(ptfs_ino_encode(&ifs, &id), 0);
	id.choice = 0;
	id.va = pt_io_pack(PT_IO_VCTX, 0x10, 1);      /* a PASID in legacy mode */
	ck_assert_uint_eq(ptfs_ino_encode(&ifs, &id), 0);
	/* a context's numbers are unchanged beside them */
	id = (struct pt_tnode){.type = PT_TN_CTXDIR, .ctx = 0};
	id.node.ctx = pt_capture_context(k.c, 0);
	ck_assert_uint_eq(ptfs_ino_encode(&ifs, &id), UINT64_C(0x4000000000000001));
	free(ifs.ctx);
	pt_tree_free(tree);
	tu_cap_free(&k);
}
END_TEST

/* An SMMUv3 of 2^32 StreamIDs: 57 bits of tree; past C = 7 left out of the mount, one warning. */
START_TEST(iommu_too_wide)
{
	static uint8_t mem[0x1000];
	struct tu_cap k;
	struct pt_tree *tree;
	struct ptfs ifs;
	struct pt_tnode root, child;
	char why[256], warn[512];

	tu_put64(mem, sizeof mem, 64 * 3, 4 << 1 | 1);    /* SID 3 bypass */
	k = tu_cap_load("arm-smmuv3", 0x100000, mem, sizeof mem,
			"[iommu smmu0]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n"
			"strtab_base_cfg = 0x20\n");
	ck_assert_int_eq(k.rc, PT_OK);
	ck_assert_int_eq(pt_tree_new(k.c, false, &tree), PT_OK);
	memset(&ifs, 0, sizeof ifs);
	ck_assert_uint_eq(pt_capture_context_count(k.c), 1);
	/* 57 bits fit beside one context (C = 1); 200 contexts (C = 8) leave 56 */
	ifs.nctx = 1;
	ifs.nready = ifs.nctx;
	ifs.ctx = calloc(200, sizeof *ifs.ctx);
	ck_assert_int_eq(ptfs_ino_setup(&ifs.ctx[0], pt_capture_context(k.c, 0), 0, why, sizeof why),
			 PT_OK);
	for (size_t i = 1; i < 200; i++)
		ifs.ctx[i] = ifs.ctx[0];
	ifs.tree = tree;
	ifs.cap = k.c;
	pt_tree_root(&root);
	ck_assert_int_eq(ptfs_ino_check(&ifs, why, sizeof why, warn, sizeof warn), PT_OK);
	ck_assert_str_eq(warn, "");
	ck_assert_int_eq(pt_tree_lookup(tree, &root, "smmu0", &child), PT_OK);
	ifs.nctx = 200;
	ifs.nready = ifs.nctx;
	ck_assert_int_eq(ptfs_ino_check(&ifs, why, sizeof why, warn, sizeof warn), PT_OK);
	ck_assert_msg(strstr(warn, "[iommu smmu0]: its tree needs 57 inode bits and 200 contexts"
			      " leave 56: smmu0/ is left out of the mount (its device contexts are"
			      " there; ptfs-tool export shows the tree)") != NULL, "%s", warn);
	ck_assert_int_eq(pt_tree_lookup(tree, &root, "smmu0", &child), PT_E_NOTFOUND);
	ck_assert_int_eq(pt_tree_lookup(tree, &root, "smmu0.sid3", &child), PT_OK);
	free(ifs.ctx);
	pt_tree_free(tree);
	tu_cap_free(&k);
}
END_TEST

void ino_io_tests(TCase *tc)
{
	tcase_add_test(tc, iommu_nodes);
	tcase_add_test(tc, iommu_too_wide);
}
