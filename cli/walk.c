/* SPDX-License-Identifier: MIT */
/*
 * walk.c — `ptfs-tool walk CAPTURE CONTEXT VA...`: the trace `walk/VA` shows
 * in the mount, for each VA.  A fault is a result (exit 0), not an error.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static const char walk_help[] =
	"Usage: ptfs-tool walk [--json] CAPTURE CONTEXT VA...\n"
	"\n"
	"Walks each virtual address through the page tables of CONTEXT (a context\n"
	"section name) and prints the trace the mounted walk/VA file holds:\n"
	"one line per level, then the result (PA, space, page size, permissions) or\n"
	"the fault and the level it happened at.  VA is hex, with or without 0x.\n"
	"Traces are separated by a blank line; --json prints one object, or an\n"
	"array for several VAs.  Faults are results: the exit status is 0.\n";

int cli_walk(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const struct pt_context *ctx;
	struct pt_capture *cap;
	struct pt_buf out, one;
	bool json = false;
	int c, st = CLI_EXIT_OK, nva;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(walk_help, stdout);
			return CLI_EXIT_OK;
		case 'j':
			json = true;
			break;
		default:
			return cli_opt_error("walk", argv, c);
		}
	}
	if (argc - optind < 3)
		return cli_fail(PT_E_USAGE, "walk: needs CAPTURE CONTEXT VA... (try 'ptfs-tool walk --help')");
	nva = argc - optind - 2;
	/* Every VA is checked before the (possibly long) load. */
	for (int i = 0; i < nva; i++) {
		uint64_t va;

		if (!pt_va_parse(argv[optind + 2 + i], &va))
			return cli_fail(PT_E_VALUE, "walk: bad VA '%s' (hex, with or without 0x)",
					argv[optind + 2 + i]);
	}
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	ctx = cli_context(cap, argv[optind + 1]);
	if (!ctx) {
		pt_capture_free(cap);
		return CLI_EXIT_ERROR;
	}

	pt_buf_init(&out);
	pt_buf_init(&one);
	/* JSON Lines: one object per VA, however many VAs (ptfs-tool(1) JSON) */
	for (int i = 0; i < nva && st == CLI_EXIT_OK; i++) {
		struct pt_walk w;
		uint64_t va = 0;
		pt_err err;

		pt_va_parse(argv[optind + 2 + i], &va);
		pt_buf_reset(&one);
		err = pt_walk_va(ctx, va, &w);
		if (err == PT_OK)
			err = pt_render_walk(&one, ctx, &w, json ? PT_OUT_JSON : PT_OUT_TEXT);
		if (err != PT_OK) {
			st = cli_fail(err, "walk: %s: VA %s", ctx->name, argv[optind + 2 + i]);
			break;
		}
		if (json)
			cli_buf_chomp(&one);
		else if (i)
			pt_buf_puts(&out, "\n");
		pt_buf_put(&out, one.data ? one.data : "", one.len);
		if (json)
			pt_buf_puts(&out, "\n");
	}
	if (st == CLI_EXIT_OK && !cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	pt_buf_free(&one);
	pt_buf_free(&out);
	pt_capture_free(cap);
	return st;
}
