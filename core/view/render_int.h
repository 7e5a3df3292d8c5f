/* SPDX-License-Identifier: MIT */
/*
 * render_int.h — what the renderer's files (render.c, render_walk.c) share.
 * Internal to core/view.
 */
#ifndef PT_RENDER_INT_H
#define PT_RENDER_INT_H

#include <stddef.h>

#include "pt_format.h"

/* "0x" and the raw entry, 16 or 32 hex digits, into S (LEN >= 35). */
void pt_rd_raw_str(const struct pt_entry *e, char *s, size_t len);

#endif
