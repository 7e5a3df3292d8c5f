/* SPDX-License-Identifier: MIT */
/*
 * check.c — `ptfs-tool check CAPTURE`: load and validate the capture, then
 * scan every context and list every anomaly.  Exit 0 clean, 1 anomalies,
 * 2 unusable (the load error on stderr).  Capture warnings (ignored members
 * and the like) are part of the report but are not anomalies.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static const char check_help[] =
	"Usage: ptfs-tool check [--json] CAPTURE\n"
	"\n"
	"Loads and validates CAPTURE (an archive or a directory holding capture.ini),\n"
	"prints its load warnings, then every anomaly of every context: reserved\n"
	"bits, encrypted entries, unknown or non-native kinds, tables not captured,\n"
	"a root table not captured at all, encodings not allowed at their level,\n"
	"a table used at two levels; and every [iommu] section whose tables yield\n"
	"no device or mostly malformed entries (its registers likely point at the\n"
	"wrong page: ptfs-tool roots --iommu finds its tables).\n"
	"Exit status: 0 clean, 1 anomalies found, 2 unusable capture (E_* on stderr).\n";

struct check_state {
	const struct pt_context *ctx;
	struct pt_buf *out;      /* the text report */
	struct pt_jarr anomalies; /* the JSON report's anomalies */
	bool json;
	uint64_t n;              /* anomalies of the whole capture */
};

static void on_anomaly(void *ud, const struct pt_anomaly *a)
{
	struct check_state *cs = ud;
	struct pt_buf one;

	pt_buf_init(&one);
	pt_render_anomaly(&one, cs->ctx, a, cs->json ? PT_OUT_JSON : PT_OUT_TEXT);
	cli_buf_chomp(&one);
	if (cs->json) {
		pt_jarr_raw(&cs->anomalies, one.data ? one.data : "");
		cs->anomalies.b.oom |= one.oom;
	} else {
		pt_buf_put(cs->out, one.data ? one.data : "", one.len);
		pt_buf_puts(cs->out, "\n");
		cs->out->oom |= one.oom;
	}
	pt_buf_free(&one);
	cs->n++;
}

/*
 * The anomaly of each [iommu] section whose tables yield no device or
 * mostly malformed entries (pt_capture_iommu_counts()), as a context's
 * are written: NAME - KIND DETAIL, or a JSON object with "iommu" in
 * place of "context".
 */
static void iommu_anomalies(const struct pt_capture *cap, struct check_state *cs)
{
	for (size_t i = 0; i < pt_capture_iommu_count(cap); i++) {
		struct pt_iommu_counts n;
		struct pt_iommu_info io;
		struct pt_jobj o = {0};
		struct pt_buf one;

		pt_capture_iommu_counts(cap, i, &n);
		if (!n.anomaly)
			continue;
		pt_capture_iommu(cap, i, &io);
		pt_buf_init(&one);
		if (cs->json) {
			pt_jobj_str(&o, "anomaly", n.anomaly);
			pt_jobj_str(&o, "detail", n.detail);
			pt_jobj_str(&o, "iommu", io.name);
			pt_jobj_str(&o, "path", "");
			pt_jobj_finish(&o, &one);
			pt_jarr_raw(&cs->anomalies, one.data ? one.data : "");
			cs->anomalies.b.oom |= one.oom;
		} else {
			pt_buf_printf(cs->out, "%s - %s [iommu %s] (capture.ini:%u): %s\n", io.name,
				      n.anomaly, io.name, io.line, n.detail);
		}
		pt_buf_free(&one);
		cs->n++;
	}
}

int cli_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct check_state cs = {0};
	struct pt_capture *cap;
	struct pt_buf out;
	struct pt_jarr per = {0}, warns = {0};
	struct pt_jobj top = {0};
	size_t nctx, nwarn;
	bool json = false;
	int c, st = CLI_EXIT_OK;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(check_help, stdout);
			return CLI_EXIT_OK;
		case 'j':
			json = true;
			break;
		default:
			return cli_opt_error("check", argv, c);
		}
	}
	if (argc - optind != 1)
		return cli_fail(PT_E_USAGE, "check: needs CAPTURE (try 'ptfs-tool check --help')");
	/* Warnings are part of this command's report, not stderr noise. */
	if (!cli_load(argv[optind], &cap, true, &st))
		return st;

	pt_buf_init(&out);
	nwarn = pt_capture_warning_count(cap);
	nctx = pt_capture_context_count(cap);
	if (!json) {
		for (size_t i = 0; i < nwarn; i++)
			pt_buf_printf(&out, "warning: %s\n", pt_capture_warning(cap, i));
	}
	cs.out = &out;
	cs.json = json;
	for (size_t i = 0; i < nctx && st == CLI_EXIT_OK; i++) {
		const struct pt_context *ctx = pt_capture_context(cap, i);
		uint64_t before = cs.n;
		struct pt_stats stats;
		pt_err err;

		cs.ctx = ctx;
		err = pt_context_scan(ctx, &stats, on_anomaly, &cs, NULL);
		if (err != PT_OK) {
			st = cli_fail(err, "%s: scanning context %s", argv[optind], ctx->name);
			break;
		}
		if (json) {
			struct pt_jobj one = {0};

			/* info --json's names: a count is NAME_count, a context "context" */
			pt_jobj_u(&one, "anomaly_count", cs.n - before);
			pt_jobj_str(&one, "context", ctx->name);
			pt_jarr_obj(&per, &one);
		}
	}
	if (st == CLI_EXIT_OK)
		iommu_anomalies(cap, &cs);
	if (st == CLI_EXIT_OK) {
		if (json) {
			for (size_t i = 0; i < nwarn; i++)
				pt_jarr_str(&warns, pt_capture_warning(cap, i));
			pt_jobj_arr(&top, "anomalies", &cs.anomalies);
			pt_jobj_str(&top, "capture", pt_capture_source(cap));
			pt_jobj_arr(&top, "contexts", &per);
			pt_jobj_arr(&top, "warnings", &warns);
			pt_jobj_finish(&top, &out);
			pt_buf_puts(&out, "\n");
		} else {
			char *shown = cli_escape(argv[optind]);

			pt_buf_printf(&out, "%s: %zu context%s, %" PRIu64 " anomal%s, %zu warning%s\n",
				      shown ? shown : "?", nctx, nctx == 1 ? "" : "s", cs.n,
				      cs.n == 1 ? "y" : "ies", nwarn, nwarn == 1 ? "" : "s");
			free(shown);
		}
		if (!cli_write_buf(&out))
			st = CLI_EXIT_ERROR;
		else
			st = cs.n ? CLI_EXIT_FINDINGS : CLI_EXIT_OK;
	}
	pt_buf_free(&cs.anomalies.b);
	pt_buf_free(&per.b);
	pt_buf_free(&warns.b);
	pt_buf_free(&out);
	pt_capture_free(cap);
	return st;
}
