/* SPDX-License-Identifier: MIT */
/*
 * load.c — the load options every capture-reading command takes (--gfx,
 * --asic, --strict, --max-contexts, --tbi, --all-entries, --no-tasks,
 * --system-map, --task), taken out of a command's arguments once before
 * it parses the rest, and the capture load with them (cli_load).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pt_linux.h"

/* --gfx N of any subcommand: the load option for umr logs (cli_load_opts_take). */
static struct pt_load_opts load_opts;
/* --strict of any subcommand: a context whose root is not captured is refused, not warned about. */
static bool load_strict;
/* --no-tasks of any subcommand: a Linux dump's processes are not read (no pidN contexts). */
static bool load_no_tasks;

void cli_no_tasks(void)
{
	load_no_tasks = true;
}

bool cli_all_entries(void)
{
	return load_opts.all_entries;
}

/*
 * Takes the load options `--gfx N` / `--gfx=N`, `--asic NAME` and
 * `--strict` out of ARGV (every subcommand accepts them, so they are
 * handled once here, before the subcommand parses the rest).  False
 * after reporting a bad value.
 */
bool cli_load_opts_take(int *argc, char **argv, int *status)
{
	int w = 1;

	for (int i = 1; i < *argc; i++) {
		const char *v = NULL;
		uint64_t n;

		if (strcmp(argv[i], "--") == 0) {
			while (i < *argc)
				argv[w++] = argv[i++];
			break;
		}
		if (strcmp(argv[i], "--strict") == 0) {
			load_strict = true;
			continue;
		}
		if (strcmp(argv[i], "--max-contexts") == 0 || strncmp(argv[i], "--max-contexts=", 15) == 0) {
			/* the device contexts of the [iommu] sections together (pt_load_opts.max_contexts) */
			const char *m = argv[i][14] == '=' ? argv[i] + 15 : i + 1 < *argc ? argv[++i] : NULL;

			if (!m || !cli_parse_u64(m, &n) || !n || n > PT_MAX_CONTEXTS_LIMIT) {
				*status = cli_fail(PT_E_USAGE, "--max-contexts '%s': a number of contexts from"
						   " 1 to %u", m ? m : "", PT_MAX_CONTEXTS_LIMIT);
				return false;
			}
			load_opts.max_contexts = n;
			continue;
		}
		if (strcmp(argv[i], "--all-entries") == 0) {
			/* zero entries listed (export), blocked IOMMU devices contexts: ptfs -o all_entries */
			load_opts.all_entries = true;
			continue;
		}
		if (strcmp(argv[i], "--no-tasks") == 0) {
			load_no_tasks = true;
			continue;
		}
		if (strcmp(argv[i], "--system-map") == 0 || strncmp(argv[i], "--system-map=", 13) == 0) {
			/* route (c) to a Linux dump's task list (docs/design.md §3.3): read when the step runs */
			const char *m = argv[i][12] == '=' ? argv[i] + 13 : i + 1 < *argc ? argv[++i] : NULL;

			if (!m || access(m, R_OK)) {
				*status = cli_fail(PT_E_USAGE, "--system-map '%s': %s", m ? m : "",
						   m ? strerror(errno) : "a file name is missing");
				return false;
			}
			load_opts.system_map = m;
			continue;
		}
		if (strcmp(argv[i], "--task") == 0 || strncmp(argv[i], "--task=", 7) == 0) {
			/* a Linux guest's process: its context pidPID alone (pt_load_opts.task) */
			const char *t = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < *argc ? argv[++i] : NULL;

			/* PID_MAX_LIMIT is 2^22 (include/linux/threads.h) */
			if (!t || !cli_parse_u64(t, &n) || n > (1u << 22)) {
				*status = cli_fail(PT_E_USAGE, "--task '%s': a process id (a decimal number up to "
						   "4194304)", t ? t : "");
				return false;
			}
			load_opts.task_given = true;
			load_opts.task = (uint32_t)n;
			continue;
		}
		if (strcmp(argv[i], "--tbi") == 0 || strncmp(argv[i], "--tbi=", 6) == 0) {
			/* TCR_EL1.TBI1 of an arm64 dump's kernel context (the dump does not hold it) */
			const char *t = argv[i][5] == '=' ? argv[i] + 6 : i + 1 < *argc ? argv[++i] : NULL;

			if (!t || (strcmp(t, "0") && strcmp(t, "1"))) {
				*status = cli_fail(PT_E_USAGE, "--tbi '%s': TBI is 0 or 1", t ? t : "");
				return false;
			}
			load_opts.tbi = 1u + (t[0] == '1');
			continue;
		}
		if (strcmp(argv[i], "--asic") == 0 || strncmp(argv[i], "--asic=", 7) == 0) {
			/* A umr ASIC name: its generation (--gfx N by another name). */
			const char *a = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < *argc ? argv[++i] : NULL;

			if (!a) {
				*status = cli_fail(PT_E_USAGE, "--asic needs a umr ASIC name (navi10, vega10, ...)");
				return false;
			}
			/* the umr source checks the name and that it agrees with --gfx (pt_load_opts.asic) */
			load_opts.asic = a;
			continue;
		}
		if (strcmp(argv[i], "--gfx") == 0) {
			if (i + 1 >= *argc) {
				*status = cli_fail(PT_E_USAGE, "--gfx needs a value: 9, 10, 11 or 12");
				return false;
			}
			v = argv[++i];
		} else if (strncmp(argv[i], "--gfx=", 6) == 0) {
			v = argv[i] + 6;
		} else {
			argv[w++] = argv[i];
			continue;
		}
		if (!cli_parse_u64(v, &n) || n < 9 || n > 12) {
			*status = cli_fail(PT_E_USAGE, "--gfx '%s': the GFX generation is 9, 10, 11 or 12", v);
			return false;
		}
		load_opts.gfx = (unsigned)n;
	}
	argv[w] = NULL;
	*argc = w;
	return true;
}

/*
 * A context whose root table has no captured byte, one line each, on
 * stderr even for check (whose report lists it as well): a warning, or
 * under --strict the refusal.  False (STATUS set) when refused.
 */
static bool cli_roots_said(const struct pt_capture *c, const char *path, int *status)
{
	bool refused = false;

	for (size_t i = 0; i < pt_capture_context_count(c); i++) {
		char msg[512];

		if (!pt_context_root_missing(pt_capture_context(c, i), msg, sizeof msg))
			continue;
		if (load_strict)
			*status = cli_fail(PT_E_CAPTURE, "%s: %s (--strict)", path, msg);
		else
			cli_warn("%s: %s", path, msg);
		refused |= load_strict;
	}
	return !refused;
}

/* Load progress on a terminal, as ptfs shows it (ptfs-capture(5): the programs show it). */
struct cli_progress {
	const char *path;
	bool shown;
};

static void cli_on_progress(void *ud, uint64_t done, uint64_t total)
{
	struct cli_progress *p = ud;
	char line[4 * PATH_MAX + 64]; /* the path arrives escaped: up to 4 bytes per byte */

	pt_progress_str(p->path, done, total, line, sizeof line);
	fprintf(stderr, "\rptfs-tool: %s", line);
	p->shown = true;
}

bool cli_load(const char *path, struct pt_capture **cap, bool quiet, int *status)
{
	return cli_load_as(path, cap, quiet, false, status);
}

bool cli_load_as(const char *path, struct pt_capture **cap, bool quiet, bool memory_only,
		 int *status)
{
	struct pt_load_opts opts = load_opts;
	struct pt_capture *c = pt_capture_new();
	char *shown_path = cli_escape(path);
	struct cli_progress prog = { shown_path ? shown_path : "?", false };
	pt_err err;

	*cap = NULL;
	if (!c) {
		free(shown_path);
		*status = cli_fail(PT_E_NOMEM, "%s: cannot allocate a capture", path);
		return false;
	}
	/* only for a person watching: never into a pipe or a log */
	if (isatty(STDERR_FILENO))
		pt_capture_set_progress(c, cli_on_progress, &prog);
	opts.memory_only = memory_only;
	opts.after_load = load_no_tasks ? NULL : pt_linux_expand;   /* a Linux dump's processes: pidN */
	err = pt_capture_load_opts(c, path, &opts);
	if (prog.shown)
		fputs("\n", stderr);
	if (err != PT_OK) {
		const char *msg = pt_capture_error(c);

		/* The loader's line (escaped) may already start with the path; do not say it twice. */
		if (!msg || !*msg)
			*status = cli_fail(err, "%s: %s", path, pt_strerror(err));
		else if (shown_path && strncmp(msg, shown_path, strlen(shown_path)) == 0)
			*status = cli_fail(err, "%s", msg);
		else
			*status = cli_fail(err, "%s: %s", path, msg);
		free(shown_path);
		pt_capture_free(c);
		return false;
	}
	free(shown_path);
	if (!quiet)
		for (size_t i = 0; i < pt_capture_warning_count(c); i++)
			cli_warn("%s: %s", path, pt_capture_warning(c, i));
	if (!cli_roots_said(c, path, status)) {
		pt_capture_free(c);
		return false;
	}
	*cap = c;
	return true;
}

/* The options every capture-reading command takes (cli_load_opts_take). */
static const char load_help[] =
	"\n"
	"Load options (any command that reads a capture):\n"
	"  --gfx N           the GFX generation (9, 10, 11 or 12) of a umr log whose\n"
	"                    register addresses do not tell it\n"
	"  --asic NAME       the same, by umr ASIC name (vega10, navi10, ...)\n"
	"  --strict          refuse a capture with a context whose root table is not\n"
	"                    captured (without it: a warning on stderr)\n"
	"  --max-contexts N  device contexts the capture's [iommu] sections make\n"
	"                    together at most (default 262144; each section's own\n"
	"                    bound: its max_contexts key)\n"
	"  --tbi 0|1         TCR_EL1.TBI1 of an arm64 dump's kernel context, which the\n"
	"                    dump does not hold (without it: unknown, said in info)\n"
	"  --all-entries     devices an IOMMU blocks or aborts are contexts too, and\n"
	"                    zero entries are listed (ptfs -o all_entries)\n"
	"  --no-tasks        no context pidN per process of a Linux dump (its BTF and\n"
	"                    task list are not read)\n"
	"  --system-map FILE the dump's kernel's System.map: init_task when kallsyms\n"
	"                    (VMCOREINFO) and the vCPUs' registers give no task list\n"
	"  --task PID        of a Linux guest's processes, the context pidPID alone\n"
	"                    (ptfs -o task=PID)\n";

void cli_load_help(FILE *f)
{
	fputs(load_help, f);
}

/*
 * decode reads no capture: a load option given to it is refused, not
 * ignored (true, STATUS set).  --gfx and --asic say why: a lone value has
 * no context to carry a generation, decode reads it with its format's
 * context-free layout, so a generation it would not honour is refused.
 */
bool cli_load_opts_refused(int *status)
{
	const char *opt = load_strict ? "--strict" : load_opts.tbi ? "--tbi" :
			  load_opts.max_contexts ? "--max-contexts" : load_opts.task_given ? "--task" :
			  load_opts.all_entries ? "--all-entries" : NULL;

	if (load_opts.gfx != 0)
		*status = cli_fail(PT_E_UNSUPPORTED, "decode: --gfx %u: a value is decoded without a "
				   "context (amd-gpuvm: the gfx9 layout); walk or mount a capture for "
				   "another generation", load_opts.gfx);
	else if (load_opts.asic)
		*status = cli_fail(PT_E_UNSUPPORTED, "decode: --asic %s: a value is decoded without a context "
				   "(amd-gpuvm: the gfx9 layout); walk or mount a capture for another "
				   "generation", load_opts.asic);
	else if (opt)
		*status = cli_fail(PT_E_USAGE, "decode: %s is a load option: decode reads no capture", opt);
	return load_opts.gfx || load_opts.asic || opt;
}
