/* SPDX-License-Identifier: MIT */
/*
 * main.c — ptfs-tool: the ptfs engine without FUSE.  Dispatches to the
 * subcommands (the table below); what they share is in common.c (errors,
 * numbers, output) and load.c (the load options and the load).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "ptfs_config.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	bool loads;          /* reads a capture: takes the load options */
} commands[] = {
	{"decode", cli_decode, "decode one entry value or a table blob", false},
	{"walk", cli_walk, "walk virtual addresses of a context", true},
	{"audit", cli_audit, "check the access legs of a legs file page by page", true},
	{"check", cli_check, "load, validate and list every anomaly", true},
	{"export", cli_export, "write the mounted tree to a directory", true},
	{"maps", cli_maps, "the maps file of a context, with filters", true},
	{"info", cli_info, "the info file of a context", true},
	{"build", cli_build, "a capture from a list of mappings", false},
	{"map", cli_map, "a picture of a context's VA space (SVG)", true},
	{"devices", cli_devices, "the devices an IOMMU has set up, one line each", true},
	{"pa", cli_pa, "every context and VA that maps a physical address", true},
	{"diff", cli_diff, "what changed between two captures, at the mapping level", true},
	{"crosscheck", cli_crosscheck, "whether a mirror (a GPU view of a process) maps what its original maps", true},
	{"roots", cli_roots, "candidate root tables found by scanning captured memory", true},
	{"tasks", cli_tasks, "a Linux guest's processes, as ps lists them", true},
	{"pci", cli_pci, "the guest's PCI functions by name, with the IOMMU context of each", true},
	{"snapshot", cli_snapshot, "a live guest's page tables, copied while it is stopped, as a capture", true},
};

/* Whether ARGV (a subcommand's) asks for its --help, before any "--". */
static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static void usage(FILE *f)
{
	fputs("Usage: ptfs-tool [-h|--help] [-V|--version] COMMAND [ARGS...]\n"
	      "\n"
	      "The ptfs page-table engine without FUSE.  Commands:\n", f);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\n`ptfs-tool COMMAND --help` describes a command.  Exit status: 0 success,\n"
	      "1 findings (check: anomalies, audit: a page not ok, pa: nothing maps it,\n"
	      "diff, crosscheck: different), 2 error (E_* on stderr).\n", f);
}

int main(int argc, char **argv)
{
	const char *cmd;
	int status;

	(void)pt_mem_fault_install();   /* a capture file that shrinks under us fails reads, not ptfs-tool */
	if (argc < 2)
		return cli_fail(PT_E_USAGE, "no command (try 'ptfs-tool --help')");
	cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
		printf("ptfs-tool %s\n", PTFS_VERSION);
		return CLI_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		int sub_argc = argc - 1;

		if (strcmp(cmd, commands[i].name) != 0)
			continue;
		if (!cli_load_opts_take(&sub_argc, argv + 1, &status))
			return status;
		if (strcmp(cmd, "decode") == 0 && cli_load_opts_refused(&status))
			return status;
		status = commands[i].run(sub_argc, argv + 1);
		/* Every command that reads a capture takes the load options: its --help says so once, here. */
		if (status == CLI_EXIT_OK && wants_help(sub_argc, argv + 1) && commands[i].loads)
			cli_load_help(stdout);
		if (fflush(stdout) != 0 && status != CLI_EXIT_ERROR)
			status = cli_fail(PT_E_IO, "writing output: %s", strerror(errno));
		return status;
	}
	if (cmd[0] == '-')
		return cli_fail(PT_E_USAGE, "unknown option '%s' (try 'ptfs-tool --help')", cmd);
	return cli_fail(PT_E_USAGE, "unknown command '%s' (try 'ptfs-tool --help')", cmd);
}
