/* SPDX-License-Identifier: MIT */
/*
 * tasks.c — the task list and each process's root (docs/design.md §3.3);
 * procs.c makes the contexts, pstable.c the ps-like table.
 *
 * init_task.tasks links the thread-group leaders (kernel/fork.c
 * copy_process() adds p->tasks only if thread_group_leader(p)); a leader's
 * threads hang off signal->thread_head through task.thread_node.  Kernel
 * threads have no mm (PF_KTHREAD, include/linux/sched.h) and are no
 * context.  A process's PGD is mm->pgd, a direct-map (linear-map) VA,
 * made physical through the kernel context's own walk; the table the CPU
 * walks in user mode is the kernel context's format's to say
 * (pt_format.user_keys: x86-64 PTI's user copy 4 KiB above).  Every offset
 * comes from the dump's BTF; every list is bounded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux_int.h"
#include "pt_linux.h"
#include "pt_vec.h"
#include "pt_walk.h"

bool pt_task_offsets(const struct btf *btf, struct pt_task_off *o, char *missing, size_t mlen)
{
	static const struct {
		const char *st, *m;
		size_t at;
	} f[] = {
		{"task_struct", "flags", offsetof(struct pt_task_off, flags)},
		{"task_struct", "tasks", offsetof(struct pt_task_off, tasks)},
		{"task_struct", "mm", offsetof(struct pt_task_off, mm)},
		{"task_struct", "pid", offsetof(struct pt_task_off, pid)},
		{"task_struct", "tgid", offsetof(struct pt_task_off, tgid)},
		{"task_struct", "group_leader", offsetof(struct pt_task_off, group_leader)},
		{"task_struct", "real_parent", offsetof(struct pt_task_off, real_parent)},
		{"task_struct", "comm", offsetof(struct pt_task_off, comm)},
		{"task_struct", "signal", offsetof(struct pt_task_off, signal)},
		{"mm_struct", "pgd", offsetof(struct pt_task_off, pgd)},
	};

	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		int64_t v = pt_btf_member(btf, f[i].st, f[i].m);

		if (v < 0) {
			snprintf(missing, mlen, "%s.%s", f[i].st, f[i].m);
			return false;
		}
		*(int64_t *)((char *)o + f[i].at) = v;
	}
	/* __state since 5.14 (commit 2f064a59a11f "sched: Change task_struct::state") */
	o->state = pt_btf_member(btf, "task_struct", "__state");
	if (o->state < 0)
		o->state = pt_btf_member(btf, "task_struct", "state");
	/* the thread list: signal->thread_head/thread_node since 3.14; -1: threads not counted */
	o->thread_node = pt_btf_member(btf, "task_struct", "thread_node");
	o->thread_head = pt_btf_member(btf, "signal_struct", "thread_head");
	return true;
}

/* An open-addressed set of task addresses: a cycle that skips the start is still found. */
struct seen {
	uint64_t *v;
	size_t cap, n;
};

static int seen_add(struct seen *s, uint64_t a)
{
	size_t h;

	if (s->n * 2 >= s->cap) {
		struct seen t = {calloc(s->cap ? s->cap * 2 : 1024, sizeof *t.v), s->cap ? s->cap * 2 : 1024, 0};

		if (!t.v)
			return -1;
		for (size_t i = 0; i < s->cap; i++)
			if (s->v[i])
				seen_add(&t, s->v[i]);
		free(s->v);
		*s = t;
	}
	for (h = (size_t)((a >> 4) * 0x9e3779b97f4a7c15ull) & (s->cap - 1); s->v[h]; h = (h + 1) & (s->cap - 1))
		if (s->v[h] == a)
			return 0;
	s->v[h] = a;
	s->n++;
	return 1;
}

static bool rd32(struct pt_kmem *k, uint64_t va, uint32_t *v)
{
	uint8_t b[4];

	if (!pt_kmem_read(k, va, b, 4))
		return false;
	*v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return true;
}

/* Threads of leader T: signal->thread_head's list, bounded; 0 when it cannot be read. */
static unsigned count_threads(struct pt_kmem *k, const struct pt_task_off *o, uint64_t t, uint64_t sig)
{
	uint64_t head, p;
	unsigned n = 0;

	if (o->thread_head < 0 || o->thread_node < 0 || !sig)
		return 0;
	head = sig + (uint64_t)o->thread_head;
	if (!pt_kmem_u64(k, head, &p))
		return 0;
	(void)t;
	while (p != head && n < PT_TASKS_MAX) {
		n++;
		if (!pt_kmem_u64(k, p, &p))
			return 0;
	}
	return n < PT_TASKS_MAX ? n : 0;
}

bool pt_task_read(struct pt_kmem *k, const struct pt_task_off *o, uint64_t t, struct pt_task *out)
{
	uint64_t parent = 0, sig = 0;
	uint32_t st = 0;

	memset(out, 0, sizeof *out);
	out->addr = t;
	if (!rd32(k, t + (uint64_t)o->pid, &out->pid) || !rd32(k, t + (uint64_t)o->tgid, &out->tgid) ||
	    !rd32(k, t + (uint64_t)o->flags, &out->flags) || !pt_kmem_u64(k, t + (uint64_t)o->mm, &out->mm) ||
	    !pt_kmem_read(k, t + (uint64_t)o->comm, out->comm, 16))
		return false;
	out->comm[16] = 0;
	if (o->state >= 0 && rd32(k, t + (uint64_t)o->state, &st))
		out->state = st;
	if (pt_kmem_u64(k, t + (uint64_t)o->real_parent, &parent) && parent)
		rd32(k, parent + (uint64_t)o->tgid, &out->ppid);
	if (pt_kmem_u64(k, t + (uint64_t)o->signal, &sig))
		out->threads = count_threads(k, o, t, sig);
	out->cpu = -1;
	return true;
}

pt_err pt_task_list(struct pt_kmem *k, const struct pt_task_off *o, uint64_t start, struct pt_tasks *out)
{
	struct seen seen = {0};
	uint64_t t = start, next;
	pt_err rc = PT_OK;

	memset(out, 0, sizeof *out);
	for (;;) {
		struct pt_task *nt;
		int s = seen_add(&seen, t);

		if (s < 0) {
			rc = PT_E_NOMEM;
			break;
		}
		if (!s) {
			snprintf(out->problem, sizeof out->problem, "the task list loops back to 0x%" PRIx64
				 " without passing its start again", t);
			break;
		}
		if (out->n == PT_TASKS_MAX) {
			snprintf(out->problem, sizeof out->problem, "more than %u tasks on the task list", PT_TASKS_MAX);
			break;
		}
		if (!pt_vec_reserve(&out->t, &out->cap, out->n + 1, sizeof *out->t)) {
			rc = PT_E_NOMEM;
			break;
		}
		nt = &out->t[out->n];
		if (!pt_task_read(k, o, t, nt)) {
			snprintf(out->problem, sizeof out->problem, "the task at 0x%" PRIx64 " is not mapped or "
				 "not captured", t);
			break;
		}
		out->n++;
		/* tasks.next points at the next leader's tasks member (include/linux/list.h) */
		if (!pt_kmem_u64(k, t + (uint64_t)o->tasks, &next)) {
			snprintf(out->problem, sizeof out->problem, "the task list's pointer at 0x%" PRIx64
				 " is not mapped or not captured", t + (uint64_t)o->tasks);
			break;
		}
		t = next - (uint64_t)o->tasks;
		if (t == start)
			break;
	}
	free(seen.v);
	return rc;
}

/*
 * Whether the task_struct at physical TPA is init_task: pid and tgid 0, no
 * mm, a kernel thread, and on its own task list: the task its tasks.next
 * names links back to it (tasks.prev), at a kernel VA whose walk gives TPA
 * again, and it is its own group leader.  *VA: that VA.
 */
/* The little-endian N-byte value at physical PA of SPACE into *V. */
static bool phys_le(const struct pt_mem *mem, unsigned space, uint64_t pa, unsigned n, uint64_t *v)
{
	uint8_t b[8];

	*v = 0;
	if (!pt_mem_read(mem, space, pa, b, n))
		return false;
	for (unsigned i = n; i-- > 0;)
		*v = *v << 8 | b[i];
	return true;
}

/*
 * Whether the task_struct at physical TPA is init_task: pid and tgid 0, no
 * mm, a kernel thread (include/linux/init_task.h INIT_TASK's PF_KTHREAD),
 * and on its own task list: the task its tasks.next names links back to
 * it (tasks.prev) at a kernel VA whose walk gives TPA again, and it is its
 * own group leader.  *VA: that VA.
 */
static bool init_at(struct pt_kmem *k, const struct pt_task_off *o, unsigned space, uint64_t tpa, uint64_t *va)
{
	const struct pt_mem *mem = k->ctx->mem;
	uint64_t pid, tgid, flags, mm, next, prev, leader, pa;
	unsigned sp;

	if (tpa & 7 || !phys_le(mem, space, tpa + (uint64_t)o->pid, 4, &pid) ||
	    !phys_le(mem, space, tpa + (uint64_t)o->tgid, 4, &tgid) ||
	    !phys_le(mem, space, tpa + (uint64_t)o->flags, 4, &flags) ||
	    !phys_le(mem, space, tpa + (uint64_t)o->mm, 8, &mm) ||
	    !phys_le(mem, space, tpa + (uint64_t)o->tasks, 8, &next) ||
	    !phys_le(mem, space, tpa + (uint64_t)o->group_leader, 8, &leader))
		return false;
	if (pid || tgid || mm || !(flags & PT_PF_KTHREAD) || !(next >> 63) || !pt_kmem_u64(k, next + 8, &prev) ||
	    prev < (uint64_t)o->tasks)
		return false;
	*va = prev - (uint64_t)o->tasks;
	return leader == *va && pt_kmem_pa(k, *va, &pa, &sp) && pa == tpa && sp == space;
}

#define INIT_CHUNK ((uint64_t)1 << 20)
/* "swapper/0" hits examined before the scan gives up (one the printk buffer, a few stale copies). */
#define INIT_MAX_HITS 4096u

pt_err pt_task_find_init(struct pt_kmem *k, const struct pt_task_off *o, unsigned space,
			 const struct pt_pa_range *r, size_t n, uint64_t *va, uint64_t *pa)
{
	/* init_idle() names the boot CPU's idle task "swapper/0" in its comm[16] (kernel/sched/core.c) */
	static const char comm[16] = "swapper/0";
	uint8_t *buf = malloc(INIT_CHUNK + sizeof comm);
	unsigned hits = 0;

	if (!buf)
		return PT_E_NOMEM;
	*va = 0;
	for (size_t i = 0; i < n && !*va && hits < INIT_MAX_HITS; i++) {
		uint64_t end = r[i].base + r[i].size, at = r[i].base;

		while (at < end && !*va && hits < INIT_MAX_HITS) {
			uint64_t len = end - at < INIT_CHUNK + sizeof comm ? end - at : INIT_CHUNK + sizeof comm, nz;
			const uint8_t *p, *q;

			/* jump over what is known zero (a kdump's absent pages) */
			if (!pt_mem_next_nonzero(k->ctx->mem, space, at, &nz) || nz >= end)
				break;
			if (nz > at) {
				at = nz & ~7ull;
				continue;
			}
			if (!pt_mem_read(k->ctx->mem, space, at, buf, (size_t)len)) {
				at += 4096 - (at & 4095);
				continue;
			}
			for (p = buf; !*va && hits < INIT_MAX_HITS &&
			     (q = memmem(p, (size_t)(len - (uint64_t)(p - buf)), comm, sizeof comm)); p = q + 1) {
				uint64_t hit = at + (uint64_t)(q - buf);

				hits++;
				if (hit - r[i].base >= (uint64_t)o->comm && init_at(k, o, space, hit - (uint64_t)o->comm, va))
					*pa = hit - (uint64_t)o->comm;
				else
					*va = 0;
			}
			at += len > sizeof comm ? len - sizeof comm : len;
		}
	}
	free(buf);
	return PT_OK;
}

void pt_tasks_free(struct pt_tasks *t)
{
	free(t->t);
	memset(t, 0, sizeof *t);
}

/* The format's reader (pt_ctx_reader) of the captured memory in the PGD's space. */
struct pgd_mem {
	const struct pt_mem *mem;
	unsigned space;
};

static bool pgd_read(const void *opaque, unsigned space, uint64_t pa, void *out, size_t len)
{
	const struct pgd_mem *m = opaque;

	(void)space;
	return pt_mem_read(m->mem, m->space, pa, out, len);
}

pt_err pt_task_pgd(struct pt_kmem *k, const struct pt_task_off *o, struct pt_task *t)
{
	unsigned sp;

	if (!t->mm || t->flags & PT_PF_KTHREAD)
		return PT_E_VALUE;
	if (!pt_kmem_u64(k, t->mm + (uint64_t)o->pgd, &t->pgd) || !pt_kmem_pa(k, t->pgd, &t->pgd_pa, &sp))
		return PT_E_CAPTURE;
	t->space = sp;
	/* the user root as the kernel context's format has it (x86-64 PTI's user copy) */
	if (!k->ctx->fmt->user_keys ||
	    !k->ctx->fmt->user_keys(k->ctx, t->pgd_pa, &(struct pt_ctx_reader){pgd_read,
				    &(struct pgd_mem){k->ctx->mem, sp}}, &t->root, NULL))
		return PT_E_CAPTURE;
	t->pti = t->root != t->pgd_pa;
	return PT_OK;
}
