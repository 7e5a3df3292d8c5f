/* SPDX-License-Identifier: MIT */
/*
 * pci.c — `ptfs-tool pci CAPTURE`: the guest's PCI functions by name
 * (docs/design.md §3.3), lspci-like, each with the IOMMU context that
 * translates it or `-` (the same bytes as mnt/pci).
 */
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

static int pci_print(struct pt_capture *cap, char **argv, int argc, bool json, struct pt_buf *out)
{
	(void)argc;
	if (!pt_linux_pci(cap, json, out))
		return cli_fail(PT_E_CAPTURE, "pci: %s: no PCI function known (see the warnings)", argv[0]);
	return CLI_EXIT_OK;
}

int cli_pci(int argc, char **argv)
{
	static const struct cli_listing pci = {"pci", pci_help, "CAPTURE", 1, pci_print};

	return cli_listing(&pci, argc, argv);
}
