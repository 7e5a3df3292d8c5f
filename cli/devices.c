/* SPDX-License-Identifier: MIT */
/*
 * devices.c — `ptfs-tool devices CAPTURE [IOMMU]`: the devices file of an
 * [iommu] section without FUSE (the same bytes as mnt/IOMMU/devices), one
 * lspci-like line per device context the IOMMU made (core/view/iodev.c).
 */
#include <getopt.h>
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

int cli_devices(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pt_capture *cap;
	struct pt_tree *tree = NULL;
	struct pt_buf out;
	bool json = false;
	int c, st = CLI_EXIT_OK, only = -1;
	size_t n;
	pt_err err;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(devices_help, stdout);
			return CLI_EXIT_OK;
		case 'j':
			json = true;
			break;
		default:
			return cli_opt_error("devices", argv, c);
		}
	}
	if (argc - optind < 1 || argc - optind > 2)
		return cli_fail(PT_E_USAGE, "devices: needs CAPTURE [IOMMU] (try 'ptfs-tool devices --help')");
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	err = pt_tree_new(cap, cli_all_entries(), &tree);
	if (err != PT_OK) {
		pt_capture_free(cap);
		return cli_fail(err, "devices: %s", pt_strerror(err));
	}
	n = pt_tree_iommu_count(tree);
	if (argc - optind == 2 && (only = pt_tree_iommu_find(tree, argv[optind + 1])) < 0) {
		st = cli_fail(PT_E_NOTFOUND, "devices: no IOMMU '%s' in %s (%zu [iommu] sections)",
			      argv[optind + 1], argv[optind], n);
		goto out;
	}
	pt_buf_init(&out);
	for (size_t i = 0; i < n && st == CLI_EXIT_OK; i++) {
		struct pt_iommu_info io;

		if (only >= 0 && i != (size_t)only)
			continue;
		pt_capture_iommu(cap, i, &io);
		if (only < 0 && !json)
			pt_buf_printf(&out, "# %s\n", io.name);
		err = pt_tree_iommu_devices(tree, i, json ? PT_OUT_JSON : PT_OUT_TEXT, &out, NULL);
		if (err != PT_OK)
			st = cli_fail(err, "devices: %s", io.name);
	}
	if (st == CLI_EXIT_OK && !cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	pt_buf_free(&out);
out:
	pt_tree_free(tree);
	pt_capture_free(cap);
	return st;
}
