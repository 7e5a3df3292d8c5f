/* SPDX-License-Identifier: MIT */
/*
 * pstable.c — the ps-like table of a Linux guest's processes (ptfs-tool
 * tasks, mnt/tasks; docs/design.md §3.3): one row per pidN context, from
 * its info's x- lines and its user pages counted, and on a live guest the
 * rows of processes started since the mount, which have no context
 * (linux.c's refresh keeps them).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux_int.h"
#include "pt_linux.h"
#include "pt_walk.h"

static int cmp_pid(const void *a, const void *b)
{
	unsigned long x = strtoul(pt_context_annotation(*(const struct pt_context *const *)a, "x-pid"), NULL, 10);
	unsigned long y = strtoul(pt_context_annotation(*(const struct pt_context *const *)b, "x-pid"), NULL, 10);

	return x < y ? -1 : x > y;
}

/*
 * Pages of CTX's user half: below the canonical hole (x86-64 2^47, la57
 * 2^56; an arm64 TTBR0 context's is all of it, 2^va_bits).
 */
static uint64_t user_pages(const struct pt_context *ctx, struct pt_readctl *rc)
{
	struct pt_page_iter *it = malloc(sizeof *it);
	uint64_t lim = 1ull << (ctx->fmt->va_bits - 1), n = 0;
	struct pt_page pg;

	if (!it)
		return 0;
	pt_pages_init(it, ctx, 0, rc);
	it->flags = PT_DECODE_SUMMARY;
	while (pt_pages_next(it, &pg) && pg.va < lim)
		n++;
	free(it);
	return n;
}

bool pt_linux_has_tasks(const struct pt_capture *cap)
{
	/* the step after the load appends them: the last context is one if any is */
	size_t n = pt_capture_context_count(cap);

	return n && pt_context_annotation(pt_capture_context(cap, n - 1), "x-pid");
}

/* A row of a process with no context (a live guest's, started since the mount): no CPU, no pages counted. */
static void new_row(const struct pt_task_row *r, bool json, struct pt_buf *out, struct pt_jarr *arr)
{
	if (json) {
		struct pt_jobj o = {0};

		pt_jobj_u(&o, "pid", r->pid);
		pt_jobj_u(&o, "ppid", r->ppid);
		pt_jobj_str(&o, "comm", r->comm);
		pt_jobj_u(&o, "threads", r->threads);
		pt_jobj_str(&o, "cpu", NULL);
		pt_jobj_hex(&o, "root", r->root);
		pt_jobj_str(&o, "pages", NULL);
		pt_jobj_str(&o, "context", NULL);
		pt_jarr_obj(arr, &o);
	} else {
		pt_buf_printf(out, "%7" PRIu32 " %7" PRIu32 " %-16s %7u %4s 0x%-16" PRIx64 " %s\n", r->pid, r->ppid,
			      r->comm, r->threads, "-", r->root, "-");
	}
}

static void ctx_row(const struct pt_context *c, bool json, struct pt_buf *out, struct pt_jarr *arr,
		    struct pt_readctl *rc)
{
	const char *cpu = pt_context_annotation(c, "x-cpu");
	uint64_t pages = user_pages(c, rc);

	if (json) {
		struct pt_jobj o = {0};

		pt_jobj_u(&o, "pid", strtoull(pt_context_annotation(c, "x-pid"), NULL, 10));
		pt_jobj_u(&o, "ppid", strtoull(pt_context_annotation(c, "x-ppid"), NULL, 10));
		pt_jobj_str(&o, "comm", pt_context_annotation(c, "x-comm"));
		pt_jobj_u(&o, "threads", strtoull(pt_context_annotation(c, "x-threads"), NULL, 10));
		pt_jobj_str(&o, "cpu", cpu && strcmp(cpu, "-") ? cpu : NULL);
		pt_jobj_hex(&o, "root", c->root_addr);
		pt_jobj_u(&o, "pages", pages);
		pt_jobj_str(&o, "context", c->name);
		pt_jarr_obj(arr, &o);
	} else {
		pt_buf_printf(out, "%7s %7s %-16s %7s %4s 0x%-16" PRIx64 " %" PRIu64 "\n", pt_context_annotation(c, "x-pid"),
			      pt_context_annotation(c, "x-ppid"), pt_context_annotation(c, "x-comm"), pt_context_annotation(c, "x-threads"), cpu ? cpu : "-", c->root_addr,
			      pages);
	}
}

bool pt_linux_tasks(const struct pt_capture *cap, bool json, struct pt_buf *out, struct pt_readctl *rc)
{
	size_t n = 0, nc = pt_capture_context_count(cap), j = 0, nn;
	const struct pt_context **c = calloc(nc ? nc : 1, sizeof *c);
	struct pt_task_row *nw;
	struct pt_jarr arr = {0};

	if (!c)
		return false;
	for (size_t i = 0; i < nc; i++)
		if (pt_context_annotation(pt_capture_context(cap, i), "x-pid") && !pt_context_gone(pt_capture_context(cap, i)))
			c[n++] = pt_capture_context(cap, i);
	qsort(c, n, sizeof *c, cmp_pid);
	/* a live guest's processes started since the mount, merged by pid */
	nn = pt_linux_new_rows(cap, &nw);
	if (!json && n + nn)
		pt_buf_printf(out, "%7s %7s %-16s %7s %4s %-18s %s\n", "PID", "PPID", "COMM", "THREADS", "CPU",
			      "ROOT", "PAGES");
	for (size_t i = 0; i < n || j < nn;) {
		if (j < nn && (i == n || nw[j].pid < strtoul(pt_context_annotation(c[i], "x-pid"), NULL, 10)))
			new_row(&nw[j++], json, out, &arr);
		else
			ctx_row(c[i++], json, out, &arr, rc);
	}
	if (!json && nn)
		pt_buf_printf(out, "# %zu processes started since the mount have no pidN directory: remount to see "
			      "them\n", nn);
	if (json) {
		pt_buf_put(out, "[", 1);
		if (arr.b.len)
			pt_buf_put(out, arr.b.data, arr.b.len);
		pt_buf_put(out, "]\n", 2);
		pt_buf_free(&arr.b);
	}
	free(nw);
	free(c);
	return n + nn > 0;
}
