/* SPDX-License-Identifier: MIT */
/*
 * test_linux_whose.c — whose tables they are (docs/design.md §3.3): the
 * task a vCPU runs, the process a root table is, the processes that map a
 * page, and the guest's PCI functions by name (core/linux/pci.c), each on
 * the synthetic guest of linux_util.c loaded through linux_guest.c.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux_guest.h"
#include "linux_int.h"
#include "pt_extend.h"
#include "pt_linux.h"
#include "pt_pa.h"
#include "pt_render.h"
#include "pt_roots.h"
#include "pt_tree.h"
#include "testutil.h"

/* ---- whose: which task a vCPU runs, whose table a root is, who maps a page ---- */

/* cpuN's info says which task it runs: a thread, a process, the idle task. */
START_TEST(cpu_runs_task)
{
	struct guest g = lg_load(&(struct lu_opts){.gs = true}, true);
	const struct pt_context *cpu0 = pt_capture_context_find(g.c, "cpu0");
	struct pt_buf b;

	ck_assert_str_eq(lg_ann(cpu0, "x-task"), "pid 51 (worker), thread of process pid50");
	/* the pidN info names the vCPU running it */
	ck_assert_str_eq(lg_ann(pt_capture_context_find(g.c, "pid50"), "x-cpu"), "cpu0");
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
		ck_assert_str_eq(lg_ann(cpu0, "x-task"), "idle (pid 0, swapper/0)");
		ck_assert_str_eq(lg_ann(cpu0, "x-source") ? "ok" : "lost", "ok");
		ck_assert_int_eq(pt_capture_annotate(g.c, "cpu9", "x-task", "-"), PT_E_NOTFOUND);
	}
	lg_unload(&g);
	g = lg_load(&(struct lu_opts){.gs = true, .idle = true}, true);
	ck_assert_str_eq(lg_ann(pt_capture_context_find(g.c, "cpu0"), "x-task"), "idle (pid 0, swapper/0)");
	ck_assert_str_eq(lg_ann(pt_capture_context_find(g.c, "pid50"), "x-cpu"), "-");
	lg_unload(&g);
	g = lg_load(&(struct lu_opts){.note_vi = true, .kallsyms = true, .hostile = LU_COMM}, true);
	/* route (a) without a GS base: no per-CPU base but __per_cpu_offset; control bytes escaped */
	ck_assert_ptr_nonnull(lg_ann(pt_capture_context_find(g.c, "cpu0"), "x-task"));
	for (const char *p = lg_ann(pt_capture_context_find(g.c, "cpu0"), "x-task"); *p; p++)
		ck_assert((unsigned char)*p >= 0x20 && *p != 0x7f);
	lg_unload(&g);
}
END_TEST

/* Only where the task list was read: no BTF, no step, no route -- no x-task. */
START_TEST(cpu_task_needs_tasks)
{
	struct guest g = lg_load(&(struct lu_opts){.gs = true}, false);

	ck_assert_ptr_null(lg_ann(pt_capture_context_find(g.c, "cpu0"), "x-task"));
	lg_unload(&g);
	g = lg_load(&(struct lu_opts){.gs = true, .no_btf = true}, true);
	ck_assert_ptr_null(lg_ann(pt_capture_context_find(g.c, "cpu0"), "x-task"));
	lg_unload(&g);
	g = lg_load(&(struct lu_opts){.gs = false, .user_mode = true}, true);
	ck_assert_ptr_null(lg_ann(pt_capture_context_find(g.c, "cpu0"), "x-task"));
	lg_unload(&g);
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
	struct guest g = lg_load(&(struct lu_opts){.gs = true, .pti = true}, true);
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
	lg_unload(&g);
	/* without the task list: nothing is a process's */
	g = lg_load(&(struct lu_opts){.gs = true, .pti = true}, false);
	ck_assert_int_eq(pt_roots_scan(g.c, &(struct pt_roots_opts){.min_score = 0}, &r, NULL, err, sizeof err),
			 PT_OK);
	for (size_t i = 0; i < r.n; i++)
		ck_assert_ptr_null(r.c[i].proc);
	ck_assert_ptr_nonnull(cand_at(&r, 0x102000));
	pt_roots_free(&r);
	lg_unload(&g);
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
	struct guest g = lg_load(&(struct lu_opts){.gs = true, .shared = true}, true);
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
	lg_unload(&g);
	/* without the task list the answer is as it was: no processes line, no key */
	g = lg_load(&(struct lu_opts){.gs = true, .shared = true}, false);
	pa_text(g.c, LU_USER_PA(1) + 5, PT_OUT_TEXT, &b);
	ck_assert_ptr_null(strstr(b.data, "processes"));
	pa_text(g.c, LU_USER_PA(1) + 5, PT_OUT_JSON, &b);
	ck_assert_ptr_null(strstr(b.data, "processes"));
	lg_unload(&g);
	pt_buf_free(&b);
	pt_buf_free(&file);
}
END_TEST

/* ---- PCI functions by name ---- */

/* pci_root_buses walked with the BTF's offsets: both buses, the drivers, the domain through sysdata. */
START_TEST(pci_walk)
{
	struct guest g = lg_load(&(struct lu_opts){.note_vi = true, .kallsyms = true, .pci = LU_PCI, .pci_domain = 2},
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
	ck_assert(!lg_warned(g.c, "PCI"));
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
	lg_unload(&g);
	/* the per-CPU route alone has no kallsyms: no pci_root_buses, one line, nothing named */
	g = lg_load(&(struct lu_opts){.gs = true, .pci = LU_PCI}, true);
	pt_capture_pci(g.c, &l);
	ck_assert_uint_eq(l.n, 0);
	ck_assert(lg_warned(g.c, "no address for pci_root_buses"));
	ck_assert(!pt_linux_has_pci(g.c));
	lg_unload(&g);
	/* an empty list: nothing named, no warning */
	g = lg_load(&(struct lu_opts){.note_vi = true, .kallsyms = true}, true);
	ck_assert(!pt_linux_has_pci(g.c));
	ck_assert(!lg_warned(g.c, "PCI"));
	lg_unload(&g);
}
END_TEST

/* Lists that loop or leave RAM: one warning, bounded, what was read kept. */
START_TEST(pci_hostile)
{
	struct guest g = lg_load(&(struct lu_opts){.note_vi = true, .kallsyms = true, .pci = LU_PCI_LOOP}, true);
	struct pt_pci_list l;

	/* found within twice the loop's length, not after 65536 functions */
	ck_assert(lg_warned(g.c, "a PCI list that loops without its head at 0xffff888000705010: the PCI walk stopped "
			    "there (3 functions kept)"));
	pt_capture_pci(g.c, &l);
	ck_assert_uint_eq(l.n, 2);         /* bus 0's two, each once; bus 1 not reached */
	lg_unload(&g);
	g = lg_load(&(struct lu_opts){.note_vi = true, .kallsyms = true, .pci = LU_PCI_OUTSIDE}, true);
	ck_assert(lg_warned(g.c, "a pci_dev outside captured RAM: 0xffff888006fffff0: the PCI walk stopped there "
			  "(2 functions kept)"));
	pt_capture_pci(g.c, &l);
	ck_assert_uint_eq(l.n, 2);         /* bus 0's two; bus 1's list is not readable */
	lg_unload(&g);
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
	Suite *s = suite_create("linux_whose");
	TCase *t;

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
