/* dumpmem_util.c — a dump and a capture.ini beside it (dumpmem_util.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dumpmem_util.h"
#include "elf_util.h"

#define RAM 0x20000u
#define PG 0x1000u

static void put(uint8_t *ram, uint32_t at, uint64_t v)
{
	eu_put64(ram + at, v);
}

/* The guest's RAM as the header comment lays it out. */
static void guest_ram(uint8_t *ram)
{
	memset(ram, 0, RAM);
	/* cpu0: x86-64 4-level (P, R/W, U/S) */
	put(ram, 0x1000, 0x2000 | 7);
	put(ram, 0x2000, 0x3000 | 7);
	put(ram, 0x3000, 0x4000 | 7);
	put(ram, 0x4000, 0x8000 | 7);
	memcpy(ram + 0x8000, DM_DATA, sizeof DM_DATA);
	/* VT-d legacy root entry of bus 0 */
	put(ram, DM_RTADDR, 0x11000 | 1);
	/* 00:03.0 (devfn 0x18): TT 00, SLPTPTR 0x12000; AW 2 (48 bits, 4 levels), DID 1 */
	put(ram, 0x11000 + 16 * 0x18, 0x12000 | 1);
	put(ram, 0x11000 + 16 * 0x18 + 8, 2 | 1 << 8);
	/* 00:04.0 (devfn 0x20): TT 10 pass-through, AW 2, DID 2 */
	put(ram, 0x11000 + 16 * 0x20, 2 << 2 | 1);
	put(ram, 0x11000 + 16 * 0x20 + 8, 2 | 2 << 8);
	/* 00:03.0's second-level tables (R, W) */
	put(ram, 0x12000, 0x13000 | 3);
	put(ram, 0x13000, 0x14000 | 3);
	put(ram, 0x14000, 0x15000 | 3);
	put(ram, 0x15000 + 8, 0x8000 | 3);
}

unsigned char *dm_dump(int kdump, int notes, unsigned long *len)
{
	static uint8_t ram[RAM], q[432];
	struct eu_note n[] = {{"QEMU", 0, q, sizeof q}};
	size_t l = 0;
	uint8_t *b;

	guest_ram(ram);
	/* CR4: PAE and the rest QEMU writes for a 4-level guest (LA57 0) */
	eu_qemu_state(q, 0x1000, 0x6f0);
	if (kdump) {
		struct eu_page p[RAM / PG];
		size_t np = 0;

		for (uint32_t pfn = 0; pfn < RAM / PG; pfn++) {
			const uint8_t *d = ram + pfn * PG;

			if (d[0] || memcmp(d, d + 1, PG - 1))
				p[np++] = (struct eu_page){pfn, d};
		}
		struct eu_kdump k = {"x86_64", n, notes ? 1 : 0, NULL, p, np, RAM / PG, 0};

		b = eu_kdump_build(&k, &l);
	} else {
		struct eu_seg s[] = {{0, ram, RAM, RAM, false}};
		struct eu_core c = {.notes = n, .nnotes = notes ? 1 : 0, .segs = s, .nsegs = 1};

		b = eu_build(&c, &l);
	}
	*len = (unsigned long)l;
	return b;
}

int dm_write(const char *dir, const char *dump, int kdump)
{
	unsigned long len;
	unsigned char *b = dm_dump(kdump, 1, &len);
	char path[4200];
	FILE *f;
	int ok;

	snprintf(path, sizeof path, "%s/%s", dir, dump);
	f = fopen(path, "wb");
	ok = f && fwrite(b, 1, len, f) == len;
	ok &= f && fclose(f) == 0;
	free(b);
	snprintf(path, sizeof path, "%s/capture.ini", dir);
	f = fopen(path, "w");
	if (!f)
		return 0;
	fprintf(f, "# registers beside a dump: VT-d's RTADDR_REG as QEMU's trace event vtd_reg_dmar_root gives it\n"
		"[capture]\nversion = 1\ndescription = a guest dump with its IOMMU's registers\n\n"
		"[memory guest]\ndump = %s\n\n[iommu dmar0]\ntype = intel-vtd\nrtaddr = 0x%x\n", dump, DM_RTADDR);
	ok &= fclose(f) == 0;
	return ok;
}
