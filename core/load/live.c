/* SPDX-License-Identifier: MIT */
/*
 * live.c — a capture whose source is running (issue #33): the hooks a live
 * source gives the loader (pt_loader_set_live()), and the capture's calls
 * that reach them (pt_capture_live_*, pt_capture.h).  A capture of a file
 * has none: it never changes, and every cache above relies on that.
 */
#include <stdio.h>

#include "capture_int.h"

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
