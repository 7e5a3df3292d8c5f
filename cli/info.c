/* SPDX-License-Identifier: MIT */
/*
 * info.c — `ptfs-tool info CAPTURE [CONTEXT]`: the info file of a context
 * without FUSE (the same bytes); every context when none is named.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static const char info_help[] =
	"Usage: ptfs-tool info [--json] CAPTURE [CONTEXT]\n"
	"\n"
	"Prints the info file of CONTEXT: root, counts per level, mapped bytes per\n"
	"page size, anomalies.  With no CONTEXT, every context's info in capture.ini\n"
	"order, each text block after a line `# CONTEXT`, each JSON object on its own\n"
	"line.\n";

int cli_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pt_capture *cap;
	struct pt_buf out, one;
	bool json = false;
	int c, st = CLI_EXIT_OK;
	size_t first = 0, end;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(info_help, stdout);
			return CLI_EXIT_OK;
		case 'j':
			json = true;
			break;
		default:
			return cli_opt_error("info", argv, c);
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		return cli_fail(PT_E_USAGE, "info: needs CAPTURE [CONTEXT] (try 'ptfs-tool info --help')");
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	end = pt_capture_context_count(cap);
	if (argc - optind == 2) {
		const struct pt_context *ctx = cli_context(cap, argv[optind + 1]);

		if (!ctx) {
			pt_capture_free(cap);
			return CLI_EXIT_ERROR;
		}
		while (pt_capture_context(cap, first) != ctx)
			first++;
		end = first + 1;
	}
	pt_buf_init(&out);
	pt_buf_init(&one);
	for (size_t i = first; i < end && st == CLI_EXIT_OK; i++) {
		const struct pt_context *ctx = pt_capture_context(cap, i);
		pt_err err;

		pt_buf_reset(&one);
		err = pt_render_info(&one, ctx, json ? PT_OUT_JSON : PT_OUT_TEXT, NULL);
		if (err != PT_OK) {
			st = cli_fail(err, "info: %s", ctx->name);
			break;
		}
		if (argc - optind == 1 && !json)
			pt_buf_printf(&out, "# %s\n", ctx->name);
		if (json)
			cli_buf_chomp(&one);
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
