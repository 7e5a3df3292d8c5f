/* ptfs-procs: the guest's own account of its processes, for the QEMU
 * agreement test's task check (check_tests/qemu/README.md, "Processes").
 * Run by the initramfs's /init just before it says PTFS-READY, as root (so
 * /proc/PID/pagemap shows PFNs: fs/proc/task_mmu.c pagemap_open() decides
 * show_pfn by CAP_SYS_ADMIN).  For every user process (one with an
 * executable: kernel threads have none) but itself it prints
 *   PTFS-PROC PID PPID THREADS COMM  from /proc/PID/stat ("pid (comm) state ppid
 *                                    ... num_threads", proc(5) fields 1-4 and 20)
 *   PTFS-VMA PID LO HI               every VMA of /proc/PID/maps, [LO, HI)
 *   PTFS-PM PID VA PFN [none|x]      up to PM_PER_VMA present pages of each VMA,
 *                                    `none` in a PROT_NONE VMA: pagemap calls its
 *                                    PTEs present (pte_present() counts
 *                                    _PAGE_PROTNONE) while the CPU's P bit is 0;
 *                                    `x` in an executable one (maps says r-x):
 *                                    the CPU in user mode may fetch there, so
 *                                    under PTI only through the user copy (the
 *                                    kernel copy's user half is NX:
 *                                    arch/x86/mm/pti.c __pti_set_user_pgtbl())
 * (Documentation/admin-guide/mm/pagemap.rst: bit 63 present, bits 0-54 the
 * PFN; one u64 per 4 KiB page at offset VA / 4096 * 8).
 * Built static at test time.  Usage: ptfs-procs
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PM_PER_VMA 4

static void pagemap(long pid)
{
	char path[64], line[512];
	FILE *maps;
	int fd;

	snprintf(path, sizeof path, "/proc/%ld/maps", pid);
	maps = fopen(path, "r");
	snprintf(path, sizeof path, "/proc/%ld/pagemap", pid);
	fd = open(path, O_RDONLY);
	if (!maps || fd < 0)
		goto out;
	while (fgets(line, sizeof line, maps)) {
		uint64_t lo, hi;
		char perm[8] = "";
		int n = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &lo, &hi, perm) != 3)
			continue;
		printf("PTFS-VMA %ld 0x%" PRIx64 " 0x%" PRIx64 "\n", pid, lo, hi);
		if (lo >= 1ull << 56)
			continue;   /* [vsyscall]: no pagemap entries up there */
		for (uint64_t va = lo; va < hi && n < PM_PER_VMA; va += 4096) {
			uint64_t e;

			if (pread(fd, &e, 8, (off_t)(va / 4096 * 8)) != 8)
				break;
			if (!(e >> 63 & 1) || !(e & ((1ull << 55) - 1)))
				continue;
			printf("PTFS-PM %ld 0x%" PRIx64 " 0x%" PRIx64 "%s\n", pid, va, (uint64_t)(e & ((1ull << 55) - 1)),
			       !strncmp(perm, "---", 3) ? " none" : perm[2] == 'x' ? " x" : "");
			n++;
		}
	}
out:
	if (maps)
		fclose(maps);
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	long self = (long)getpid();

	if (!d)
		return 1;
	while ((de = readdir(d))) {
		char path[64], exe[256], stat[512], *open_, *close_;
		long pid = strtol(de->d_name, NULL, 10), ppid, threads;
		char state;
		FILE *f;
		size_t n;

		if (pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/exe", pid);
		if (readlink(path, exe, sizeof exe) < 0)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		if (!(f = fopen(path, "r")))
			continue;
		n = fread(stat, 1, sizeof stat - 1, f);
		fclose(f);
		stat[n] = 0;
		/* comm may hold spaces and parentheses: it ends at the last ')' */
		open_ = strchr(stat, '(');
		close_ = strrchr(stat, ')');
		/* after comm: state ppid pgrp session tty_nr tpgid flags minflt cminflt
		 * majflt cmajflt utime stime cutime cstime priority nice num_threads
		 * (fields 3-20, proc(5)) */
		if (!open_ || !close_ ||
		    sscanf(close_ + 1, " %c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %ld",
			   &state, &ppid, &threads) != 3)
			continue;
		*close_ = 0;
		printf("PTFS-PROC %ld %ld %ld %s\n", pid, ppid, threads, open_ + 1);
		pagemap(pid);
	}
	closedir(d);
	fflush(stdout);
	return 0;
}
