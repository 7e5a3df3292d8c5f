/* SPDX-License-Identifier: MIT */
/*
 * info.c — `ptfs-tool info CAPTURE [CONTEXT]`: the info file of a context
 * without FUSE (the same bytes); every context when none is named.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "pt_tree.h"

static const char info_help[] =
	"Usage: ptfs-tool info [--json] CAPTURE [CONTEXT]\n"
	"\n"
	"Prints the info file of CONTEXT: root, counts per level, mapped bytes per\n"
	"page size, anomalies.  With no CONTEXT, every context's info in capture.ini\n"
	"order, each text block after a line `# CONTEXT`, each JSON object on its own\n"
	"line; then, in text, each [iommu NAME] section's info file after a line\n"
	"`## [iommu NAME]`.  CONTEXT may be an IOMMU's name: its info file alone\n"
	"(registers, device contexts made, entries that block every request, table\n"
	"pages; entries read, present, malformed, tables not captured or read again,\n"
	"devices, and its anomaly when its tables yield no device or mostly\n"
	"malformed entries).\n";

/*
 * Every [iommu] section's info file (ptfs(1), IOMMU/info: registers,
 * contexts, blocked entries, and what its tables yielded), each after a
 * line `## [iommu NAME]` (two #: no context name, for completion).
 */
static pt_err iommu_blocks(struct pt_capture *cap, struct pt_buf *out)
{
	struct pt_tree *tree = NULL;
	pt_err err = pt_tree_new(cap, cli_all_entries(), &tree);

	for (size_t i = 0; err == PT_OK && i < pt_capture_iommu_count(cap); i++) {
		struct pt_iommu_info io;

		pt_capture_iommu(cap, i, &io);
		pt_buf_printf(out, "## [iommu %s]\n", io.name);
		err = pt_tree_iommu_info(tree, i, PT_OUT_TEXT, out);
	}
	pt_tree_free(tree);
	return err;
}

/* The info file of the IOMMU NAME of CAP into OUT: CLI_EXIT_OK, or an error reported. */
static int iommu_info(struct pt_capture *cap, const char *name, bool json, struct pt_buf *out)
{
	struct pt_tree *tree = NULL;
	pt_err err = pt_tree_new(cap, cli_all_entries(), &tree);
	int i;

	if (err == PT_OK && (i = pt_tree_iommu_find(tree, name)) >= 0)
		err = pt_tree_iommu_info(tree, (size_t)i, json ? PT_OUT_JSON : PT_OUT_TEXT, out);
	pt_tree_free(tree);
	return err == PT_OK ? CLI_EXIT_OK : cli_fail(err, "info: %s", name);
}

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
	pt_buf_init(&out);
	pt_buf_init(&one);
	if (argc - optind == 2 && !pt_capture_context_find(cap, argv[optind + 1])) {
		for (size_t i = 0; i < pt_capture_iommu_count(cap); i++) {
			struct pt_iommu_info io;

			pt_capture_iommu(cap, i, &io);
			if (strcmp(io.name, argv[optind + 1]))
				continue;
			st = iommu_info(cap, io.name, json, &out);
			if (st == CLI_EXIT_OK && !cli_write_buf(&out))
				st = CLI_EXIT_ERROR;
			pt_buf_free(&out);
			pt_capture_free(cap);
			return st;
		}
	}
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
	if (st == CLI_EXIT_OK && !json && argc - optind == 1 && pt_capture_iommu_count(cap)) {
		pt_err err = iommu_blocks(cap, &out);

		if (err != PT_OK)
			st = cli_fail(err, "info: the IOMMUs");
	}
	if (st == CLI_EXIT_OK && !cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	pt_buf_free(&one);
	pt_buf_free(&out);
	pt_capture_free(cap);
	return st;
}
