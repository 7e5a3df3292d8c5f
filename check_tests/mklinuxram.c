/*
 * mklinuxram FILE — the RAM of linux_util.c's synthetic Linux guest (its BTF,
 * kallsyms named by VMCOREINFO in a RAM page, init, kthreadd, a worker pid 50
 * with two threads), LU_RAM bytes, for a live mount through fake_qmp.py's
 * `linux` scenario (test_live_tasks.sh).
 */
#include <stdio.h>
#include <stdlib.h>

#include "linux_util.h"

int main(int argc, char **argv)
{
	uint8_t *ram;
	FILE *f;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: mklinuxram FILE\n");
		return 2;
	}
	ram = lu_ram(&(struct lu_opts){.ram_vi = true, .kallsyms = true});
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
