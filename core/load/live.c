/* SPDX-License-Identifier: MIT */
/*
 * live.c — a capture whose source is running (issue #33): the hooks a live
 * source gives the loader (pt_loader_set_live()), and the capture's calls
 * that reach them (pt_capture_live_*, pt_capture.h).  A capture of a file
 * has none: it never changes, and every cache above relies on that.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_int.h"
#include "pt_extend.h"
#include "pt_vec.h"

void pt_loader_set_live(struct pt_loader *ld, const struct pt_live_ops *ops, void *ud)
{
	pt_live_free(ld->cap);
	ld->cap->live = ops;
	ld->cap->live_ud = ud;
}

void pt_live_free(struct pt_capture *cap)
{
	if (cap->live && cap->live->free)
		cap->live->free(cap->live_ud);
	cap->live = NULL;
	cap->live_ud = NULL;
}

bool pt_capture_is_live(const struct pt_capture *cap)
{
	return cap && cap->live;
}

bool pt_context_gone(const struct pt_context *c)
{
	return c && __atomic_load_n(&c->gone, __ATOMIC_ACQUIRE);
}

void pt_context_set_gone(struct pt_capture *cap, const struct pt_context *c)
{
	/* C is one of CAP's: its writable self */
	if (c && c->cap == cap && c->index < cap->nctx && &cap->ctx[c->index] == c)
		__atomic_store_n(&cap->ctx[c->index].gone, true, __ATOMIC_RELEASE);
}

void pt_capture_set_refresh(struct pt_capture *cap, pt_err (*fn)(struct pt_capture *, void *, char *, size_t),
			    void *ud, void (*free_fn)(void *))
{
	if (!pt_vec_reserve(&cap->owned, &cap->ownedcap, cap->nowned + 1, sizeof *cap->owned)) {
		free_fn(ud);
		return;   /* no refresh: the contexts stay as the load made them */
	}
	cap->owned[cap->nowned].ud = ud;
	cap->owned[cap->nowned++].free_fn = free_fn;
	cap->refresh = fn;
	cap->refresh_ud = ud;
}

void *pt_capture_refresh_data(const struct pt_capture *cap)
{
	return cap ? cap->refresh_ud : NULL;
}

pt_err pt_capture_live_check(struct pt_capture *cap, char *msg, size_t len)
{
	if (!cap || !cap->live || !cap->live->check)
		return PT_OK;
	return cap->live->check(cap->live_ud, msg, len);
}

pt_err pt_capture_live_pause(struct pt_capture *cap, bool *stopped, char *msg, size_t len)
{
	*stopped = false;
	if (!cap || !cap->live || !cap->live->pause)
		return PT_OK;
	return cap->live->pause(cap->live_ud, stopped, msg, len);
}

pt_err pt_capture_live_resume(struct pt_capture *cap, bool stopped, char *msg, size_t len)
{
	if (!stopped || !cap || !cap->live || !cap->live->resume)
		return PT_OK;
	return cap->live->resume(cap->live_ud, msg, len);
}

/*
 * Context C takes register KEY = VALUE: its format's data copied, given
 * the key as capture.ini would, and set up again, then swapped in.  A
 * render on another thread may hold the old data: it stays (the
 * capture's, freed with it), and the root is stored last, so a walk sees
 * the old root or the new one, each with its own tables.
 */
static pt_err reroot(struct pt_capture *cap, struct pt_context *c, const char *key, uint64_t value, char *msg,
		     size_t len)
{
	struct pt_context tmp = *c;
	char val[24], label[96], e[384];
	struct pt_ctx_key k = {key, val, c->ini_line, label, e, sizeof e};
	void *priv;
	pt_err rc;

	if (!c->fmt->ctx_size || !c->fmt->ctx_key || !c->fmt->ctx_setup)
		return PT_OK;
	priv = malloc(c->fmt->ctx_size);
	if (!priv || !pt_vec_reserve(&cap->owned, &cap->ownedcap, cap->nowned + 1, sizeof *cap->owned)) {
		free(priv);
		return pt_err_fmt(msg, len, PT_E_NOMEM, "out of memory");
	}
	memcpy(priv, c->priv, c->fmt->ctx_size);
	cap->owned[cap->nowned].ud = priv;
	cap->owned[cap->nowned++].free_fn = free;
	tmp.priv = priv;
	snprintf(val, sizeof val, "0x%" PRIx64, value);
	snprintf(label, sizeof label, "[%s %s]", c->fmt->ctx_section ? c->fmt->ctx_section : "?", c->name);
	e[0] = 0;
	rc = c->fmt->ctx_key(priv, &k);
	if (!rc)
		rc = tmp.fmt->ctx_setup(&tmp, e, sizeof e);
	if (rc)
		return pt_err_fmt(msg, len, rc, "context %s: %s 0x%" PRIx64 " read again: %s", c->name, key, value,
				  e[0] ? e : "refused");
	__atomic_store_n(&c->priv, tmp.priv, __ATOMIC_RELEASE);
	__atomic_store_n(&c->fmt, tmp.fmt, __ATOMIC_RELEASE);
	__atomic_store_n(&c->root_addr, tmp.root_addr, __ATOMIC_RELEASE);
	return PT_OK;
}

pt_err pt_capture_live_refresh(struct pt_capture *cap, size_t *moved, char *msg, size_t len)
{
	struct pt_live_reg *r = NULL;
	size_t n = 0;
	pt_err rc, first = PT_OK;

	*moved = 0;
	if (!cap || !cap->live)
		return PT_OK;
	if (cap->live->regs)
		rc = cap->live->regs(cap->live_ud, &r, &n, msg, len);
	else
		rc = PT_OK;
	for (size_t i = 0; !rc && i < n; i++) {
		for (size_t j = 0; j < cap->nctx; j++) {
			struct pt_context *c = &cap->ctx[j];

			if (strcmp(c->name, r[i].ctx))
				continue;
			/* the first refusal is the one said; the other contexts move all the same */
			if ((rc = reroot(cap, c, r[i].key, r[i].value, msg, len)) == PT_OK)
				(*moved)++;
			else if (!first)
				first = rc;
			rc = rc == PT_E_NOMEM ? rc : PT_OK;
			break;
		}
	}
	free(r);
	/* then what the step after the load made from guest memory (core/linux: the processes) */
	if (!rc && cap->refresh) {
		pt_err t = cap->refresh(cap, cap->refresh_ud, first ? NULL : msg, len);

		rc = t == PT_E_NOMEM ? t : rc;
		first = first ? first : t;
	}
	return rc ? rc : first;
}
