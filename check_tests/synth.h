/*
 * synth.h — a synthetic VER2 context for the walk and render suites, built
 * entry by entry from the bit positions of docs/design.md §2.1 and its sources (§7)
 * (never through the decoder).
 *
 * Layout (vidmem 0x100000..0x10ffff captured):
 *   pde3[0] -> pde2 -> pde1[0] -> pde0
 *   pde3[1] = IS_PTE at depth 0 (unsupported); pde1[1] has reserved bit 60
 *   pde0[0] dual: big table 0x104000, small table 0x105000
 *     big[0] 64K video 0x40000000 (shadows small[0]); big[1] zero -> small[16] RO sys
 *     0x2000000, small[17] sparse; big[2] no_valid_4k (small[32] hidden); big[3] sparse
 *   pde0[1] 2 MiB PTE sys coherent 0x80000000
 *   pde0[2] small table at 0x900000, not captured
 */
#ifndef SYNTH_H
#define SYNTH_H

#include "pt_capture.h"
#include "pt_mem.h"

enum { VID = 0, SYS = 1 };

#define PD3 0x100000ull
#define PD2 0x101000ull
#define PD1 0x102000ull
#define PD0 0x103000ull
#define PTB 0x104000ull
#define PTS 0x105000ull

extern struct pt_mem *mem;
extern struct pt_context ctx;

void build_ver2(void);
void teardown(void);
void put64(uint64_t pa, uint64_t v);
/* Replaces the memory with the current vid[] image. */
void synth_reload(void);
void synth_clear(void);
uint64_t pde_vid(uint64_t pa);
uint64_t dual_big_vid(uint64_t pa);
uint64_t dual_small_vid(uint64_t pa);
uint64_t pte(unsigned aperture, uint64_t pa, uint64_t flags);

#define PTE_VOL (1ull << 3)
#define PTE_PRIV (1ull << 5)
#define PTE_RO (1ull << 6)

#endif
