/* SPDX-License-Identifier: MIT */
/*
 * qmp_live.c — the hooks a live QEMU guest gives its capture
 * (pt_loader_set_live(), load/live.c): whether QEMU is still there, -o
 * pause's stop and continue with the cont ptfs owes a guest whose answer
 * came late or never, each vCPU's CR3 read again at refresh, and the
 * connection closed at the end.  qmp.c (the load) makes the state and
 * calls in here; nothing here calls qmp.c.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "pt_source.h"
#include "pt_src_qmp.h"
#include "qmp_live.h"

pt_err pt_qmp_live_running(struct pt_qmp_live *l, bool *run, char *e, size_t elen)
{
	struct pt_json *msg = NULL;
	const struct pt_json *ret, *r;
	pt_err rc = pt_qmp_cmd(&l->q, "{\"execute\": \"query-status\"}", &msg, &ret, e, elen);

	r = rc ? NULL : pt_json_get(ret, "running");
	if (!rc && (!r || r->type != PT_JSON_BOOL))
		rc = pt_err_fmt(e, elen, PT_E_CAPTURE, "query-status answered no \"running\"");
	*run = r && r->type == PT_JSON_BOOL && r->b;
	pt_json_free(msg);
	return rc;
}

static pt_err simple(struct pt_qmp_live *l, const char *json, char *e, size_t elen)
{
	struct pt_json *msg = NULL;
	const struct pt_json *ret;
	pt_err rc = pt_qmp_cmd(&l->q, json, &msg, &ret, e, elen);

	pt_json_free(msg);
	if (l->q.gone)
		l->dead = true;
	return rc;
}

/*
 * A guest ptfs stopped and owes a cont (l->owe_cont): query-status, and a
 * cont if it is still stopped.  What it was before ptfs stopped it (it
 * ran) is what it is made again; false while that is still in doubt.
 */
static bool settle(struct pt_qmp_live *l)
{
	char e[256];
	bool run = false;

	if (!l->owe_cont || l->dead)
		return !l->owe_cont;
	if (pt_qmp_live_running(l, &run, e, sizeof e))
		return false;
	if (!run && simple(l, "{\"execute\": \"cont\"}", e, sizeof e) && (pt_qmp_live_running(l, &run, e, sizeof e) || !run))
		return false;
	l->owe_cont = false;
	return true;
}

/*
 * -o pause: a running guest is stopped.  A stop that fails (QEMU answers
 * late, or not at all) leaves the guest's state in doubt: query-status
 * says whether the stop took, and a stopped guest is continued by
 * live_resume() as if it had answered; when even that fails, ptfs owes
 * the guest a cont (settle()).
 */
static pt_err live_pause(void *ud, bool *stopped, char *err, size_t errlen)
{
	struct pt_qmp_live *l = ud;
	char e[256], e2[256];
	bool run = false;
	pt_err rc;

	*stopped = false;
	pthread_mutex_lock(&l->lock);
	settle(l);
	rc = pt_qmp_live_running(l, &run, e, sizeof e);
	if (!rc && run) {
		rc = simple(l, "{\"execute\": \"stop\"}", e, sizeof e);
		if (!rc)
			*stopped = true;
		else if (!l->dead && !pt_qmp_live_running(l, &run, e2, sizeof e2))
			*stopped = !run;   /* the stop took (it answered late): the render holds still */
		else if (!l->dead)
			l->owe_cont = true;
		if (*stopped)
			rc = PT_OK;
	}
	if (l->q.gone)
		l->dead = true;
	pthread_mutex_unlock(&l->lock);
	return rc ? pt_err_fmt(err, errlen, rc, "%s: stop: %s", l->label, e) : PT_OK;
}

pt_err pt_qmp_live_resume(struct pt_qmp_live *l, char *err, size_t errlen)
{
	char e[256];
	pt_err rc = simple(l, "{\"execute\": \"cont\"}", e, sizeof e);

	if (rc && !l->dead) {
		l->owe_cont = true;
		if (settle(l))
			rc = PT_OK;   /* it answered late: the guest runs */
	}
	return rc ? pt_err_fmt(err, errlen, rc, "%s: cont: %s", l->label, e) : PT_OK;
}

static pt_err live_resume(void *ud, char *err, size_t errlen)
{
	struct pt_qmp_live *l = ud;
	pt_err rc;

	pthread_mutex_lock(&l->lock);
	rc = pt_qmp_live_resume(l, err, errlen);
	pthread_mutex_unlock(&l->lock);
	return rc;
}

static pt_err live_check(void *ud, char *err, size_t errlen)
{
	struct pt_qmp_live *l = ud;
	pt_err rc = PT_OK;

	pthread_mutex_lock(&l->lock);
	if (!l->dead && pt_qmp_gone(&l->q))
		l->dead = true;
	/* a guest ptfs owes a cont is asked about at most once a second, not at every request */
	if (l->owe_cont && !l->dead && pt_sock_now_ms() - l->owe_asked >= 1000) {
		settle(l);
		l->owe_asked = pt_sock_now_ms();
	}
	if (l->dead)
		rc = pt_err_fmt(err, errlen, PT_E_IO, "%s: the QMP socket was closed: QEMU exited, the guest's "
				"memory is gone", l->label);
	pthread_mutex_unlock(&l->lock);
	return rc;
}

/*
 * The vCPUs' CR3 read again (`info registers -a`, which does not stop the
 * guest): each context cpuN whose vCPU now runs another task's tables,
 * in 64-bit mode with paging still, is given its new CR3.  An aarch64
 * guest's TTBRs come from the gdbstub, which stops the guest: they stay
 * as read at mount (ptfs(1) LIVE GUESTS).
 */
static pt_err live_regs(void *ud, struct pt_live_reg **regs, size_t *n, char *err, size_t errlen)
{
	struct pt_qmp_live *l = ud;
	struct pt_qmp_cpu *c = NULL;
	size_t nc = 0;
	char *text = NULL, e[256];
	pt_err rc = PT_OK;

	*regs = NULL;
	*n = 0;
	pthread_mutex_lock(&l->lock);
	if (l->ncpu && !l->dead)
		rc = pt_qmp_hmp(&l->q, "info registers -a", &text, e, sizeof e);
	if (!rc && text)
		rc = pt_qmp_regs(text, &c, &nc, e, sizeof e);
	if (!rc && nc && !(*regs = calloc(l->ncpu, sizeof **regs)))
		rc = pt_err_fmt(e, sizeof e, PT_E_NOMEM, "out of memory");
	for (size_t i = 0; !rc && i < nc; i++) {
		/* at most one value per context: a CPU#N shown twice is read once */
		for (size_t k = 0; k < l->ncpu && *n < l->ncpu; k++) {
			struct pt_live_reg *r = &(*regs)[*n];

			if (l->cpu[k].index != c[i].index || c[i].seen != PT_QMP_R_ALL || !(c[i].cr0 & CR0_PG) ||
			    !(c[i].efer & EFER_LMA) || c[i].cr3 == l->cpu[k].cr3)
				continue;
			snprintf(r->ctx, sizeof r->ctx, "cpu%u", c[i].index);
			r->key = "cr3";
			r->value = l->cpu[k].cr3 = c[i].cr3;
			++*n;
		}
	}
	if (l->q.gone)
		l->dead = true;
	pthread_mutex_unlock(&l->lock);
	free(text);
	free(c);
	if (rc) {
		free(*regs);
		*regs = NULL;
		*n = 0;
		return pt_err_fmt(err, errlen, rc, "%s: info registers -a: %s", l->label, e);
	}
	return PT_OK;
}

static void live_free(void *ud)
{
	struct pt_qmp_live *l = ud;

	/* a guest ptfs stopped and could not continue is continued now, if QEMU answers at last */
	settle(l);
	/* then closing the socket is all: QEMU's monitor goes back to listening, the guest runs on */
	pt_qmp_close(&l->q);
	pthread_mutex_destroy(&l->lock);
	free(l->cpu);
	free(l);
}

const struct pt_live_ops pt_qmp_live_ops = {
	.check = live_check, .pause = live_pause, .resume = live_resume, .regs = live_regs, .free = live_free,
};
