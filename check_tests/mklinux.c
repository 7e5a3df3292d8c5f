/*
 * mklinux OUT [WORD...] — the ELF core of linux_util's synthetic Linux
 * guest (its BTF, task list and process tables), for the CLI tests of the
 * processes by name (test_linux_cli.sh).  WORDs set lu_opts: gs, note_vi,
 * kallsyms, pti, shared, idle, mm50_moved, cr3_50, comm50=NAME, kaslr=HEX
 * (VMCOREINFO's KERNELOFFSET), sysmap=FILE (the guest's System.map, as
 * linked: KERNELOFFSET below), none (no VMCOREINFO, no registers: the default).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux_util.h"

int main(int argc, char **argv)
{
	struct lu_opts o = {0};
	const char *sysmap = NULL;
	uint8_t *core;
	size_t len;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: mklinux OUT [gs|note_vi|kallsyms|pti|shared|idle|mm50_moved|cr3_50|comm50=NAME|kaslr=HEX|sysmap=FILE|none]...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "gs"))
			o.gs = true;
		else if (!strcmp(w, "note_vi"))
			o.note_vi = true;
		else if (!strcmp(w, "kallsyms"))
			o.kallsyms = true;
		else if (!strcmp(w, "pti"))
			o.pti = true;
		else if (!strcmp(w, "shared"))
			o.shared = true;
		else if (!strcmp(w, "idle"))
			o.idle = true;
		else if (!strcmp(w, "cr3_50"))
			o.cr3_50 = true;
		else if (!strcmp(w, "mm50_moved"))
			o.mm50_moved = true;
		else if (!strncmp(w, "kaslr=", 6))
			o.kernel_offset = strtoull(w + 6, NULL, 16);
		else if (!strncmp(w, "sysmap=", 7))
			sysmap = w + 7;
		else if (!strcmp(w, "none"))
			continue;
		else if (!strncmp(w, "comm50=", 7))
			o.comm50 = w + 7;
		else {
			fprintf(stderr, "mklinux: unknown word '%s'\n", w);
			return 2;
		}
	}
	core = lu_core(&o, &len);
	f = fopen(argv[1], "wb");
	if (!f || fwrite(core, 1, len, f) != len || fclose(f)) {
		perror(argv[1]);
		free(core);
		return 1;
	}
	free(core);
	if (sysmap) {
		char *map = lu_system_map(o.kernel_offset);

		f = fopen(sysmap, "w");
		if (!f || fputs(map, f) < 0 || fclose(f)) {
			perror(sysmap);
			free(map);
			return 1;
		}
		free(map);
	}
	return 0;
}
