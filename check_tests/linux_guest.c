/* SPDX-License-Identifier: MIT */
/* linux_guest.c — the synthetic Linux guest loaded as a capture (linux_guest.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux_guest.h"
#include "pt_linux.h"
#include "pt_walk.h"
#include "testutil.h"

/*
 * The guest O describes, loaded with the step when EXPAND, with the load
 * options LO (may be NULL) and MAP (LEN bytes) as its System.map when not NULL.
 */
struct guest lg_load_full(const struct lu_opts *o, bool expand, const struct pt_load_opts *lo,
			  const void *map, size_t maplen)
{
	struct guest g = {tu_mkdtemp(), pt_capture_new(), PT_OK};
	struct pt_load_opts opts = lo ? *lo : (struct pt_load_opts){0};
	char path[512], mpath[512];
	size_t len;
	uint8_t *core = lu_core(o, &len);

	tu_write(g.dir, "vmcore", core, len);
	free(core);
	snprintf(path, sizeof path, "%s/vmcore", g.dir);
	snprintf(mpath, sizeof mpath, "%s/System.map", g.dir);
	if (map)
		tu_write(g.dir, "System.map", map, maplen);
	opts.after_load = expand ? pt_linux_expand : NULL;
	opts.system_map = map ? mpath : NULL;
	g.rc = pt_capture_load_opts(g.c, path, &opts);
	ck_assert_msg(g.rc == PT_OK, "load: %s", pt_capture_error(g.c));
	return g;
}

struct guest lg_load_map(const struct lu_opts *o, bool expand, const void *map, size_t maplen)
{
	return lg_load_full(o, expand, NULL, map, maplen);
}

struct guest lg_load_task(const struct lu_opts *o, bool expand, const struct pt_load_opts *lo)
{
	return lg_load_full(o, expand, lo, NULL, 0);
}

struct guest lg_load(const struct lu_opts *o, bool expand)
{
	return lg_load_full(o, expand, NULL, NULL, 0);
}

void lg_unload(struct guest *g)
{
	pt_capture_free(g->c);
	tu_rmtree(g->dir);
	free(g->dir);
}

const char *lg_ann(const struct pt_context *c, const char *key)
{
	for (size_t i = 0; i < c->nannotations; i++)
		if (!strcmp(c->annotations[i].key, key))
			return c->annotations[i].value;
	return NULL;
}

bool lg_warned(const struct pt_capture *c, const char *what)
{
	for (size_t i = 0; i < pt_capture_warning_count(c); i++)
		if (strstr(pt_capture_warning(c, i), what))
			return true;
	return false;
}

void lg_walks_to(const struct pt_context *ctx, uint64_t va, uint64_t pa)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == PT_FAULT_NONE, "%s: 0x%llx faults", ctx->name, (unsigned long long)va);
	ck_assert_uint_eq(w.pa, pa);
}

/* The processes of the guest, as every route must find them. */
void lg_has_processes(const struct pt_capture *c)
{
	const struct pt_context *p1 = pt_capture_context_find(c, "pid1");
	const struct pt_context *p50 = pt_capture_context_find(c, "pid50");

	ck_assert_ptr_nonnull(p1);
	ck_assert_ptr_nonnull(p50);
	/* kernel threads (swapper/0, kthreadd) and a non-leader thread are no context */
	ck_assert_ptr_null(pt_capture_context_find(c, "pid0"));
	ck_assert_ptr_null(pt_capture_context_find(c, "pid2"));
	ck_assert_ptr_null(pt_capture_context_find(c, "pid51"));
	ck_assert_str_eq(lg_ann(p1, "x-comm"), "init");
	ck_assert_str_eq(lg_ann(p1, "x-ppid"), "0");
	ck_assert_str_eq(lg_ann(p1, "x-threads"), "1");
	ck_assert_str_eq(lg_ann(p1, "x-cpu"), "-");
	ck_assert_str_eq(lg_ann(p50, "x-ppid"), "1");
	ck_assert_str_eq(lg_ann(p50, "x-threads"), "2");
	ck_assert_str_eq(lg_ann(p50, "x-cpu"), "cpu0");       /* its second thread runs on cpu0 */
	lg_walks_to(p1, LU_USER_VA + 5, LU_USER_PA(1) + 5);
	lg_walks_to(p50, LU_USER_VA, LU_USER_PA(50));
}

size_t lg_nwarned(const struct pt_capture *c, const char *what)
{
	size_t n = 0;

	for (size_t i = 0; i < pt_capture_warning_count(c); i++)
		n += strstr(pt_capture_warning(c, i), what) != NULL;
	return n;
}
