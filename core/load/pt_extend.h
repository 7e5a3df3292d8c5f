/* SPDX-License-Identifier: MIT */
/*
 * pt_extend.h — what the layers above the load give a loaded capture, and
 * what a dump source hands them (docs/design.md §3.3, §6: the Linux
 * kernel's structures are read once the load is done, through kernel VAs,
 * and add their contexts then).
 *
 * A dump source notes the kernel's facts its notes hold (VMCOREINFO, each
 * vCPU's segment bases) with pt_loader_kernel_facts(); the load keeps them
 * with the capture; pt_load_opts.after_load (core/linux's pt_linux_expand)
 * reads them and adds its contexts with pt_capture_add_contexts().
 */
#ifndef PT_EXTEND_H
#define PT_EXTEND_H

/* The include rule (HACKING.md, "Layers"): the load layer's, for the sources and the linux layer. */
#if !defined(PT_LAYER_LOAD) && !defined(PT_LAYER_SOURCES) && !defined(PT_LAYER_LINUX) && !defined(PT_TESTING)
#error "pt_extend.h is internal to core/load, core/sources and core/linux (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_capture.h"
#include "pt_error.h"

/*
 * One vCPU's registers the task walk may use (QEMU target/i386/arch_dump.c
 * QEMUCPUState): the CS selector (its low 2 bits the CPL), the GS base and
 * KernelGSBase (MSR 0xC0000102, written only when the note's size holds it);
 * or the current task itself.  Indexed by the vCPU's index.
 */
struct pt_kernel_cpu {
	uint64_t gs_base, kernel_gs_base;
	uint32_t cs;
	bool has_gs, has_kgs;
	/*
	 * The running task's task_struct when a register holds it (arm64:
	 * SP_EL0 at EL1, arch/arm64/include/asm/current.h), and FROM, static,
	 * saying which ("SP_EL0 at EL1 from the gdbstub"); 0: not known.
	 */
	uint64_t current;
	const char *current_from;
};

struct pt_kernel_facts {
	char *vmcoreinfo;       /* NUL-terminated copy; NULL: the dump had no note */
	size_t vmcoreinfo_len;
	struct pt_kernel_cpu *cpu;
	size_t ncpu;
	const char *where;      /* "ELF core" */
	char *system_map;       /* pt_load_opts.system_map, copied; NULL: none */
	/* capture.ini's system_map key (load/dumpmem.c): its file open, -1: none; its name as written */
	int system_map_fd;
	char *system_map_key;
};

struct pt_loader;
/* Keeps a copy of VI (VILEN bytes, may be NULL) and the NCPU vCPUs' registers with the capture. */
pt_err pt_loader_kernel_facts(struct pt_loader *ld, const char *vi, size_t vilen,
			      const struct pt_kernel_cpu *cpu, size_t ncpu);
/*
 * Keeps FD (open, taken: closed with the capture, or now on an error) as
 * the kernel's System.map capture.ini names NAME (copied), with the facts
 * the source noted or new ones.  PT_E_NOMEM only.
 */
pt_err pt_loader_kernel_map(struct pt_loader *ld, int fd, const char *name);
/* What the source noted; NULL when nothing. */
const struct pt_kernel_facts *pt_capture_kernel_facts(const struct pt_capture *cap);

/*
 * The guest's PCI functions (pt_capture_pci()): copies the N devices D,
 * sorts them, keeps the first of those with one BDF, and keeps them with the capture in place of any set before.
 * WHERE is static.  pt_loader_pci() is the same for a source.  PT_E_NOMEM only.
 */
pt_err pt_capture_set_pci(struct pt_capture *cap, const struct pt_pci_dev *d, size_t n, const char *where,
			  bool drivers_known);
pt_err pt_loader_pci(struct pt_loader *ld, const struct pt_pci_dev *d, size_t n, const char *where,
		     bool drivers_known);

/* One context a layer above the load adds: the keys its format's section reads, and x- keys. */
/* arm64's process contexts: ttbr, half, granule, va_bits, pa_bits, ds, tbi, space */
#define PT_CTX_DEF_KEYS 8
struct pt_ctx_def {
	const char *format;     /* a format's name: "x86-64" */
	const char *name;
	const char *key[PT_CTX_DEF_KEYS];
	const char *val[PT_CTX_DEF_KEYS];
	unsigned nkeys;
	const struct pt_kv *ann;        /* copied */
	size_t nann;
};
/*
 * Appends the N contexts D to CAP's (after its own and its IOMMUs'): set up
 * by their formats' hooks as a capture.ini section would be, the sorted list
 * remade.  A name the capture has already, or keys the format refuses: that
 * context is left out with one warning.  PT_E_NOMEM only.
 */
pt_err pt_capture_add_contexts(struct pt_capture *cap, const struct pt_ctx_def *d, size_t n);
/*
 * A live capture: slots for EXTRA more contexts held now (at the load:
 * the arrays move), so that pt_capture_live_add_contexts() can add them
 * while other threads read the capture.  PT_E_NOMEM only.
 */
pt_err pt_capture_reserve_contexts(struct pt_capture *cap, size_t extra);
/*
 * Appends up to the free slots of the N contexts D as
 * pt_capture_add_contexts() does, but with readers on other threads: no
 * array moves, the new contexts set up before they are counted, and no
 * warning (one refused or past the room is left out).  *ADDED: how many.
 * One thread at a time (the refresh's).  PT_E_NOMEM only.
 */
pt_err pt_capture_live_add_contexts(struct pt_capture *cap, const struct pt_ctx_def *d, size_t n, size_t *added);
/*
 * Appends the x- key KEY = VALUE (both copied) to context NAME's
 * annotations (its info file's lines), or sets its value where NAME has
 * KEY already: what a layer above the load learnt about a context the
 * load made (the task a vCPU runs).  The annotations array is made anew:
 * not while other threads read the capture.  PT_E_NOTFOUND: no such
 * context; PT_E_NOMEM.
 */
pt_err pt_capture_annotate(struct pt_capture *cap, const char *name, const char *key, const char *value);
/*
 * A live capture: FN(CAP, UD, MSG, LEN) runs at each pt_capture_live_refresh(),
 * after the registers, to read again what the step after the load made;
 * UD is the capture's from here (FREE_FN frees it with the capture).
 * pt_capture_refresh_data() gives UD back (NULL: none).
 */
void pt_capture_set_refresh(struct pt_capture *cap, pt_err (*fn)(struct pt_capture *, void *, char *, size_t),
			    void *ud, void (*free_fn)(void *));
void *pt_capture_refresh_data(const struct pt_capture *cap);
/* Marks CAP's context C gone (pt_context_gone()): once, for good. */
void pt_context_set_gone(struct pt_capture *cap, const struct pt_context *c);
/* One more warning of the load. */
void pt_capture_add_warning(struct pt_capture *cap, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
