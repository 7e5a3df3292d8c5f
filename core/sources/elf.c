/* SPDX-License-Identifier: MIT */
/*
 * elf.c — the ELF core source (docs/design.md §3.2): QEMU dump-guest-memory,
 * Linux /proc/vmcore, makedumpfile -E.  The parser is src_elf.c; this file
 * maps the file once (the loader's one mmap per file, under the lease
 * guard), makes the whole file one member, and emits a [memory] section
 * per PT_LOAD as an offset/length window of it: nothing is copied, and a
 * guest's RAM costs no memory at mount however large it is.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "pt_extend.h"
#include "pt_source.h"
#include "pt_src_dump.h"

/* The member name the regions are windows of: the file name in safe characters. */
static void member_name(char *out, size_t len, const char *label)
{
	size_t n = 0;

	for (const char *b = label; *b && n + 1 < len; b++)
		out[n++] = (*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') || (*b >= '0' && *b <= '9') ||
			   *b == '.' || *b == '-' || *b == '_' ? *b : '_';
	if (!n || (n <= 2 && out[0] == '.' && out[n - 1] == '.'))
		out[n++] = '_';
	out[n] = 0;
}

/* What the task walk (core/linux) reads of the notes: VMCOREINFO and each vCPU's segment bases. */
static pt_err kernel_facts(struct pt_loader *ld, const struct pt_dump_facts *f)
{
	struct pt_kernel_cpu *c = f->ncpu ? calloc(f->ncpu, sizeof *c) : NULL;
	pt_err rc;

	if (f->ncpu && !c)
		return PT_E_NOMEM;
	for (size_t i = 0; i < f->ncpu && f->machine == PT_EM_X86_64; i++) {
		c[i].cs = f->cpu[i].cs;
		c[i].gs_base = f->cpu[i].gs_base;
		c[i].kernel_gs_base = f->cpu[i].kernel_gs_base;
		c[i].has_gs = true;
		c[i].has_kgs = f->cpu[i].has_kgs;
	}
	rc = pt_loader_kernel_facts(ld, f->vmcoreinfo, f->vmcoreinfo_len, c,
				    f->machine == PT_EM_X86_64 ? f->ncpu : 0);
	free(c);
	return rc;
}

pt_err pt_dump_emit(struct pt_loader *ld, const struct pt_dump_facts *f, const char *kind,
		    const char *label, const char *member, const struct pt_dump_region *r, size_t nr)
{
	struct pt_dump_facts g = *f;
	struct pt_buf text, warn;
	char err[1024];
	pt_err rc;

	pt_buf_init(&text);
	pt_buf_init(&warn);
	/*
	 * the memory of a capture.ini (load/dumpmem.c): its contexts may all
	 * be capture.ini's; or the caller wants memory only (roots)
	 */
	g.ctx_optional = pt_loader_as_memory(ld) || pt_loader_opts(ld)->memory_only;
	rc = pt_dump_ini(&g, kind, label, member, r, nr, &text, &warn, err, sizeof err);
	for (char *w = warn.data, *nl; w && (nl = strchr(w, '\n')); w = nl + 1) {
		*nl = 0;
		pt_loader_warn(ld, "%s", w);
	}
	if (rc)
		rc = pt_loader_fail(ld, rc, "%s", err);
	else if (pt_loader_emit_ini(ld, text.data, text.len, label) || kernel_facts(ld, f))
		rc = pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", label);
	pt_buf_free(&text);
	pt_buf_free(&warn);
	return rc;
}

static pt_err elf_load(struct pt_loader *ld, const struct pt_probe *p)
{
	const char *label = pt_path_base(p->path);
	uint64_t size = (uint64_t)p->st->st_size;
	struct pt_elf_core core;
	char err[1024], name[256];
	void *map;
	pt_err rc;

	/* A private view for parsing: the headers and notes only are read (and the bytes of overlaps). */
	map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, p->fd, 0);
	if (map == MAP_FAILED)
		return pt_loader_fail(ld, PT_E_IO, "%s: mmap: %s", p->path, strerror(errno));
	rc = pt_elf_parse(map, size, label, &core, err, sizeof err);
	if (rc) {
		rc = pt_loader_fail(ld, rc, "%s", err);
		goto out;
	}
	member_name(name, sizeof name, label);
	if (pt_loader_add_mapped(ld, name, p->fd, 0, size)) {
		rc = pt_loader_fail(ld, PT_E_IO, "%s: cannot map the file", p->path);
		goto out;
	}
	/*
	 * One [memory loadN] window of the mapping per segment, given as data:
	 * no capture.ini text to write, lex and check per segment, so 70,000
	 * PT_LOADs cost little more than their program headers (issue #34 item 9).
	 */
	for (size_t i = 0; i < core.nseg; i++) {
		char rname[32];

		snprintf(rname, sizeof rname, "load%" PRIu32, core.seg[i].phdr);
		if (pt_loader_add_window(ld, label, rname, "sysmem", core.seg[i].paddr, name, core.seg[i].offset,
					 core.seg[i].filesz)) {
			rc = pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", label);
			goto out;
		}
	}
	if (core.nempty)
		pt_loader_warn(ld, "%zu PT_LOAD segments without file bytes (p_offset -1 or p_filesz 0): "
			       "not captured", core.nempty);
	if (core.uncaptured)
		pt_loader_warn(ld, "0x%" PRIx64 " bytes of PT_LOAD segments past their p_filesz: not captured",
			       core.uncaptured);
	core.facts.tbi = pt_loader_opts(ld)->tbi;
	rc = pt_dump_emit(ld, &core.facts, "ELF core", label, name, NULL, 0);
out:
	pt_elf_core_free(&core);
	munmap(map, (size_t)size);
	return rc;
}

static int elf_bid(const struct pt_probe *p)
{
	if (p->fd < 0 || !S_ISREG(p->st->st_mode) || !p->head)
		return 0;
	return pt_elf_detect(p->head, p->head_len) ? 20 : 0;
}

const struct pt_source pt_source_elf = {
	.name = "elf",
	.kind = "ELF core",
	.bid = elf_bid,
	.load = elf_load,
	.dump = true,
};
