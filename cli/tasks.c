/* SPDX-License-Identifier: MIT */
/*
 * tasks.c — `ptfs-tool tasks CAPTURE`: a Linux guest's processes, as ps
 * lists them (docs/design.md §3.3): one line per context pidN.
 */
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

static int tasks_print(struct pt_capture *cap, char **argv, int argc, bool json, struct pt_buf *out)
{
	(void)argc;
	if (!pt_linux_tasks(cap, json, out, NULL))
		return cli_fail(PT_E_CAPTURE, "tasks: %s: no Linux process found (see the warnings)", argv[0]);
	return CLI_EXIT_OK;
}

int cli_tasks(int argc, char **argv)
{
	static const struct cli_listing tasks = {"tasks", tasks_help, "CAPTURE", 1, tasks_print};

	return cli_listing(&tasks, argc, argv);
}
