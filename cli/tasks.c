/* SPDX-License-Identifier: MIT */
/*
 * tasks.c — `ptfs-tool tasks CAPTURE`: a Linux guest's processes, as ps
 * lists them (docs/design.md §3.3): one line per context pidN.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "pt_linux.h"

static const char tasks_help[] =
	"Usage: ptfs-tool tasks [--json] CAPTURE\n"
	"\n"
	"Prints the user processes of a Linux guest's dump, one line each by pid:\n"
	"PID PPID COMM THREADS CPU ROOT PAGES (the vCPU running it, its context's\n"
	"root table, the pages of its user half).  Each is the context pidN.  A dump\n"
	"whose kernel ptfs cannot read (no BTF, no route to the task list) prints a\n"
	"warning saying what was missing and exits 1.\n";

int cli_tasks(int argc, char **argv)
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
			fputs(tasks_help, stdout);
			return CLI_EXIT_OK;
		case 'j':
			json = true;
			break;
		default:
			return cli_opt_error("tasks", argv, c);
		}
	}
	if (argc - optind != 1)
		return cli_fail(PT_E_USAGE, "tasks: needs CAPTURE (try 'ptfs-tool tasks --help')");
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	pt_buf_init(&out);
	if (!pt_linux_tasks(cap, json, &out, NULL))
		st = cli_fail(PT_E_CAPTURE, "tasks: %s: no Linux process found (see the warnings)", argv[optind]);
	else if (!cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	pt_buf_free(&out);
	pt_capture_free(cap);
	return st;
}
