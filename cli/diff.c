/* SPDX-License-Identifier: MIT */
#include "cli.h"
int cli_diff(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_fail(PT_E_USAGE, "diff: not yet");
}
