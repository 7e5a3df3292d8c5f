/*
 * mkpciseed OUT — fuzz_pci's seed: the 32 KiB at 0x700000 of
 * check_tests/linux_util.c's synthetic guest with its PCI lists (two
 * buses, three functions, two drivers), as fuzz_pci.c maps them.
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
		fprintf(stderr, "usage: mkpciseed OUT\n");
		return 2;
	}
	ram = lu_ram(&(struct lu_opts){.pci = LU_PCI});
	f = ram ? fopen(argv[1], "wb") : NULL;
	if (!f || fwrite(ram + 0x700000, 1, 0x8000, f) != 0x8000)
		rc = 1;
	if (f && fclose(f))
		rc = 1;
	if (rc)
		perror(argv[1]);
	free(ram);
	return rc;
}
