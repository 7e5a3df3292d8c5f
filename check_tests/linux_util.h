/*
 * linux_util: a synthetic Linux guest for the task walk (test_linux.c),
 * written at test time, never through the code under test: its BTF made
 * with libbpf's writer (btf__new_empty, btf__add_struct, ..., btf__raw_data),
 * its task_struct, mm_struct and signal_struct laid out as that BTF says,
 * kallsyms tables in scripts/kallsyms.c's layout (one token per byte value),
 * VMCOREINFO naming them, an x86-64 kernel direct map, process page tables
 * (PTI's 8 KiB PGD pairs where asked), and the ELF core of it all
 * (elf_util.c) with a QEMU note per vCPU.
 */
#ifndef LINUX_UTIL_H
#define LINUX_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LU_PAGE_OFFSET 0xffff888000000000ull   /* the direct map (no KASLR) */
#define LU_A64_PAGE_OFFSET 0xffff000000000000ull   /* arm64's linear map, 48-bit VA (no KASLR) */
#define LU_RAM (16u << 20)
#define LU_BTF_PA 0x300000ull
#define LU_USER_VA 0x400000ull                 /* each process maps one page here */
#define LU_SHARED_VA 0x401000ull               /* with shared: pid 50's view of pid 1's page */
#define LU_USER_PA(pid) (0x800000ull + 0x1000ull * (pid))

/* Where the guest keeps what a test changes under a live capture (linux_util.c's layout). */
#define LU_T_TASKS 0x100u                      /* task_struct.tasks */
#define LU_T_MM 0x120u                         /* task_struct.mm */
#define LU_TASK0 0x20000ull                    /* init_task (swapper/0) */
#define LU_TASK2 0x22000ull                    /* kthreadd: its tasks.next is pid 50's */
#define LU_TASK50 0x23000ull
#define LU_MM1 0x40000ull                      /* init's mm */

enum lu_hostile {
	LU_SANE,
	LU_LOOP,        /* the last task's next is task pid 1 again: a cycle skipping init_task */
	LU_OUTSIDE,     /* the second task's next points outside RAM */
	LU_COMM,        /* pid 50's comm holds control bytes */
};

enum lu_pci {
	LU_PCI_NONE,    /* pci_root_buses is an empty list */
	LU_PCI,         /* two buses, three functions (linux_util.c pci()) */
	LU_PCI_LOOP,    /* bus 0's last function links back to its first, never to the head */
	LU_PCI_OUTSIDE, /* bus 1's device list points outside RAM */
};

struct lu_opts {
	bool pti;               /* pid 50's PGD is a PTI pair (user copy at +4 KiB) */
	bool note_vi;           /* VMCOREINFO as the dump's note */
	bool ram_vi;            /* VMCOREINFO in a RAM page (what crash_core.c keeps) */
	bool kallsyms;          /* VMCOREINFO names the kallsyms tables */
	bool gs;                /* the QEMU note's GS base is cpu0's per-CPU area */
	bool user_mode;         /* with gs: cpu0 stopped at CPL 3, the kernel's base in KernelGSBase */
	bool no_btf;
	bool btf_copy;          /* a second, identical copy of the BTF lower in RAM */
	bool split_btf;         /* a module's split BTF in RAM too */
	enum lu_hostile hostile;
	bool idle;              /* cpu0 runs its idle task (swapper/0), not pid 51 */
	bool shared;            /* pid 50 maps pid 1's page too, at LU_SHARED_VA */
	const char *comm50;     /* pid 50's and 51's comm (NULL: "worker") */
	bool mm50_moved;        /* pid 50's mm_struct at another address (a new address space) */
	uint64_t kernel_offset; /* VMCOREINFO's KERNELOFFSET (the KASLR slide; the guest is where it is) */
	bool cr3_50;            /* cpu0's CR3 is pid 50's PGD (a vCPU running it; note_vi gives the kernel's) */
	enum lu_pci pci;
	unsigned pci_domain;    /* bus 0's pci_sysdata.domain */
	/* Many processes (bench/mktasks): with nprocs, that many more after pid 50. */
	unsigned nprocs;        /* single-threaded processes "sleep", pid 100 on, children of init */
	unsigned npriv;         /* private pages each (0: 16), PAs strided so that each is a run */
	unsigned nshared;       /* pages every one of them maps read-only, as a shared text (0: 32) */
	uint64_t ram;           /* RAM bytes at least (0: LU_RAM; rounded up to 2 MiB, at most 1 GiB) */
	/*
	 * An arm64 guest (an aarch64 ELF core, no QEMU notes: its kernel
	 * context from VMCOREINFO's swapper_pg_dir, so note_vi is needed):
	 * the linear map at LU_A64_PAGE_OFFSET through TTBR1, VMSAv8-64 4 KiB
	 * descriptors, kallsyms base-relative without ABSOLUTE_PERCPU; init_task's
	 * task list doubly linked (route d checks tasks.prev).  Not with
	 * pti, gs, hostile, pci or nprocs.
	 */
	bool arm64;
	bool text_syms;         /* kallsyms of text symbols only (no CONFIG_KALLSYMS_ALL: Debian's arm64) */
	bool init_copy;         /* a stale copy of init_task below it (the first "swapper/0" a scan meets) */
};

/*
 * Where the many processes live (above LU_RAM): the shared pages (mapped
 * in reverse order), one page per group of 16 processes (their shared
 * writable page, as after fork), each process's six pages (task_struct,
 * signal_struct and mm_struct, PGD, PDPT, PD, PT) and the private pages,
 * process I's page J at PRIV + (J * nprocs + I) * 4 KiB.  VA: the shared
 * pages from LU_USER_VA, then the group page, then the private pages.
 */
struct lu_many {
	uint64_t shared, group, procs, priv, ram;
	unsigned npriv, nshared;
};
#define LU_MANY_BASE 0x1000000ull
#define LU_MANY_PID0 100u
void lu_many_layout(const struct lu_opts *o, struct lu_many *l);
/* RAM bytes of the guest O describes (LU_RAM unless O asks for more). */
uint64_t lu_ram_size(const struct lu_opts *o);

/* The vmlinux-like BTF (task_struct, mm_struct with pgd in an anonymous struct, .data..percpu). */
uint8_t *lu_btf(size_t *len);
/* The same with EXTRA more structs (a larger blob). */
uint8_t *lu_btf_n(size_t *len, unsigned extra);
/* A module's split BTF on top of lu_btf()'s. */
uint8_t *lu_btf_split(size_t *len);
/* RAM (lu_ram_size() bytes) of the guest O describes. */
uint8_t *lu_ram(const struct lu_opts *o);
/* The guest's System.map (malloc'd text): its addresses KERNEL_OFFSET below where they are. */
char *lu_system_map(uint64_t kernel_offset);
/* The same for the guest O describes (its arm64 flag, its kernel_offset). */
char *lu_system_map_of(const struct lu_opts *o);
/* The ELF core of that guest; *LEN its size. */
uint8_t *lu_core(const struct lu_opts *o, size_t *len);
/*
 * The same around RAM (lu_ram(O)'s); with RAM NULL its headers and notes,
 * the segment left zero: RAM then goes at eu_seg_offset(0) (bench/mktasks
 * writes it there with holes, never holding two copies of a large guest).
 */
uint8_t *lu_core_of(const struct lu_opts *o, const uint8_t *ram, size_t *len);

#endif
