/* SPDX-License-Identifier: MIT */
/*
 * sysmap.c — route (c) to the task list (docs/design.md §3.3): a System.map
 * the user gives (ptfs -o system_map=FILE, ptfs-tool --system-map FILE).
 * It is nm's output for vmlinux (scripts/mksysmap in Linux): one
 * "ADDR TYPE NAME" line per symbol, ADDR in hex as linked, before KASLR,
 * so the runtime address is ADDR + KERNELOFFSET (VMCOREINFO,
 * kernel/crash_core.c; x86 kaslr_offset()).  Debian's linux-image packages
 * ship an 83-byte stub whose one line has spaces in its name: that is a
 * malformed line, one warning.  The read is bounded (bytes, lines, line
 * length, malformed lines) whatever the file holds.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux_int.h"

/* Linux 6.1 amd64 System.map: about 200,000 lines, 9 MiB. */
#define MAP_MAX_BYTES (256ull << 20)
#define MAP_MAX_LINES (1u << 22)
#define MAP_MAX_LINE 512u
/* This many malformed lines and the file is no System.map: the read stops. */
#define MAP_MAX_BAD 16u

/* "ADDR TYPE NAME": false when LINE is not one. */
static bool parse_line(char *line, uint64_t *addr, const char **name, bool *stext)
{
	char *p = line, *e;
	size_t nd = 0;

	*addr = 0;
	while (isxdigit((unsigned char)*p) && nd < 17) {
		*addr = *addr << 4 | (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10));
		p++;
		nd++;
	}
	if (!nd || nd > 16 || *p != ' ' || !isalpha((unsigned char)p[1]) || p[2] != ' ')
		return false;
	p += 3;
	e = p + strcspn(p, " \t\r\n");
	if (e == p || (*e && *e != '\r' && *e != '\n') || (*e && e[1] && e[1] != '\n'))
		return false;
	*e = 0;
	for (char *q = p; q < e; q++)
		if (!isgraph((unsigned char)*q))
			return false;
	*name = p;
	*stext = !strcmp(p, "_stext");
	return true;
}

/* F (closed here) read as the System.map PATH names. */
static pt_err read_map(FILE *f, const char *path, struct pt_sysmap *out)
{
	char line[MAP_MAX_LINE + 2];
	uint64_t bytes = 0;
	unsigned lineno = 0, bad = 0;

	while (fgets(line, sizeof line, f)) {
		size_t n = strlen(line);
		uint64_t a;
		const char *name;
		bool st, ok;

		lineno++;
		bytes += n;
		ok = n && memchr(line, 0, n) == NULL;
		/* a line past the bound: skip its rest, it is malformed */
		if (n == sizeof line - 1 && line[n - 1] != '\n') {
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n' && bytes < MAP_MAX_BYTES)
				bytes++;
			ok = false;
		}
		/* a NUL inside: fgets's strlen stopped there; the rest of the bytes are binary */
		if (ok && line[n - 1] != '\n' && !feof(f))
			ok = false;
		if (ok && parse_line(line, &a, &name, &st)) {
			for (unsigned i = 0; i < PT_KS__COUNT; i++)
				if (!out->sym[i] && !strcmp(name, pt_ksym_names[i]))
					out->sym[i] = a;
			if (st)
				out->stext = a;
			out->nsyms++;
		} else if (!bad++) {
			snprintf(out->warn, sizeof out->warn, "%s:%u: not an 'ADDR TYPE NAME' line", path, lineno);
		}
		if (bad >= MAP_MAX_BAD || lineno >= MAP_MAX_LINES || bytes >= MAP_MAX_BYTES) {
			snprintf(out->warn, sizeof out->warn, "%s:%u: %s: the read stopped there", path, lineno,
				 bad >= MAP_MAX_BAD ? "more than 16 lines that are not 'ADDR TYPE NAME'" :
				 lineno >= MAP_MAX_LINES ? "more than 2^22 lines" : "more than 256 MiB");
			break;
		}
	}
	if (ferror(f)) {
		snprintf(out->why, sizeof out->why, "%s: read error", path);
		fclose(f);
		return PT_E_IO;
	}
	fclose(f);
	if (bad && bad < MAP_MAX_BAD && strlen(out->warn) + 40 < sizeof out->warn)
		snprintf(out->warn + strlen(out->warn), sizeof out->warn - strlen(out->warn),
			 " (%u such lines, skipped)", bad);
	if (!out->sym[PT_KS_INIT_TASK])
		snprintf(out->why, sizeof out->why, "%s has no init_task (%u symbols read)", path, out->nsyms);
	return PT_OK;
}

pt_err pt_sysmap_read(const char *path, struct pt_sysmap *out)
{
	FILE *f = fopen(path, "rb");

	memset(out, 0, sizeof *out);
	if (!f) {
		snprintf(out->why, sizeof out->why, "%s: %s", path, strerror(errno));
		return PT_E_IO;
	}
	return read_map(f, path, out);
}

pt_err pt_sysmap_read_fd(int fd, const char *name, struct pt_sysmap *out)
{
	/* its own descriptor, from the start: the capture's stays open, wherever a read left it */
	int d = dup(fd);
	FILE *f = d < 0 || lseek(d, 0, SEEK_SET) < 0 ? NULL : fdopen(d, "rb");

	memset(out, 0, sizeof *out);
	if (!f) {
		snprintf(out->why, sizeof out->why, "%s: %s", name, strerror(errno));
		if (d >= 0)
			close(d);
		return PT_E_IO;
	}
	return read_map(f, name, out);
}
