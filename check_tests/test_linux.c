/*
 * test_linux.c — a Linux guest's processes by name (docs/design.md §3.3):
 * the BTF scan and libbpf parse (core/linux/btf.c) on blobs libbpf's own
 * writer makes, hostile ones included, and the whole step after the load
 * (pt_linux_expand) on ELF cores of a synthetic guest (linux_util.c):
 * kallsyms through VMCOREINFO (a note, or a page of RAM), the per-CPU
 * current task from the QEMU note's GS base, PTI, and task lists that
 * loop or leave RAM.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_int.h"
#include "linux_int.h"
#include "linux_guest.h"
#include "linux_util.h"
#include "pt_capture.h"
#include "pt_extend.h"
#include "pt_linux.h"
#include "pt_mem.h"
#include "pt_pa.h"
#include "pt_render.h"
#include "pt_roots.h"
#include "pt_tree.h"
#include "pt_walk.h"
#include "testutil.h"

/* ---- BTF ---- */

START_TEST(btf_offsets)
{
	size_t n;
	uint8_t *b = lu_btf(&n);
	struct btf *btf = pt_btf_parse(b, n);

	ck_assert_ptr_nonnull(btf);
	ck_assert_int_eq(pt_btf_member(btf, "task_struct", "pid"), 0x140);
	ck_assert_int_eq(pt_btf_member(btf, "task_struct", "tasks"), 0x100);
	ck_assert_int_eq(pt_btf_member(btf, "signal_struct", "thread_head"), 16);
	/* mm_struct.pgd sits in an anonymous struct at 64, at 8 inside it */
	ck_assert_int_eq(pt_btf_member(btf, "mm_struct", "pgd"), 72);
	ck_assert_int_eq(pt_btf_member(btf, "pcpu_hot", "preempt"), -1);   /* a bitfield */
	ck_assert_int_eq(pt_btf_member(btf, "task_struct", "no_such"), -1);
	ck_assert_int_eq(pt_btf_member(btf, "no_such_struct", "pid"), -1);
	ck_assert_int_eq(pt_btf_struct_size(btf, "task_struct"), 0x1000);
	ck_assert_int_eq(pt_btf_percpu(btf, "current_task"), 0x100);
	ck_assert_int_eq(pt_btf_percpu(btf, "pcpu_hot"), -1);
	btf__free(btf);
	free(b);
}
END_TEST

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

START_TEST(btf_header)
{
	size_t n;
	uint8_t *b = lu_btf(&n), h[24];
	uint64_t total;

	ck_assert(pt_btf_header_ok(b, n, &total));
	ck_assert_uint_eq(total, n);
	ck_assert(!pt_btf_header_ok(b, n - 1, &total));           /* runs past what there is */
	memcpy(h, b, 24);
	put32(h + 4, 32);
	ck_assert(!pt_btf_header_ok(h, n, &total));               /* hdr_len not 24 */
	memcpy(h, b, 24);
	put32(h + 8, 4);
	ck_assert(!pt_btf_header_ok(h, n, &total));               /* type_off not 0 */
	memcpy(h, b, 24);
	put32(h + 16, 8);
	ck_assert(!pt_btf_header_ok(h, n, &total));               /* str_off != type_len */
	memcpy(h, b, 24);
	put32(h + 12, 0xfffffff0u);
	put32(h + 16, 0xfffffff0u);
	ck_assert(!pt_btf_header_ok(h, UINT64_MAX, &total));      /* past 64 MiB */
	memcpy(h, b, 24);
	h[2] = 2;
	ck_assert(!pt_btf_header_ok(h, n, &total));               /* version 2 */
	free(b);
}
END_TEST

START_TEST(btf_parse_hostile)
{
	size_t n, ns;
	uint8_t *b = lu_btf(&n), *s = lu_btf_split(&ns), *m = malloc(n);
	uint32_t type_len;
	unsigned seed = 1, parsed = 0;

	ck_assert_ptr_null(pt_btf_parse(s, ns));                  /* a module's split BTF */
	ck_assert_ptr_null(pt_btf_parse(b, n - 1));               /* truncated */
	memcpy(m, b, n);
	memcpy(&type_len, b + 12, 4);
	m[24 + type_len] = 'x';                                   /* strings not starting with "" */
	ck_assert_ptr_null(pt_btf_parse(m, n));
	/* hostile counts and offsets in the types: libbpf refuses or parses, never a crash */
	for (unsigned i = 0; i < 3000; i++) {
		struct btf *btf;

		memcpy(m, b, n);
		for (unsigned k = 0; k < 1 + i % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			m[24 + (seed >> 8) % type_len] = (uint8_t)(seed >> 20);
		}
		btf = pt_btf_parse(m, n);
		if (btf) {
			parsed++;
			pt_btf_member(btf, "mm_struct", "pgd");
			pt_btf_percpu(btf, "current_task");
			btf__free(btf);
		}
	}
	ck_assert_uint_lt(parsed, 3000);
	free(m);
	free(s);
	free(b);
}
END_TEST

/* The scan over memory holding blobs at AT[i] (BLOB[i], LEN[i]). */
static void scan(const uint8_t *ram, size_t len, struct pt_btf *out)
{
	struct pt_mem *mem = pt_mem_new(1);
	struct pt_pa_range r = {0x100000, len};
	unsigned id, a, b;

	ck_assert_int_eq(pt_mem_add_borrowed(mem, 0, 0x100000, ram, len, &id), PT_OK);
	ck_assert_int_eq(pt_mem_seal(mem, &a, &b), PT_OK);
	ck_assert_int_eq(pt_btf_scan(mem, 0, &r, 1, out), PT_OK);
	pt_mem_free(mem);
}

START_TEST(btf_scan_choice)
{
	size_t n, nbig, ns, len = 4 << 20;
	uint8_t *b = lu_btf(&n), *big = lu_btf_n(&nbig, 40), *s = lu_btf_split(&ns), *ram = calloc(1, len);
	struct pt_btf out;

	ck_assert_uint_gt(nbig, n);
	/* stray magics: unaligned, a bad header, a header past the end */
	memcpy(ram + 0x1001, b, 24);
	memcpy(ram + 0x2000, b, 24);
	put32(ram + 0x2000 + 4, 32);
	memcpy(ram + 0x3000, s, ns);                    /* a module's split BTF */
	memcpy(ram + 0x10000, b, n);                    /* two copies of the small one */
	memcpy(ram + 0x80000, b, n);
	memcpy(ram + 0x100000, big, nbig);              /* the largest: the kernel's */
	memcpy(ram + len - 100, b, 24);                 /* its header claims more than memory holds */
	scan(ram, len, &out);
	ck_assert_ptr_nonnull(out.btf);
	ck_assert_uint_eq(out.pa, 0x100000 + 0x100000);
	ck_assert_uint_eq(out.size, nbig);
	ck_assert_uint_eq(out.hits, 6);                 /* 4-byte aligned ones: not the one at 0x1001 */
	ck_assert_uint_eq(out.valid, 4);                /* split, two copies, the big one */
	pt_btf_free(&out);
	/* identical copies: the first is the one */
	memset(ram + 0x100000, 0, nbig);
	scan(ram, len, &out);
	ck_assert_uint_eq(out.pa, 0x100000 + 0x10000);
	pt_btf_free(&out);
	/* the split blob alone: no BTF */
	memset(ram, 0, len);
	memcpy(ram + 0x3000, s, ns);
	scan(ram, len, &out);
	ck_assert_ptr_null(out.btf);
	ck_assert_uint_eq(out.valid, 1);
	free(ram);
	free(s);
	free(big);
	free(b);
}
END_TEST

/* ---- the whole step after the load ---- */

START_TEST(route_kallsyms_note)
{
	struct guest g = lg_load(&(struct lu_opts){.note_vi = true, .kallsyms = true}, true);
	const struct pt_context *p1;

	lg_has_processes(g.c);
	p1 = pt_capture_context_find(g.c, "pid1");
	ck_assert_ptr_nonnull(strstr(lg_ann(p1, "x-route"), "kallsyms from VMCOREINFO (the dump's VMCOREINFO note)"));
	ck_assert_ptr_nonnull(strstr(lg_ann(p1, "x-btf"), "at __start_BTF"));
	ck_assert_str_eq(lg_ann(p1, "x-pti"), "no");
	ck_assert_uint_eq(p1->root_addr, 0x100000);
	lg_unload(&g);
}
END_TEST

START_TEST(one_task)
{
	/* -o task=PID / --task PID: that process's context alone; one not there is said */
	const struct lu_opts o = {.note_vi = true, .kallsyms = true};
	struct guest g = lg_load_task(&o, true, &(struct pt_load_opts){.task_given = true, .task = 50});
	size_t n = 0;

	for (size_t i = 0; i < pt_capture_context_count(g.c); i++)
		n += lg_ann(pt_capture_context(g.c, i), "x-pid") != NULL;
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_nonnull(pt_capture_context_find(g.c, "pid50"));
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid1"));
	lg_walks_to(pt_capture_context_find(g.c, "pid50"), LU_USER_VA, LU_USER_PA(50));
	lg_unload(&g);
	/* a thread's pid is no process: pid51 runs in pid50's address space */
	g = lg_load_task(&o, true, &(struct pt_load_opts){.task_given = true, .task = 51});
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid50"));
	ck_assert(lg_warned(g.c, "no user process 51 on the task list"));
	lg_unload(&g);
	/* pid 0 given is a request too (the idle task: a kernel thread, no context) */
	g = lg_load_task(&o, true, &(struct pt_load_opts){.task_given = true, .task = 0});
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid1"));
	ck_assert(lg_warned(g.c, "no user process 0"));
	lg_unload(&g);
}
END_TEST

/* ---- a live guest: the task list read again at each refresh (issue 40 item 4) ---- */

/* A live source without registers: only the step after the load's refresh runs. */
static const struct pt_live_ops fake_live;

static pt_err live_expand(struct pt_capture *cap, const struct pt_load_opts *opts)
{
	cap->live = &fake_live;   /* what pt_loader_set_live() does for the QMP source */
	return pt_linux_expand(cap, opts);
}

/* Writes the 8 bytes V at guest physical PA of the ELF core at PATH (its PT_LOAD). */
static void poke(const char *path, uint64_t pa, uint64_t v)
{
	int fd = open(path, O_RDWR);
	Elf64_Ehdr eh;
	bool done = false;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &eh, sizeof eh, 0), (ssize_t)sizeof eh);
	for (unsigned i = 0; i < eh.e_phnum && !done; i++) {
		Elf64_Phdr ph;

		ck_assert_int_eq(pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)), (ssize_t)sizeof ph);
		if (ph.p_type == PT_LOAD && pa >= ph.p_paddr && pa + 8 <= ph.p_paddr + ph.p_filesz) {
			ck_assert_int_eq(pwrite(fd, &v, 8, (off_t)(ph.p_offset + pa - ph.p_paddr)), 8);
			done = true;
		}
	}
	close(fd);
	ck_assert(done);
}

START_TEST(live_refresh)
{
	struct guest g = {tu_mkdtemp(), pt_capture_new(), PT_OK};
	const struct pt_context *p1, *p50;
	char path[512], msg[256] = "";
	struct pt_buf b;
	size_t moved, len;
	uint8_t *core = lu_core(&(struct lu_opts){.ram_vi = true, .kallsyms = true}, &len);

	tu_write(g.dir, "vmcore", core, len);
	free(core);
	snprintf(path, sizeof path, "%s/vmcore", g.dir);
	g.rc = pt_capture_load_opts(g.c, path, &(struct pt_load_opts){.after_load = live_expand});
	ck_assert_msg(g.rc == PT_OK, "load: %s", pt_capture_error(g.c));
	lg_has_processes(g.c);
	p1 = pt_capture_context_find(g.c, "pid1");
	p50 = pt_capture_context_find(g.c, "pid50");
	/* nothing changed: every process stays */
	ck_assert_int_eq(pt_capture_live_refresh(g.c, &moved, msg, sizeof msg), PT_OK);
	ck_assert(!pt_context_gone(p50));
	ck_assert_ptr_eq(pt_capture_context_find(g.c, "pid50"), p50);
	ck_assert_uint_eq(pt_linux_unseen(g.c), 0);
	/* pid 50 reused by another address space: its context is gone, never the new one's tables */
	poke(path, LU_TASK50 + LU_T_MM, LU_PAGE_OFFSET + LU_MM1);
	ck_assert_int_eq(pt_capture_live_refresh(g.c, &moved, msg, sizeof msg), PT_OK);
	ck_assert(pt_context_gone(p50));
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid50"));
	ck_assert(!pt_context_gone(p1));
	ck_assert_uint_eq(pt_linux_unseen(g.c), 1);   /* the new pid 50 has no context until a remount */
	pt_buf_init(&b);
	ck_assert(pt_linux_tasks(g.c, false, &b, NULL));
	/* the new pid 50: a row without a context (no pages counted), init's tables its root now */
	ck_assert_msg(strstr(b.data, "\n     50       1 worker                 2    - 0x100000           -\n") != NULL,
		      "%s", b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "# 1 processes started since the mount"));
	pt_buf_free(&b);
	/* pid 50 exits: off the list (kthreadd's next is init_task again); nothing unseen */
	poke(path, LU_TASK2 + LU_T_TASKS, LU_PAGE_OFFSET + LU_TASK0 + LU_T_TASKS);
	ck_assert_int_eq(pt_capture_live_refresh(g.c, &moved, msg, sizeof msg), PT_OK);
	ck_assert_uint_eq(pt_linux_unseen(g.c), 0);
	ck_assert(!pt_context_gone(p1));
	ck_assert_ptr_eq(pt_capture_context_find(g.c, "pid1"), p1);
	lg_unload(&g);
}
END_TEST

START_TEST(route_kallsyms_ram)
{
	struct guest g = lg_load(&(struct lu_opts){.ram_vi = true, .kallsyms = true}, true);

	lg_has_processes(g.c);
	ck_assert_ptr_nonnull(strstr(lg_ann(pt_capture_context_find(g.c, "pid50"), "x-route"),
				     "VMCOREINFO found in RAM at 0x600000"));
	lg_unload(&g);
}
END_TEST

START_TEST(route_gs_base)
{
	/* no VMCOREINFO at all: the QEMU note's GS base and BTF's per-CPU current_task */
	struct guest g = lg_load(&(struct lu_opts){.gs = true, .btf_copy = true, .split_btf = true}, true);
	const struct pt_context *p50;

	lg_has_processes(g.c);
	p50 = pt_capture_context_find(g.c, "pid50");
	ck_assert_ptr_nonnull(strstr(lg_ann(p50, "x-route"), "per-CPU current task of cpu0"));
	/* the scan: the copy lower in RAM is the first of the two identical ones */
	ck_assert_ptr_nonnull(strstr(lg_ann(p50, "x-btf"), "found at physical 0x280000"));
	lg_unload(&g);
}
END_TEST

START_TEST(route_kernel_gs_base)
{
	/* a vCPU stopped in user mode: its GS base is the user's, the kernel's is KernelGSBase */
	struct guest g = lg_load(&(struct lu_opts){.gs = true, .user_mode = true}, true);

	lg_has_processes(g.c);
	lg_unload(&g);
	/* without KernelGSBase in the note (an older QEMU's 432 bytes), no route: one warning */
	g = lg_load(&(struct lu_opts){.gs = false, .user_mode = true}, true);
	ck_assert(lg_warned(g.c, "no vCPU's per-CPU current task is readable"));
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid1"));
	lg_unload(&g);
}
END_TEST

START_TEST(pti_user_copy)
{
	struct guest g = lg_load(&(struct lu_opts){.gs = true, .pti = true}, true);
	const struct pt_context *p50 = pt_capture_context_find(g.c, "pid50");
	const struct pt_context *p1 = pt_capture_context_find(g.c, "pid1");

	lg_has_processes(g.c);
	ck_assert_uint_eq(p50->root_addr, 0x102000 + 0x1000);
	ck_assert_ptr_nonnull(strstr(lg_ann(p50, "x-pti"), "yes"));
	ck_assert_str_eq(lg_ann(p1, "x-pti"), "no");       /* 8 KiB aligned, but no user copy after it */
	lg_unload(&g);
}
END_TEST

/* How many of the capture's warnings hold WHAT. */
/* The guest's System.map as a string: its addresses SHIFT below the guest's. */
static struct guest load_sysmap(const struct lu_opts *o, uint64_t shift)
{
	char *map = lu_system_map(shift);
	struct guest g = lg_load_map(o, true, map, strlen(map));

	free(map);
	return g;
}

START_TEST(route_system_map)
{
	/* no VMCOREINFO, no per-CPU base in the registers: only the user's System.map (route c) */
	struct guest g = load_sysmap(&(struct lu_opts){0}, 0);
	const struct pt_context *p1;

	lg_has_processes(g.c);
	p1 = pt_capture_context_find(g.c, "pid1");
	ck_assert_ptr_nonnull(strstr(lg_ann(p1, "x-route"), "System.map System.map (no VMCOREINFO: not shifted): init_task 0x"
				     "ffff888000020000"));
	/* __start_BTF from the map, no scan */
	ck_assert_ptr_nonnull(strstr(lg_ann(p1, "x-btf"), "at __start_BTF 0xffff888000300000"));
	ck_assert_uint_eq(lg_nwarned(g.c, "linux:"), 0);
	lg_unload(&g);
	/* route (a) first: kallsyms wins over a map that would point elsewhere */
	g = load_sysmap(&(struct lu_opts){.note_vi = true, .kallsyms = true}, 0x1000000);
	lg_has_processes(g.c);
	ck_assert_ptr_nonnull(strstr(lg_ann(pt_capture_context_find(g.c, "pid1"), "x-route"), "kallsyms from"));
	lg_unload(&g);
	/* route (b) before (c): the registers' current task */
	g = load_sysmap(&(struct lu_opts){.gs = true}, 0);
	lg_has_processes(g.c);
	ck_assert_ptr_nonnull(strstr(lg_ann(pt_capture_context_find(g.c, "pid1"), "x-route"), "per-CPU current"));
	lg_unload(&g);
}
END_TEST

START_TEST(route_system_map_kaslr)
{
	/* VMCOREINFO (no kallsyms) says KERNELOFFSET: the map's addresses are as linked, before it */
	struct guest g = load_sysmap(&(struct lu_opts){.note_vi = true, .kernel_offset = 0x2bc00000}, 0x2bc00000);

	lg_has_processes(g.c);
	ck_assert_ptr_nonnull(strstr(lg_ann(pt_capture_context_find(g.c, "pid50"), "x-route"),
				     "System.map System.map (+ KERNELOFFSET): init_task 0xffff888000020000"));
	lg_unload(&g);
	/* the map not shifted while the kernel is: its init_task lies past memory, one line, no pidN */
	g = load_sysmap(&(struct lu_opts){.note_vi = true, .kernel_offset = 0x2bc00000}, 0);
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid1"));
	ck_assert_uint_eq(lg_nwarned(g.c, "linux:"), 1);
	ck_assert(lg_warned(g.c, "System.map: its init_task is not mapped or not captured; no init_task (swapper/0) in RAM: no pidN contexts"));
	lg_unload(&g);
}
END_TEST

/*
 * A capture directory: the guest's vmcore, capture.ini naming it and its
 * System.map maps/key.map (KEY bytes, the system_map key), loaded with the
 * step and the command line's System.map OPT (its bytes; NULL: none).
 */
static struct guest load_keyed(const char *key, const char *opt)
{
	struct guest g = {tu_mkdtemp(), pt_capture_new(), PT_OK};
	static const char ini[] = "[capture]\nversion = 1\n\n[memory guest]\ndump = vmcore\n"
				  "system_map = ./maps//key.map\n";
	struct pt_load_opts lo = {.after_load = pt_linux_expand};
	char sub[512], opath[512];
	size_t len;
	uint8_t *core = lu_core(&(struct lu_opts){0}, &len);

	tu_write(g.dir, "vmcore", core, len);
	free(core);
	tu_write(g.dir, "capture.ini", ini, strlen(ini));
	snprintf(sub, sizeof sub, "%s/maps", g.dir);
	ck_assert_int_eq(mkdir(sub, 0700), 0);
	tu_write(sub, "key.map", key, strlen(key));
	if (opt) {
		tu_write(g.dir, "opt.map", opt, strlen(opt));
		snprintf(opath, sizeof opath, "%s/opt.map", g.dir);
		lo.system_map = opath;
	}
	g.rc = pt_capture_load_opts(g.c, g.dir, &lo);
	ck_assert_msg(g.rc == PT_OK, "load: %s", pt_capture_error(g.c));
	return g;
}

START_TEST(system_map_key)
{
	static const char stub[] = "ffffffffffffffff B The real System.map is in the -dbg package\n";
	char *map = lu_system_map(0);
	struct guest g = load_keyed(map, NULL);
	const struct pt_context *p1 = pt_capture_context_find(g.c, "pid1");

	/* capture.ini's key alone: route (c), the file named as written there */
	lg_has_processes(g.c);
	ck_assert_ptr_nonnull(strstr(lg_ann(p1, "x-route"), "System.map key.map (no VMCOREINFO: not shifted): "
				     "init_task 0xffff888000020000"));
	ck_assert_uint_eq(lg_nwarned(g.c, "linux:"), 0);
	lg_unload(&g);
	/* the command line's System.map wins over the key: a good one is taken */
	g = load_keyed(stub, map);
	lg_has_processes(g.c);
	ck_assert_ptr_nonnull(strstr(lg_ann(pt_capture_context_find(g.c, "pid1"), "x-route"), "System.map opt.map"));
	ck_assert_uint_eq(lg_nwarned(g.c, "linux:"), 0);
	lg_unload(&g);
	/* ... and a bad one too (the key's good map is not read): one line naming the option's file */
	g = load_keyed(map, stub);
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid1"));
	ck_assert_uint_eq(lg_nwarned(g.c, "linux: System.map "), 1);
	ck_assert(lg_warned(g.c, "/opt.map:1: not an 'ADDR TYPE NAME' line"));
	lg_unload(&g);
	/* a bad map in the key: one line naming it as capture.ini writes it */
	g = load_keyed(stub, NULL);
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid1"));
	ck_assert(lg_warned(g.c, "linux: System.map ./maps//key.map:1: not an 'ADDR TYPE NAME' line"));
	lg_unload(&g);
	free(map);
}
END_TEST

/* One hostile System.map: the capture as without it, and exactly one line naming the file. */
static void hostile_map(const void *map, size_t len, const char *line)
{
	struct guest g = lg_load_map(&(struct lu_opts){0}, true, map, len);
	const char *w = NULL;

	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid1"));
	ck_assert_uint_eq(pt_capture_context_count(g.c), 1);
	ck_assert_uint_eq(lg_nwarned(g.c, "linux: System.map "), 1);
	for (size_t i = 0; i < pt_capture_warning_count(g.c); i++)
		if (strstr(pt_capture_warning(g.c, i), "linux: System.map "))
			w = pt_capture_warning(g.c, i);
	ck_assert_msg(strstr(w, line) != NULL, "%s: not in '%s'", line, w);
	lg_unload(&g);
}

START_TEST(system_map_hostile)
{
	static const char stub[] = "ffffffffffffffff B The real System.map is in the linux-image-6.1.0-57-amd64-dbg "
				   "package\n";
	size_t big = 8u << 20;
	uint8_t *bin = malloc(big);
	char *lines = malloc(big), *map;
	size_t n = 0;
	struct guest g;

	/* Debian's 83-byte stub: a name with spaces */
	hostile_map(stub, strlen(stub), "System.map:1: not an 'ADDR TYPE NAME' line (1 such lines, skipped); ");
	hostile_map(stub, strlen(stub), "/System.map has no init_task (0 symbols read): not used");
	/* binary: the read stops after 16 bad lines, not at 8 MiB */
	for (size_t i = 0; i < big; i++)
		bin[i] = (uint8_t)(i * 2654435761u >> 13);
	hostile_map(bin, big, "more than 16 lines that are not 'ADDR TYPE NAME': the read stopped there");
	/* a line past the bound, lines without a name or a type, an address of 17 digits */
	n += (size_t)snprintf(lines + n, big - n, "ffffffff81000000 T _stext\n");
	memset(lines + n, 'a', 100000);
	n += 100000;
	n += (size_t)snprintf(lines + n, big - n, "\nffffffff81000000 T\nffffffff81000000\n"
			      "1ffffffff81000000 D init_task\n");
	hostile_map(lines, n, "System.map:2: not an 'ADDR TYPE NAME' line (4 such lines, skipped); ");
	/* a good map with one malformed line: used, the line said once */
	map = lu_system_map(0);
	n = (size_t)snprintf(lines, big, "garbage\n%s", map);
	g = lg_load_map(&(struct lu_opts){0}, true, lines, n);
	lg_has_processes(g.c);
	ck_assert_uint_eq(lg_nwarned(g.c, "linux:"), 1);
	ck_assert(lg_warned(g.c, "System.map:1: not an 'ADDR TYPE NAME' line (1 such lines, skipped)"));
	lg_unload(&g);
	free(map);
	free(bin);
	free(lines);
}
END_TEST

START_TEST(missing_parts)
{
	struct guest g = lg_load(&(struct lu_opts){.gs = true, .no_btf = true, .note_vi = true, .kallsyms = true},
			      true);
	size_t n = pt_capture_context_count(g.c);

	/* as today: cpu0 and kernel, and one line saying what was missing */
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(lg_nwarned(g.c, "linux:"), 1);
	ck_assert(lg_warned(g.c, "linux: no kernel BTF in memory (0 header hits, 0 valid): no pidN contexts (a kernel "
			 "built with CONFIG_DEBUG_INFO_BTF supplies it)"));
	lg_unload(&g);
	g = lg_load(&(struct lu_opts){0}, true);
	ck_assert_uint_eq(pt_capture_context_count(g.c), 1);
	/* one line: what was missing, and the three things that supply a route (issue 40 item 6) */
	ck_assert_uint_eq(lg_nwarned(g.c, "linux:"), 1);
	ck_assert(lg_warned(g.c, "linux: no route to the task list: no VMCOREINFO; no vCPU's per-CPU current task is "
			 "readable; no System.map; no init_task (swapper/0) in RAM: no pidN contexts (-device vmcoreinfo with the guest's qemu_fw_cfg, a "
			 "QEMU ELF dump's CPU notes, or the kernel's System.map (-o system_map=FILE, --system-map FILE) "
			 "supply one)"));
	lg_unload(&g);
	/* without the step: no pidN, no warning from it (the old behaviour) */
	g = lg_load(&(struct lu_opts){.gs = true}, false);
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid1"));
	ck_assert(!lg_warned(g.c, "linux:"));
	lg_unload(&g);
}
END_TEST

START_TEST(hostile_lists)
{
	struct guest g = lg_load(&(struct lu_opts){.gs = true, .hostile = LU_LOOP}, true);

	/* 50 -> 1 -> 2 -> 50 ... never back at the leader of cpu0's task?  It is: a ring from 50 */
	ck_assert_ptr_nonnull(pt_capture_context_find(g.c, "pid50"));
	lg_unload(&g);
	g = lg_load(&(struct lu_opts){.note_vi = true, .kallsyms = true, .hostile = LU_LOOP}, true);
	ck_assert(lg_warned(g.c, "the task list loops back to"));
	ck_assert_ptr_nonnull(pt_capture_context_find(g.c, "pid1"));
	ck_assert_ptr_nonnull(pt_capture_context_find(g.c, "pid50"));
	lg_unload(&g);
	g = lg_load(&(struct lu_opts){.note_vi = true, .kallsyms = true, .hostile = LU_OUTSIDE}, true);
	ck_assert(lg_warned(g.c, "is not mapped or not captured"));
	ck_assert_ptr_nonnull(pt_capture_context_find(g.c, "pid1"));
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid50"));
	lg_unload(&g);
}
END_TEST

START_TEST(tasks_table)
{
	struct guest g = lg_load(&(struct lu_opts){.gs = true, .hostile = LU_COMM}, true);
	const char *comm = lg_ann(pt_capture_context_find(g.c, "pid50"), "x-comm");
	struct pt_buf b;

	/* control bytes never reach a terminal */
	for (const char *p = comm; *p; p++)
		ck_assert_msg((unsigned char)*p >= 0x20 && *p != 0x7f, "comm %s", comm);
	pt_buf_init(&b);
	ck_assert(pt_linux_tasks(g.c, false, &b, NULL));
	ck_assert_ptr_nonnull(strstr(b.data, "    PID    PPID COMM"));
	ck_assert_ptr_nonnull(strstr(b.data, "\n     50       1 "));
	ck_assert_ptr_nonnull(strstr(b.data, "cpu0 0x102000"));
	ck_assert_ptr_nonnull(strstr(b.data, "      1       0 init                   1    - 0x100000           1\n"));
	pt_buf_reset(&b);
	ck_assert(pt_linux_tasks(g.c, true, &b, NULL));
	ck_assert_ptr_nonnull(strstr(b.data, "\"pid\": 50"));
	ck_assert_ptr_nonnull(strstr(b.data, "\"cpu\": \"cpu0\""));
	ck_assert_ptr_nonnull(strstr(b.data, "\"pages\": 1"));
	pt_buf_free(&b);
	lg_unload(&g);
}
END_TEST

/* ---- arm64 (issue #40: an arm64 dump's processes) ---- */

/*
 * The arm64 guest's processes: pidN contexts of the arm64 format, TTBR0
 * (half lower) at mm->pgd's physical address, with the kernel context's
 * granule and VA size, walking the user page; no vCPU registers (QEMU's
 * aarch64 notes hold none of SP_EL0, TPIDR_EL1), so no CPU; ROUTE names
 * how init_task was found.
 */
static void a64_has_processes(const struct pt_capture *c, const char *route)
{
	const struct pt_context *p1 = pt_capture_context_find(c, "pid1");
	const struct pt_context *p50 = pt_capture_context_find(c, "pid50");
	struct pt_buf b;
	struct pt_walk w;

	ck_assert_msg(p1 && p50, "no pid1/pid50 (warnings: %zu, first: %s)", pt_capture_warning_count(c),
		      pt_capture_warning_count(c) ? pt_capture_warning(c, 0) : "-");
	ck_assert_ptr_null(pt_capture_context_find(c, "pid0"));
	ck_assert_ptr_null(pt_capture_context_find(c, "pid2"));
	ck_assert_ptr_null(pt_capture_context_find(c, "pid51"));
	ck_assert_str_eq(p1->fmt->name, "arm64");
	ck_assert_uint_eq(p1->root_addr, 0x100000);
	ck_assert_uint_eq(p50->root_addr, 0x102000);
	ck_assert_uint_eq(p1->va_base, 0);                 /* TTBR0: the lower half */
	ck_assert_str_eq(lg_ann(p1, "x-comm"), "init");
	ck_assert_str_eq(lg_ann(p1, "x-pgd"), "0xffff000000100000 (physical 0x100000)");
	ck_assert_str_eq(lg_ann(p1, "x-pti"), "no");
	ck_assert_str_eq(lg_ann(p50, "x-ppid"), "1");
	ck_assert_str_eq(lg_ann(p50, "x-threads"), "2");
	ck_assert_str_eq(lg_ann(p50, "x-cpu"), "-");
	ck_assert_msg(strstr(lg_ann(p1, "x-route"), route), "x-route: %s", lg_ann(p1, "x-route"));
	lg_walks_to(p1, LU_USER_VA + 5, LU_USER_PA(1) + 5);
	lg_walks_to(p50, LU_USER_VA, LU_USER_PA(50));
	/* pid 50's view of pid 1's page: read-only, from EL0 */
	lg_walks_to(p50, LU_SHARED_VA, LU_USER_PA(1));
	ck_assert_int_eq(pt_walk_va(p50, LU_SHARED_VA, &w), PT_OK);
	ck_assert(w.perm & PT_PERM_NO_WRITE);
	ck_assert(!(w.perm & PT_PERM_PRIVILEGE));
	/* a kernel VA is no part of a TTBR0 context: the kernel context walks it */
	ck_assert_int_eq(pt_walk_va(p1, LU_A64_PAGE_OFFSET + 0x100000, &w), PT_OK);
	ck_assert_int_ne(w.fault, PT_FAULT_NONE);
	lg_walks_to(pt_capture_context_find(c, "kernel"), LU_A64_PAGE_OFFSET + 0x100000, 0x100000);
	pt_buf_init(&b);
	ck_assert(pt_linux_tasks(c, false, &b, NULL));
	ck_assert_msg(strstr(b.data, "     50       1 worker                 2    - 0x102000           2\n"), "%s", b.data);
	pt_buf_free(&b);
}

START_TEST(arm64_kallsyms)
{
	/* kallsyms of every symbol, base-relative without ABSOLUTE_PERCPU (arm64's kallsyms_sym_address()) */
	struct guest g = lg_load(&(struct lu_opts){.arm64 = true, .note_vi = true, .kallsyms = true, .shared = true},
				 true);

	a64_has_processes(g.c, "kallsyms from VMCOREINFO");
	lg_unload(&g);
}
END_TEST

START_TEST(arm64_signature)
{
	/* Debian's arm64: kallsyms of text only, no init_task: found by its signature (route d) */
	struct guest g = lg_load(&(struct lu_opts){.arm64 = true, .note_vi = true, .kallsyms = true, .text_syms = true,
						  .shared = true}, true);

	a64_has_processes(g.c, "init_task by signature (comm swapper/0, pid 0) at 0x20000: 0xffff000000020000");
	lg_unload(&g);
	/* the signature scan alone, no kallsyms at all */
	g = lg_load(&(struct lu_opts){.arm64 = true, .note_vi = true, .shared = true}, true);
	a64_has_processes(g.c, "init_task by signature");
	lg_unload(&g);
	/* a stale copy met first: its list leads back to the real one, whose walk is elsewhere */
	g = lg_load(&(struct lu_opts){.arm64 = true, .note_vi = true, .shared = true, .init_copy = true}, true);
	a64_has_processes(g.c, "init_task by signature (comm swapper/0, pid 0) at 0x20000: 0xffff000000020000");
	lg_unload(&g);
}
END_TEST

START_TEST(arm64_system_map)
{
	struct lu_opts o = {.arm64 = true, .note_vi = true, .kallsyms = true, .text_syms = true, .shared = true,
			    .kernel_offset = 0x200000};
	char *map = lu_system_map_of(&o);
	struct guest g = lg_load_map(&o, true, map, strlen(map));

	/* the map's init_task (shifted by KERNELOFFSET) before the scan */
	a64_has_processes(g.c, "System.map System.map (+ KERNELOFFSET)");
	lg_unload(&g);
	free(map);
}
END_TEST

static bool listed(void *ud, const char *name, const struct pt_tnode *child, uint64_t next)
{
	struct pt_buf *b = ud;

	(void)child;
	(void)next;
	pt_buf_printf(b, "%s\n", name);
	return true;
}

/* mnt/tasks: the same table, a file of the root, only where there are processes */
START_TEST(tree_tasks_file)
{
	struct guest g = lg_load(&(struct lu_opts){.gs = true}, true);
	struct pt_tree *tree;
	struct pt_tnode root, n, up;
	struct pt_buf names, text, want;

	pt_buf_init(&names);
	pt_buf_init(&text);
	pt_buf_init(&want);
	ck_assert_int_eq(pt_tree_new(g.c, false, &tree), PT_OK);
	pt_tree_root(&root);
	ck_assert_int_eq(pt_tree_list(tree, &root, 0, listed, &names, NULL), PT_OK);
	ck_assert_ptr_nonnull(strstr(names.data, "\npa\ntasks\n"));
	ck_assert_msg(strstr(names.data, "\npid1\npid50\n") != NULL, "root: %s", names.data);
	ck_assert_int_eq(pt_tree_lookup(tree, &root, "tasks", &n), PT_OK);
	ck_assert_int_eq(n.type, PT_TN_TASKS);
	ck_assert_int_eq(pt_tree_kind(&n), PT_TK_FILE);
	ck_assert_int_eq(pt_tree_parent(tree, &n, &up), PT_OK);
	ck_assert_int_eq(up.type, PT_TN_ROOT);
	ck_assert_int_eq(pt_tree_render(tree, &n, &text, NULL), PT_OK);
	ck_assert(pt_linux_tasks(g.c, false, &want, NULL));
	ck_assert_str_eq(text.data, want.data);
	pt_tree_free(tree);
	lg_unload(&g);
	/* no processes: no tasks file */
	g = lg_load(&(struct lu_opts){.gs = true}, false);
	ck_assert_int_eq(pt_tree_new(g.c, false, &tree), PT_OK);
	ck_assert_int_eq(pt_tree_lookup(tree, &root, "tasks", &n), PT_E_NOTFOUND);
	pt_buf_reset(&names);
	ck_assert_int_eq(pt_tree_list(tree, &root, 0, listed, &names, NULL), PT_OK);
	ck_assert_ptr_null(strstr(names.data, "tasks"));
	pt_tree_free(tree);
	lg_unload(&g);
	pt_buf_free(&names);
	pt_buf_free(&text);
	pt_buf_free(&want);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("linux");
	TCase *t = tcase_create("btf");

	tcase_set_timeout(t, 120);
	tcase_add_test(t, btf_offsets);
	tcase_add_test(t, btf_header);
	tcase_add_test(t, btf_parse_hostile);
	tcase_add_test(t, btf_scan_choice);
	suite_add_tcase(s, t);
	t = tcase_create("tasks");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, route_kallsyms_note);
	tcase_add_test(t, route_kallsyms_ram);
	tcase_add_test(t, one_task);
	tcase_add_test(t, live_refresh);
	tcase_add_test(t, route_gs_base);
	tcase_add_test(t, route_kernel_gs_base);
	tcase_add_test(t, pti_user_copy);
	tcase_add_test(t, route_system_map);
	tcase_add_test(t, route_system_map_kaslr);
	tcase_add_test(t, system_map_hostile);
	tcase_add_test(t, system_map_key);
	tcase_add_test(t, missing_parts);
	tcase_add_test(t, hostile_lists);
	tcase_add_test(t, tasks_table);
	tcase_add_test(t, tree_tasks_file);
	tcase_add_test(t, arm64_kallsyms);
	tcase_add_test(t, arm64_signature);
	tcase_add_test(t, arm64_system_map);
	suite_add_tcase(s, t);
	return tu_run(s);
}
