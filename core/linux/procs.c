/* SPDX-License-Identifier: MIT */
/*
 * procs.c — a Linux guest's processes made contexts pidN (docs/design.md
 * §3.3): one per user address space on the task list, of the kernel
 * context's format, its keys from that format's user_keys hook (no format
 * name here), its info's x- lines (pid, tgid, comm, threads, ppid, state,
 * mm, pgd, cpu, pti, route, btf).  linux.c calls it at the load and at a
 * live refresh; it calls none of linux.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux_int.h"
#include "pt_extend.h"
#include "pt_linux.h"
#include "pt_vec.h"

#define NANN 12

/*
 * D's format and keys: a context that walks as the CPU does in user mode
 * from T's root, with the geometry of KC, the kernel's context (its
 * format's user_keys hook writes the keys into B, whose lines D's point
 * into).  False: the format makes none (PT_E_NOMEM aside: B->oom).
 */
static bool ctx_keys(const struct pt_context *kc, const struct pt_task *t, struct pt_buf *b, struct pt_ctx_def *d)
{
	char *p;

	if (!kc->fmt->user_keys(kc, t->root, NULL, &(uint64_t){0}, b) || b->oom || !b->len)
		return false;
	d->format = kc->fmt->name;
	for (p = b->data; *p && d->nkeys < PT_CTX_DEF_KEYS;) {
		char *e = strchr(p, '\n'), *eq;

		if (e)
			*e = 0;
		eq = strstr(p, " = ");
		if (!eq)
			return false;
		*eq = 0;
		d->key[d->nkeys] = p;
		d->val[d->nkeys++] = eq + 3;
		p = e ? e + 1 : p + strlen(p);
	}
	return !*p;
}

/* Whether CAP has a context NAME, gone ones too (a name is never taken twice). */
static bool ctx_named(const struct pt_capture *cap, const char *name)
{
	if (pt_capture_context_find(cap, name))
		return true;
	for (size_t i = 0; i < pt_capture_context_count(cap); i++)
		if (!strcmp(pt_capture_context(cap, i)->name, name))
			return true;
	return false;
}

/*
 * A context per user address space of TL.  LATER: a live guest's refresh
 * adding the processes started since (a name the capture has is skipped,
 * nothing is said: the readers see the capture meanwhile).
 */
pt_err pt_lx_add_contexts(struct pt_lx *s, struct pt_tasks *tl, bool later)
{
	struct pt_ctx_def *d = calloc(tl->n ? tl->n : 1, sizeof *d);
	char (*txt)[NANN][96] = calloc(tl->n ? tl->n : 1, sizeof *txt);
	char (*names)[24] = calloc(tl->n ? tl->n : 1, sizeof *names);
	struct pt_buf *kb = calloc(tl->n ? tl->n : 1, sizeof *kb);
	struct pt_kv (*ann)[NANN] = calloc(tl->n ? tl->n : 1, sizeof *ann);
	size_t n = 0, kthreads = 0, unreadable = 0;
	pt_err rc = PT_OK;

	if (!d || !txt || !names || !kb || !ann)
		rc = PT_E_NOMEM;
	for (size_t i = 0; !rc && i < tl->n; i++) {
		struct pt_task *t = &tl->t[i];
		static const char *const keys[NANN] = {"x-pid", "x-tgid", "x-comm", "x-threads", "x-ppid",
			"x-state", "x-mm", "x-pgd", "x-cpu", "x-pti", "x-route", "x-btf"};
		char comm[80];
		bool dup = false;

		rc = pt_task_pgd(&s->k, &s->off, t);
		if (rc == PT_E_VALUE) {
			kthreads++;
			rc = PT_OK;
			continue;
		}
		if (rc) {
			unreadable++;
			rc = PT_OK;
			continue;
		}
		/* one context per address space: a CLONE_VM child without CLONE_THREAD shares its mm */
		for (size_t j = 0; j < i && !dup; j++)
			dup = tl->t[j].mm == t->mm && tl->t[j].pgd_pa == t->pgd_pa && tl->t[j].pgd;
		/* -o task=PID / --task PID: that process alone */
		if (dup || (s->opts && s->opts->task_given && t->tgid != s->opts->task))
			continue;
		snprintf(names[n], sizeof names[n], "pid%" PRIu32, t->tgid);
		if (later && ctx_named(s->cap, names[n]))
			continue;
		pt_buf_init(&kb[n]);
		if (!ctx_keys(s->k.ctx, t, &kb[n], &d[n])) {
			rc = kb[n].oom ? PT_E_NOMEM : PT_OK;
			unreadable += !rc;
			pt_buf_free(&kb[n]);
			memset(&d[n], 0, sizeof d[n]);
			continue;
		}
		pt_text_escape(comm, sizeof comm, t->comm);
		snprintf(txt[n][0], 96, "%" PRIu32, t->pid);
		snprintf(txt[n][1], 96, "%" PRIu32, t->tgid);
		snprintf(txt[n][2], 96, "%s", comm);
		snprintf(txt[n][3], 96, "%u", t->threads);
		snprintf(txt[n][4], 96, "%" PRIu32, t->ppid);
		snprintf(txt[n][5], 96, "0x%" PRIx32, t->state);
		snprintf(txt[n][6], 96, "0x%" PRIx64, t->mm);
		snprintf(txt[n][7], 96, "0x%" PRIx64 " (physical 0x%" PRIx64 ")", t->pgd, t->pgd_pa);
		if (t->cpu >= 0)
			snprintf(txt[n][8], 96, "cpu%d", t->cpu);
		else
			snprintf(txt[n][8], 96, "-");
		snprintf(txt[n][9], 96, "%s", t->pti ? "yes: the user copy at pgd + 4 KiB is the root" : "no");
		snprintf(txt[n][10], 96, "%.95s", s->route);
		snprintf(txt[n][11], 96, "%.95s", s->btf_where);
		for (unsigned k = 0; k < NANN; k++) {
			ann[n][k].key = keys[k];
			ann[n][k].value = txt[n][k];
		}
		d[n].name = names[n];
		d[n].ann = ann[n];
		d[n].nann = NANN;
		n++;
	}
	if (later) {
		rc = rc ? rc : pt_capture_live_add_contexts(s->cap, d, n, &(size_t){0});
		n = 1;      /* the load's lines are not said again */
		unreadable = 0;
	} else if (!rc) {
		rc = pt_capture_add_contexts(s->cap, d, n);
	}
	if (!rc && !n && s->opts && s->opts->task_given)
		pt_capture_add_warning(s->cap, "linux: no user process %" PRIu32 " on the task list (-o task=, "
				       "--task): no pidN context", s->opts->task);
	if (!rc && unreadable)
		pt_capture_add_warning(s->cap, "linux: %zu processes whose mm->pgd is not mapped or not captured: "
				       "no context", unreadable);
	(void)kthreads;
	free(d);
	free(txt);
	free(names);
	for (size_t i = 0; kb && i < n; i++)
		pt_buf_free(&kb[i]);
	free(kb);
	free(ann);
	return rc;
}
