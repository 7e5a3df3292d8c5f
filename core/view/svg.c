/* SPDX-License-Identifier: MIT */
/*
 * svg.c — CTX/map.svg and `ptfs-tool map --svg`: a picture of a context's
 * VA space (issue #25 item 5).
 *
 * The picture is drawn from the maps runs (core/view/runs.c), so it shows
 * exactly what `maps` lists.  The axis is compressed so that a 4 KiB run
 * and a 1 GiB run are both visible: a run's width grows with the log2 of
 * its size, and every gap between runs is a short grey bar labelled with
 * its size.  Colour says the space, opacity the write permission (faded:
 * no write), a dashed outline a privileged page, and the bar's height the
 * page size.  Each run carries a <title> holding its maps line, which a
 * browser shows on hover.
 *
 * Addresses (issue #39 item 11: an IOMMU domain's 189 scattered pages
 * were 189 identical squares): above the bars, an address axis drawn to
 * scale from the first mapped VA to the last, with labelled ticks at round
 * (power-of-two) addresses and a mark where each run lies, so that
 * scattered pages show where they are; each row of bars starts with the
 * VA it begins at.  Every mark and bar has its VA range in its tooltip.
 *
 * Size: at most SVG_SEGS_MAX segments are drawn.  Beyond that, neighbouring
 * segments are merged pairwise (a merged segment's title says how many
 * runs it stands for and their VA range), so the file stays a few hundred
 * KiB whatever the capture.  Deterministic: the same runs give the same
 * bytes (no time, no pointers, fixed number formatting).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_runs.h"
#include "pt_svg.h"

#define SVG_SEGS_MAX 1024       /* drawn segments, after merging */
#define SVG_WIDTH 1200          /* px of one row */
#define SVG_ROW 56              /* px per row */
#define SVG_TOP 48              /* px above the address axis (title, legend) */
#define SVG_AXIS_H 64           /* px of the address axis: marks, ticks, labels */
#define SVG_LEFT 104            /* px left of the bars: each row's first VA */
#define SVG_AXIS_L 8            /* the axis spans SVG_AXIS_L .. SVG_WIDTH - 8 */
#define SVG_TICKS 8             /* at most this many tick intervals */
#define SVG_GAP_W 30            /* px of a gap bar: room for its size label */
#define SVG_TITLE_MAX 200       /* bytes of a segment's title */

/* One drawn bar: a run, or several neighbouring runs merged. */
struct seg {
	uint64_t va, end;
	uint64_t page_size;       /* the smallest page size among its runs */
	unsigned space;
	uint32_t perm;            /* PT_PERM_* of its first run */
	uint64_t nruns;
	char title[SVG_TITLE_MAX];
};

/* Space colours, by space id (stable: the format's space order). */
static const char *const palette[] = {
	"#3b6fb6", "#3a9a5b", "#d08a2c", "#8e5bb5", "#c4473f", "#2f9a9a",
	"#9a8a2f", "#6b6b6b", "#b55b8e", "#5b8eb5",
};

static unsigned log2u(uint64_t v)
{
	unsigned n = 0;

	while (v >>= 1)
		n++;
	return n;
}

/* Width of a run of SIZE bytes: 6 px for one 4 KiB page, 4 px more per doubling. */
static unsigned seg_width(uint64_t size)
{
	return 6 + 4 * log2u(size >> 12 ? size >> 12 : 1);
}

/* Height of a bar of page size PS: 10 px below 64 KiB, 20 below 2 MiB, 30 below 1 GiB, else 40. */
static unsigned seg_height(uint64_t ps)
{
	return ps < (UINT64_C(1) << 16) ? 10 : ps < (UINT64_C(1) << 21) ? 20 :
	       ps < (UINT64_C(1) << 30) ? 30 : 40;
}

static void xml_escape(struct pt_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': pt_buf_puts(b, "&lt;"); break;
		case '>': pt_buf_puts(b, "&gt;"); break;
		case '&': pt_buf_puts(b, "&amp;"); break;
		case '"': pt_buf_puts(b, "&quot;"); break;
		case '\n': break;
		default: pt_buf_put(b, s, 1);
		}
	}
}

/* Merges segment pairs (0,1), (2,3), ...: halves N. */
static size_t segs_coarsen(struct seg *s, size_t n, unsigned digits)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i += 2, o++) {
		struct seg m = s[i];

		if (i + 1 < n) {
			const struct seg *t = &s[i + 1];

			m.end = t->end;
			m.nruns += t->nruns;
			if (t->page_size < m.page_size)
				m.page_size = t->page_size;
			snprintf(m.title, sizeof m.title,
				 "%" PRIu64 " runs 0x%0*" PRIx64 "-0x%0*" PRIx64, m.nruns,
				 (int)digits, m.va, (int)digits, m.end);
		}
		s[o] = m;
	}
	return o;
}

/* Reads CTX's runs into at most SVG_SEGS_MAX segments (*N); the runs stream's cut in *IT. */
static pt_err segs_read(const struct pt_context *ctx, struct pt_runs_iter *it,
			struct seg *segs, size_t *n, struct pt_readctl *ctl)
{
	struct pt_runs_filter f;
	struct pt_run r;
	struct pt_buf line;
	unsigned digits = ctx->fmt->va_digits;

	pt_buf_init(&line);
	pt_runs_filter_init(&f);
	pt_runs_init(it, ctx, &f, ctl);
	*n = 0;
	while (pt_runs_next(it, &r)) {
		struct seg *s;

		if (*n == SVG_SEGS_MAX)
			*n = segs_coarsen(segs, *n, digits);
		s = &segs[(*n)++];
		s->va = r.va;
		s->end = r.end;
		s->page_size = r.page_size;
		s->space = r.space;
		s->perm = r.perm;
		s->nruns = 1;
		pt_buf_reset(&line);
		pt_render_run(&line, ctx, &r, NULL, PT_OUT_TEXT);
		snprintf(s->title, sizeof s->title, "%s", line.len ? line.data : "");
	}
	pt_err rc = pt_buf_status(&line);

	pt_buf_free(&line);
	return rc;
}

/* The title line and one swatch per space that some segment uses. */
static void svg_legend(struct pt_buf *b, const struct pt_context *ctx, const struct seg *segs,
		       size_t n, uint64_t runs, uint64_t bytes)
{
	char size[24];
	unsigned x = 8;

	pt_size_str(bytes, size, sizeof size);
	pt_buf_puts(b, "<text x=\"8\" y=\"18\" font-size=\"14\">");
	xml_escape(b, ctx->name);
	pt_buf_printf(b, " (%s): %" PRIu64 " runs, %s mapped; width ~ log2(size), "
		      "height ~ page size, faded = no write, dashed = privileged</text>\n",
		      ctx->fmt->name, runs, size);
	for (unsigned i = 0; ctx->fmt->spaces[i]; i++) {
		const char *sp = pt_context_space_name(ctx, i);
		size_t k = 0;

		while (k < n && segs[k].space != i)
			k++;
		if (k == n)
			continue;

		pt_buf_printf(b, "<rect x=\"%u\" y=\"28\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			      "<text x=\"%u\" y=\"39\" font-size=\"12\">", x,
			      palette[i % (sizeof palette / sizeof palette[0])], x + 16);
		xml_escape(b, sp);
		pt_buf_puts(b, "</text>\n");
		x += 24 + 8 * (unsigned)strlen(sp);
	}
}

/* The y of the top of bar row ROW. */
static unsigned row_y(unsigned row)
{
	return SVG_TOP + SVG_AXIS_H + row * SVG_ROW;
}

/*
 * One bar at (*X, *ROW) for VA onwards, wrapping to the next row when it
 * does not fit; a row's first bar writes the row's label, its VA.
 */
static void svg_bar(struct pt_buf *b, unsigned *x, unsigned *row, unsigned w, unsigned h,
		    const char *fill, const char *extra, uint64_t va, unsigned digits)
{
	if (*x + w > SVG_WIDTH - 8 && *x > SVG_LEFT) {
		*x = SVG_LEFT;
		(*row)++;
	}
	if (*x == SVG_LEFT)
		pt_buf_printf(b, "<text class=\"row\" x=\"%u\" y=\"%u\" font-size=\"9\" "
			      "text-anchor=\"end\">0x%0*" PRIx64 "</text>\n", SVG_LEFT - 4,
			      row_y(*row) + 38, (int)digits, va);
	pt_buf_printf(b, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\"%s>",
		      *x, row_y(*row) + (40 - h), w, h, fill, extra);
}

/* A run's exclusive end, the top of a 64-bit space (END 0 after wrapping) as 2^64 - 1. */
static uint64_t seg_end(const struct seg *s)
{
	return s->end > s->va ? s->end : UINT64_MAX;
}

/* The x of VA on the axis from LO to HI. */
static unsigned axis_x(uint64_t va, uint64_t lo, uint64_t hi)
{
	long double f = hi > lo ? (long double)(va - lo) / (long double)(hi - lo) : 0;

	return SVG_AXIS_L + (unsigned)(f * (SVG_WIDTH - 8 - SVG_AXIS_L) + 0.5L);
}

/*
 * The address axis: to scale from the first run's VA to the last one's
 * end, ticks at the multiples of a power of two (at most SVG_TICKS + 1),
 * each labelled with its address, and a mark per pixel span of runs with
 * their range and count as its tooltip.
 */
static void svg_axis(struct pt_buf *b, const struct seg *segs, size_t n, unsigned digits)
{
	uint64_t lo = segs[0].va, hi = seg_end(&segs[n - 1]), step = 1, t;
	unsigned y = SVG_TOP, k;
	char size[24];

	while (step < (UINT64_C(1) << 63) && (hi - lo) / step > SVG_TICKS)
		step <<= 1;
	pt_buf_printf(b, "<text x=\"%u\" y=\"%u\" font-size=\"10\">address axis, to scale:"
		      " 0x%0*" PRIx64 "-0x%0*" PRIx64 ", a tick every 0x%" PRIx64 "</text>\n",
		      SVG_AXIS_L, y + 8, (int)digits, lo, (int)digits, hi, step);
	pt_buf_printf(b, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#000\"/>\n",
		      SVG_AXIS_L, y + 32, SVG_WIDTH - 8, y + 32);
	t = lo % step ? lo - lo % step + step : lo;
	for (k = 0; k <= SVG_TICKS + 1 && t >= lo && t <= hi; k++) {
		unsigned tx = axis_x(t, lo, hi);

		pt_buf_printf(b, "<line class=\"tick\" x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" "
			      "stroke=\"#000\"/><text class=\"tick\" x=\"%u\" y=\"%u\" font-size=\"9\""
			      " text-anchor=\"%s\">0x%" PRIx64 "</text>\n", tx, y + 32, tx, y + 37,
			      tx, y + 47, tx < 60 ? "start" : tx > SVG_WIDTH - 60 ? "end" : "middle", t);
		if (t > UINT64_MAX - step)
			break;
		t += step;
	}
	for (size_t i = 0; i < n;) {
		uint64_t va = segs[i].va, end = seg_end(&segs[i]), runs = segs[i].nruns, bytes;
		unsigned x0 = axis_x(va, lo, hi), x1 = axis_x(end, lo, hi);

		bytes = end - va;
		/* the runs that fall in the same pixels: one mark */
		for (i++; i < n && axis_x(segs[i].va, lo, hi) <= (x1 > x0 ? x1 : x0 + 1); i++) {
			end = seg_end(&segs[i]);
			x1 = axis_x(end, lo, hi);
			runs += segs[i].nruns;
			bytes += end - segs[i].va;
		}
		pt_size_str(bytes, size, sizeof size);
		pt_buf_printf(b, "<rect class=\"mark\" x=\"%u\" y=\"%u\" width=\"%u\" height=\"16\""
			      " fill=\"#444\"><title>at 0x%0*" PRIx64 "-0x%0*" PRIx64 ": %" PRIu64
			      " run%s, %s</title></rect>\n", x0, y + 14, x1 > x0 ? x1 - x0 : 1,
			      (int)digits, va, (int)digits, end, runs, runs == 1 ? "" : "s", size);
	}
}

pt_err pt_render_svg(struct pt_buf *b, const struct pt_context *ctx, struct pt_readctl *ctl)
{
	struct pt_runs_iter it;
	struct seg *segs = calloc(SVG_SEGS_MAX, sizeof *segs);
	size_t n = 0;
	unsigned x = SVG_LEFT, row = 0, digits = ctx->fmt->va_digits;
	uint64_t runs = 0, bytes = 0;
	size_t hdr;

	if (!segs)
		return PT_E_NOMEM;
	pt_err rc = segs_read(ctx, &it, segs, &n, ctl);
	if (rc != PT_OK) {
		free(segs);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		runs += segs[i].nruns;
		bytes += segs[i].end - segs[i].va;
	}
	/* The height is known only at the end: it is written last, in place. */
	static const char head[] = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\" "
				   "height=\"0000000\" font-family=\"sans-serif\">\n";
	hdr = b->len + (size_t)(strstr(head, "0000000") - head);
	pt_buf_puts(b, head);
	svg_legend(b, ctx, segs, n, runs, bytes);
	if (n)
		svg_axis(b, segs, n, digits);
	for (size_t i = 0; i < n; i++) {
		const struct seg *s = &segs[i];
		char size[24];
		bool nowrite = s->perm & (PT_PERM_READ_ONLY | PT_PERM_NO_WRITE);
		const char *extra = (s->perm & PT_PERM_PRIVILEGE)
			? (nowrite ? " fill-opacity=\"0.45\" stroke=\"#000\" stroke-dasharray=\"2,2\""
				   : " stroke=\"#000\" stroke-dasharray=\"2,2\"")
			: (nowrite ? " fill-opacity=\"0.45\"" : "");
		const char *fill = palette[s->space % (sizeof palette / sizeof palette[0])];

		if (i > 0 && s->va > segs[i - 1].end) {
			pt_size_str(s->va - segs[i - 1].end, size, sizeof size);
			svg_bar(b, &x, &row, SVG_GAP_W, 4, "#bbbbbb", "", segs[i - 1].end, digits);
			pt_buf_printf(b, "<title>gap %s 0x%0*" PRIx64 "-0x%0*" PRIx64 "</title></rect>"
				      "<text x=\"%u\" y=\"%u\" font-size=\"8\" text-anchor=\"middle\">%s"
				      "</text>\n", size, (int)digits, segs[i - 1].end, (int)digits, s->va,
				      x + SVG_GAP_W / 2, row_y(row) + 50, size);
			x += SVG_GAP_W + 2;
		}
		unsigned w = seg_width(s->end - s->va);

		svg_bar(b, &x, &row, w, seg_height(s->page_size), fill, extra, s->va, digits);
		pt_buf_puts(b, "<title>");
		xml_escape(b, s->title);
		pt_buf_puts(b, "</title></rect>\n");
		x += w + 1;
	}
	if (it.truncated)
		pt_buf_printf(b, "<text x=\"8\" y=\"%u\" font-size=\"12\">truncated: more than %"
			      PRIu64 " %s</text>\n", row_y(row + 1) + 14,
			      it.cut_limit, it.cut_what);
	pt_buf_puts(b, "</svg>\n");
	free(segs);
	rc = pt_buf_status(b);
	if (rc == PT_OK) {
		char h[8];

		snprintf(h, sizeof h, "%07u", row_y(row + 2));
		memcpy(b->data + hdr, h, 7);
	}
	return rc;
}
