/*
 * linux_util.c — the synthetic Linux guest of linux_util.h.  Offsets are
 * this file's own choice, written into the BTF it makes: the code under
 * test must find them there (no two kernels agree on them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "elf_util.h"
#include "linux_util.h"

/* The layout this guest's BTF describes. */
enum {
	T_SIZE = 0x1000, T_STATE = 24, T_FLAGS = 44, T_TASKS = 0x100, T_MM = 0x120, T_PID = 0x140,
	T_TGID = 0x144, T_LEADER = 0x148, T_PARENT = 0x150, T_COMM = 0x160, T_SIGNAL = 0x180,
	T_TNODE = 0x190, S_THEAD = 16, MM_ANON = 64, MM_PGD = 8, PCPU_CURRENT = 0x100,
	/* PCI (not Linux's offsets: drivers/pci/probe.c's lists, include/linux/pci.h's fields) */
	B_NODE = 8, B_CHILDREN = 32, B_DEVICES = 56, B_SYSDATA = 80, B_NUMBER = 200, SD_DOMAIN = 4,
	D_BUS_LIST = 16, D_DEVFN = 40, D_VENDOR = 48, D_DEVICE = 52, D_CLASS = 60, D_DEV = 128, DV_DRIVER = 72,
	DRV_NAME = 8,
};

/* The direct (linear) map's base: x86-64's, or arm64's while an arm64 guest is made. */
static uint64_t dm_base = LU_PAGE_OFFSET;
#define DM(pa) (dm_base + (uint64_t)(pa))
#define PF_KTHREAD 0x00200000u

/* RAM addresses of the guest's objects. */
enum {
	PML4 = 0x1000, PDPT = 0x2000, PD = 0x3000, PCPU0 = 0x10000, PCPU_OFFSETS = 0x11000,
	TASK0 = 0x20000, TASK1 = 0x21000, TASK2 = 0x22000, TASK50 = 0x23000, TASK51 = 0x24000,
	SIG1 = 0x30000, SIG50 = 0x31000, MM1 = 0x40000, MM50 = 0x41000, MM50_MOVED = 0x42000,
	PGD1 = 0x100000, PGD50 = 0x102000, KS = 0x500000, VI_PAGE = 0x600000,
	SPLIT_PA = 0x2f0000, COPY_PA = 0x280000,
	PCI_ROOTS = 0x700000, BUS0 = 0x701000, BUS1 = 0x702000, SYSDATA = 0x703000, DEV_HB = 0x704000,
	DEV_NVME = 0x705000, DEV_NIC = 0x706000, DRV_NVME = 0x707000, DRV_NIC = 0x707100, NAMES = 0x707800,
};

/* struct pci_bus, pci_sysdata, pci_dev, device and device_driver: the members the PCI walk reads. */
static void pci_btf(struct btf *b, int ti, int tl)
{
	int lh = btf__find_by_name_kind(b, "list_head", BTF_KIND_STRUCT);
	int u8 = btf__add_int(b, "unsigned char", 1, 0), u16 = btf__add_int(b, "short unsigned int", 2, 0);
	int dev = btf__add_struct(b, "device", 128);

	btf__add_field(b, "driver", tl, DV_DRIVER * 8, 0);
	btf__add_struct(b, "device_driver", 64);
	btf__add_field(b, "name", tl, DRV_NAME * 8, 0);
	btf__add_struct(b, "pci_sysdata", 16);
	btf__add_field(b, "domain", ti, SD_DOMAIN * 8, 0);
	btf__add_struct(b, "pci_bus", 256);
	btf__add_field(b, "node", lh, B_NODE * 8, 0);
	btf__add_field(b, "children", lh, B_CHILDREN * 8, 0);
	btf__add_field(b, "devices", lh, B_DEVICES * 8, 0);
	btf__add_field(b, "sysdata", tl, B_SYSDATA * 8, 0);
	btf__add_field(b, "number", u8, B_NUMBER * 8, 0);
	btf__add_struct(b, "pci_dev", 512);
	btf__add_field(b, "bus_list", lh, D_BUS_LIST * 8, 0);
	btf__add_field(b, "devfn", ti, D_DEVFN * 8, 0);
	btf__add_field(b, "vendor", u16, D_VENDOR * 8, 0);
	btf__add_field(b, "device", u16, D_DEVICE * 8, 0);
	btf__add_field(b, "class", ti, D_CLASS * 8, 0);
	btf__add_field(b, "dev", dev, D_DEV * 8, 0);
}

static struct btf *base_btf(unsigned extra)
{
	struct btf *b = btf__new_empty();
	int ti, tu, tl, tc, comm, lh, anon, var, ds;

	ti = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	tu = btf__add_int(b, "unsigned int", 4, 0);
	tl = btf__add_int(b, "long unsigned int", 8, 0);
	tc = btf__add_int(b, "char", 1, BTF_INT_CHAR);
	comm = btf__add_array(b, ti, tc, 16);
	lh = btf__add_struct(b, "list_head", 16);
	btf__add_field(b, "next", tl, 0, 0);
	btf__add_field(b, "prev", tl, 64, 0);
	btf__add_struct(b, "task_struct", T_SIZE);
	btf__add_field(b, "__state", tu, T_STATE * 8, 0);
	btf__add_field(b, "flags", tu, T_FLAGS * 8, 0);
	btf__add_field(b, "tasks", lh, T_TASKS * 8, 0);
	btf__add_field(b, "mm", tl, T_MM * 8, 0);
	btf__add_field(b, "pid", ti, T_PID * 8, 0);
	btf__add_field(b, "tgid", ti, T_TGID * 8, 0);
	btf__add_field(b, "group_leader", tl, T_LEADER * 8, 0);
	btf__add_field(b, "real_parent", tl, T_PARENT * 8, 0);
	btf__add_field(b, "comm", comm, T_COMM * 8, 0);
	btf__add_field(b, "signal", tl, T_SIGNAL * 8, 0);
	btf__add_field(b, "thread_node", lh, T_TNODE * 8, 0);
	btf__add_struct(b, "signal_struct", 64);
	btf__add_field(b, "nr_threads", ti, 0, 0);
	btf__add_field(b, "thread_head", lh, S_THEAD * 8, 0);
	/* mm_struct { int mm_users; ...; struct { int mm_count; unsigned long pgd; }; } (anonymous) */
	anon = btf__add_struct(b, NULL, 16);
	btf__add_field(b, "mm_count", ti, 0, 0);
	btf__add_field(b, "pgd", tl, MM_PGD * 8, 0);
	btf__add_struct(b, "mm_struct", 256);
	btf__add_field(b, "mm_users", ti, 0, 0);
	btf__add_field(b, NULL, anon, MM_ANON * 8, 0);
	/* a bitfield member: never an offset */
	btf__add_struct(b, "pcpu_hot", 16);
	btf__add_field(b, "preempt", tu, 0, 3);
	pci_btf(b, ti, tl);
	var = btf__add_var(b, "current_task", BTF_VAR_GLOBAL_ALLOCATED, tl);
	ds = btf__add_datasec(b, ".data..percpu", 0x200);
	btf__add_datasec_var_info(b, var, PCPU_CURRENT, 8);
	(void)ds;
	for (unsigned i = 0; i < extra; i++) {
		char name[32];

		snprintf(name, sizeof name, "extra_%u", i);
		btf__add_struct(b, name, 8);
		btf__add_field(b, "v", tl, 0, 0);
	}
	return b;
}

static uint8_t *raw(const struct btf *b, size_t *len)
{
	uint32_t n;
	const void *p = btf__raw_data(b, &n);
	uint8_t *out = malloc(n);

	memcpy(out, p, n);
	*len = n;
	return out;
}

uint8_t *lu_btf(size_t *len)
{
	return lu_btf_n(len, 0);
}

uint8_t *lu_btf_n(size_t *len, unsigned extra)
{
	struct btf *b = base_btf(extra);
	uint8_t *r = raw(b, len);

	btf__free(b);
	return r;
}

uint8_t *lu_btf_split(size_t *len)
{
	struct btf *base = base_btf(0), *s = btf__new_empty_split(base);
	uint8_t *r;

	btf__add_struct(s, "task_struct_module_view", 8);
	btf__add_field(s, "x", 1, 0, 0);
	r = raw(s, len);
	btf__free(s);
	btf__free(base);
	return r;
}

static void put32(uint8_t *m, uint64_t pa, uint32_t v)
{
	eu_put32(m + pa, v);
}

static void put64(uint8_t *m, uint64_t pa, uint64_t v)
{
	eu_put64(m + pa, v);
}

static void task(uint8_t *m, uint64_t at, uint32_t pid, uint32_t tgid, uint32_t flags, uint64_t mm,
		 const char *comm, uint64_t leader, uint64_t parent, uint64_t sig, uint64_t next)
{
	put32(m, at + T_PID, pid);
	put32(m, at + T_TGID, tgid);
	put32(m, at + T_FLAGS, flags);
	put32(m, at + T_STATE, pid == 50 ? 0 : 1);
	put64(m, at + T_MM, mm ? DM(mm) : 0);
	memcpy(m + at + T_COMM, comm, strlen(comm) < 16 ? strlen(comm) : 15);
	put64(m, at + T_LEADER, DM(leader));
	put64(m, at + T_PARENT, DM(parent));
	put64(m, at + T_SIGNAL, sig ? DM(sig) : 0);
	put64(m, at + T_TASKS, DM(next + T_TASKS));
}

/* A 4 KiB page at LU_USER_VA: PML4 0 -> PDPT 0 -> PD 2 -> PT 0 (SDM 4.5), tables from TAB. */
static void user_tables(uint8_t *m, uint64_t pgd, uint64_t tab, uint64_t leaf, bool pti, uint64_t shared)
{
	if (shared)
		put64(m, tab + 0x2000 + 8, shared | 0x5);   /* the next PTE: read-only, user */
	put64(m, pgd, tab | 0x7 | (pti ? 1ull << 63 : 0));    /* PTI: the kernel copy is NX */
	if (pti)
		put64(m, pgd + 0x1000, tab | 0x7);
	put64(m, tab, (tab + 0x1000) | 0x7);
	put64(m, tab + 0x1000 + 2 * 8, (tab + 0x2000) | 0x7);
	put64(m, tab + 0x2000, leaf | 0x7);
}

/*
 * arm64 (VMSAv8-64, 4 KiB granule, Linux arch/arm64/include/asm/pgtable-hwdef.h):
 * a 4 KiB page at LU_USER_VA in TTBR0 from PGD (l0 0 -> l1 0 -> l2 2 ->
 * l3 0), tables from TAB; pages valid (1:0 = 3), AF, AP[1] EL0; SHARED
 * read-only (AP[2]) in the next.
 */
#define A64_PAGE(pa) ((uint64_t)(pa) | 0x3 | 1ull << 10 | 1ull << 6)
static void user_tables_a64(uint8_t *m, uint64_t pgd, uint64_t tab, uint64_t leaf, uint64_t shared)
{
	if (shared)
		put64(m, tab + 0x2000 + 8, A64_PAGE(shared) | 1ull << 7);
	put64(m, pgd, tab | 0x3);
	put64(m, tab, (tab + 0x1000) | 0x3);
	put64(m, tab + 0x1000 + 2 * 8, (tab + 0x2000) | 0x3);
	put64(m, tab + 0x2000, A64_PAGE(leaf));
}

/* TTBR1 (swapper_pg_dir at PML4): the linear map of RAM in 2 MiB blocks (l0 0 -> l1 0 -> l2 blocks, AF, EL1 RW). */
static void kernel_tables_a64(uint8_t *m, uint64_t ram)
{
	put64(m, PML4, PDPT | 0x3);
	put64(m, PDPT, PD | 0x3);
	for (unsigned i = 0; i < ram >> 21 && i < 512; i++)
		put64(m, PD + 8 * i, ((uint64_t)i << 21) | 0x1 | 1ull << 10);
}

/*
 * kallsyms in scripts/kallsyms.c's layout: token I is the one byte I.
 * x86-64: CONFIG_KALLSYMS_ABSOLUTE_PERCPU (per-CPU symbols absolute, the
 * rest relative_base - 1 - offset); arm64: every offset addr -
 * relative_base, and with TEXT only the text symbols (no KALLSYMS_ALL).
 */
static void kallsyms(uint8_t *m, uint64_t stop, bool arm64, bool text)
{
	static const struct {
		const char *name;
		uint64_t pa;
		bool percpu;
	} s[] = {
		{"Tstart_kernel", 0x4000, false}, {"Dinit_task", TASK0, false},
		{"D__per_cpu_offset", PCPU_OFFSETS, false}, {"R__start_BTF", LU_BTF_PA, false},
		{"Vcurrent_task", PCPU_CURRENT, true}, {"tlocal_helper", 0x5000, false},
		{"Dpci_root_buses", PCI_ROOTS, false},
		{"R__stop_BTF", 0, false},
	};
	uint64_t names = KS, at = names;
	uint32_t n = 0;

	for (unsigned i = 0; i < 256; i++) {
		m[KS + 0x10000 + 2 * i] = (uint8_t)i;
		m[KS + 0x11000 + 2 * i] = (uint8_t)(2 * i);
		m[KS + 0x11000 + 2 * i + 1] = (uint8_t)(2 * i >> 8);
	}
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
		size_t len = strlen(s[i].name);
		uint64_t pa = s[i].pa ? s[i].pa : stop;
		int32_t off = s[i].percpu ? (int32_t)pa : (int32_t)(-1 - (int64_t)pa);

		if ((arm64 && s[i].percpu) || (text && s[i].name[0] != 'T' && s[i].name[0] != 't'))
			continue;
		if (arm64)
			off = (int32_t)pa;   /* DM(pa) - relative_base DM(0) */
		m[at++] = (uint8_t)len;
		memcpy(m + at, s[i].name, len);
		at += len;
		put32(m, KS + 0x12000 + 4 * n++, (uint32_t)off);
	}
	put32(m, KS + 0x13000, n);
	put64(m, KS + 0x13008, DM(0));   /* kallsyms_relative_base */
}

static char *vmcoreinfo(const struct lu_opts *o)
{
	static char vi[2048];
	/* arm64: TTBR1 = swapper_pg_dir - kimage_voffset (arch/arm64/kernel/vmcore_info.c); its image is in the linear map here */
	int n = o->arm64 ?
		snprintf(vi, sizeof vi, "OSRELEASE=6.1.0-test-arm64\nPAGESIZE=4096\n"
			 "SYMBOL(swapper_pg_dir)=%llx\nNUMBER(kimage_voffset)=0x%llx\nNUMBER(VA_BITS)=48\n"
			 "NUMBER(TCR_EL1_T1SZ)=0x10\nKERNELOFFSET=%llx\n", (unsigned long long)(LU_A64_PAGE_OFFSET + PML4),
			 (unsigned long long)LU_A64_PAGE_OFFSET, (unsigned long long)o->kernel_offset) :
		snprintf(vi, sizeof vi, "OSRELEASE=6.1.0-test-amd64\nPAGESIZE=4096\n"
			 "SYMBOL(init_top_pgt)=ffffffff80001000\nNUMBER(phys_base)=0\n"
			 "NUMBER(pgtable_l5_enabled)=0\nKERNELOFFSET=%llx\n", (unsigned long long)o->kernel_offset);

	if (o->kallsyms)
		snprintf(vi + n, sizeof vi - (size_t)n,
			 "SYMBOL(kallsyms_names)=%llx\nSYMBOL(kallsyms_num_syms)=%llx\n"
			 "SYMBOL(kallsyms_token_table)=%llx\nSYMBOL(kallsyms_token_index)=%llx\n"
			 "SYMBOL(kallsyms_offsets)=%llx\nSYMBOL(kallsyms_relative_base)=%llx\n",
			 (unsigned long long)DM(KS), (unsigned long long)DM(KS + 0x13000),
			 (unsigned long long)DM(KS + 0x10000), (unsigned long long)DM(KS + 0x11000),
			 (unsigned long long)DM(KS + 0x12000), (unsigned long long)DM(KS + 0x13008));
	return vi;
}

static void list_link(uint8_t *m, uint64_t at, uint64_t next)
{
	put64(m, at, DM(next));
}

static void pci_dev(uint8_t *m, uint64_t at, unsigned devfn, unsigned vendor, unsigned device, uint32_t cls,
		    uint64_t drv, uint64_t next)
{
	put32(m, at + D_DEVFN, devfn);
	m[at + D_VENDOR] = (uint8_t)vendor;
	m[at + D_VENDOR + 1] = (uint8_t)(vendor >> 8);
	m[at + D_DEVICE] = (uint8_t)device;
	m[at + D_DEVICE + 1] = (uint8_t)(device >> 8);
	put32(m, at + D_CLASS, cls);
	if (drv)
		put64(m, at + D_DEV + DV_DRIVER, DM(drv));
	list_link(m, at + D_BUS_LIST, next);
}

/*
 * pci_root_buses -> bus 0 (00:00.0 a host bridge, 00:03.0 nvme) with child
 * bus 1 (01:00.0 e1000e), domain O->pci_domain through bus 0's sysdata.
 */
static void pci(uint8_t *m, const struct lu_opts *o)
{
	list_link(m, PCI_ROOTS, PCI_ROOTS);
	if (!o->pci)
		return;
	list_link(m, PCI_ROOTS, BUS0 + B_NODE);
	list_link(m, BUS0 + B_NODE, PCI_ROOTS);
	put64(m, BUS0 + B_SYSDATA, DM(SYSDATA));
	put64(m, BUS1 + B_SYSDATA, DM(SYSDATA));
	put32(m, SYSDATA + SD_DOMAIN, o->pci_domain);
	m[BUS0 + B_NUMBER] = 0;
	m[BUS1 + B_NUMBER] = 1;
	list_link(m, BUS0 + B_DEVICES, DEV_HB + D_BUS_LIST);
	pci_dev(m, DEV_HB, 0, 0x8086, 0x29c0, 0x060000, 0, DEV_NVME + D_BUS_LIST);
	pci_dev(m, DEV_NVME, 3 << 3, 0x1b36, 0x0010, 0x010802, DRV_NVME,
		o->pci == LU_PCI_LOOP ? DEV_HB + D_BUS_LIST : BUS0 + B_DEVICES);
	list_link(m, BUS0 + B_CHILDREN, BUS1 + B_NODE);
	list_link(m, BUS1 + B_NODE, BUS0 + B_CHILDREN);
	list_link(m, BUS1 + B_CHILDREN, BUS1 + B_CHILDREN);
	list_link(m, BUS1 + B_DEVICES, DEV_NIC + D_BUS_LIST);
	pci_dev(m, DEV_NIC, 0, 0x8086, 0x10d3, 0x020000, DRV_NIC, BUS1 + B_DEVICES);
	if (o->pci == LU_PCI_OUTSIDE)
		put64(m, BUS1 + B_DEVICES, DM(0x7000000));
	put64(m, DRV_NVME + DRV_NAME, DM(NAMES));
	memcpy(m + NAMES, "nvme", 5);
	put64(m, DRV_NIC + DRV_NAME, DM(NAMES + 0x80));
	memcpy(m + NAMES + 0x80, "e1000e", 7);
}

void lu_many_layout(const struct lu_opts *o, struct lu_many *l)
{
	uint64_t ngroups = (o->nprocs + 15) / 16, end;

	l->npriv = o->npriv ? o->npriv : 16;
	l->nshared = o->nshared ? o->nshared : 32;
	l->shared = LU_MANY_BASE;
	l->group = l->shared + 0x1000ull * l->nshared;
	l->procs = l->group + 0x1000ull * ngroups;
	l->priv = l->procs + 0x6000ull * o->nprocs;
	end = l->priv + 0x1000ull * l->npriv * o->nprocs;
	if (!o->nprocs)
		end = LU_RAM;
	if (o->ram > end)
		end = o->ram;
	l->ram = (end + 0x1fffff) & ~0x1fffffull;
}

uint64_t lu_ram_size(const struct lu_opts *o)
{
	struct lu_many l;

	lu_many_layout(o, &l);
	return l.ram;
}

/* The many processes of lu_many_layout(), linked in after pid 50 (LAST the task list's next after them). */
static void many(uint8_t *m, const struct lu_opts *o, uint64_t last)
{
	struct lu_many l;

	lu_many_layout(o, &l);
	for (unsigned j = 0; j < l.nshared; j++)
		snprintf((char *)m + l.shared + 0x1000ull * j, 32, "shared text page %u", j);
	for (unsigned i = 0; i < o->nprocs; i++) {
		uint64_t t = l.procs + 0x6000ull * i, sig = t + 0x1000, mm = sig + 0x800, pgd = t + 0x2000;
		uint64_t pt = t + 0x5000, next = i + 1 < o->nprocs ? t + 0x6000 : last;
		unsigned k = 0;

		task(m, t, LU_MANY_PID0 + i, LU_MANY_PID0 + i, 0, mm, "sleep", t, TASK1, sig, next);
		put64(m, sig + S_THEAD, DM(t + T_TNODE));
		put64(m, t + T_TNODE, DM(sig + S_THEAD));
		put64(m, mm + MM_ANON + MM_PGD, DM(pgd));
		put64(m, pgd, (pgd + 0x1000) | 0x7);
		put64(m, pgd + 0x1000, (pgd + 0x2000) | 0x7);
		put64(m, pgd + 0x2000 + 2 * 8, pt | 0x7);   /* LU_USER_VA: PD entry 2 */
		for (unsigned j = 0; j < l.nshared; j++)
			put64(m, pt + 8 * k++, (l.shared + 0x1000ull * (l.nshared - 1 - j)) | 0x5);
		put64(m, pt + 8 * k++, (l.group + 0x1000ull * (i / 16)) | 0x7);
		for (unsigned j = 0; j < l.npriv; j++) {
			uint64_t pa = l.priv + 0x1000ull * ((uint64_t)j * o->nprocs + i);

			put64(m, pt + 8 * k++, pa | 0x7);
			snprintf((char *)m + pa, 32, "pid %u page %u", LU_MANY_PID0 + i, j);
		}
	}
}

uint8_t *lu_ram(const struct lu_opts *o)
{
	uint64_t ram = lu_ram_size(o);
	uint8_t *m = calloc(1, ram);
	unsigned pml4i = (unsigned)(LU_PAGE_OFFSET >> 39 & 511);
	uint64_t after1 = o->hostile == LU_OUTSIDE ? 0x7000000 - T_TASKS : TASK2;
	uint64_t after50 = o->hostile == LU_LOOP ? TASK1 : TASK0;
	struct lu_many l;
	uint64_t mm50 = o->mm50_moved ? MM50_MOVED : MM50;
	const char *comm50 = o->comm50 ? o->comm50 : "worker";
	size_t nbtf = 0x1000;

	if (!m)
		return NULL;
	dm_base = o->arm64 ? LU_A64_PAGE_OFFSET : LU_PAGE_OFFSET;
	lu_many_layout(o, &l);
	if (o->nprocs) {
		many(m, o, after50);
		after50 = l.procs;
	}
	/* the direct map: PA 0..RAM (16 MiB by default) in 2 MiB pages (init_top_pgt and cpu0's CR3) */
	if (o->arm64) {
		kernel_tables_a64(m, l.ram);
	} else {
		put64(m, PML4 + 8 * pml4i, PDPT | 0x3);
		put64(m, PDPT, PD | 0x3);
		for (unsigned i = 0; i < l.ram >> 21 && i < 512; i++)
			put64(m, PD + 8 * i, ((uint64_t)i << 21) | 0x83);
	}
	put64(m, PCPU_OFFSETS, DM(PCPU0));
	put64(m, PCPU0 + PCPU_CURRENT, DM(o->idle ? TASK0 : TASK51));   /* pid 50's second thread */
	task(m, TASK0, 0, 0, PF_KTHREAD | 0x2, 0, "swapper/0", TASK0, TASK0, 0, TASK1);
	task(m, TASK1, 1, 1, 0, MM1, "init", TASK1, TASK0, SIG1, after1);
	task(m, TASK2, 2, 2, PF_KTHREAD, 0, "kthreadd", TASK2, TASK0, 0, TASK50);
	task(m, TASK50, 50, 50, 0, mm50, o->hostile == LU_COMM ? "a\x01\x1b[2Jb" : comm50, TASK50, TASK1,
	     SIG50, after50);
	task(m, TASK51, 51, 50, 0, mm50, comm50, TASK50, TASK1, SIG50, TASK51);
	/* threads: signal->thread_head -> leader's thread_node -> the thread's -> head */
	put64(m, SIG1 + S_THEAD, DM(TASK1 + T_TNODE));
	put64(m, TASK1 + T_TNODE, DM(SIG1 + S_THEAD));
	put64(m, SIG50 + S_THEAD, DM(TASK50 + T_TNODE));
	put64(m, TASK50 + T_TNODE, DM(TASK51 + T_TNODE));
	put64(m, TASK51 + T_TNODE, DM(SIG50 + S_THEAD));
	put64(m, MM1 + MM_ANON + MM_PGD, DM(PGD1));
	put64(m, mm50 + MM_ANON + MM_PGD, DM(PGD50));
	if (o->init_copy)
		memcpy(m + 0x18000, m + TASK0, 0x1000);   /* every field as init_task's, at another address */
	if (o->arm64) {
		user_tables_a64(m, PGD1, 0x110000, LU_USER_PA(1), 0);
		user_tables_a64(m, PGD50, 0x120000, LU_USER_PA(50), o->shared ? LU_USER_PA(1) : 0);
		/* the list's prev links, init_task's neighbours' (include/linux/list.h) */
		put64(m, TASK1 + T_TASKS + 8, DM(TASK0 + T_TASKS));
		put64(m, TASK0 + T_TASKS + 8, DM(TASK50 + T_TASKS));
	} else {
		user_tables(m, PGD1, 0x110000, LU_USER_PA(1), false, 0);
		user_tables(m, PGD50, 0x120000, LU_USER_PA(50), o->pti, o->shared ? LU_USER_PA(1) : 0);
	}
	memcpy(m + LU_USER_PA(1), "pid 1's page", 12);
	memcpy(m + LU_USER_PA(50), "pid 50's page", 13);
	if (!o->no_btf) {
		uint8_t *b = lu_btf(&nbtf);

		memcpy(m + LU_BTF_PA, b, nbtf);
		if (o->btf_copy)
			memcpy(m + COPY_PA, b, nbtf);
		free(b);
	}
	if (o->split_btf) {
		size_t n;
		uint8_t *b = lu_btf_split(&n);

		memcpy(m + SPLIT_PA, b, n);
		free(b);
	}
	pci(m, o);
	if (o->kallsyms)
		kallsyms(m, LU_BTF_PA + nbtf, o->arm64, o->text_syms);   /* __stop_BTF: the end of the blob */
	if (o->ram_vi) {
		const char *vi = vmcoreinfo(o);

		memcpy(m + VI_PAGE, vi, strlen(vi));
	}
	return m;
}

uint8_t *lu_core(const struct lu_opts *o, size_t *len)
{
	uint8_t *ram = lu_ram(o), *core = lu_core_of(o, ram, len);

	free(ram);
	return core;
}

uint8_t *lu_core_of(const struct lu_opts *o, const uint8_t *ram, size_t *len)
{
	static uint8_t q0[432];
	uint8_t *core;
	const char *vi;
	uint64_t size = lu_ram_size(o);
	struct eu_seg seg = {.paddr = 0, .data = ram, .filesz = size, .memsz = size};
	struct eu_note notes[] = {
		{"QEMU", 0, q0, sizeof q0},
		{"VMCOREINFO", 0, NULL, 0},
	};
	struct eu_core c = {.notes = notes, .nnotes = o->note_vi ? 2 : 1, .segs = &seg, .nsegs = 1};

	dm_base = o->arm64 ? LU_A64_PAGE_OFFSET : LU_PAGE_OFFSET;
	vi = vmcoreinfo(o);
	notes[1].desc = vi;
	notes[1].descsz = (uint32_t)strlen(vi);
	/* QEMU's aarch64 dump has no QEMU note (target/arm/arch_dump.c): VMCOREINFO alone here */
	if (o->arm64) {
		c.machine = 183;   /* EM_AARCH64 */
		c.notes = notes + 1;
		c.nnotes = o->note_vi ? 1 : 0;
		return eu_build(&c, len);
	}

	eu_qemu_state(q0, o->cr3_50 ? PGD50 : PML4, 0x20);              /* CR4.PAE; no LA57 */
	eu_put32(q0 + 0x98, o->user_mode ? 0x33 : 0x10);   /* CS selector: CPL 3 or 0 */
	if (o->gs && !o->user_mode)
		eu_put64(q0 + 0x108, DM(PCPU0));    /* GS base: cpu0's per-CPU area */
	if (o->gs && o->user_mode) {
		/* swapgs has not run: GS is the user's, the kernel's base waits in KernelGSBase (0x1b0) */
		static uint8_t q1[0x1b8];

		memcpy(q1, q0, sizeof q0);
		eu_put32(q1 + 4, sizeof q1);
		eu_put64(q1 + 0x108, 0x7f0000001000ull);
		eu_put64(q1 + 0x1b0, DM(PCPU0));
		notes[0].desc = q1;
		notes[0].descsz = sizeof q1;
	}
	core = eu_build(&c, len);
	return core;
}

char *lu_system_map(uint64_t kernel_offset)
{
	return lu_system_map_of(&(struct lu_opts){.kernel_offset = kernel_offset});
}

char *lu_system_map_of(const struct lu_opts *o)
{
	uint64_t kernel_offset = o->kernel_offset;
	static const struct {
		char type;
		const char *name;
		uint64_t pa;
	} s[] = {
		{'T', "_stext", 0x4000}, {'T', "start_kernel", 0x4000}, {'D', "__per_cpu_offset", PCPU_OFFSETS},
		{'D', "init_task", TASK0}, {'R', "__start_BTF", LU_BTF_PA},
		{'D', "pci_root_buses", PCI_ROOTS},   /* drivers/pci/probe.c: LIST_HEAD(pci_root_buses) */
	};
	char *out = malloc(4096);
	size_t n = 0, nbtf;

	free(lu_btf(&nbtf));
	dm_base = o->arm64 ? LU_A64_PAGE_OFFSET : LU_PAGE_OFFSET;

	/* nm's form (scripts/mksysmap): per-CPU symbols as offsets, the rest as linked (before KASLR) */
	n += (size_t)snprintf(out, 4096, "%016llx A current_task\n", (unsigned long long)PCPU_CURRENT);
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
		n += (size_t)snprintf(out + n, 4096 - n, "%016llx %c %s\n",
				      (unsigned long long)(DM(s[i].pa) - kernel_offset), s[i].type, s[i].name);
	snprintf(out + n, 4096 - n, "%016llx R __stop_BTF\n", (unsigned long long)(DM(LU_BTF_PA + nbtf) - kernel_offset));
	return out;
}
