/* SPDX-License-Identifier: MIT */
/*
 * listing.c — what the listing subcommands (`pci`, `tasks`, `devices`)
 * share: their options (--json, --help), loading CAPTURE, and writing the
 * listing their hook fills in; each keeps its help text, its arguments'
 * checks past CAPTURE and its own failure lines.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

int cli_listing(const struct cli_listing *l, int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pt_capture *cap;
	struct pt_buf out;
	bool json = false;
	int c, st = CLI_EXIT_OK;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(l->help, stdout);
			return CLI_EXIT_OK;
		case 'j':
			json = true;
			break;
		default:
			return cli_opt_error(l->name, argv, c);
		}
	}
	if (argc - optind < 1 || argc - optind > l->max_args)
		return cli_fail(PT_E_USAGE, "%s: needs %s (try 'ptfs-tool %s --help')", l->name,
				l->args, l->name);
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	pt_buf_init(&out);
	st = l->print(cap, argv + optind, argc - optind, json, &out);
	if (st == CLI_EXIT_OK && !cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	pt_buf_free(&out);
	pt_capture_free(cap);
	return st;
}
