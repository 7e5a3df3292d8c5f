/* SPDX-License-Identifier: MIT */
/*
 * fmt_gpuvm.h — what amd-gpuvm's two files share: the spaces, the logical
 * levels, the address masks and each generation's bit positions
 * (fmt_gpuvm.c, with the decoders and the [vm NAME] context), and the
 * encoders (fmt_gpuvm_enc.c) the context set-up picks.
 */
#ifndef PT_FMT_GPUVM_H
#define PT_FMT_GPUVM_H

#include "fmt_ctx.h"

enum { SP_VRAM = 0, SP_SYSMEM = 1 };

/* Logical levels, root of a depth-3 VM first (Linux enum amdgpu_vm_level, umr PDE2..PTE). */
enum { LK_PDB2, LK_PDB1, LK_PDB0, LK_PTB, LK_FURTHER, LK__COUNT };

#define ADDR_PTE         0x0000fffffffff000ull   /* 47:12 (set_pte_pde mask) */
#define ADDR_PDE         0x0000ffffffffffc0ull   /* 47:6, 64-byte aligned (umr mask) */

/* Per-generation positions (§B.3.1-§B.3.3). -1: the generation has no such bit. */
struct gen_bits {
	int p;            /* PDE-as-PTE / IS_PTE: gfx9-11 54, gfx12 63 */
	int bfs_lo;       /* block fragment size, 5 bits: gfx9-11 63:59, gfx12 62:58 */
	int prt;          /* gfx9-11 51, gfx12 56 */
	int mtype_lo;     /* gfx9 58:57, gfx10/11 50:48, gfx12 55:54 */
	int mtype_w;
	int log;          /* AMDGPU_PTE_LOG 55; gfx12: MTYPE's place */
	int tf;           /* AMDGPU_PTE_TF 56; gfx12 has none (umr: bit 63 clear) */
	int noalloc;      /* AMDGPU_PTE_NOALLOC 58, gfx10.3/11 */
	int dcc;          /* AMDGPU_PTE_DCC 58, gfx12 */
	int bus_atomics;  /* AMDGPU_PTE_BUS_ATOMICS 59, GC 12.1 */
	int tfs_addr;     /* PDE A (umr tfs_addr): gfx11 57, gfx12 56 */
	int pde_mtype_lo; /* PDE mtype: gfx11 50:48 (umr), gfx12 M 55:54 (gmc_v12_0.c); -1 elsewhere */
	int pde_mtype_w;
	int pde_noalloc;  /* PDE llc_noalloc: gfx11 58 (umr read_vram.c case 11) */
	int gcr;          /* PTE G: gfx12 57 (gmc_v12_0.c "57 G"; umr gcr) */
};

/*  p  bfs prt mt w  log tf  noal dcc bus tfs pmt pw pnoal gcr */
static const struct gen_bits gen9 = {54, 59, 51, 57, 2, 55, 56, -1, -1, -1, -1, -1, 0, -1, -1};
static const struct gen_bits gen10 = {54, 59, 51, 48, 3, 55, 56, 58, -1, -1, -1, -1, 0, -1, -1};
static const struct gen_bits gen11 = {54, 59, 51, 48, 3, 55, 56, 58, -1, -1, 57, 48, 3, 58, -1};
static const struct gen_bits gen12 = {63, 58, 56, 54, 2, -1, -1, -1, 58, 59, 56, 54, 2, -1, 57};

/* The bit positions of gfx GFX (9 to 12), or NULL. */
static inline const struct gen_bits *pt_gpuvm_gen(unsigned gfx)
{
	switch (gfx) {
	case 9:
		return &gen9;
	case 10:
		return &gen10;
	case 11:
		return &gen11;
	case 12:
		return &gen12;
	}
	return NULL;
}
/* One encoder per (generation - 9, depth), as the decoders. */
extern const pt_fmt_encode_fn pt_gpuvm_encoders[4][4];
/* gfx9 at depth 3 (pt_gpuvm_encoders[0][3]): the format without a context. */
pt_err pt_gpuvm_encode_gfx9(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
			    size_t errlen);

#endif
