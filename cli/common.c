/* SPDX-License-Identifier: MIT */
/*
 * common.c — what every ptfs-tool command shares and no command owns:
 * errors and warnings on stderr (escaped), the number rule, the help's
 * space list, a context by name, and output.  Called by main.c, load.c
 * and every command; it calls none of them (cli/ is a one-way chain:
 * main.c -> a command -> load.c -> common.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
