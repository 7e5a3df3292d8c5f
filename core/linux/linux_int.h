/* SPDX-License-Identifier: MIT */
/*
 * linux_int.h — what the linux layer's files share (internal to core/linux/,
 * docs/design.md §3.3): the kernel's BTF found in captured memory and parsed
 * by libbpf, VMCOREINFO and kallsyms, and reads of kernel virtual addresses
 * through a kernel context's tables.
 *
 *   btf.c    the scan for vmlinux BTF, its validity test, offsets by name
 *   ksyms.c  VMCOREINFO text (a dump's note or a page of RAM), kallsyms
 *   tasks.c  the task list, each process's root
 *   procs.c  the pidN contexts
 *   pstable.c the ps-like table (mnt/tasks, ptfs-tool tasks)
 *   pci.c    the PCI functions on pci_root_buses, their names (libpci)
 *   sysmap.c a System.map the user gives (route c)
 *   linux.c  the step after the load: the routes in order, what was missing
 */
#ifndef PT_LINUX_INT_H
#define PT_LINUX_INT_H

#if !defined(PT_LAYER_LINUX) && !defined(PT_TESTING)
#error "linux_int.h is internal to core/linux (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_buf.h"
#include "pt_capture.h"
#include "pt_error.h"
#include "pt_mem.h"

struct btf;

/*
 * struct btf_header (Linux include/uapi/linux/btf.h): magic 0xeb9f, version
 * 1, hdr_len, then type_off/type_len/str_off/str_len relative to the end of
 * the header.  pahole writes hdr_len 24, type_off 0 and the strings right
 * after the types (str_off == type_len): vmlinux BTF always looks so, and
 * the test rejects most stray copies of the magic.
 */
#define PT_BTF_HDR_LEN 24
/* vmlinux BTF is 4-5 MiB (Debian 6.1-6.12); anything past this is no kernel's. */
#define PT_BTF_MAX_SIZE (64u << 20)
/* Raw magic hits examined before the scan gives up on the rest (one warning). */
#define PT_BTF_MAX_HITS 4096u

/* One captured range of physical memory the scan reads. */
struct pt_pa_range {
	uint64_t base, size;
};

/* What the scan found. */
struct pt_btf {
	struct btf *btf;        /* libbpf's; NULL: none chosen */
	uint64_t pa;            /* where the chosen blob starts */
	uint64_t size;          /* its bytes (header included) */
	unsigned hits;          /* raw magic hits */
	unsigned valid;         /* hits that passed the header test */
	unsigned base;          /* of those, base BTF with task_struct */
	bool truncated;         /* PT_BTF_MAX_HITS reached */
};

/*
 * True when the 24 bytes at H are a header vmlinux BTF would have and the
 * blob (header, types, strings) fits in AVAIL bytes and PT_BTF_MAX_SIZE;
 * its size in *TOTAL.
 */
bool pt_btf_header_ok(const uint8_t *h, uint64_t avail, uint64_t *total);
/*
 * Parses the SIZE bytes at P with libbpf (btf__new; it copies them) as
 * base BTF holding struct task_struct: NULL otherwise (split BTF of a
 * module, hostile counts, anything libbpf refuses).  Never prints.
 */
struct btf *pt_btf_parse(const void *p, size_t size);
/*
 * Scans the N ranges of SPACE in MEM for BTF: the largest blob that passes
 * pt_btf_header_ok() and pt_btf_parse(), the first of equal sizes.
 * OUT->btf NULL when none does.  PT_E_NOMEM only.
 */
pt_err pt_btf_scan(const struct pt_mem *mem, unsigned space, const struct pt_pa_range *r, size_t n,
		   struct pt_btf *out);
void pt_btf_free(struct pt_btf *b);
/*
 * Byte offset of member MEMBER in struct (or union) NAME, looking through
 * anonymous members (mm_struct.pgd sits in one); -1 when either is not
 * there or the member is a bitfield.
 */
int64_t pt_btf_member(const struct btf *btf, const char *name, const char *member);
/* Byte size of struct NAME; -1 when not there. */
int64_t pt_btf_struct_size(const struct btf *btf, const char *name);
/* Offset of per-CPU variable VAR in DATASEC .data..percpu; -1 when not there. */
int64_t pt_btf_percpu(const struct btf *btf, const char *var);

/* ---- kernel virtual addresses (ksyms.c) ---- */

/* Reads of kernel VAs through a kernel context's tables, one page cached. */
struct pt_kmem {
	const struct pt_context *ctx;   /* the kernel's tables: [cpu kernel] or a cpuN */
	uint64_t page_va;               /* cached page; UINT64_MAX: none */
	uint64_t page_pa;
	unsigned space;
	unsigned reads;                 /* walks done */
};
void pt_kmem_init(struct pt_kmem *k, const struct pt_context *ctx);
/* LEN bytes at kernel VA into BUF: false when a page is not mapped or not captured. */
bool pt_kmem_read(struct pt_kmem *k, uint64_t va, void *buf, size_t len);
bool pt_kmem_u64(struct pt_kmem *k, uint64_t va, uint64_t *v);
/* The physical address of VA (its space in *SPACE): false when not mapped. */
bool pt_kmem_pa(struct pt_kmem *k, uint64_t va, uint64_t *pa, unsigned *space);

/*
 * The captured ranges of SPACE (sysmem) in *OUT (malloc'd; NULL: no
 * memory), clipped to what the kernel context KC maps: where the BTF and
 * init_task scans look.  Their count.
 */
size_t pt_kernel_ranges(const struct pt_capture *cap, const struct pt_context *kc, unsigned space,
			struct pt_pa_range **out);

/* ---- VMCOREINFO and kallsyms (ksyms.c) ---- */

/* The value of line KEY=VALUE of VMCOREINFO text VI (LEN bytes) into OUT; false when absent. */
bool pt_vi_get(const char *vi, size_t len, const char *key, char *out, size_t outlen);
/* SYMBOL(NAME)=hex of VI in *V. */
bool pt_vi_symbol(const char *vi, size_t len, const char *name, uint64_t *v);
/*
 * VMCOREINFO text in RAM (kernel/crash_core.c keeps it in a zeroed page,
 * vmcoreinfo_data): the first page of the N ranges that starts
 * "OSRELEASE=", its text (up to the first NUL) into a malloc'd *OUT.
 */
bool pt_vi_find_ram(const struct pt_mem *mem, unsigned space, const struct pt_pa_range *r, size_t n,
		    char **out, size_t *outlen, uint64_t *pa);

/* The symbols the task walk wants, from kallsyms; 0 when not found. */
enum { PT_KS_INIT_TASK, PT_KS_PER_CPU_OFFSET, PT_KS_START_BTF, PT_KS_STOP_BTF, PT_KS_CURRENT_TASK,
       PT_KS_PCPU_HOT, PT_KS_PCI_ROOT_BUSES, PT_KS__COUNT };
extern const char *const pt_ksym_names[PT_KS__COUNT];
/*
 * Decodes the kallsyms tables VMCOREINFO (VI) points at (Linux >= 6.0:
 * kernel/crash_core.c SYMBOL(kallsyms_*)) through K, looking for
 * pt_ksym_names: their addresses in OUT.  False with one line in WHY when
 * the tables are not there or not readable.  Bounded by the symbol count.
 */
bool pt_ksyms_decode(struct pt_kmem *k, const char *vi, size_t len, uint64_t out[PT_KS__COUNT],
		     unsigned *nsyms, char *why, size_t wlen);

/* ---- a System.map the user gives (sysmap.c) ---- */

struct pt_sysmap {
	uint64_t sym[PT_KS__COUNT];     /* pt_ksym_names as linked (before KASLR); 0: absent */
	uint64_t stext;                 /* _stext as linked; 0: absent */
	unsigned nsyms;                 /* well-formed lines */
	char warn[320];                 /* "FILE:LINE: ..." the first malformed line, or why the read stopped */
	char why[320];                  /* why the map gives no route ("": init_task is there) */
};
/*
 * Reads the System.map at PATH ("ADDR TYPE NAME" lines, bounded in bytes,
 * lines, line length and malformed lines): pt_ksym_names and _stext into
 * OUT.  PT_E_IO (OUT->why says it) when PATH cannot be read; otherwise
 * PT_OK with OUT->warn / OUT->why set as the file deserves.
 */
pt_err pt_sysmap_read(const char *path, struct pt_sysmap *out);
/* The same from FD, from its start (read through a copy: FD stays open), NAME in the messages. */
pt_err pt_sysmap_read_fd(int fd, const char *name, struct pt_sysmap *out);

/* ---- tasks (tasks.c) ---- */

/* task_struct.flags (include/linux/sched.h): a kernel thread, an idle task */
#define PT_PF_KTHREAD 0x00200000u
#define PT_PF_IDLE 0x00000002u

/* More tasks than this on one list is a loop or no kernel's (PID_MAX_LIMIT is 2^22). */
#define PT_TASKS_MAX (1u << 22)

/* Byte offsets from BTF; -1: the kernel has no such member. */
struct pt_task_off {
	int64_t state, flags, tasks, mm, pid, tgid, group_leader, real_parent, comm, signal;
	int64_t thread_node, thread_head, pgd;
};
/* The offsets the walk needs: false with the first missing "struct.member" in MISSING. */
bool pt_task_offsets(const struct btf *btf, struct pt_task_off *o, char *missing, size_t mlen);

struct pt_task {
	uint64_t addr, mm, pgd, pgd_pa;
	uint64_t root;          /* the table the CPU walks in user mode (pgd_pa, or PTI's user copy) */
	uint32_t pid, tgid, ppid, flags, state;
	unsigned threads;       /* 0: not counted */
	int cpu;                /* the vCPU running it; -1: none */
	unsigned space;         /* of pgd_pa */
	bool pti;               /* root is not pgd_pa: x86-64 PTI's user copy 4 KiB above */
	char comm[17];
};
struct pt_tasks {
	struct pt_task *t;
	size_t n, cap;
	char problem[160];      /* why the walk stopped early ("": it came back to its start) */
};
/* The fields of the task at T into OUT (threads counted, cpu -1): false when unreadable. */
bool pt_task_read(struct pt_kmem *k, const struct pt_task_off *o, uint64_t t, struct pt_task *out);
/* A process a live guest's refresh found with no context (started since the mount): a row of tasks. */
struct pt_task_row {
	uint32_t pid, ppid;
	unsigned threads;
	uint64_t root;          /* the PGD the CPU walks in user mode */
	char comm[80];          /* escaped */
};
/* A copy of those rows (by pid) into *OUT (free() it): their count; 0 for a dump. */
size_t pt_linux_new_rows(const struct pt_capture *cap, struct pt_task_row **out);

/* The leaders on the tasks list from task START (init_task), bounded. PT_E_NOMEM only. */
pt_err pt_task_list(struct pt_kmem *k, const struct pt_task_off *o, uint64_t start, struct pt_tasks *out);
void pt_tasks_free(struct pt_tasks *t);
/*
 * Route (d), when no symbol names init_task (arm64's kallsyms hold text
 * symbols only): a scan of the N ranges of SPACE for the comm
 * "swapper/0", each hit checked as init_task (pid 0, no mm, a kernel
 * thread, its own group leader, linked back by its task list through K's
 * walk), bounded in hits.  *VA its kernel VA (0: none found), *PA where it
 * is.  PT_E_NOMEM only.
 */
pt_err pt_task_find_init(struct pt_kmem *k, const struct pt_task_off *o, unsigned space,
			 const struct pt_pa_range *r, size_t n, uint64_t *va, uint64_t *pa);
/*
 * T's mm->pgd, its physical address and the user root (the kernel
 * context's format's user_keys): PT_E_VALUE for a kernel thread,
 * PT_E_CAPTURE when unreadable or no table the format can walk.
 */
pt_err pt_task_pgd(struct pt_kmem *k, const struct pt_task_off *o, struct pt_task *t);

/* ---- PCI functions (pci.c) ---- */

/* More PCI functions (or buses) than this is a loop or no machine's: 256 buses x 256 devfns. */
#define PT_PCI_MAX 65536u

/* Byte offsets from BTF; -1: the kernel has no such member (bus_sysdata, bus_domain_nr, sysdata_domain). */
struct pt_pci_off {
	int64_t bus_node, bus_children, bus_devices, bus_number, bus_sysdata, bus_domain_nr, sysdata_domain;
	int64_t dev_bus_list, dev_devfn, dev_vendor, dev_device, dev_class, dev_dev, device_driver, driver_name;
};
/* The offsets the walk needs: false with the first missing "struct.member" in MISSING. */
bool pt_pci_offsets(const struct btf *btf, struct pt_pci_off *o, char *missing, size_t mlen);

struct pt_pci_devs {
	struct pt_pci_dev *dev;
	size_t n, cap;
	char problem[160];      /* why the walk stopped early ("": every list came back to its head) */
};
/*
 * The functions on every bus reachable from the list head ROOTS
 * (pci_root_buses), bounded by PT_PCI_MAX buses and functions; a pointer
 * outside captured RAM stops the walk (PROBLEM says where), what was read
 * is kept.  PT_E_NOMEM only.
 */
pt_err pt_pci_walk(struct pt_kmem *k, const struct pt_pci_off *o, uint64_t roots, struct pt_pci_devs *out);
void pt_pci_devs_free(struct pt_pci_devs *d);
/*
 * The walk from ROOTS (pci_root_buses' address; 0: none) kept with CAP
 * (pt_capture_set_pci()), with one warning when the BTF, the address or a
 * pointer of the lists is missing.  PT_E_NOMEM only.
 */
pt_err pt_pci_expand(struct pt_capture *cap, struct pt_kmem *k, const struct btf *btf, uint64_t roots);

/*
 * One run of the step (linux.c pt_linux_expand(), or a live refresh):
 * what the routes found, the kernel's reads, the BTF and its offsets.
 */
struct pt_lx {
	struct pt_capture *cap;
	const struct pt_kernel_facts *kf;
	struct pt_kmem k;
	const char *vi;
	size_t vilen;
	char *vi_owned;
	char vi_where[96];
	uint64_t sym[PT_KS__COUNT];
	bool have_syms;
	char ks_why[256];
	bool map_syms;          /* sym[] came from the user's System.map (route c) */
	char map_where[200];
	struct pt_btf btf;
	char btf_where[96];
	struct pt_task_off off;
	int64_t cur_off;        /* per-CPU offset of the current task pointer; -1: unknown */
	char route[160];
	size_t ncpu;            /* vCPUs whose per-CPU base may be read (the dump's notes, a live guest's cpuN) */
	const struct pt_load_opts *opts;   /* task: one process only */
	/* route (d): where to look for init_task; what it found (0: not run, or nothing) */
	const struct pt_pa_range *r;
	size_t nr;
	unsigned space;
	uint64_t init_found, init_pa;
};
/*
 * A context pidN per user address space of TL (procs.c).  LATER: a live
 * guest's refresh adding the processes started since (a name the capture
 * has is skipped).
 */
pt_err pt_lx_add_contexts(struct pt_lx *s, struct pt_tasks *tl, bool later);

#endif
