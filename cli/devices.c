/* SPDX-License-Identifier: MIT */
/*
 * devices.c — `ptfs-tool devices CAPTURE [IOMMU]`: the devices file of an
 * [iommu] section without FUSE (the same bytes as mnt/IOMMU/devices), one
 * lspci-like line per device context the IOMMU made (core/view/iodev.c).
 */
#include <stdio.h>

#include "cli.h"
#include "pt_tree.h"

static const char devices_help[] =
	"Usage: ptfs-tool devices [--json] CAPTURE [IOMMU]\n"
	"\n"
	"Prints the devices file of IOMMU (an [iommu] section, or one a live guest's\n"
	"registers made): one line per device context it set up, ordered by BDF or\n"
	"StreamID then PASID or SubstreamID: `BDF|sid=N [pasid=N|ssid=N]\n"
	"context=NAME translation=MODE [domain=N|asid=N|vmid=N] [levels=N pages=N\n"
	"root=SPACE:ADDR]`.  With no IOMMU, every IOMMU's, each after a line\n"
	"`# IOMMU`.  --json: one object per line (JSON Lines), with the key `iommu`.\n"
	"A device the IOMMU blocks or aborts is a context (and a line) only with\n"
	"--all-entries; `ptfs-tool info CAPTURE IOMMU` counts them.\n";

static int devices_print(struct pt_capture *cap, char **argv, int argc, bool json,
			 struct pt_buf *out)
{
	struct pt_tree *tree = NULL;
	int st = CLI_EXIT_OK, only = -1;
	size_t n;
	pt_err err;

	err = pt_tree_new(cap, cli_all_entries(), &tree);
	if (err != PT_OK)
		return cli_fail(err, "devices: %s", pt_strerror(err));
	n = pt_tree_iommu_count(tree);
	if (argc == 2 && (only = pt_tree_iommu_find(tree, argv[1])) < 0) {
		st = cli_fail(PT_E_NOTFOUND, "devices: no IOMMU '%s' in %s (%zu [iommu] sections)",
			      argv[1], argv[0], n);
		goto out;
	}
	for (size_t i = 0; i < n && st == CLI_EXIT_OK; i++) {
		struct pt_iommu_info io;

		if (only >= 0 && i != (size_t)only)
			continue;
		pt_capture_iommu(cap, i, &io);
		if (only < 0 && !json)
			pt_buf_printf(out, "# %s\n", io.name);
		err = pt_tree_iommu_devices(tree, i, json ? PT_OUT_JSON : PT_OUT_TEXT, out, NULL);
		if (err != PT_OK)
			st = cli_fail(err, "devices: %s", io.name);
	}
out:
	pt_tree_free(tree);
	return st;
}

int cli_devices(int argc, char **argv)
{
	static const struct cli_listing devices = {"devices", devices_help, "CAPTURE [IOMMU]", 2,
						   devices_print};

	return cli_listing(&devices, argc, argv);
}
