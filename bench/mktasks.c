/*
 * mktasks — the ELF dump of a Linux guest with many processes, for
 * bench/tasks (issue #40 item 8: "whose tables" at scale).  The guest is
 * check_tests/linux_util.c's (its BTF made by libbpf's writer, kallsyms
 * named by VMCOREINFO, a QEMU note with cpu0's GS base) with --procs more
 * single-threaded processes, each with its own mm and page tables, mapping
 * --shared pages they all share, one page per group of 16 and --private
 * pages of its own (lu_many_layout()).  RAM beyond the guest's objects is
 * zero and written as holes (a sparse file: lseek over zero blocks).
 *
 *   mktasks --procs 1000 --private 16 --shared 32 --ram 512M OUT.elf
 *   mktasks --raw --procs 1000 RAMFILE
 *
 * --raw writes the guest's RAM alone, VMCOREINFO in a RAM page (what
 * crash_core.c keeps), for a live mount through check_tests/fake_qmp.py's
 * `linux` scenario (RAMFILE is all of RAM from 0).
 *
 * Prints key=value lines: procs, processes (every pidN the dump holds),
 * ram_bytes, user_pages (mapped user pages, all processes), shared_pa (a
 * page every process maps), group_pa (16 processes), private_pa (one:
 * pid 100's first), pt0 (pid 100's PT) and private_pte0 (the PA of the
 * entry mapping private_pa).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_util.h"
#include "linux_util.h"

static int usage(void)
{
	fprintf(stderr, "usage: mktasks [--raw] [--procs N] [--private N] [--shared N] [--ram SIZE[K|M|G]] OUT\n");
	return 2;
}

static int num(const char *opt, const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "mktasks: %s '%s': not a number up to %" PRIu64 "\n", opt, s, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* LEN bytes of P to FD at AT, zero 64 KiB blocks skipped (holes: the caller sets the size). */
static int write_sparse(int fd, const uint8_t *p, size_t len, uint64_t at)
{
	static const uint8_t zero[65536];

	for (size_t off = 0; off < len;) {
		size_t n = len - off < sizeof zero ? len - off : sizeof zero;

		if (!memcmp(p + off, zero, n)) {
			off += n;
			continue;
		}
		if (pwrite(fd, p + off, n, (off_t)(at + off)) != (ssize_t)n)
			return -1;
		off += n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct lu_opts o = {.gs = true, .note_vi = true, .kallsyms = true, .shared = true};
	struct lu_many l;
	uint64_t v;
	const char *out = NULL;
	uint8_t *core, *ram;
	size_t len;
	int fd, raw = 0;

	o.nprocs = 1000;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--raw")) {
			raw = 1;
			o.ram_vi = true;
			o.note_vi = false;
			continue;
		}
		if (a[0] != '-') {
			if (out)
				return usage();
			out = a;
			continue;
		}
		if (i + 1 == argc)
			return usage();
		if (!strcmp(a, "--procs") && !num(a, argv[++i], 100000, &v))
			o.nprocs = (unsigned)v;
		else if (!strcmp(a, "--private") && !num(a, argv[++i], 400, &v))
			o.npriv = (unsigned)(v ? v : 1);
		else if (!strcmp(a, "--shared") && !num(a, argv[++i], 100, &v))
			o.nshared = (unsigned)(v ? v : 1);
		else if (!strcmp(a, "--ram") && !num(a, argv[++i], 1ull << 30, &v))
			o.ram = v;
		else
			return usage();
	}
	if (!out)
		return usage();
	lu_many_layout(&o, &l);
	if (l.ram > 1ull << 30) {
		fprintf(stderr, "mktasks: %u processes need %" PRIu64 " MiB of RAM: the guest's direct map covers 1 GiB\n",
			o.nprocs, l.ram >> 20);
		return 2;
	}
	core = lu_core_of(&o, NULL, &len);
	ram = lu_ram(&o);
	if (raw) {
		len = (size_t)l.ram;
		memset(core, 0, (size_t)eu_seg_offset(0));    /* no headers: RAM from byte 0 */
	}
	if (!core || !ram) {
		fprintf(stderr, "mktasks: out of memory for a %" PRIu64 " MiB guest\n", l.ram >> 20);
		return 1;
	}
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write_sparse(fd, core, raw ? 0 : (size_t)eu_seg_offset(0), 0) ||
	    write_sparse(fd, ram, (size_t)l.ram, raw ? 0 : eu_seg_offset(0)) || ftruncate(fd, (off_t)len) || close(fd)) {
		fprintf(stderr, "mktasks: %s: %s\n", out, strerror(errno));
		return 1;
	}
	free(core);
	free(ram);
	/* linux_util's own processes: init (pid 1, one page) and worker (pid 50, two threads, two pages) */
	printf("procs=%u\nprocesses=%u\nram_bytes=%" PRIu64 "\nuser_pages=%" PRIu64 "\n", o.nprocs, o.nprocs + 2,
	       l.ram, (uint64_t)o.nprocs * (l.nshared + 1 + l.npriv) + 3);
	printf("shared_pa=0x%" PRIx64 "\ngroup_pa=0x%" PRIx64 "\nprivate_pa=0x%" PRIx64 "\n", l.shared, l.group,
	       l.priv);
	/* the first process's PT and its first private page's entry (a live bench changes it) */
	printf("pt0=0x%" PRIx64 "\nprivate_pte0=0x%" PRIx64 "\n", l.procs + 0x5000,
	       l.procs + 0x5000 + (uint64_t)8 * (l.nshared + 1));
	return 0;
}
