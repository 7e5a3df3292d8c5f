/* SPDX-License-Identifier: MIT */
/*
 * maps.c — `ptfs-tool maps CAPTURE [CONTEXT] [filters]`: the maps file of a
 * context without FUSE (unfiltered: the same bytes), filtered page by page
 * before the runs are merged (core/runs.c).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pt_runs.h"

static const char maps_help[] =
	"Usage: ptfs-tool maps [OPTIONS] CAPTURE [CONTEXT]\n"
	"\n"
	"Prints the maps file of CONTEXT (every context when none is named, each\n"
	"line then starting with the context name): one line per maximal run of\n"
	"pages contiguous in VA and PA with equal attributes.  Filters keep pages\n"
	"before runs are merged:\n"
	"  --ro             read_only pages only\n"
	"  --space S        pages in space S of the context's format:\n";
/* After the space list (cli_print_spaces: from the format table). */
static const char maps_help2[] =
	"  --kind K         pages whose kind column is K, or whose kind field is K\n"
	"                   when K is a number (0xfe, 254)\n"
	"  --range A-B      pages overlapping VA A..B (inclusive; decimal, or hex with 0x)\n"
	"  --page-size P    pages of size P (4K, 64K, 2M, or a number)\n"
	"  --state S        mapped, sparse, not_captured, reserved_bits,\n"
	"                   unsupported or unreadable (any but mapped implies --all)\n"
	"  --all            also the ranges no page covers that are not plain\n"
	"                   unmapped: VA_START-VA_END SIZE - STATE\n"
	"  --json           one JSON object per line\n";

static const char *const states[] = {
	"mapped", "sparse", "not_captured", "reserved_bits", "unsupported", "unreadable", NULL,
};

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

/* The number hint of the half of a --range S that is not a number ("" when both are). */
static const char *range_hint(const char *s)
{
	const char *dash = strchr(s, '-');
	char a[64];
	uint64_t v;

	if (!dash || (size_t)(dash - s) >= sizeof a)
		return "";
	memcpy(a, s, (size_t)(dash - s));
	a[dash - s] = 0;
	if (!pt_va_parse(a, &v))
		return cli_num_hint(a);
	if (!pt_va_parse(dash + 1, &v))
		return cli_num_hint(dash + 1);
	return "";
}

static void one_context(struct pt_buf *out, const struct pt_context *ctx,
			const struct pt_runs_filter *f, const char *prefix, bool json)
{
	struct pt_runs_iter it;
	struct pt_run r;
	enum pt_out o = json ? PT_OUT_JSON : PT_OUT_TEXT;

	pt_runs_init(&it, ctx, f, NULL);
	while (pt_runs_next(&it, &r))
		pt_render_run(out, ctx, &r, prefix, o);
	if (it.truncated) {
		if (prefix && !json)
			pt_buf_printf(out, "%s ", prefix);
		pt_render_runs_truncated(out, &it, o);
	}
}

int cli_maps(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{"ro", no_argument, NULL, 'r'},
		{"all", no_argument, NULL, 'a'},
		{"space", required_argument, NULL, 's'},
		{"kind", required_argument, NULL, 'k'},
		{"range", required_argument, NULL, 'R'},
		{"state", required_argument, NULL, 'S'},
		{"page-size", required_argument, NULL, 'p'},
		{NULL, 0, NULL, 0},
	};
	struct pt_runs_filter f;
	const char *space = NULL;
	struct pt_capture *cap;
	struct pt_buf out;
	bool json = false;
	int c, st = CLI_EXIT_OK;

	pt_runs_filter_init(&f);
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(maps_help, stdout);
			cli_print_spaces(stdout, "                   ");
			fputs(maps_help2, stdout);
			return CLI_EXIT_OK;
		case 'j':
			json = true;
			break;
		case 'r':
			f.read_only = true;
			break;
		case 'a':
			f.all = true;
			break;
		case 's':
			space = optarg;
			break;
		case 'k': {
			uint64_t k;

			/* a number is the kind field's value (0xfe, 254), a name the column */
			if (optarg[0] >= '0' && optarg[0] <= '9') {
				if (!cli_parse_u64(optarg, &k) || k > INT32_MAX)
					return cli_fail(PT_E_VALUE, "maps: bad --kind '%s' (a name as maps "
							"prints it, or a number)", optarg);
				f.kind_num = (int64_t)k;
			} else {
				f.kind = optarg;
			}
			break;
		}
		case 'R':
			if (!parse_range(optarg, &f.va_lo, &f.va_hi))
				return cli_fail(PT_E_VALUE, "maps: bad --range '%s' (A-B, A <= B)%s", optarg,
						range_hint(optarg));
			break;
		case 'S': {
			size_t i;

			for (i = 0; states[i] && strcmp(states[i], optarg); i++)
				;
			if (!states[i])
				return cli_fail(PT_E_VALUE, "maps: bad --state '%s' (mapped, sparse, not_captured, reserved_bits, unsupported, unreadable)", optarg);
			f.state = states[i];
			if (i)
				f.all = true;
			break;
		}
		case 'p':
			if (!cli_parse_size(optarg, &f.page_size) || !f.page_size)
				return cli_fail(PT_E_VALUE, "maps: bad --page-size '%s' (4K, 64K, 2M, ...)%s", optarg,
						pt_num_bare_hex(optarg) ? cli_num_hint(optarg) : "");
			break;
		default:
			return cli_opt_error("maps", argv, c);
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		return cli_fail(PT_E_USAGE, "maps: needs CAPTURE [CONTEXT] (try 'ptfs-tool maps --help')");
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	if (space) {
		f.space = pt_capture_space_find(cap, space);
		if (f.space < 0) {
			st = cli_fail(PT_E_VALUE, "maps: no space '%s' in format %s", space,
				      pt_capture_format(cap)->name);
			pt_capture_free(cap);
			return st;
		}
	}
	pt_buf_init(&out);
	if (argc - optind == 2) {
		const struct pt_context *ctx = cli_context(cap, argv[optind + 1]);

		if (!ctx)
			st = CLI_EXIT_ERROR;
		else
			one_context(&out, ctx, &f, NULL, json);
	} else {
		for (size_t i = 0; i < pt_capture_context_count(cap); i++) {
			const struct pt_context *ctx = pt_capture_context(cap, i);

			one_context(&out, ctx, &f, ctx->name, json);
		}
	}
	if (st == CLI_EXIT_OK && out.oom)
		st = cli_fail(PT_E_NOMEM, "maps: out of memory");
	if (st == CLI_EXIT_OK && !cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	pt_buf_free(&out);
	pt_capture_free(cap);
	return st;
}
