/* SPDX-License-Identifier: MIT */
/*
 * main.c — ptfs-tool: the ptfs engine without FUSE.  Dispatches to the
 * subcommands and holds what they share (errors, numbers, loading, output).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pt_linux.h"
#include "ptfs_config.h"

char *cli_escape(const char *s)
{
	size_t n = strlen(s) * 4 + 1;
	char *e = malloc(n);

	if (e)
		pt_text_escape(e, n, s);
	return e;
}

/*
 * PREFIX, then the message escaped as a whole: it may quote a path or a
 * name from the command line or a capture, and the terminal must not take
 * their bytes (ESC, BEL) as commands.
 */
static void say(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void say(const char *prefix, const char *fmt, va_list ap)
{
	char *raw = NULL, *shown = NULL;

	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	if (raw)
		shown = cli_escape(raw);
	fprintf(stderr, "%s%s\n", prefix, shown ? shown : "(out of memory)");
	free(shown);
	free(raw);
}

int cli_fail(pt_err err, const char *fmt, ...)
{
	char prefix[64];
	va_list ap;

	snprintf(prefix, sizeof prefix, "ptfs-tool: %s: ", pt_errname(err));
	va_start(ap, fmt);
	say(prefix, fmt, ap);
	va_end(ap);
	return CLI_EXIT_ERROR;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("ptfs-tool: warning: ", fmt, ap);
	va_end(ap);
}

/* The one rule for numbers (pt_num.h PT_NUM_RULE, man ptfs-tool "Numbers"). */
bool cli_parse_u128(const char *s, uint64_t *lo, uint64_t *hi)
{
	return pt_num_parse128(s, PT_NUM_RULE, lo, hi);
}

bool cli_parse_u64(const char *s, uint64_t *v)
{
	return pt_num_parse(s, PT_NUM_RULE, v);
}

bool cli_parse_size(const char *s, uint64_t *v)
{
	return pt_num_parse(s, PT_NUM_INI, v);
}

const char *cli_num_hint(const char *s)
{
	/* one message line at a time: the caller prints it before asking again */
	static char hint[128];

	if (!pt_num_bare_hex(s))
		return " (decimal, or hex with 0x)";
	snprintf(hint, sizeof hint, ": a hex number needs 0x (write 0x%.64s)", s);
	return hint;
}

/* Whether formats A and B have the same space names in the same order. */
static bool same_spaces(const struct pt_format *a, const struct pt_format *b)
{
	size_t i;

	for (i = 0; a->spaces[i] && b->spaces[i]; i++)
		if (strcmp(a->spaces[i], b->spaces[i]) != 0)
			return false;
	return !a->spaces[i] && !b->spaces[i];
}

/* Length of the name before its trailing decimal digits (all of it when there are none). */
static size_t stem_len(const char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] >= '0' && s[n - 1] <= '9')
		n--;
	return n;
}

/*
 * The help's space list comes from the format table, so that no help text
 * names a format's spaces by hand.  Formats with the same list share a
 * line; a run NAME0, NAME1, ... NAMEk prints as NAME0..NAMEk to keep the
 * lines short.
 */
void cli_print_spaces(FILE *f, const char *indent)
{
	const struct pt_format *a, *b;

	for (unsigned i = 0; (a = pt_format_at(i)); i++) {
		unsigned j;

		for (j = 0; j < i && !same_spaces(pt_format_at(j), a); j++)
			;
		if (j < i)
			continue;   /* listed with an earlier format */
		fprintf(f, "%s%s", indent, a->name);
		for (j = i + 1; (b = pt_format_at(j)); j++)
			if (same_spaces(a, b))
				fprintf(f, ", %s", b->name);
		fputs(":", f);
		for (size_t k = 0; a->spaces[k]; k++) {
			const char *s = a->spaces[k];
			size_t stem = stem_len(s), e = k;

			/* Extend over NAME<k+1>, NAME<k+2>, ... with the same stem. */
			while (stem && stem < strlen(s) && a->spaces[e + 1] &&
			       stem_len(a->spaces[e + 1]) == stem && strncmp(a->spaces[e + 1], s, stem) == 0 &&
			       strtoul(a->spaces[e + 1] + stem, NULL, 10) == strtoul(a->spaces[e] + stem, NULL, 10) + 1)
				e++;
			fprintf(f, "%s %s", k ? "," : "", s);
			if (e > k + 1) {
				fprintf(f, "..%s", a->spaces[e]);
				k = e;
			}
		}
		fputs("\n", f);
	}
}

/* --gfx N of any subcommand: the load option for umr logs (cli_take_gfx). */
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
static bool cli_take_gfx(int *argc, char **argv, int *status)
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

const struct pt_context *cli_context(const struct pt_capture *cap, const char *name)
{
	const struct pt_context *ctx = pt_capture_context_find(cap, name);
	struct pt_buf have;
	size_t n = pt_capture_context_count(cap);

	if (ctx || (ctx = pt_capture_context_alias(cap, name)))
		return ctx;   /* a device context's other spellings too (dmar0.0000:00:03.0) */
	/* say what there is: the user mistyped one of these (issue #25 item 7) */
	pt_buf_init(&have);
	for (size_t i = 0; i < n && i < 16; i++)
		pt_buf_printf(&have, "%s%s", i ? ", " : "", pt_capture_context(cap, i)->name);
	if (n > 16)
		pt_buf_printf(&have, ", ... (%zu in all)", n);
	cli_fail(PT_E_NOTFOUND, "no context '%s' in %s; it has %s", name, pt_capture_source(cap),
		 n ? (have.data ? have.data : "?") : "none");
	pt_buf_free(&have);
	return NULL;
}

bool cli_write_buf(const struct pt_buf *b)
{
	if (b->oom) {
		cli_fail(PT_E_NOMEM, "output too large for memory");
		return false;
	}
	if (b->len && fwrite(b->data, 1, b->len, stdout) != b->len) {
		cli_fail(PT_E_IO, "writing output: %s", strerror(errno));
		return false;
	}
	return true;
}

void cli_buf_chomp(struct pt_buf *b)
{
	while (b->len && (b->data[b->len - 1] == '\n' || b->data[b->len - 1] == ' '))
		b->data[--b->len] = '\0';
}

int cli_opt_error(const char *command, char **argv, int c)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "?";

	if (c == ':')
		return cli_fail(PT_E_USAGE, "%s: option '%s' needs a value", command, arg);
	if (optopt && optopt != '?')
		return cli_fail(PT_E_USAGE, "%s: unknown option '-%c' (try 'ptfs-tool %s --help')",
				command, optopt, command);
	return cli_fail(PT_E_USAGE, "%s: unknown option '%s' (try 'ptfs-tool %s --help')",
			command, arg, command);
}

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

/* The options every capture-reading command takes (cli_take_gfx, --asic). */
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
		if (!cli_take_gfx(&sub_argc, argv + 1, &status))
			return status;
		/*
		 * --gfx is a load option (the generation of a umr log).  A lone
		 * value has no context to carry it: decode reads it with its
		 * format's context-free layout, so a generation it would not
		 * honour is refused rather than ignored.
		 */
		if (strcmp(cmd, "decode") == 0 && load_opts.gfx != 0)
			return cli_fail(PT_E_UNSUPPORTED, "decode: --gfx %u: a value is decoded without a "
					"context (amd-gpuvm: the gfx9 layout); walk or mount a capture for "
					"another generation", load_opts.gfx);
		if (strcmp(cmd, "decode") == 0 && load_opts.asic)
			return cli_fail(PT_E_UNSUPPORTED, "decode: --asic %s: a value is decoded without a context "
					"(amd-gpuvm: the gfx9 layout); walk or mount a capture for another "
					"generation", load_opts.asic);
		if (strcmp(cmd, "decode") == 0 && load_strict)
			return cli_fail(PT_E_USAGE, "decode: --strict is a load option: decode reads no capture");
		if (strcmp(cmd, "decode") == 0 && load_opts.tbi)
			return cli_fail(PT_E_USAGE, "decode: --tbi is a load option: decode reads no capture");
		if (strcmp(cmd, "decode") == 0 && load_opts.max_contexts)
			return cli_fail(PT_E_USAGE, "decode: --max-contexts is a load option: decode reads no"
					" capture");
		if (strcmp(cmd, "decode") == 0 && load_opts.task_given)
			return cli_fail(PT_E_USAGE, "decode: --task is a load option: decode reads no capture");
		if (strcmp(cmd, "decode") == 0 && load_opts.all_entries)
			return cli_fail(PT_E_USAGE, "decode: --all-entries is a load option: decode reads no"
					" capture");
		status = commands[i].run(sub_argc, argv + 1);
		/* Every command that reads a capture takes the load options: its --help says so once, here. */
		if (status == CLI_EXIT_OK && wants_help(sub_argc, argv + 1) && commands[i].loads)
			fputs(load_help, stdout);
		if (fflush(stdout) != 0 && status != CLI_EXIT_ERROR)
			status = cli_fail(PT_E_IO, "writing output: %s", strerror(errno));
		return status;
	}
	if (cmd[0] == '-')
		return cli_fail(PT_E_USAGE, "unknown option '%s' (try 'ptfs-tool --help')", cmd);
	return cli_fail(PT_E_USAGE, "unknown command '%s' (try 'ptfs-tool --help')", cmd);
}
