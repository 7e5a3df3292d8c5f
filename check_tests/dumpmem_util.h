/*
 * dumpmem_util: a capture directory whose memory is a dump (man/ptfs-capture.5,
 * "Memory from a dump"): a small x86-64 guest written as an ELF core or a
 * raw kdump file (elf_util.c, never through the reader under test) and a
 * capture.ini beside it naming the dump and an [iommu] section whose
 * tables live in the dump.  For test_dumpmem.c and mkdumpmem (the shell
 * suite test_dumpmem.sh).
 *
 * Guest memory, 4 KiB pages (Intel SDM vol. 3A §4.5: P 0, R/W 1, U/S 2,
 * address 51:12; VT-d spec §9.1-9.3: root entry P 0, CTP 63:12; context
 * entry lo P 0, TT 3:2, SLPTPTR 63:12, hi AW 2:0, DID 23:8; second-level
 * entries R 0, W 1, address 51:12):
 *   0x1000-0x4000  cpu0's PML4 -> PDPT -> PD -> PT; PT[0] -> 0x8000   (CR3 0x1000)
 *   0x8000         the data page (DM_DATA bytes at its start)
 *   0x10000        VT-d root table (RTADDR_REG 0x10000, TTM 00): bus 0 -> 0x11000
 *   0x11000        bus 0's context table: 00:03.0 TT 00, AW 48, DID 1,
 *                  SLPTPTR 0x12000; 00:04.0 TT 10 (pass-through), DID 2
 *   0x12000-0x15000 00:03.0's PML4 -> PDPT -> PD -> PT; PT[1] -> 0x8000
 * So cpu0's VA 0x234 and 00:03.0's IOVA 0x1234 reach the same byte, 0x8234.
 */
#ifndef DUMPMEM_UTIL_H
#define DUMPMEM_UTIL_H

#define DM_DATA "ptfs: a device's page in a dump"
#define DM_RTADDR 0x10000u

/*
 * Writes DIR/DUMP (an ELF core, or a kdump file when KDUMP) and
 * DIR/capture.ini naming it beside [iommu dmar0].  False on a write error.
 */
int dm_write(const char *dir, const char *dump, int kdump);
/* The dump's bytes alone (malloc'd, *LEN); NOTES 0: without the QEMU note (no context of its own). */
unsigned char *dm_dump(int kdump, int notes, unsigned long *len);

#endif
