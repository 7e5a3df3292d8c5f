/* SPDX-License-Identifier: MIT */
/*
 * pt_src_dump.h — memory dumps as capture sources (docs/design.md §3.2): ELF cores
 * (QEMU dump-guest-memory, Linux /proc/vmcore, makedumpfile -E) and
 * kdump-compressed files.  Internal to core/.
 *
 * The parsing layer here is pure: bytes in, facts out (segments, the CPU
 * state of QEMU's notes, VMCOREINFO), every offset and size checked against
 * the bytes given, so nothing outside them is ever read.  It never prints:
 * an error is one line in the caller's buffer.  pt_dump_ini() turns the
 * facts into the capture.ini text the loader binds (the same schema checks
 * and binding as a capture archive).
 */
#ifndef PT_SRC_DUMP_H
#define PT_SRC_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"
#include "pt_buf.h"

/* e_machine values (the System V gABI; Linux include/uapi/linux/elf-em.h). */
#define PT_EM_386 3
#define PT_EM_X86_64 62
#define PT_EM_AARCH64 183

/*
 * QEMUCPUState (QEMU target/i386/arch_dump.c): version 1, the struct's
 * size at 4, CR3 at 416 and CR4 at 424; QEMU writes 432 bytes.
 */
#define PT_QEMU_CPUSTATE_VERSION 1
#define PT_QEMU_CPUSTATE_MIN 432
#define PT_QEMU_CR3_OFF 416
#define PT_QEMU_CR4_OFF 424

/* At most this many PT_LOAD segments with file bytes after joining contiguous ones. */
#define PT_ELF_MAX_SEGS 100000u

/* One vCPU's "QEMU" note. */
struct pt_dump_cpu {
	uint64_t cr3, cr4;
	uint64_t note_off;      /* file offset of the note's header */
	/* for the task walk (core/linux): CS selector at 0x98, GS base at 0x108, KernelGSBase at 0x1b0 */
	uint64_t gs_base, kernel_gs_base;
	uint32_t cs;
	bool has_kgs;           /* the note's size holds kernel_gs_base (QEMU >= 2.x writes 0x1b8) */
};

/* What a dump's notes say (ELF PT_NOTE, or a kdump file's note blob). */
struct pt_dump_facts {
	unsigned machine;       /* PT_EM_* */
	struct pt_dump_cpu *cpu;
	size_t ncpu, cpucap;
	size_t nprstatus;       /* "CORE" NT_PRSTATUS notes */
	const char *vmcoreinfo; /* into the caller's bytes; NULL when absent */
	size_t vmcoreinfo_len;
	uint64_t vmcoreinfo_off;/* file offset of its text */
	unsigned tbi;           /* the caller's TBI1 for an arm64 kernel context (pt_load_opts.tbi) */
	bool ctx_optional;      /* no context is no error: capture.ini beside the dump has them */
};

/* A PT_LOAD with file bytes: PADDR .. PADDR+FILESZ from file offset OFFSET. */
struct pt_elf_seg {
	uint64_t paddr, offset, filesz;
	uint32_t phdr;          /* index of its (first) program header */
	uint32_t joined;        /* further contiguous headers joined into it */
};

struct pt_elf_core {
	struct pt_dump_facts facts;
	struct pt_elf_seg *seg; /* sorted by paddr */
	size_t nseg;
	uint64_t phnum;         /* program headers (from section 0's sh_info under PN_XNUM) */
	bool xnum;              /* PN_XNUM was used */
	size_t nloads;          /* PT_LOAD headers */
	size_t nempty;          /* PT_LOAD without file bytes (p_filesz 0 or p_offset -1): skipped */
	size_t nmerged;         /* PT_LOAD wholly inside another with the same bytes: merged */
	uint64_t uncaptured;    /* bytes of [p_filesz, p_memsz) of segments with file bytes: not in the file */
};

/* True if the N bytes at P start an ELF ET_CORE file. */
bool pt_elf_detect(const void *p, size_t n);

/*
 * Parses the SIZE bytes at P as an ELF64 little-endian ET_CORE: its program
 * headers, segments and notes.  LABEL names the file in errors
 * ("LABEL: PT_LOAD 3 ...").  Free with pt_elf_core_free() (also on error).
 */
pt_err pt_elf_parse(const uint8_t *p, uint64_t size, const char *label,
		    struct pt_elf_core *core, char *err, size_t errlen);
void pt_elf_core_free(struct pt_elf_core *core);

/*
 * Walks LEN bytes of ELF notes at P (FILE_OFF: their offset in the file,
 * for messages and x-source) into F.  WHERE names them in errors
 * ("LABEL: PT_NOTE 0").
 */
pt_err pt_dump_notes(const uint8_t *p, uint64_t len, uint64_t file_off, const char *where,
		     struct pt_dump_facts *f, char *err, size_t errlen);

/* The value of VMCOREINFO line KEY=VALUE (KEY as "SYMBOL(init_top_pgt)") into OUT; false if absent. */
bool pt_vmcoreinfo_get(const struct pt_dump_facts *f, const char *key, char *out, size_t outlen);

/* A [memory] section of the generated capture.ini: LENGTH bytes at BASE from OFFSET of the member. */
struct pt_dump_region {
	char name[32];
	uint64_t base, offset, length;
};

/*
 * The capture.ini text of a dump: format x86-64, the regions as windows of
 * member MEMBER, a [cpu cpuN] context per QEMU note (x86-64 dumps only) and
 * [cpu kernel] from VMCOREINFO, each with an x-source line saying where its
 * root came from.  KIND names the source ("ELF core").  Warnings (contexts
 * the dump cannot give) go to WARN, one per line.  PT_E_CAPTURE with ERR
 * when the dump gives no context at all.
 */
pt_err pt_dump_ini(const struct pt_dump_facts *f, const char *kind, const char *label,
		   const char *member, const struct pt_dump_region *r, size_t nr,
		   struct pt_buf *out, struct pt_buf *warn, char *err, size_t errlen);

/*
 * The sources' end (elf.c): emits pt_dump_ini()'s text through the loader,
 * every line from LABEL, and its warnings.
 */
struct pt_loader;
pt_err pt_dump_emit(struct pt_loader *ld, const struct pt_dump_facts *f, const char *kind,
		    const char *label, const char *member, const struct pt_dump_region *r, size_t nr);

#endif
