/*
 * mklinuxram FILE [arm64] — the RAM of linux_util.c's synthetic Linux guest (its BTF,
 * kallsyms named by VMCOREINFO in a RAM page, init, kthreadd, a worker pid 50
 * with two threads), LU_RAM bytes, for a live mount through fake_qmp.py's
 * `linux` scenario (test_live_tasks.sh); with arm64 the arm64 guest's
 * (kallsyms of text symbols only), for its `armgdblinux` scenario.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux_util.h"

int main(int argc, char **argv)
{
	uint8_t *ram;
	FILE *f;
	int rc = 0;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "arm64"))) {
		fprintf(stderr, "usage: mklinuxram FILE [arm64]\n");
		return 2;
	}
	/* arm64: Debian's kallsyms (text symbols only), no QEMU note: SP_EL0 from the gdbstub names a task */
	ram = lu_ram(&(struct lu_opts){.ram_vi = true, .kallsyms = true, .arm64 = argc == 3, .text_syms = argc == 3});
	f = ram ? fopen(argv[1], "wb") : NULL;
	if (!f || fwrite(ram, 1, LU_RAM, f) != LU_RAM)
		rc = 1;
	if (f && fclose(f))
		rc = 1;
	if (rc)
		perror(argv[1]);
	free(ram);
	return rc;
}
