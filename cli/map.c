/* SPDX-License-Identifier: MIT */
/*
 * map.c — `ptfs-tool map --svg CAPTURE CONTEXT`: the picture of a context's
 * VA space that a mount shows as CTX/map.svg (the same bytes), without FUSE.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "pt_svg.h"

static const char map_help[] =
	"Usage: ptfs-tool map --svg CAPTURE CONTEXT\n"
	"\n"
	"Writes the picture of CONTEXT's VA space as SVG to standard output: the\n"
	"maps runs along a compressed axis (width grows with log2 of a run's size,\n"
	"gaps are short grey bars labelled with their size), coloured by space,\n"
	"faded where a page cannot be written, dashed where it is privileged, taller\n"
	"for larger pages; each run's maps line is its tooltip.  Above the bars, an\n"
	"address axis to scale from the first mapped VA to the last, with labelled\n"
	"ticks and a mark where each run lies (its range the tooltip); each row of\n"
	"bars starts with its VA.  Open it in a web\n"
	"browser, or convert it: rsvg-convert map.svg -o map.png.\n";

int cli_map(int argc, char **argv)
{
	static const struct option opts[] = {
		{"svg", no_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pt_capture *cap;
	const struct pt_context *ctx;
	struct pt_buf out;
	bool svg = false;
	int c, st = CLI_EXIT_OK;
	pt_err err;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hs", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(map_help, stdout);
			return CLI_EXIT_OK;
		case 's':
			svg = true;
			break;
		default:
			return cli_opt_error("map", argv, c);
		}
	}
	if (!svg)
		return cli_fail(PT_E_USAGE, "map: --svg is the one picture format (try 'ptfs-tool map --help')");
	if (argc - optind != 2)
		return cli_fail(PT_E_USAGE, "map: needs CAPTURE CONTEXT (try 'ptfs-tool map --help')");
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	ctx = cli_context(cap, argv[optind + 1]);
	if (!ctx) {
		pt_capture_free(cap);
		return CLI_EXIT_ERROR;
	}
	pt_buf_init(&out);
	err = pt_render_svg(&out, ctx, NULL);
	if (err != PT_OK)
		st = cli_fail(err, "map: %s", ctx->name);
	else if (!cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	pt_buf_free(&out);
	pt_capture_free(cap);
	return st;
}
