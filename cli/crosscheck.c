/* SPDX-License-Identifier: MIT */
/*
 * crosscheck.c — `ptfs-tool crosscheck CAPTURE CTX_A CTX_B [--range A-B]
 * [--json]`: does a mirror (a GPU's view of a process: HMM/SVM, UVM ATS,
 * KFD SVM) map what its original maps?  The comparison is the core's
 * (core/view/xcheck.c); this file parses, streams the lines out and picks
 * the exit status.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "pt_xcheck.h"

static const char crosscheck_help[] =
	"Usage: ptfs-tool crosscheck [OPTIONS] CAPTURE CTX_A CTX_B\n"
	"\n"
	"Compares two contexts of CAPTURE that should map the same memory (a\n"
	"process and its GPU mirror).  Every VA range mapped in either gets one\n"
	"line, ranges of one verdict whose PAs continue on both sides merged:\n"
	"  VA_START-VA_END SIZE VERDICT A_SPACE:A_PA A_PAGE A_FLAGS B_SPACE:B_PA B_PAGE B_FLAGS\n"
	"VERDICT: same, pa_differs (another space or PA), perm_differs (writable,\n"
	"user or executable on one side only, named by a last `differs=` word),\n"
	"only_a, only_b (the other side shows `- - STATE`: unmapped, or why not:\n"
	"not_captured, sparse, ...).  A last line `# summary:` counts the lines\n"
	"of each verdict.\n"
	"  --range A-B      only VAs A..B (hex, inclusive): the mirrored window\n"
	"  --json           one JSON object per line, then {\"summary\": {...}}\n"
	"Exit status 0 when every line is same, 1 when any is not, 2 error.\n";

static bool parse_range(const char *s, uint64_t *lo, uint64_t *hi)
{
	const char *dash = strchr(s, '-');
	char a[64];

	if (!dash || (size_t)(dash - s) >= sizeof a)
		return false;
	memcpy(a, s, (size_t)(dash - s));
	a[dash - s] = 0;
	return pt_va_parse(a, lo) && pt_va_parse(dash + 1, hi) && *lo <= *hi;
}

struct xout {
	struct pt_buf buf;
	unsigned va_digits;
	enum pt_out out;
	bool failed;
};

/* Lines leave as they come, in blocks: a large space is not held in memory. */
static int one_line(void *ud, const struct pt_xcheck_line *l)
{
	struct xout *x = ud;

	pt_render_xcheck_line(&x->buf, l, x->va_digits, x->out);
	if (x->buf.len >= 64 * 1024) {
		if (!cli_write_buf(&x->buf)) {
			x->failed = true;
			return 1;
		}
		pt_buf_reset(&x->buf);
	}
	return 0;
}

static int compare(const struct pt_context *a, const struct pt_context *b,
		   const struct pt_xcheck_opts *o, bool json)
{
	struct pt_xcheck_result res;
	struct xout x = {.out = json ? PT_OUT_JSON : PT_OUT_TEXT};
	int st = CLI_EXIT_OK;
	pt_err err;

	pt_buf_init(&x.buf);
	x.va_digits = a->fmt->va_digits > b->fmt->va_digits ? a->fmt->va_digits : b->fmt->va_digits;
	err = pt_xcheck_run(a, b, o, one_line, &x, &res, NULL);
	if (err != PT_OK) {
		pt_buf_free(&x.buf);
		return cli_fail(err, "crosscheck: %s", pt_strerror(err));
	}
	if (x.failed) {
		pt_buf_free(&x.buf);
		return CLI_EXIT_ERROR;
	}
	if (!res.truncated)
		pt_render_xcheck_summary(&x.buf, &res, x.out);
	if (!cli_write_buf(&x.buf))
		st = CLI_EXIT_ERROR;
	pt_buf_free(&x.buf);
	if (st != CLI_EXIT_OK)
		return st;
	/* Fail closed: what lies past a cut list was not compared, so no verdict on it. */
	if (res.truncated)
		return cli_fail(PT_E_UNSUPPORTED, "crosscheck: %s's maps stop at VA 0x%0*" PRIx64
				" (more than %" PRIu64 " %s): the rest is not compared",
				res.cut_side == 'a' ? a->name : b->name, (int)x.va_digits, res.cut_va,
				res.cut_limit, res.cut_what);
	for (unsigned v = PT_XC_SAME + 1; v < PT_XC__COUNT; v++)
		if (res.lines[v])
			return CLI_EXIT_FINDINGS;
	return CLI_EXIT_OK;
}

int cli_crosscheck(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{"range", required_argument, NULL, 'R'},
		{NULL, 0, NULL, 0},
	};
	struct pt_xcheck_opts o;
	const struct pt_context *a, *b;
	struct pt_capture *cap;
	bool json = false;
	int c, st = CLI_EXIT_OK;

	pt_xcheck_opts_init(&o);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(crosscheck_help, stdout);
			return CLI_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'R':
			if (!parse_range(optarg, &o.va_lo, &o.va_hi))
				return cli_fail(PT_E_VALUE, "crosscheck: bad --range '%s' (A-B, hex VAs, A <= B)",
						optarg);
			break;
		default:
			return cli_opt_error("crosscheck", argv, c);
		}
	}
	if (argc - optind != 3)
		return cli_fail(PT_E_USAGE, "crosscheck: needs CAPTURE CTX_A CTX_B (try 'ptfs-tool crosscheck --help')");
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	a = cli_context(cap, argv[optind + 1]);
	b = a ? cli_context(cap, argv[optind + 2]) : NULL;
	st = a && b ? compare(a, b, &o, json) : CLI_EXIT_ERROR;
	pt_capture_free(cap);
	return st;
}
