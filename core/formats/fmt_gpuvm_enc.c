/* SPDX-License-Identifier: MIT */
/*
 * fmt_gpuvm_enc.c — the amd-gpuvm encoders, for ptfs-tool build: the
 * inverse of fmt_gpuvm.c's decoders, one per (generation, depth), writing
 * the PTE or PDE layout of the generation's bit positions (gmc_v9_0.c,
 * gmc_v10_0.c, gmc_v12_0.c, amdgpu_vm.h and umr read_vram.c, as fmt_gpuvm.c
 * cites them).
 */
#include <inttypes.h>
#include <stdio.h>

#include "fmt_ctx.h"
#include "fmt_gpuvm.h"
#include "pt_num.h"

/* V set at bit POS where the generation has it (POS >= 0). */
static uint64_t at(int pos, uint64_t v)
{
	return pos >= 0 ? (v & 1) << pos : 0;
}

static uint64_t field_at(int lo, int w, uint64_t v)
{
	return lo >= 0 ? (v & ((1ull << w) - 1)) << lo : 0;
}

/* The PTE layout of E (a page, at any level: P set at a directory level). */
static pt_err encode_pte(const struct gen_bits *g, bool dir, const struct pt_entry *e,
			 uint64_t *out, char *err, size_t errlen)
{
	bool mapped = e->state == PT_ST_MAPPED;
	uint64_t a = pt_entry_get(e, "address", mapped ? e->pa : 0);

	if (a & ~ADDR_PTE) {
		snprintf(err, errlen, "amd-gpuvm: page address 0x%" PRIx64 " is not 4 KiB aligned"
			 " below 2^48", a);
		return PT_E_VALUE;
	}
	*out = pt_entry_get(e, "valid", mapped) |
	       pt_entry_get(e, "system", mapped && e->space == SP_SYSMEM) << 1 |
	       pt_entry_get(e, "snooped", 0) << 2 | pt_entry_get(e, "tmz", 0) << 3 |
	       pt_entry_get(e, "executable", 0) << 4 | pt_entry_get(e, "readable", 0) << 5 |
	       pt_entry_get(e, "writeable", 0) << 6 | (pt_entry_get(e, "fragment", 0) & 0x1f) << 7 |
	       a | at(g->prt, pt_entry_get(e, "prt", 0)) | (pt_entry_get(e, "sw", 0) & 3) << 52 |
	       at(g->p, pt_entry_get(e, "pte", dir && mapped)) | at(g->log, pt_entry_get(e, "log", 0)) |
	       at(g->tf, pt_entry_get(e, "translate_further", 0)) |
	       field_at(g->mtype_lo, g->mtype_w, pt_entry_get(e, "mtype", 0)) |
	       at(g->noalloc, pt_entry_get(e, "noalloc", 0)) | at(g->dcc, pt_entry_get(e, "dcc", 0)) |
	       at(g->bus_atomics, pt_entry_get(e, "bus_atomics", 0)) |
	       at(g->gcr, pt_entry_get(e, "gcr", 0)) | e->reserved_mask[0];
	return PT_OK;
}

/*
 * The PDE layout of E: a directory entry, or a PTB entry pointing further
 * (AT_PTB: translate_further set where the generation has the bit).  The
 * block fragment size of a PDE0 or a further pointer is its table's
 * (the target's entry span, 2^(12 + BFS)).
 */
static pt_err encode_pde(const struct gen_bits *g, bool sizes, bool at_ptb,
			 const struct pt_entry *e, uint64_t *out, char *err, size_t errlen)
{
	const struct pt_target *t = &e->target[0];
	bool ptr = e->state == PT_ST_POINTER && t->present;
	uint64_t a = pt_entry_get(e, "address", ptr ? t->addr : 0);
	uint64_t bfs = sizes && ptr && t->shift >= 12 ? t->shift - 12u : 0;

	if (a & ~ADDR_PDE) {
		snprintf(err, errlen, "amd-gpuvm: table address 0x%" PRIx64 " is not 64-byte aligned"
			 " below 2^48", a);
		return PT_E_VALUE;
	}
	*out = pt_entry_get(e, "valid", ptr) |
	       pt_entry_get(e, "system", ptr && t->space == SP_SYSMEM) << 1 |
	       pt_entry_get(e, "snooped", 0) << 2 | a | at(g->p, pt_entry_get(e, "pte", 0)) |
	       (at_ptb ? at(g->tf, pt_entry_get(e, "translate_further", 1)) : 0) |
	       at(g->tfs_addr, pt_entry_get(e, "tfs_addr", 0)) |
	       field_at(g->pde_mtype_lo, g->pde_mtype_w, pt_entry_get(e, "mtype", 0)) |
	       at(g->pde_noalloc, pt_entry_get(e, "noalloc", 0)) |
	       (pt_entry_get(e, "block_fragment_size", bfs) & 0x1f) << g->bfs_lo | e->reserved_mask[0];
	return PT_OK;
}

/*
 * The inverse of gpuvm_decode_gen for generation 9 + GI and depth DEPTH:
 * the layout is the one the decoder chose (its fields say which: only the
 * PTE layout has `fragment`, only the PDE layout `block_fragment_size`),
 * else the request's (a page: PTE, a table: PDE).
 */
static pt_err gpuvm_encode_gen(unsigned gi, unsigned depth, unsigned level,
			       const struct pt_entry *e, uint8_t *raw, char *err, size_t errlen)
{
	const struct gen_bits *g = pt_gpuvm_gen(9 + gi);
	unsigned lk = level + 3 - depth;
	bool pde;
	uint64_t r = 0;
	pt_err rc;

	if (!g || depth > 3 || lk >= LK__COUNT)
		return PT_E_UNSUPPORTED;
	if (pt_entry_field(e, "block_fragment_size"))
		pde = true;
	else if (pt_entry_field(e, "fragment"))
		pde = false;
	else
		pde = e->state == PT_ST_POINTER;
	if (pde)
		rc = encode_pde(g, lk == LK_PDB0 || lk >= LK_PTB, lk >= LK_PTB, e, &r, err, errlen);
	else
		rc = encode_pte(g, lk <= LK_PDB0, e, &r, err, errlen);
	pt_le64_store(raw, r);
	return rc;
}

/* One encoder per (generation, depth), as the decoders. */
PT_FMT_A4(PT_FMT_B4, PT_FMT_ENCODER, gpuvm_encode_gen)
const pt_fmt_encode_fn pt_gpuvm_encoders[4][4] = {PT_FMT_ROWS4(PT_FMT_B4, gpuvm_encode_gen)};

/* gfx9, depth 3: the encoder of the format without a context (the decoder's gpuvm_decode_gen_0_3). */
pt_err pt_gpuvm_encode_gfx9(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
			    size_t errlen)
{
	return gpuvm_encode_gen(0, 3, level, e, raw, err, errlen);
}
