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

#include "linux_int.h"
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

struct guest {
	char *dir;
	struct pt_capture *c;
	pt_err rc;
};

/* The guest O describes, loaded with the step when EXPAND, and MAP (LEN bytes) as its System.map when not NULL. */
static struct guest load_map(const struct lu_opts *o, bool expand, const void *map, size_t maplen)
{
	struct guest g = {tu_mkdtemp(), pt_capture_new(), PT_OK};
	char path[512], mpath[512];
	size_t len;
	uint8_t *core = lu_core(o, &len);

	tu_write(g.dir, "vmcore", core, len);
	free(core);
	snprintf(path, sizeof path, "%s/vmcore", g.dir);
	snprintf(mpath, sizeof mpath, "%s/System.map", g.dir);
	if (map)
		tu_write(g.dir, "System.map", map, maplen);
	g.rc = pt_capture_load_opts(g.c, path, &(struct pt_load_opts){.after_load = expand ? pt_linux_expand
										: NULL,
								     .system_map = map ? mpath : NULL});
	ck_assert_msg(g.rc == PT_OK, "load: %s", pt_capture_error(g.c));
	return g;
}

static struct guest load(const struct lu_opts *o, bool expand)
{
	return load_map(o, expand, NULL, 0);
}

static void unload(struct guest *g)
{
	pt_capture_free(g->c);
	tu_rmtree(g->dir);
	free(g->dir);
}

static const char *ann(const struct pt_context *c, const char *key)
{
	for (size_t i = 0; i < c->nannotations; i++)
		if (!strcmp(c->annotations[i].key, key))
			return c->annotations[i].value;
	return NULL;
}

static bool warned(const struct pt_capture *c, const char *what)
{
	for (size_t i = 0; i < pt_capture_warning_count(c); i++)
		if (strstr(pt_capture_warning(c, i), what))
			return true;
	return false;
}

static void walks_to(const struct pt_context *ctx, uint64_t va, uint64_t pa)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == PT_FAULT_NONE, "%s: 0x%llx faults", ctx->name, (unsigned long long)va);
	ck_assert_uint_eq(w.pa, pa);
}

/* The processes of the guest, as every route must find them. */
static void has_processes(const struct pt_capture *c)
{
	const struct pt_context *p1 = pt_capture_context_find(c, "pid1");
	const struct pt_context *p50 = pt_capture_context_find(c, "pid50");

	ck_assert_ptr_nonnull(p1);
	ck_assert_ptr_nonnull(p50);
	/* kernel threads (swapper/0, kthreadd) and a non-leader thread are no context */
	ck_assert_ptr_null(pt_capture_context_find(c, "pid0"));
	ck_assert_ptr_null(pt_capture_context_find(c, "pid2"));
	ck_assert_ptr_null(pt_capture_context_find(c, "pid51"));
	ck_assert_str_eq(ann(p1, "x-comm"), "init");
	ck_assert_str_eq(ann(p1, "x-ppid"), "0");
	ck_assert_str_eq(ann(p1, "x-threads"), "1");
	ck_assert_str_eq(ann(p1, "x-cpu"), "-");
	ck_assert_str_eq(ann(p50, "x-ppid"), "1");
	ck_assert_str_eq(ann(p50, "x-threads"), "2");
	ck_assert_str_eq(ann(p50, "x-cpu"), "cpu0");       /* its second thread runs on cpu0 */
	walks_to(p1, LU_USER_VA + 5, LU_USER_PA(1) + 5);
	walks_to(p50, LU_USER_VA, LU_USER_PA(50));
}

START_TEST(route_kallsyms_note)
{
	struct guest g = load(&(struct lu_opts){.note_vi = true, .kallsyms = true}, true);
	const struct pt_context *p1;

	has_processes(g.c);
	p1 = pt_capture_context_find(g.c, "pid1");
	ck_assert_ptr_nonnull(strstr(ann(p1, "x-route"), "kallsyms from VMCOREINFO (the dump's VMCOREINFO note)"));
	ck_assert_ptr_nonnull(strstr(ann(p1, "x-btf"), "at __start_BTF"));
	ck_assert_str_eq(ann(p1, "x-pti"), "no");
	ck_assert_uint_eq(p1->root_addr, 0x100000);
	unload(&g);
}
END_TEST

START_TEST(route_kallsyms_ram)
{
	struct guest g = load(&(struct lu_opts){.ram_vi = true, .kallsyms = true}, true);

	has_processes(g.c);
	ck_assert_ptr_nonnull(strstr(ann(pt_capture_context_find(g.c, "pid50"), "x-route"),
				     "VMCOREINFO found in RAM at 0x600000"));
	unload(&g);
}
END_TEST

START_TEST(route_gs_base)
{
	/* no VMCOREINFO at all: the QEMU note's GS base and BTF's per-CPU current_task */
	struct guest g = load(&(struct lu_opts){.gs = true, .btf_copy = true, .split_btf = true}, true);
	const struct pt_context *p50;

	has_processes(g.c);
	p50 = pt_capture_context_find(g.c, "pid50");
	ck_assert_ptr_nonnull(strstr(ann(p50, "x-route"), "per-CPU current task of cpu0"));
	/* the scan: the copy lower in RAM is the first of the two identical ones */
	ck_assert_ptr_nonnull(strstr(ann(p50, "x-btf"), "found at physical 0x280000"));
	unload(&g);
}
END_TEST

START_TEST(route_kernel_gs_base)
{
	/* a vCPU stopped in user mode: its GS base is the user's, the kernel's is KernelGSBase */
	struct guest g = load(&(struct lu_opts){.gs = true, .user_mode = true}, true);

	has_processes(g.c);
	unload(&g);
	/* without KernelGSBase in the note (an older QEMU's 432 bytes), no route: one warning */
	g = load(&(struct lu_opts){.gs = false, .user_mode = true}, true);
	ck_assert(warned(g.c, "no vCPU's per-CPU current task is readable"));
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid1"));
	unload(&g);
}
END_TEST

START_TEST(pti_user_copy)
{
	struct guest g = load(&(struct lu_opts){.gs = true, .pti = true}, true);
	const struct pt_context *p50 = pt_capture_context_find(g.c, "pid50");
	const struct pt_context *p1 = pt_capture_context_find(g.c, "pid1");

	has_processes(g.c);
	ck_assert_uint_eq(p50->root_addr, 0x102000 + 0x1000);
	ck_assert_ptr_nonnull(strstr(ann(p50, "x-pti"), "yes"));
	ck_assert_str_eq(ann(p1, "x-pti"), "no");       /* 8 KiB aligned, but no user copy after it */
	unload(&g);
}
END_TEST

/* How many of the capture's warnings hold WHAT. */
static size_t nwarned(const struct pt_capture *c, const char *what)
{
	size_t n = 0;

	for (size_t i = 0; i < pt_capture_warning_count(c); i++)
		n += strstr(pt_capture_warning(c, i), what) != NULL;
	return n;
}

/* The guest's System.map as a string: its addresses SHIFT below the guest's. */
static struct guest load_sysmap(const struct lu_opts *o, uint64_t shift)
{
	char *map = lu_system_map(shift);
	struct guest g = load_map(o, true, map, strlen(map));

	free(map);
	return g;
}

START_TEST(route_system_map)
{
	/* no VMCOREINFO, no per-CPU base in the registers: only the user's System.map (route c) */
	struct guest g = load_sysmap(&(struct lu_opts){0}, 0);
	const struct pt_context *p1;

	has_processes(g.c);
	p1 = pt_capture_context_find(g.c, "pid1");
	ck_assert_ptr_nonnull(strstr(ann(p1, "x-route"), "System.map System.map (no VMCOREINFO: not shifted): init_task 0x"
				     "ffff888000020000"));
	/* __start_BTF from the map, no scan */
	ck_assert_ptr_nonnull(strstr(ann(p1, "x-btf"), "at __start_BTF 0xffff888000300000"));
	ck_assert_uint_eq(nwarned(g.c, "linux:"), 0);
	unload(&g);
	/* route (a) first: kallsyms wins over a map that would point elsewhere */
	g = load_sysmap(&(struct lu_opts){.note_vi = true, .kallsyms = true}, 0x1000000);
	has_processes(g.c);
	ck_assert_ptr_nonnull(strstr(ann(pt_capture_context_find(g.c, "pid1"), "x-route"), "kallsyms from"));
	unload(&g);
	/* route (b) before (c): the registers' current task */
	g = load_sysmap(&(struct lu_opts){.gs = true}, 0);
	has_processes(g.c);
	ck_assert_ptr_nonnull(strstr(ann(pt_capture_context_find(g.c, "pid1"), "x-route"), "per-CPU current"));
	unload(&g);
}
END_TEST

START_TEST(route_system_map_kaslr)
{
	/* VMCOREINFO (no kallsyms) says KERNELOFFSET: the map's addresses are as linked, before it */
	struct guest g = load_sysmap(&(struct lu_opts){.note_vi = true, .kernel_offset = 0x2bc00000}, 0x2bc00000);

	has_processes(g.c);
	ck_assert_ptr_nonnull(strstr(ann(pt_capture_context_find(g.c, "pid50"), "x-route"),
				     "System.map System.map (+ KERNELOFFSET): init_task 0xffff888000020000"));
	unload(&g);
	/* the map not shifted while the kernel is: its init_task lies past memory, one line, no pidN */
	g = load_sysmap(&(struct lu_opts){.note_vi = true, .kernel_offset = 0x2bc00000}, 0);
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid1"));
	ck_assert_uint_eq(nwarned(g.c, "linux:"), 1);
	ck_assert(warned(g.c, "System.map: its init_task is not mapped or not captured: no pidN contexts"));
	unload(&g);
}
END_TEST

/* One hostile System.map: the capture as without it, and exactly one line naming the file. */
static void hostile_map(const void *map, size_t len, const char *line)
{
	struct guest g = load_map(&(struct lu_opts){0}, true, map, len);
	const char *w = NULL;

	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid1"));
	ck_assert_uint_eq(pt_capture_context_count(g.c), 1);
	ck_assert_uint_eq(nwarned(g.c, "linux: System.map "), 1);
	for (size_t i = 0; i < pt_capture_warning_count(g.c); i++)
		if (strstr(pt_capture_warning(g.c, i), "linux: System.map "))
			w = pt_capture_warning(g.c, i);
	ck_assert_msg(strstr(w, line) != NULL, "%s: not in '%s'", line, w);
	unload(&g);
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
	g = load_map(&(struct lu_opts){0}, true, lines, n);
	has_processes(g.c);
	ck_assert_uint_eq(nwarned(g.c, "linux:"), 1);
	ck_assert(warned(g.c, "System.map:1: not an 'ADDR TYPE NAME' line (1 such lines, skipped)"));
	unload(&g);
	free(map);
	free(bin);
	free(lines);
}
END_TEST

START_TEST(missing_parts)
{
	struct guest g = load(&(struct lu_opts){.gs = true, .no_btf = true, .note_vi = true, .kallsyms = true},
			      true);
	size_t n = pt_capture_context_count(g.c);

	/* as today: cpu0 and kernel, and one line saying what was missing */
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(nwarned(g.c, "linux:"), 1);
	ck_assert(warned(g.c, "linux: no kernel BTF in memory (0 header hits, 0 valid): no pidN contexts (a kernel "
			 "built with CONFIG_DEBUG_INFO_BTF supplies it)"));
	unload(&g);
	g = load(&(struct lu_opts){0}, true);
	ck_assert_uint_eq(pt_capture_context_count(g.c), 1);
	/* one line: what was missing, and the three things that supply a route (issue 40 item 6) */
	ck_assert_uint_eq(nwarned(g.c, "linux:"), 1);
	ck_assert(warned(g.c, "linux: no route to the task list: no VMCOREINFO; no vCPU's per-CPU current task is "
			 "readable; no System.map: no pidN contexts (-device vmcoreinfo with the guest's qemu_fw_cfg, a "
			 "QEMU ELF dump's CPU notes, or the kernel's System.map (-o system_map=FILE, --system-map FILE) "
			 "supply one)"));
	unload(&g);
	/* without the step: no pidN, no warning from it (the old behaviour) */
	g = load(&(struct lu_opts){.gs = true}, false);
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid1"));
	ck_assert(!warned(g.c, "linux:"));
	unload(&g);
}
END_TEST

START_TEST(hostile_lists)
{
	struct guest g = load(&(struct lu_opts){.gs = true, .hostile = LU_LOOP}, true);

	/* 50 -> 1 -> 2 -> 50 ... never back at the leader of cpu0's task?  It is: a ring from 50 */
	ck_assert_ptr_nonnull(pt_capture_context_find(g.c, "pid50"));
	unload(&g);
	g = load(&(struct lu_opts){.note_vi = true, .kallsyms = true, .hostile = LU_LOOP}, true);
	ck_assert(warned(g.c, "the task list loops back to"));
	ck_assert_ptr_nonnull(pt_capture_context_find(g.c, "pid1"));
	ck_assert_ptr_nonnull(pt_capture_context_find(g.c, "pid50"));
	unload(&g);
	g = load(&(struct lu_opts){.note_vi = true, .kallsyms = true, .hostile = LU_OUTSIDE}, true);
	ck_assert(warned(g.c, "is not mapped or not captured"));
	ck_assert_ptr_nonnull(pt_capture_context_find(g.c, "pid1"));
	ck_assert_ptr_null(pt_capture_context_find(g.c, "pid50"));
	unload(&g);
}
END_TEST

START_TEST(tasks_table)
{
	struct guest g = load(&(struct lu_opts){.gs = true, .hostile = LU_COMM}, true);
	const char *comm = ann(pt_capture_context_find(g.c, "pid50"), "x-comm");
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
	unload(&g);
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
	struct guest g = load(&(struct lu_opts){.gs = true}, true);
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
	unload(&g);
	/* no processes: no tasks file */
	g = load(&(struct lu_opts){.gs = true}, false);
	ck_assert_int_eq(pt_tree_new(g.c, false, &tree), PT_OK);
	ck_assert_int_eq(pt_tree_lookup(tree, &root, "tasks", &n), PT_E_NOTFOUND);
	pt_buf_reset(&names);
	ck_assert_int_eq(pt_tree_list(tree, &root, 0, listed, &names, NULL), PT_OK);
	ck_assert_ptr_null(strstr(names.data, "tasks"));
	pt_tree_free(tree);
	unload(&g);
	pt_buf_free(&names);
	pt_buf_free(&text);
	pt_buf_free(&want);
}
END_TEST

/* ---- whose: which task a vCPU runs, whose table a root is, who maps a page ---- */

/* cpuN's info says which task it runs: a thread, a process, the idle task. */
START_TEST(cpu_runs_task)
{
	struct guest g = load(&(struct lu_opts){.gs = true}, true);
	const struct pt_context *cpu0 = pt_capture_context_find(g.c, "cpu0");
	struct pt_buf b;

	ck_assert_str_eq(ann(cpu0, "x-task"), "pid 51 (worker), thread of process pid50");
	/* the pidN info names the vCPU running it */
	ck_assert_str_eq(ann(pt_capture_context_find(g.c, "pid50"), "x-cpu"), "cpu0");
	pt_buf_init(&b);
	ck_assert_int_eq(pt_render_info(&b, cpu0, PT_OUT_TEXT, NULL), PT_OK);
	ck_assert_ptr_nonnull(strstr(b.data, "\nx-task: pid 51 (worker), thread of process pid50\n"));
	/* the annotations it had stay, in their order, before it */
	ck_assert_ptr_nonnull(strstr(b.data, "x-source"));
	ck_assert(strstr(b.data, "x-source") < strstr(b.data, "x-task"));
	pt_buf_free(&b);
	/* annotating again sets the value in place: one x-task line, never two */
	{
		size_t n = cpu0->nannotations, tasks = 0;

		ck_assert_int_eq(pt_capture_annotate(g.c, "cpu0", "x-task", "idle (pid 0, swapper/0)"), PT_OK);
		ck_assert_uint_eq(cpu0->nannotations, n);
		for (size_t i = 0; i < cpu0->nannotations; i++)
			tasks += !strcmp(cpu0->annotations[i].key, "x-task");
		ck_assert_uint_eq(tasks, 1);
		ck_assert_str_eq(ann(cpu0, "x-task"), "idle (pid 0, swapper/0)");
		ck_assert_str_eq(ann(cpu0, "x-source") ? "ok" : "lost", "ok");
		ck_assert_int_eq(pt_capture_annotate(g.c, "cpu9", "x-task", "-"), PT_E_NOTFOUND);
	}
	unload(&g);
	g = load(&(struct lu_opts){.gs = true, .idle = true}, true);
	ck_assert_str_eq(ann(pt_capture_context_find(g.c, "cpu0"), "x-task"), "idle (pid 0, swapper/0)");
	ck_assert_str_eq(ann(pt_capture_context_find(g.c, "pid50"), "x-cpu"), "-");
	unload(&g);
	g = load(&(struct lu_opts){.note_vi = true, .kallsyms = true, .hostile = LU_COMM}, true);
	/* route (a) without a GS base: no per-CPU base but __per_cpu_offset; control bytes escaped */
	ck_assert_ptr_nonnull(ann(pt_capture_context_find(g.c, "cpu0"), "x-task"));
	for (const char *p = ann(pt_capture_context_find(g.c, "cpu0"), "x-task"); *p; p++)
		ck_assert((unsigned char)*p >= 0x20 && *p != 0x7f);
	unload(&g);
}
END_TEST

/* Only where the task list was read: no BTF, no step, no route -- no x-task. */
START_TEST(cpu_task_needs_tasks)
{
	struct guest g = load(&(struct lu_opts){.gs = true}, false);

	ck_assert_ptr_null(ann(pt_capture_context_find(g.c, "cpu0"), "x-task"));
	unload(&g);
	g = load(&(struct lu_opts){.gs = true, .no_btf = true}, true);
	ck_assert_ptr_null(ann(pt_capture_context_find(g.c, "cpu0"), "x-task"));
	unload(&g);
	g = load(&(struct lu_opts){.gs = false, .user_mode = true}, true);
	ck_assert_ptr_null(ann(pt_capture_context_find(g.c, "cpu0"), "x-task"));
	unload(&g);
}
END_TEST

static const struct pt_root_cand *cand_at(const struct pt_roots *r, uint64_t addr)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->c[i].addr == addr && !strcmp(r->c[i].fmt->name, "x86-64"))
			return &r->c[i];
	return NULL;
}

/* roots: a process's PGD (and with PTI both halves of its pair) is marked with its pidN. */
START_TEST(roots_name_process)
{
	struct guest g = load(&(struct lu_opts){.gs = true, .pti = true}, true);
	struct pt_roots r;
	const struct pt_root_cand *c;
	char err[256];

	ck_assert_int_eq(pt_roots_scan(g.c, &(struct pt_roots_opts){.min_score = 0}, &r, NULL, err, sizeof err),
			 PT_OK);
	c = cand_at(&r, 0x100000);                  /* pid 1's PGD, no PTI: its root */
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_eq(c->proc, pt_capture_context_find(g.c, "pid1"));
	ck_assert_ptr_eq(c->root_of, pt_capture_context_find(g.c, "pid1"));
	c = cand_at(&r, 0x103000);                  /* pid 50's PTI user copy: its root */
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_eq(c->proc, pt_capture_context_find(g.c, "pid50"));
	c = cand_at(&r, 0x102000);                  /* its kernel copy: mm->pgd, no context's root */
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_eq(c->proc, pt_capture_context_find(g.c, "pid50"));
	ck_assert_ptr_null(c->root_of);
	c = cand_at(&r, 0x1000);                    /* cpu0's CR3, the kernel's: no process */
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_null(c->proc);
	pt_roots_free(&r);
	unload(&g);
	/* without the task list: nothing is a process's */
	g = load(&(struct lu_opts){.gs = true, .pti = true}, false);
	ck_assert_int_eq(pt_roots_scan(g.c, &(struct pt_roots_opts){.min_score = 0}, &r, NULL, err, sizeof err),
			 PT_OK);
	for (size_t i = 0; i < r.n; i++)
		ck_assert_ptr_null(r.c[i].proc);
	ck_assert_ptr_nonnull(cand_at(&r, 0x102000));
	pt_roots_free(&r);
	unload(&g);
}
END_TEST

static void pa_text(struct pt_capture *c, uint64_t pa, enum pt_out out, struct pt_buf *b)
{
	struct pt_pa_index *ix = pt_pa_index_new(c);

	pt_buf_reset(b);
	ck_assert_int_eq(pt_render_pa(b, ix, (unsigned)pt_capture_space_find(c, "sysmem"), pa, out, NULL), PT_OK);
	pt_pa_index_free(ix);
}

/* pa: which processes map this page -- two processes share one, each maps its own. */
START_TEST(pa_names_processes)
{
	struct guest g = load(&(struct lu_opts){.gs = true, .shared = true}, true);
	struct pt_tree *tree;
	struct pt_tnode root, n;
	struct pt_buf b, file;

	pt_buf_init(&b);
	pt_buf_init(&file);
	pa_text(g.c, LU_USER_PA(1) + 5, PT_OUT_TEXT, &b);
	ck_assert_msg(strstr(b.data, "\npid1 0x0000000000400005 "), "%s", b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "\npid50 0x0000000000401005 "));
	ck_assert_msg(strstr(b.data, "\n# processes: pid1 (init), pid50 (worker)\n"), "%s", b.data);
	pa_text(g.c, LU_USER_PA(1) + 5, PT_OUT_JSON, &b);
	ck_assert_msg(strstr(b.data, ", \"processes\": [{\"comm\": \"init\", \"context\": \"pid1\", \"pid\": 1}, "
			     "{\"comm\": \"worker\", \"context\": \"pid50\", \"pid\": 50}], \"space\": "), "%s", b.data);
	pa_text(g.c, LU_USER_PA(50), PT_OUT_TEXT, &b);
	ck_assert_ptr_nonnull(strstr(b.data, "\n# processes: pid50 (worker)\n"));
	/* the mount's pa/sysmem/ADDR is the same answer */
	ck_assert_int_eq(pt_tree_new(g.c, false, &tree), PT_OK);
	pt_tree_root(&root);
	ck_assert_int_eq(pt_tree_lookup(tree, &root, "pa", &n), PT_OK);
	ck_assert_int_eq(pt_tree_lookup(tree, &n, "sysmem", &n), PT_OK);
	ck_assert_int_eq(pt_tree_lookup(tree, &n, "0x801005", &n), PT_OK);
	ck_assert_int_eq(pt_tree_render(tree, &n, &file, NULL), PT_OK);
	pa_text(g.c, LU_USER_PA(1) + 5, PT_OUT_TEXT, &b);
	ck_assert_str_eq(file.data, b.data);
	pt_tree_free(tree);
	/* a page only the kernel maps: no processes line */
	pa_text(g.c, 0x20000, PT_OUT_TEXT, &b);
	ck_assert_ptr_nonnull(strstr(b.data, "cpu0 "));
	ck_assert_ptr_null(strstr(b.data, "# processes"));
	unload(&g);
	/* without the task list the answer is as it was: no processes line, no key */
	g = load(&(struct lu_opts){.gs = true, .shared = true}, false);
	pa_text(g.c, LU_USER_PA(1) + 5, PT_OUT_TEXT, &b);
	ck_assert_ptr_null(strstr(b.data, "processes"));
	pa_text(g.c, LU_USER_PA(1) + 5, PT_OUT_JSON, &b);
	ck_assert_ptr_null(strstr(b.data, "processes"));
	unload(&g);
	pt_buf_free(&b);
	pt_buf_free(&file);
}
END_TEST

/* ---- PCI functions by name ---- */

/* pci_root_buses walked with the BTF's offsets: both buses, the drivers, the domain through sysdata. */
START_TEST(pci_walk)
{
	struct guest g = load(&(struct lu_opts){.note_vi = true, .kallsyms = true, .pci = LU_PCI, .pci_domain = 2},
			      true);
	struct pt_pci_list l;
	struct pt_buf b;

	pt_capture_pci(g.c, &l);
	ck_assert_uint_eq(l.n, 3);
	ck_assert(l.drivers_known);
	ck_assert_str_eq(l.where, "the kernel's pci_root_buses");
	ck_assert_uint_eq(l.dev[0].segment, 2);
	ck_assert_uint_eq(l.dev[0].devfn, 0);
	ck_assert_uint_eq(l.dev[0].cls, 0x0600);
	ck_assert_str_eq(l.dev[0].driver, "");
	ck_assert_uint_eq(l.dev[1].devfn, 3 << 3);
	ck_assert_uint_eq(l.dev[1].vendor, 0x1b36);
	ck_assert_uint_eq(l.dev[1].device, 0x0010);
	ck_assert_uint_eq(l.dev[1].cls, 0x0108);
	ck_assert_uint_eq(l.dev[1].prog_if, 0x02);
	ck_assert_str_eq(l.dev[1].driver, "nvme");
	ck_assert_uint_eq(l.dev[2].bus, 1);
	ck_assert_uint_eq(l.dev[2].segment, 2);
	ck_assert_str_eq(l.dev[2].driver, "e1000e");
	ck_assert(!warned(g.c, "PCI"));
	pt_buf_init(&b);
	ck_assert(pt_linux_pci(g.c, false, &b));
	pt_buf_put(&b, "", 1);
	/* names as lspci prints them (pci.ids through libpci) */
	ck_assert_msg(strstr(b.data, "0002:00:03.0 0x0108 1b36:0010 nvme             -                        "
			     "Non-Volatile memory controller: Red Hat, Inc. QEMU NVM Express Controller\n"), "%s", b.data);
	ck_assert_msg(strstr(b.data, "0002:00:00.0 0x0600 8086:29c0 -                -                        "
			     "Host bridge: Intel Corporation 82G33/G31/P35/P31 Express DRAM Controller\n"), "%s", b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "0002:01:00.0 0x0200 8086:10d3 e1000e "));
	pt_buf_reset(&b);
	ck_assert(pt_linux_pci(g.c, true, &b));
	pt_buf_put(&b, "", 1);
	ck_assert_msg(strstr(b.data, "{\"bdf\": \"0002:00:03.0\", \"class\": \"0x0108\", \"device\": \"0x0010\", "
			     "\"driver\": \"nvme\", \"iommu_context\": null, \"name\": \"Non-Volatile memory controller: "
			     "Red Hat, Inc. QEMU NVM Express Controller\", \"prog_if\": \"0x02\", \"vendor\": \"0x1b36\"}"),
		      "%s", b.data);
	ck_assert_ptr_nonnull(strstr(b.data, "\"driver\": \"nvme\""));
	ck_assert_ptr_nonnull(strstr(b.data, "\"iommu_context\": null"));
	pt_buf_free(&b);
	unload(&g);
	/* the per-CPU route alone has no kallsyms: no pci_root_buses, one line, nothing named */
	g = load(&(struct lu_opts){.gs = true, .pci = LU_PCI}, true);
	pt_capture_pci(g.c, &l);
	ck_assert_uint_eq(l.n, 0);
	ck_assert(warned(g.c, "no address for pci_root_buses"));
	ck_assert(!pt_linux_has_pci(g.c));
	unload(&g);
	/* an empty list: nothing named, no warning */
	g = load(&(struct lu_opts){.note_vi = true, .kallsyms = true}, true);
	ck_assert(!pt_linux_has_pci(g.c));
	ck_assert(!warned(g.c, "PCI"));
	unload(&g);
}
END_TEST

/* Lists that loop or leave RAM: one warning, bounded, what was read kept. */
START_TEST(pci_hostile)
{
	struct guest g = load(&(struct lu_opts){.note_vi = true, .kallsyms = true, .pci = LU_PCI_LOOP}, true);
	struct pt_pci_list l;

	ck_assert(warned(g.c, "more than 65536 PCI functions"));
	pt_capture_pci(g.c, &l);
	ck_assert_uint_eq(l.n, 2);         /* bus 0's two, each once; bus 1 not reached */
	unload(&g);
	g = load(&(struct lu_opts){.note_vi = true, .kallsyms = true, .pci = LU_PCI_OUTSIDE}, true);
	ck_assert(warned(g.c, "a pci_dev outside captured RAM: 0xffff888006fffff0: the PCI walk stopped there "
			  "(2 functions kept)"));
	pt_capture_pci(g.c, &l);
	ck_assert_uint_eq(l.n, 2);         /* bus 0's two; bus 1's list is not readable */
	unload(&g);
}
END_TEST

/* An IOMMU's devices lines and device contexts' info gain the guest's names; the pci table its context. */
START_TEST(pci_iommu_lines)
{
	static uint8_t mem[0x20000];
	struct pt_pci_dev d[2] = {
		{.bus = 0, .devfn = 2 << 3, .vendor = 0x1b36, .device = 0x0010, .cls = 0x0108},
		{.bus = 0, .devfn = 5 << 3, .vendor = 0x8086, .device = 0x10d3, .cls = 0x0200},
	};
	struct tu_cap k;
	struct pt_tree *t;
	struct pt_buf b, before;

	tu_put64(mem, sizeof mem, 0x0, 0x101000 | 1);                 /* bus 0 */
	tu_put64(mem, sizeof mem, 0x1000 + 16 * 0x10, 0x110000 | 1);  /* 00:02.0 second-level */
	tu_put64(mem, sizeof mem, 0x1000 + 16 * 0x10 + 8, 1 | 7 << 8);
	tu_put64(mem, sizeof mem, 0x10000, 0x110000 | 3);
	k = tu_cap_load("intel-vtd", 0x100000, mem, sizeof mem, "[iommu dmar0]\ntype = intel-vtd\nrtaddr = 0x100000\n");
	ck_assert_int_eq(k.rc, PT_OK);
	ck_assert_int_eq(pt_tree_new(k.c, false, &t), PT_OK);
	pt_buf_init(&b);
	pt_buf_init(&before);
	ck_assert_int_eq(pt_tree_iommu_devices(t, 0, PT_OUT_TEXT, &before, NULL), PT_OK);
	pt_buf_put(&before, "", 1);
	ck_assert_ptr_null(strstr(before.data, "vendor="));       /* nothing known: as before */
	snprintf(d[0].driver, sizeof d[0].driver, "nvme");
	ck_assert_int_eq(pt_capture_set_pci(k.c, d, 2, "QMP query-pci", false), PT_OK);
	ck_assert_int_eq(pt_tree_iommu_devices(t, 0, PT_OUT_TEXT, &b, NULL), PT_OK);
	pt_buf_put(&b, "", 1);
	ck_assert_msg(strstr(b.data, "00:02.0 context=dmar0.00:02.0 ") == b.data, "%s", b.data);
	ck_assert_msg(strstr(b.data, " vendor=0x1b36 device=0x0010 class=0x0108 driver=nvme name=\"Non-Volatile "
			     "memory controller: Red Hat, Inc. QEMU NVM Express Controller\"\n"), "%s", b.data);
	/* the line starts as it did: the new fields only follow */
	ck_assert_int_eq(strncmp(b.data, before.data, strlen(before.data) - 1), 0);
	pt_buf_reset(&b);
	ck_assert_int_eq(pt_tree_iommu_devices(t, 0, PT_OUT_JSON, &b, NULL), PT_OK);
	pt_buf_put(&b, "", 1);
	ck_assert_msg(strstr(b.data, "\"bdf\": \"00:02.0\", \"class\": \"0x0108\", \"context\": \"dmar0.00:02.0\", "
			     "\"device\": \"0x0010\", \"domain\": 7, \"driver\": \"nvme\", ") &&
		      strstr(b.data, "\"name\": \"Non-Volatile memory controller: Red Hat, Inc. QEMU NVM Express "
			     "Controller\", ") && strstr(b.data, "\"vendor\": \"0x1b36\"}"), "%s", b.data);
	pt_buf_reset(&b);
	ck_assert_int_eq(pt_render_info(&b, pt_capture_context_find(k.c, "dmar0.00:02.0"), PT_OUT_TEXT, NULL), PT_OK);
	pt_buf_put(&b, "", 1);
	ck_assert_msg(strstr(b.data, "pci_vendor: 0x1b36\npci_device: 0x0010\npci_class: 0x0108\npci_driver: nvme\n"
			     "pci_name: Non-Volatile memory controller: Red Hat, Inc. QEMU NVM Express Controller\n"
			     "pci_source: QMP query-pci\n"), "%s", b.data);
	pt_buf_reset(&b);
	/* every function, the one the IOMMU does not translate with `-`; a driver QMP cannot know is `?` */
	ck_assert(pt_linux_pci(k.c, false, &b));
	pt_buf_put(&b, "", 1);
	ck_assert_msg(strstr(b.data, "0000:00:02.0 0x0108 1b36:0010 nvme             dmar0.00:02.0            Non-"),
		      "%s", b.data);
	ck_assert_msg(strstr(b.data, "0000:00:05.0 0x0200 8086:10d3 ?                -                        "
			     "Ethernet controller: Intel Corporation 82574L Gigabit Network Connection\n"), "%s", b.data);
	pt_buf_free(&b);
	pt_buf_free(&before);
	pt_tree_free(t);
	tu_cap_free(&k);
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
	tcase_add_test(t, route_gs_base);
	tcase_add_test(t, route_kernel_gs_base);
	tcase_add_test(t, pti_user_copy);
	tcase_add_test(t, route_system_map);
	tcase_add_test(t, route_system_map_kaslr);
	tcase_add_test(t, system_map_hostile);
	tcase_add_test(t, missing_parts);
	tcase_add_test(t, hostile_lists);
	tcase_add_test(t, tasks_table);
	tcase_add_test(t, tree_tasks_file);
	suite_add_tcase(s, t);
	t = tcase_create("cpu_task");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, cpu_runs_task);
	tcase_add_test(t, cpu_task_needs_tasks);
	suite_add_tcase(s, t);
	t = tcase_create("roots");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, roots_name_process);
	suite_add_tcase(s, t);
	t = tcase_create("pa");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, pa_names_processes);
	suite_add_tcase(s, t);
	t = tcase_create("pci");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, pci_walk);
	tcase_add_test(t, pci_hostile);
	tcase_add_test(t, pci_iommu_lines);
	suite_add_tcase(s, t);
	return tu_run(s);
}
