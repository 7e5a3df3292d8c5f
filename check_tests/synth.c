/* synth.c — see synth.h. */
#include <string.h>

#include "fmt_ver2.h"
#include "synth.h"
#include "testutil.h"


#define VBASE 0x100000ull
#define VSIZE 0x10000ull
static uint8_t vid[VSIZE];

void put64(uint64_t pa, uint64_t v)
{
	ck_assert(pa >= VBASE && pa + 8 <= VBASE + VSIZE);
	for (int i = 0; i < 8; i++)
		vid[pa - VBASE + i] = (uint8_t)(v >> (8 * i));
}

/* PDE (depth 0-2): aperture 2:1 (1 video), address_vid 32:8 = PA >> 12. */
uint64_t pde_vid(uint64_t pa)
{
	return ((pa >> 12) << 8) | (1ull << 1);
}

/* Dual PDE0 halves: big aperture 2:1 + address 32:4 = PA >> 8; small aperture 66:65 + 96:72 = PA >> 12. */
uint64_t dual_big_vid(uint64_t pa)
{
	return ((pa >> 8) << 4) | (1ull << 1);
}

uint64_t dual_small_vid(uint64_t pa)
{
	return ((pa >> 12) << 8) | (1ull << 1);   /* bits 72.. and 65.. seen from the high word */
}

/* PTE: valid 0, aperture 2:1, vol 3, priv 5, ro 6, address 53:8 / 32:8 = PA >> 12, kind 63:56. */
uint64_t pte(unsigned aperture, uint64_t pa, uint64_t flags)
{
	return 1ull | ((uint64_t)aperture << 1) | ((pa >> 12) << 8) | (6ull << 56) | flags;
}



struct pt_mem *mem;
struct pt_context ctx;
/* The [pdb] data of ctx: a 64 KiB big page size, as a default capture.ini gives. */
static struct pt_ver2_ctx ver2_ctx = {.big_page_size = 65536};

void build_ver2(void)
{
	unsigned id;

	memset(vid, 0, sizeof vid);
	put64(PD3 + 0 * 8, pde_vid(PD2));
	put64(PD3 + 1 * 8, 1);                       /* IS_PTE at depth 0: unsupported */
	put64(PD2 + 0 * 8, pde_vid(PD1));
	put64(PD1 + 0 * 8, pde_vid(PD0));
	put64(PD1 + 1 * 8, pde_vid(PD0) | (1ull << 60)); /* reserved bit 60 */
	/* PD0[0]: both halves */
	put64(PD0 + 0 * 16, dual_big_vid(PTB));
	put64(PD0 + 0 * 16 + 8, dual_small_vid(PTS));
	/* PD0[1]: a 2 MiB PTE, sys coherent */
	put64(PD0 + 1 * 16, pte(2, 0x80000000ull, 0));
	/* PD0[2]: small table outside captured memory */
	put64(PD0 + 2 * 16 + 8, dual_small_vid(0x900000));
	/* big entries */
	put64(PTB + 0 * 8, pte(0, 0x40000000ull, 0));            /* 64K, shadows small[0..15] */
	put64(PTB + 2 * 8, PTE_PRIV);                             /* no_valid_4k */
	put64(PTB + 3 * 8, PTE_VOL);                              /* sparse */
	/* small entries */
	put64(PTS + 0 * 8, pte(2, 0x1000000ull, 0));              /* shadowed */
	put64(PTS + 16 * 8, pte(2, 0x2000000ull, PTE_RO));        /* under big[1] = 0 */
	put64(PTS + 17 * 8, PTE_VOL);                             /* sparse */
	put64(PTS + 32 * 8, pte(2, 0x3000000ull, 0));             /* under no_valid_4k */

	mem = pt_mem_new(10);
	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(pt_mem_add_built(mem, VID, VBASE, VSIZE, &id), PT_OK);
	ck_assert_int_eq(pt_mem_region_write(mem, id, 0, vid, VSIZE), PT_OK);
	ck_assert_int_eq(pt_mem_seal(mem, NULL, NULL), PT_OK);

	memset(&ctx, 0, sizeof ctx);
	ctx.name = "pdb0";
	ctx.fmt = &pt_format_ver2;
	ctx.mem = mem;
	ctx.root_space = VID;
	ctx.root_addr = PD3;
	ctx.root_entries = 4;
	ctx.priv = &ver2_ctx;
}

void teardown(void)
{
	pt_mem_free(mem);
	mem = NULL;
}

void synth_clear(void)
{
	memset(vid, 0, sizeof vid);
}

void synth_reload(void)
{
	unsigned id;

	pt_mem_free(mem);
	mem = pt_mem_new(10);
	ck_assert_int_eq(pt_mem_add_built(mem, VID, VBASE, VSIZE, &id), PT_OK);
	ck_assert_int_eq(pt_mem_region_write(mem, id, 0, vid, VSIZE), PT_OK);
	ck_assert_int_eq(pt_mem_seal(mem, NULL, NULL), PT_OK);
	ctx.mem = mem;
}
