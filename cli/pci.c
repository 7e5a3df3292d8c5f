/* SPDX-License-Identifier: MIT */
/*
 * pci.c — `ptfs-tool pci CAPTURE`: the guest's PCI functions by name
 * (docs/design.md §3.3), lspci-like, each with the IOMMU context that
 * translates it or `-` (the same bytes as mnt/pci).
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "pt_linux.h"

static const char pci_help[] =
	"Usage: ptfs-tool pci [--json] CAPTURE\n"
	"\n"
	"Prints the guest's PCI functions, one line each by BDF: BDF CLASS ID DRIVER\n"
	"IOMMU NAME (the driver bound, `-` none, `?` not known; the IOMMU device\n"
	"context that translates it, `-` none; the class, vendor and device names of\n"
	"pci.ids as lspci prints them).  A Linux dump's come from its kernel's\n"
	"pci_root_buses (BTF and kallsyms), a live QEMU's from QMP query-pci (which\n"
	"names no driver).  --json: one array of objects.  No PCI function known: one\n"
	"line saying so and exit status 2.\n";

int cli_pci(int argc, char **argv)
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
			fputs(pci_help, stdout);
			return CLI_EXIT_OK;
		case 'j':
			json = true;
			break;
		default:
			return cli_opt_error("pci", argv, c);
		}
	}
	if (argc - optind != 1)
		return cli_fail(PT_E_USAGE, "pci: needs CAPTURE (try 'ptfs-tool pci --help')");
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	pt_buf_init(&out);
	if (!pt_linux_pci(cap, json, &out))
		st = cli_fail(PT_E_CAPTURE, "pci: %s: no PCI function known (see the warnings)", argv[optind]);
	else if (!cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	pt_buf_free(&out);
	pt_capture_free(cap);
	return st;
}
