/* SPDX-License-Identifier: MIT */
/*
 * pt_svg.h — a picture of a context's VA space (CTX/map.svg, ptfs-tool map
 * --svg), drawn from its maps runs: core/view/svg.c says how it reads.
 */
#ifndef PT_SVG_H
#define PT_SVG_H

#include "pt_capture.h"
#include "pt_render.h"

/* Appends CTX's map.svg to B: deterministic, at most a few hundred KiB. */
pt_err pt_render_svg(struct pt_buf *b, const struct pt_context *ctx, struct pt_readctl *ctl);

#endif
