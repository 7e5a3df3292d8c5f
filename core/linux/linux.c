/* SPDX-License-Identifier: MIT */
/*
 * linux.c — the step after the load (docs/design.md §3.3, §6): a Linux
 * dump's processes as contexts pidN.  The routes to the task list, in
 * order: (a) kallsyms through VMCOREINFO (a note, or its page found in
 * RAM) gives init_task and __per_cpu_offset; (b) each vCPU's per-CPU base
 * (the QEMU note's GS base at CPL 0, KernelGSBase at CPL 3: entry_64.S
 * swapgs) and the per-CPU current_task give the running tasks, whose
 * group leader is on the list.  Without BTF or either route the capture
 * stays as it was, with one warning saying what was missing.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "linux_int.h"
#include "pt_extend.h"
#include "pt_linux.h"
#include "pt_vec.h"
#include "pt_walk.h"

/*
 * Whether C walks kernel VAs as a kernel's context its format can make
 * process contexts from (pt_format.user_keys: an arm64 TTBR0 context is
 * no kernel's).
 */
static bool kernel_like(const struct pt_context *c)
{
	return c->fmt->user_keys && c->fmt->user_keys(c, 0, NULL, &(uint64_t){0}, NULL);
}

/* The kernel's tables: the dump's kernel context (VMCOREINFO), else the first vCPU's that is one. */
static const struct pt_context *kernel_ctx(const struct pt_capture *cap)
{
	const struct pt_context *c = pt_capture_context_find(cap, "kernel");

	if (c)
		return kernel_like(c) ? c : NULL;
	for (size_t i = 0; i < pt_capture_context_count(cap); i++) {
		const struct pt_context *x = pt_capture_context(cap, i);

		if (!strncmp(x->name, "cpu", 3) && kernel_like(x))
			return x;
	}
	return NULL;
}


/* The BTF at __start_BTF..__stop_BTF when kallsyms gave them (no scan), else the scan's. */
static pt_err find_btf(struct pt_lx *s, const struct pt_pa_range *r, size_t nr, unsigned space)
{
	uint64_t a = s->sym[PT_KS_START_BTF], b = s->sym[PT_KS_STOP_BTF];
	pt_err rc;

	if (a && b > a && b - a <= PT_BTF_MAX_SIZE) {
		void *blob = malloc(b - a);

		if (!blob)
			return PT_E_NOMEM;
		if (pt_kmem_read(&s->k, a, blob, b - a) && (s->btf.btf = pt_btf_parse(blob, b - a))) {
			s->btf.size = b - a;
			snprintf(s->btf_where, sizeof s->btf_where, "at __start_BTF 0x%" PRIx64 ", %" PRIu64
				 " bytes", a, b - a);
		}
		free(blob);
		if (s->btf.btf)
			return PT_OK;
	}
	rc = pt_btf_scan(s->k.ctx->mem, space, r, nr, &s->btf);
	if (!rc && s->btf.btf)
		snprintf(s->btf_where, sizeof s->btf_where, "found at physical 0x%" PRIx64 ", %" PRIu64
			 " bytes (%u of %u header hits valid)", s->btf.pa, s->btf.size, s->btf.valid, s->btf.hits);
	return rc;
}

static bool reg_base(const struct pt_kernel_cpu *c, uint64_t *base);

/* The per-CPU base of vCPU I: __per_cpu_offset[i] (route a), or its GS base (route b). */
static bool cpu_base(struct pt_lx *s, size_t i, uint64_t *base)
{
	const struct pt_kernel_cpu *c = s->kf && i < s->kf->ncpu ? &s->kf->cpu[i] : NULL;

	if (s->sym[PT_KS_PER_CPU_OFFSET] && pt_kmem_u64(&s->k, s->sym[PT_KS_PER_CPU_OFFSET] + 8 * i, base))
		return true;
	return reg_base(c, base);
}

/* vCPU C's per-CPU base from its registers alone (route b). */
static bool reg_base(const struct pt_kernel_cpu *c, uint64_t *base)
{
	if (!c || !c->has_gs)
		return false;
	/* at CPL 3 the kernel's base waits in KernelGSBase until swapgs (arch/x86/entry/entry_64.S) */
	*base = (c->cs & 3) ? c->kernel_gs_base : c->gs_base;
	return (c->cs & 3) ? c->has_kgs && *base >> 63 : *base >> 63;
}

static bool current_of(struct pt_lx *s, size_t i, uint64_t *task)
{
	const struct pt_kernel_cpu *c = s->kf && i < s->kf->ncpu ? &s->kf->cpu[i] : NULL;
	uint64_t base;

	/* a register that holds it (arm64's SP_EL0 at EL1) */
	if (c && c->current) {
		*task = c->current;
		return true;
	}
	return s->cur_off >= 0 && cpu_base(s, i, &base) && pt_kmem_u64(&s->k, base + (uint64_t)s->cur_off, task) &&
	       *task >> 63;
}

/* Where the walk starts: init_task (route a), or a running task's group leader (route b). */
static bool start_task(struct pt_lx *s, uint64_t *start)
{
	size_t ncpu = s->ncpu;

	if (s->sym[PT_KS_INIT_TASK] && !s->map_syms) {
		*start = s->sym[PT_KS_INIT_TASK];
		snprintf(s->route, sizeof s->route, "kallsyms from VMCOREINFO (%s): init_task 0x%" PRIx64,
			 s->vi_where, *start);
		return true;
	}
	/* the registers' vCPUs only (a live x86 guest's cpuN have none noted) */
	for (size_t i = 0; s->kf && i < ncpu && i < s->kf->ncpu; i++) {
		const struct pt_kernel_cpu *c = &s->kf->cpu[i];
		uint64_t t, leader;

		/* route (b) is the registers' (a System.map's __per_cpu_offset is route c's) */
		if ((!c->current && !reg_base(c, &(uint64_t){0})) || !current_of(s, i, &t) ||
		    !pt_kmem_u64(&s->k, t + (uint64_t)s->off.group_leader, &leader))
			continue;
		*start = leader;
		snprintf(s->route, sizeof s->route, "the %s task of cpu%zu (%s): 0x%" PRIx64,
			 c->current ? "current" : "per-CPU current", i,
			 c->current ? c->current_from : "GS base of its QEMU note", t);
		return true;
	}
	/* an init_task past memory (another kernel's map, a hostile one): no route, said once */
	if (s->map_syms && s->sym[PT_KS_INIT_TASK] &&
	    pt_task_read(&s->k, &s->off, s->sym[PT_KS_INIT_TASK], &(struct pt_task){0})) {
		*start = s->sym[PT_KS_INIT_TASK];
		snprintf(s->route, sizeof s->route, "%.130s: init_task 0x%" PRIx64, s->map_where, *start);
		return true;
	}
	/* (d): no symbol names it (arm64 kallsyms: text only); a refresh reuses the load's find */
	if (!s->init_found && s->r && pt_task_find_init(&s->k, &s->off, s->space, s->r, s->nr, &s->init_found,
							 &s->init_pa))
		return false;
	if (s->init_found) {
		*start = s->init_found;
		snprintf(s->route, sizeof s->route, "init_task by signature (comm swapper/0, pid 0) at 0x%" PRIx64
			 ": 0x%" PRIx64, s->init_pa, *start);
		return true;
	}
	return false;
}

/* The System.map the user named on the command line (route c): the load's option, as the dump's facts keep it. */
static const char *sysmap_path(const struct pt_lx *s)
{
	if (s->opts && s->opts->system_map)
		return s->opts->system_map;
	return s->kf ? s->kf->system_map : NULL;
}

/* Whether a System.map is named: on the command line, or by capture.ini's system_map key. */
static bool has_map(const struct pt_lx *s)
{
	return sysmap_path(s) || (s->kf && s->kf->system_map_fd >= 0);
}

/*
 * The System.map into *M, *PATH its name: the command line's wins over
 * capture.ini's system_map key (the user's word on this run over the
 * capture's; man/ptfs-capture.5).
 */
static pt_err map_read(const struct pt_lx *s, struct pt_sysmap *m, const char **path)
{
	*path = sysmap_path(s);
	if (*path)
		return pt_sysmap_read(*path, m);
	*path = s->kf->system_map_key;
	return pt_sysmap_read_fd(s->kf->system_map_fd, *path, m);
}

/*
 * Route (c): the user's System.map, when kallsyms gave nothing.  Its
 * addresses are as linked: + KERNELOFFSET (VMCOREINFO) at run time.  When
 * VMCOREINFO names _stext (kernel/crash_core.c VMCOREINFO_SYMBOL(_stext)),
 * the shifted _stext must equal it, or the map is another kernel's.
 */
static void map_syms(struct pt_lx *s)
{
	const char *path;
	struct pt_sysmap m;
	uint64_t shift = 0, vstext;
	char v[40];
	bool have_shift = s->vi && pt_vi_get(s->vi, s->vilen, "KERNELOFFSET", v, sizeof v);

	/* one line for the file, whatever is wrong with it */
	if (map_read(s, &m, &path) || m.why[0]) {
		pt_capture_add_warning(s->cap, "linux: System.map %s%s%s: not used", m.warn, m.warn[0] ? "; " : "",
				       m.why);
		return;
	}
	if (m.warn[0])
		pt_capture_add_warning(s->cap, "linux: System.map %s", m.warn);
	if (have_shift)
		shift = strtoull(v, NULL, 16);
	if (s->vi && m.stext && pt_vi_symbol(s->vi, s->vilen, "_stext", &vstext) && m.stext + shift != vstext) {
		pt_capture_add_warning(s->cap, "linux: System.map %s is another kernel's: its _stext 0x%" PRIx64
				       " + KERNELOFFSET 0x%" PRIx64 " is not VMCOREINFO's 0x%" PRIx64 ": not used",
				       path, m.stext, shift, vstext);
		return;
	}
	for (unsigned i = 0; i < PT_KS__COUNT; i++)
		s->sym[i] = m.sym[i] && i != PT_KS_CURRENT_TASK && i != PT_KS_PCPU_HOT ? m.sym[i] + shift : m.sym[i];
	s->map_syms = true;
	/* the file's name without its directories: info's x-route line is short */
	snprintf(s->map_where, sizeof s->map_where, "System.map %.60s (%s)",
		 strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
		 have_shift ? (shift ? "+ KERNELOFFSET" : "KERNELOFFSET 0") : "no VMCOREINFO: not shifted");
}

static void set_cur_off(struct pt_lx *s)
{
	int64_t hot = pt_btf_percpu(s->btf.btf, "pcpu_hot");

	s->cur_off = pt_btf_percpu(s->btf.btf, "current_task");
	/* 6.2-6.14: struct pcpu_hot holds it (arch/x86/include/asm/current.h) */
	if (s->cur_off < 0 && hot >= 0 && pt_btf_member(s->btf.btf, "pcpu_hot", "current_task") >= 0)
		s->cur_off = hot + pt_btf_member(s->btf.btf, "pcpu_hot", "current_task");
	if (s->cur_off < 0 && s->sym[PT_KS_CURRENT_TASK] && s->sym[PT_KS_CURRENT_TASK] < (1u << 30))
		s->cur_off = (int64_t)s->sym[PT_KS_CURRENT_TASK];
}

/* Fills each task's vCPU from the CPUs' current tasks (a thread's counts for its leader). */
static void mark_cpus(struct pt_lx *s, struct pt_tasks *tl)
{
	size_t ncpu = s->ncpu;

	for (size_t i = 0; i < ncpu; i++) {
		uint64_t t;
		uint8_t b[4];
		uint32_t tgid;

		if (!current_of(s, i, &t) || !pt_kmem_read(&s->k, t + (uint64_t)s->off.tgid, b, 4))
			continue;
		tgid = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		for (size_t j = 0; j < tl->n; j++)
			if (tl->t[j].tgid == tgid && tl->t[j].cpu < 0 && tgid)
				tl->t[j].cpu = (int)i;
	}
}

/*
 * Each vCPU's info says which task it runs (its per-CPU current task):
 * `pid 51 (worker), thread of process pid50`, `pid 50 (worker), process
 * pid50`, `pid 2 (kthreadd), a kernel thread`, or `idle (pid 0, swapper/1)`
 * for a CPU's idle task (init_idle() names it swapper/N, PF_IDLE:
 * kernel/sched/core.c).  Only the vCPUs the notes named cpuN (an arm64
 * live guest's cpuN.ttbr0 and cpuN.ttbr1).
 */
/* x-task = V on context NAME (cpuN), or on each of its halves cpuN.SOMETHING (an arm64 vCPU's ttbr0, ttbr1). */
static pt_err annotate_halves(struct pt_capture *cap, const char *name, const char *v)
{
	size_t nl = strlen(name);
	pt_err rc = pt_capture_annotate(cap, name, "x-task", v);

	for (size_t i = 0; rc == PT_E_NOTFOUND && i < pt_capture_context_count(cap); i++) {
		const char *x = pt_capture_context(cap, i)->name;

		if (!strncmp(x, name, nl) && x[nl] == '.' && x[nl + 1])
			rc = pt_capture_annotate(cap, x, "x-task", v) == PT_OK ? PT_E_NOTFOUND : PT_E_NOMEM;
	}
	return rc == PT_E_NOTFOUND ? PT_OK : rc;
}

static pt_err annotate_cpus(struct pt_lx *s)
{
	size_t ncpu = s->kf ? s->kf->ncpu : 0;
	pt_err rc = PT_OK;

	for (size_t i = 0; i < ncpu && !rc; i++) {
		char name[32], comm[80], v[160];
		struct pt_task t;
		uint64_t cur;

		snprintf(name, sizeof name, "cpu%zu", i);
		if (!current_of(s, i, &cur) || !pt_task_read(&s->k, &s->off, cur, &t))
			continue;
		pt_text_escape(comm, sizeof comm, t.comm);
		if (!t.pid || t.flags & PT_PF_IDLE)
			snprintf(v, sizeof v, "idle (pid %" PRIu32 ", %s)", t.pid, comm);
		else if (t.flags & PT_PF_KTHREAD || !t.mm)
			snprintf(v, sizeof v, "pid %" PRIu32 " (%s), a kernel thread", t.pid, comm);
		else if (t.pid != t.tgid)
			snprintf(v, sizeof v, "pid %" PRIu32 " (%s), thread of process pid%" PRIu32, t.pid, comm,
				 t.tgid);
		else
			snprintf(v, sizeof v, "pid %" PRIu32 " (%s), process pid%" PRIu32, t.pid, comm, t.tgid);
		rc = annotate_halves(s->cap, name, v);
	}
	return rc;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct pt_task *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/*
 * A live guest's task list read again (pt_capture_live_refresh()): what the
 * walk needs, kept from the load.  A pidN whose leader (tgid) is no longer
 * on the list with the same mm is gone: it exited, or its pid now names
 * another address space, whose tables it must never show as its own.
 */
struct relist {
	struct pt_task_off off;
	int64_t cur_off;
	uint64_t sym[PT_KS__COUNT];
	size_t ncpu;
	bool task_given;
	uint32_t task;
	/* what a context added later says, as the load's did */
	char route[160], btf_where[96];
	uint64_t init_found, init_pa;
	struct pt_load_opts opts;
	/* user processes on the list with no context (started since the mount): tasks' rows, by pid */
	pthread_mutex_t lock;   /* NEW and NNEW: the refresh swaps them while a render copies them */
	struct pt_task_row *nw;
	size_t nnew;
};

/* Whether TL holds a user process of tgid PID and mm MM. */
static bool listed(const struct pt_tasks *tl, unsigned long pid, uint64_t mm)
{
	for (size_t i = 0; i < tl->n; i++)
		if (tl->t[i].tgid == pid && tl->t[i].mm == mm && tl->t[i].pid == tl->t[i].tgid)
			return true;
	return false;
}

/* TL's user processes that have no context (pidN of their tgid and mm): RL's rows, swapped in. */
static pt_err new_rows(struct pt_capture *cap, struct relist *rl, struct pt_tasks *tl, struct pt_kmem *k)
{
	struct pt_task_row *nw = NULL, *old;
	size_t n = 0, cap_n = 0;

	for (size_t i = 0; i < tl->n; i++) {
		struct pt_task *t = &tl->t[i];
		const struct pt_context *c;
		const char *mm;
		char name[24];

		snprintf(name, sizeof name, "pid%" PRIu32, t->tgid);
		c = pt_capture_context_find(cap, name);
		mm = c ? pt_context_annotation(c, "x-mm") : NULL;
		if ((rl->task_given && t->tgid != rl->task) || (mm && strtoull(mm, NULL, 16) == t->mm) ||
		    pt_task_pgd(k, &rl->off, t) != PT_OK)
			continue;   /* a kernel thread, a process that has its context, or one not readable */
		if (!pt_vec_reserve(&nw, &cap_n, n + 1, sizeof *nw)) {
			free(nw);
			return PT_E_NOMEM;
		}
		nw[n].pid = t->tgid;
		nw[n].ppid = t->ppid;
		nw[n].threads = t->threads;
		nw[n].root = t->root;
		pt_text_escape(nw[n++].comm, sizeof nw->comm, t->comm);
	}
	pthread_mutex_lock(&rl->lock);
	old = rl->nw;
	rl->nw = nw;
	rl->nnew = n;
	pthread_mutex_unlock(&rl->lock);
	free(old);
	return PT_OK;
}

static pt_err relist(struct pt_capture *cap, void *ud, char *msg, size_t len)
{
	struct relist *rl = ud;
	const struct pt_context *kc = kernel_ctx(cap);
	struct pt_lx s = {.cap = cap, .off = rl->off, .cur_off = rl->cur_off, .ncpu = rl->ncpu,
			  .opts = &rl->opts, .init_found = rl->init_found, .init_pa = rl->init_pa};
	struct pt_tasks tl;
	uint64_t start;
	pt_err rc;

	if (!kc)
		return PT_OK;
	memcpy(s.sym, rl->sym, sizeof s.sym);
	memcpy(s.route, rl->route, sizeof s.route);
	memcpy(s.btf_where, rl->btf_where, sizeof s.btf_where);
	s.kf = pt_capture_kernel_facts(cap);
	pt_kmem_init(&s.k, kc);
	if (!start_task(&s, &start))
		return msg ? pt_err_fmt(msg, len, PT_E_CAPTURE, "linux: the task list is not readable now: the "
					"processes stay as they were") : PT_E_CAPTURE;
	rc = pt_task_list(&s.k, &s.off, start, &tl);
	if (!rc && tl.problem[0]) {
		/* a list read halfway proves no process gone */
		rc = msg ? pt_err_fmt(msg, len, PT_E_CAPTURE, "linux: %s: the processes stay as they were",
				      tl.problem) : PT_E_CAPTURE;
		pt_tasks_free(&tl);
		return rc;
	}
	for (size_t i = 0; !rc && i < pt_capture_context_count(cap); i++) {
		const struct pt_context *c = pt_capture_context(cap, i);
		const char *pid = pt_context_annotation(c, "x-pid"), *mm = pt_context_annotation(c, "x-mm");

		if (pid && mm && !pt_context_gone(c) && !listed(&tl, strtoul(pid, NULL, 10), strtoull(mm, NULL, 16)))
			pt_context_set_gone(cap, c);
	}
	/* a process started since: its pidN, in the slots the load held (then the rows of those left out) */
	if (!rc) {
		qsort(tl.t, tl.n, sizeof *tl.t, cmp_pid);
		mark_cpus(&s, &tl);
		rc = pt_lx_add_contexts(&s, &tl, true);
	}
	if (!rc)
		rc = new_rows(cap, rl, &tl, &s.k);
	pt_tasks_free(&tl);
	return rc;
}

size_t pt_linux_new_rows(const struct pt_capture *cap, struct pt_task_row **out)
{
	struct relist *rl = pt_capture_refresh_data(cap);
	size_t n = 0;

	*out = NULL;
	if (!rl)
		return 0;
	pthread_mutex_lock(&rl->lock);
	if (rl->nnew && (*out = malloc(rl->nnew * sizeof **out))) {
		memcpy(*out, rl->nw, rl->nnew * sizeof **out);
		n = rl->nnew;
	}
	pthread_mutex_unlock(&rl->lock);
	return n;
}

size_t pt_linux_unseen(const struct pt_capture *cap)
{
	struct pt_task_row *r;
	size_t n = pt_linux_new_rows(cap, &r);

	free(r);
	return n;
}

static void relist_free(void *ud)
{
	struct relist *rl = ud;

	pthread_mutex_destroy(&rl->lock);
	free(rl->nw);
	free(rl);
}

/*
 * Contexts a live guest's refresh may add: processes started after the
 * mount.  It widens the inode's context field (fs/ino.c) by 9 bits at
 * most; the rest stay rows of tasks ("remount to see them").
 */
#define LIVE_ROOM 500

/* A live guest: the walk's facts kept for relist(). */
static void keep_for_refresh(struct pt_lx *s)
{
	struct relist *rl;

	if (!pt_capture_is_live(s->cap) || !(rl = calloc(1, sizeof *rl)))
		return;
	rl->off = s->off;
	rl->cur_off = s->cur_off;
	memcpy(rl->sym, s->sym, sizeof rl->sym);
	rl->ncpu = s->ncpu;
	rl->init_found = s->init_found;
	rl->init_pa = s->init_pa;
	rl->task_given = s->opts && s->opts->task_given;
	rl->task = s->opts ? s->opts->task : 0;
	rl->opts.task_given = rl->task_given;
	rl->opts.task = rl->task;
	memcpy(rl->route, s->route, sizeof rl->route);
	memcpy(rl->btf_where, s->btf_where, sizeof rl->btf_where);
	/* room for the processes started after the mount (a full room: tasks lists the rest as rows) */
	if (pt_capture_reserve_contexts(s->cap, LIVE_ROOM)) {
		free(rl);
		return;
	}
	pthread_mutex_init(&rl->lock, NULL);
	pt_capture_set_refresh(s->cap, relist, rl, relist_free);
}

static pt_err expand(struct pt_lx *s, const struct pt_pa_range *r, size_t nr, unsigned space)
{
	struct pt_tasks tl;
	char missing[96];
	uint64_t start;
	pt_err rc;

	if (s->vi) {
		s->have_syms = pt_ksyms_decode(&s->k, s->vi, s->vilen, s->sym, &(unsigned){0}, s->ks_why,
					       sizeof s->ks_why);
		if (!s->have_syms)
			memset(s->sym, 0, sizeof s->sym);
	}
	if (!s->have_syms && has_map(s))
		map_syms(s);
	rc = find_btf(s, r, nr, space);
	if (rc)
		return rc;
	if (!s->btf.btf) {
		pt_capture_add_warning(s->cap, "linux: no kernel BTF in memory (%u header hits, %u valid): no "
				       "pidN contexts (a kernel built with CONFIG_DEBUG_INFO_BTF supplies it)",
				       s->btf.hits, s->btf.valid);
		return PT_OK;
	}
	if (!pt_task_offsets(s->btf.btf, &s->off, missing, sizeof missing)) {
		pt_capture_add_warning(s->cap, "linux: the kernel's BTF has no %s: no pidN contexts", missing);
		return PT_OK;
	}
	set_cur_off(s);
	if (!start_task(s, &start)) {
		pt_capture_add_warning(s->cap, "linux: no route to the task list: %s%s; %s; %s; no init_task "
				       "(swapper/0) in RAM: no pidN contexts "
				       "(-device vmcoreinfo with the guest's qemu_fw_cfg, a QEMU ELF dump's CPU "
				       "notes, or the kernel's System.map (-o system_map=FILE, --system-map FILE) "
				       "supply one)",
				       s->vi ? "kallsyms: " : "no VMCOREINFO", s->vi ? s->ks_why : "",
				       s->kf && s->kf->ncpu ? "no vCPU's per-CPU current task is readable" :
				       "no vCPU registers", s->map_syms ? "System.map: its init_task is not mapped or not captured" :
				       has_map(s) ? "System.map: not usable" : "no System.map");
		return PT_OK;
	}
	/* the PCI functions only through symbols the task list has proved (a wrong map's would be junk) */
	rc = pt_pci_expand(s->cap, &s->k, s->btf.btf, s->sym[PT_KS_PCI_ROOT_BUSES]);
	if (rc)
		return rc;
	rc = pt_task_list(&s->k, &s->off, start, &tl);
	if (!rc && tl.problem[0])
		pt_capture_add_warning(s->cap, "linux: %s: the walk stopped there (%zu tasks kept)", tl.problem,
				       tl.n);
	if (!rc) {
		/* contexts in pid order, whatever task the walk started at (route b: a running one) */
		qsort(tl.t, tl.n, sizeof *tl.t, cmp_pid);
		mark_cpus(s, &tl);
		rc = pt_lx_add_contexts(s, &tl, false);
		/* adding contexts remade the capture's array: the kernel's context moved */
		pt_kmem_init(&s->k, kernel_ctx(s->cap));
		if (!rc)
			rc = annotate_cpus(s);
	}
	if (!rc)
		keep_for_refresh(s);
	/*
	 * The tasks read, the PCI functions are what is missing: one line
	 * (without a route to the tasks, that route's line already names
	 * kallsyms and System.map, which would supply this address too).
	 */
	if (!rc && !s->sym[PT_KS_PCI_ROOT_BUSES])
		pt_capture_add_warning(s->cap, "linux: no address for pci_root_buses (kallsyms through VMCOREINFO "
				       "of a kernel with CONFIG_KALLSYMS_ALL, or its System.map, gives it): PCI "
				       "functions not named");
	pt_tasks_free(&tl);
	return rc;
}

/* A live guest's vCPUs: cpuN contexts, N + 1 of the highest (__per_cpu_offset[N] is read for each). */
static size_t live_cpus(const struct pt_capture *cap)
{
	size_t n = 0;

	for (size_t i = 0; i < pt_capture_context_count(cap); i++) {
		const char *name = pt_capture_context(cap, i)->name;
		char *end;
		unsigned long v;

		if (strncmp(name, "cpu", 3) || name[3] < '0' || name[3] > '9')
			continue;
		v = strtoul(name + 3, &end, 10);
		if (!*end && v < 4096 && v + 1 > n)
			n = v + 1;
	}
	return n;
}

pt_err pt_linux_expand(struct pt_capture *cap, const struct pt_load_opts *opts)
{
	struct pt_lx s = {.cap = cap, .cur_off = -1, .opts = opts};
	const struct pt_context *kc;
	struct pt_pa_range *r;
	size_t nr;
	int space;
	pt_err rc;

	s.kf = pt_capture_kernel_facts(cap);
	kc = kernel_ctx(cap);
	/*
	 * a guest whose kernel context's format makes process contexts
	 * (pt_format.user_keys): a dump (its source noted the kernel's
	 * facts), or a live one (VMCOREINFO from its RAM, its vCPUs' cpuN)
	 */
	if ((!s.kf && !pt_capture_is_live(cap)) || !kc || (space = pt_capture_space_find(cap, "sysmem")) < 0)
		return PT_OK;
	s.ncpu = s.kf ? s.kf->ncpu : live_cpus(cap);
	pt_kmem_init(&s.k, kc);
	nr = pt_kernel_ranges(cap, kc, (unsigned)space, &r);
	if (!r)
		return PT_E_NOMEM;
	if (s.kf && s.kf->vmcoreinfo) {
		s.vi = s.kf->vmcoreinfo;
		s.vilen = s.kf->vmcoreinfo_len;
		/* the same words for an ELF core and a kdump file of one guest (their trees compare equal) */
		snprintf(s.vi_where, sizeof s.vi_where, "the dump's VMCOREINFO note");
	} else {
		uint64_t pa;

		if (pt_vi_find_ram(kc->mem, (unsigned)space, r, nr, &s.vi_owned, &s.vilen, &pa)) {
			s.vi = s.vi_owned;
			snprintf(s.vi_where, sizeof s.vi_where, "VMCOREINFO found in RAM at 0x%" PRIx64, pa);
		}
	}
	s.r = r;
	s.nr = nr;
	s.space = (unsigned)space;
	rc = expand(&s, r, nr, (unsigned)space);
	pt_btf_free(&s.btf);
	free(s.vi_owned);
	free(r);
	return rc;
}
