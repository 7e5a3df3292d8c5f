/* ptfs-mapper: a guest user process for the QEMU agreement test
 * (check_tests/qemu/README.md).  It builds mappings of every kind the walk
 * must get right -- 4 KiB pages with holes, the shared zero page, a
 * PROT_NONE page (Linux keeps such a PTE with P=0 and _PAGE_PROTNONE set,
 * arch/x86/include/asm/pgtable_types.h), a read-only file page, a
 * transparent huge page and a hugetlbfs page (2 MiB PMD leaves), and under
 * 5-level paging a mapping above 2^47 (Documentation/x86/x86_64/5level-paging.rst:
 * only a hint above 47 bits gets one) -- then pins itself to one CPU and
 * spins there, so that when QEMU stops the guest that vCPU's CR3 is this
 * process's page table and user VAs translate.
 *
 * With `live` (the qemu-live test, README.md here) it also maps a mailbox
 * page at MAILBOX_VA + CPU * 2^32 holding "PTFSLIVE" and, spinning, watches
 * its word 1: when the host writes it (into the guest's RAM file, shared
 * with QEMU) it maps a new page at NEW_VA + CPU * 2^32, writes it, and sets
 * word 2 to 1: a page table that changes under a live mount; when word 1
 * becomes 2 it exits (its process leaves a live mount's tasks).
 *
 * Built static at test time (it runs as the only program besides busybox
 * in the initramfs).  Usage: ptfs-mapper CPU [live]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB (1024UL * 1024)
#define MAILBOX_VA 0x2a0000000000UL
#define NEW_VA 0x2b0000000000UL

static void *map(void *hint, size_t len, int prot, int flags)
{
	void *p = mmap(hint, len, prot, flags, -1, 0);

	if (p == MAP_FAILED) {
		perror("ptfs-mapper: mmap");
		return NULL;
	}
	return p;
}

static void touch(volatile char *p, size_t len, size_t step, int write)
{
	size_t off;
	volatile char sink = 0;

	for (off = 0; off < len; off += step) {
		if (write)
			p[off] = (char)(off >> 12 | 1);
		else
			sink += p[off];
	}
	(void)sink;
}

int main(int argc, char **argv)
{
	int cpu = argc > 1 ? atoi(argv[1]) : 0;
	const int anon = MAP_PRIVATE | MAP_ANONYMOUS;
	cpu_set_t set;
	char *p;
	int fd;

	/* 16 pages, every other one touched: mapped pages beside holes. */
	if ((p = map(NULL, 64 * 1024, PROT_READ | PROT_WRITE, anon)))
		touch(p, 64 * 1024, 8192, 1);
	/* Read faults on untouched anonymous memory map the shared zero page. */
	if ((p = map(NULL, 32 * 1024, PROT_READ, anon)))
		touch(p, 32 * 1024, 4096, 0);
	/* Touched, then PROT_NONE: the PTE stays, with P clear. */
	if ((p = map(NULL, 16 * 1024, PROT_READ | PROT_WRITE, anon))) {
		touch(p, 16 * 1024, 4096, 1);
		mprotect(p + 4096, 8192, PROT_NONE);
	}
	/* Transparent huge pages: the aligned 2 MiB inside a 6 MiB mapping,
	 * and the next one (a first touch of any aligned 2 MiB of it faults a
	 * whole huge page in). */
	if ((p = map(NULL, 6 * MIB, PROT_READ | PROT_WRITE, anon))) {
		char *h = (char *)(((uintptr_t)p + 2 * MIB - 1) & ~(2 * MIB - 1));

		madvise(h, 2 * MIB, MADV_HUGEPAGE);
		touch(h, 2 * MIB, 4096, 1);
		touch(h + 2 * MIB, 64 * 1024, 4096, 1);
	}
	/* A hugetlbfs page (the kernel command line reserves hugepages=). */
	if ((p = map(NULL, 2 * MIB, PROT_READ | PROT_WRITE, anon | MAP_HUGETLB)))
		touch(p, 2 * MIB, 4096, 1);
	/* A 1 GiB hugetlbfs page, where the command line reserved one
	 * (hugepagesz=1G hugepages=1; MAP_HUGE_1GB is 30 << MAP_HUGE_SHIFT,
	 * include/uapi/asm-generic/hugetlb_encode.h).  One byte is touched:
	 * the kernel clears the whole page anyway. */
	p = mmap(NULL, 1024 * MIB, PROT_READ | PROT_WRITE, anon | MAP_HUGETLB | 30 << MAP_HUGE_SHIFT, -1, 0);
	if (p != MAP_FAILED)
		p[12345] = 1;
	/* A file page mapped read-only: the initramfs's own /init. */
	fd = open("/init", O_RDONLY);
	if (fd >= 0) {
		p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED)
			touch(p, 4096, 4096, 0);
		close(fd);
	}
	/* Above 2^47 (5-level paging only; 4-level ignores the hint). */
	if ((p = map((void *)(0x7e0000000000UL << 4 | (uintptr_t)cpu << 32), 3 * 4096,
		     PROT_READ | PROT_WRITE, anon)))
		touch(p, 3 * 4096, 4096, 1);

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("ptfs-mapper: sched_setaffinity");
	if (argc > 2 && !strcmp(argv[2], "live")) {
		volatile uint64_t *box = map((void *)(MAILBOX_VA + ((uintptr_t)cpu << 32)), 4096,
					     PROT_READ | PROT_WRITE, anon | MAP_FIXED);

		if (!box)
			return 1;
		memcpy((void *)box, "PTFSLIVE", 8);
		printf("ptfs-mapper %d ready\n", cpu);
		fflush(stdout);
		while (!box[1])
			__asm__ volatile("" ::: "memory");
		if ((p = map((void *)(NEW_VA + ((uintptr_t)cpu << 32)), 4096, PROT_READ | PROT_WRITE,
			     anon | MAP_FIXED)))
			touch(p, 4096, 4096, 1);
		box[2] = 1;
		/* word 1 set to 2: this process exits (the live mount's pidN must go) */
		while (box[1] != 2)
			__asm__ volatile("" ::: "memory");
		return 0;
	}
	printf("ptfs-mapper %d ready\n", cpu);
	fflush(stdout);
	for (;;)
		__asm__ volatile("" ::: "memory");
}
