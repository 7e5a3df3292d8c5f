/* SPDX-License-Identifier: MIT */
/*
 * cli.h — what the ptfs-tool subcommands share: error reporting, number
 * parsing, capture loading and output.
 *
 * Calls in cli/ go one way: main.c (the command table) -> a command's file
 * (walk.c, decode.c, ...) -> load.c (the load options and the load) ->
 * common.c (errors, numbers, output); a command split in two files calls
 * its second file, never back (decode.c -> decode_oneline.c ->
 * decode_entry.c; build.c -> build_run.c).
 *
 * Only the CLI prints.  Every failure leaves through cli_fail(), which writes
 * the one line `ptfs-tool: E_XXX: message` and gives exit status 2; results
 * (a fault, an anomaly, a denied access) are output and never errors.
 */
#ifndef PT_CLI_H
#define PT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pt_capture.h"
#include "pt_error.h"
#include "pt_num.h"
#include "pt_render.h"
#include "pt_vec.h"
#include "pt_walk.h"

/* Exit statuses (docs/design.md §5). */
enum {
	CLI_EXIT_OK = 0,        /* success; check: clean; audit: every page ok */
	CLI_EXIT_FINDINGS = 1,  /* check: anomalies; audit: a page not ok */
	CLI_EXIT_ERROR = 2,     /* an E_* error, reported on stderr */
};

/* Prints "ptfs-tool: E_XXX: message" to stderr; returns CLI_EXIT_ERROR. */
int cli_fail(pt_err err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "ptfs-tool: warning: message" to stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * S as every program shows an untrusted name (pt_text_escape: control bytes
 * as \xNN), malloc'd (NULL when out of memory).  cli_fail and cli_warn
 * escape their whole line already.
 */
char *cli_escape(const char *s);

/*
 * Numbers on the command line, in legs and spec files, as in the mount and
 * capture.ini: "0x" + hex digits, or decimal digits (no leading zero).  No
 * sign, no octal, no bare hex, no blanks: anything else is false.
 */
bool cli_parse_u64(const char *s, uint64_t *v);
/* Like cli_parse_u64, but hex may have up to 32 digits (a 128-bit entry). */
bool cli_parse_u128(const char *s, uint64_t *lo, uint64_t *hi);
/* A size: a number, a decimal one optionally followed by K, M or G (binary, either case). */
bool cli_parse_size(const char *s, uint64_t *v);
/*
 * The tail of a message about S that is not a number: ": a hex number
 * needs 0x (write 0x4198a00)" when S is hex digits without their 0x,
 * " (decimal, or hex with 0x)" otherwise.  Valid until the next call.
 */
const char *cli_num_hint(const char *s);
/* One line per format (formats with equal lists share it): INDENT, names, ": ", spaces. */
void cli_print_spaces(FILE *f, const char *indent);

/*
 * Loads CAPTURE into *CAP; on failure reports the error and returns false
 * (*CAP is NULL).  Capture warnings go to stderr unless QUIET.
 */
bool cli_load(const char *path, struct pt_capture **cap, bool quiet, int *status);
/*
 * cli_load(); MEMORY_ONLY (roots): a capture with no context loads
 * (pt_load_opts.memory_only): its memory is what is scanned.
 */
bool cli_load_as(const char *path, struct pt_capture **cap, bool quiet, bool memory_only,
		 int *status);
/* The next loads read no Linux task list (--no-tasks): snapshot copies the guest's own contexts. */
void cli_no_tasks(void);
/* The load option --all-entries (ptfs -o all_entries) was given. */
bool cli_all_entries(void);
/*
 * Takes the load options (--gfx, --asic, --strict, ...) out of a
 * command's ARGC/ARGV, before the command parses the rest; false after
 * reporting a bad value (STATUS set).
 */
bool cli_load_opts_take(int *argc, char **argv, int *status);
/* decode was given a load option: reported (STATUS set), true. */
bool cli_load_opts_refused(int *status);
/* The load options' help, which every capture-reading command's --help ends with. */
void cli_load_help(FILE *f);
/* The context NAME of CAP; on failure reports E_NOTFOUND and returns NULL. */
const struct pt_context *cli_context(const struct pt_capture *cap, const char *name);

/* Writes B to stdout; false (after reporting E_IO / E_NOMEM) on failure. */
bool cli_write_buf(const struct pt_buf *b);
/* Drops trailing newlines of B (to put rendered JSON objects into an array). */
void cli_buf_chomp(struct pt_buf *b);

/*
 * Reports a getopt_long() failure (C is '?' or ':', optstring starting
 * with ':') for COMMAND as E_USAGE; returns CLI_EXIT_ERROR.
 */
int cli_opt_error(const char *command, char **argv, int c);

/*
 * A listing subcommand (pci, tasks, devices): NAME, its --help text HELP,
 * ARGS as its usage line names them ("CAPTURE [IOMMU]"), at most MAX_ARGS
 * of them, and PRINT, which fills OUT from the loaded CAP (ARGV[0] is
 * CAPTURE, ARGC the arguments given) as text or JSON Lines and returns an
 * exit status, reporting its own failure.
 */
struct cli_listing {
	const char *name;
	const char *help;
	const char *args;
	int max_args;
	int (*print)(struct pt_capture *cap, char **argv, int argc, bool json, struct pt_buf *out);
};
/* Parses --json/--help, loads CAPTURE, runs L->print and writes its listing to stdout. */
int cli_listing(const struct cli_listing *l, int argc, char **argv);

/* Subcommands: ARGC/ARGV start at the subcommand's name. */
int cli_decode(int argc, char **argv);
int cli_walk(int argc, char **argv);
int cli_audit(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_maps(int argc, char **argv);
int cli_info(int argc, char **argv);
int cli_map(int argc, char **argv);
int cli_devices(int argc, char **argv);
int cli_build(int argc, char **argv);
int cli_pa(int argc, char **argv);
int cli_diff(int argc, char **argv);
int cli_crosscheck(int argc, char **argv);
int cli_roots(int argc, char **argv);
int cli_tasks(int argc, char **argv);
int cli_pci(int argc, char **argv);
int cli_snapshot(int argc, char **argv);

#endif
