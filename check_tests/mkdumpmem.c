/* mkdumpmem DIR elf|kdump — a capture directory whose memory is a dump (dumpmem_util.h). */
#include <stdio.h>
#include <string.h>

#include "dumpmem_util.h"

int main(int argc, char **argv)
{
	int kdump = argc == 3 && !strcmp(argv[2], "kdump");

	if (argc != 3 || (!kdump && strcmp(argv[2], "elf"))) {
		fprintf(stderr, "usage: mkdumpmem DIR elf|kdump\n");
		return 2;
	}
	if (!dm_write(argv[1], kdump ? "guest.kdump" : "guest.elf", kdump)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
