/* SPDX-License-Identifier: MIT */
/*
 * pa.c — `ptfs-tool pa CAPTURE SPACE:ADDR`: every context, VA, leaf and
 * flags that map that physical byte (the pa/SPACE/ADDR file).  Exit 0 when
 * something maps it, 1 when nothing does.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "pt_pa.h"

static const char pa_help[] =
	"Usage: ptfs-tool pa [--json] CAPTURE SPACE:ADDR\n"
	"\n"
	"Lists every mapping of the physical byte ADDR (decimal, or hex with 0x) of SPACE\n"
	"in every context, one line `CONTEXT VA LEAF-PATH FLAGS` each: aliases\n"
	"within a context and across contexts.  VA is the address of that byte.\n"
	"In a Linux dump a line `# processes: pid1 (init), ...` names the processes\n"
	"among them (pidN contexts, ptfs-tool tasks), with their comm.\n"
	"Exit status 0 when something maps it, 1 when nothing does.  The spaces of\n"
	"each format:\n";

int cli_pa(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct pt_pa_index *ix;
	struct pt_capture *cap;
	struct pt_buf out;
	bool json = false;
	int c, st = CLI_EXIT_OK, space;
	char name[64];
	const char *colon;
	uint64_t addr;
	size_t found = 0;
	pt_err err;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(pa_help, stdout);
			cli_print_spaces(stdout, "  ");
			return CLI_EXIT_OK;
		case 'j':
			json = true;
			break;
		default:
			return cli_opt_error("pa", argv, c);
		}
	}
	if (argc - optind != 2)
		return cli_fail(PT_E_USAGE, "pa: needs CAPTURE SPACE:ADDR (try 'ptfs-tool pa --help')");
	colon = strchr(argv[optind + 1], ':');
	if (colon && (colon == argv[optind + 1] || (size_t)(colon - argv[optind + 1]) >= sizeof name ||
		      !cli_parse_u64(colon + 1, &addr)))
		return cli_fail(PT_E_VALUE, "pa: bad address '%s' (SPACE:ADDR; spaces: ptfs-tool pa --help)%s",
				argv[optind + 1], pt_num_bare_hex(colon + 1) ? cli_num_hint(colon + 1) : "");
	if (colon) {
		memcpy(name, argv[optind + 1], (size_t)(colon - argv[optind + 1]));
		name[colon - argv[optind + 1]] = 0;
	}
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	space = colon ? pt_capture_space_find(cap, name) : -1;
	if (space < 0) {
		struct pt_buf have;

		/*
		 * the capture's own spaces, so that the next try is right (issue
		 * #25 item 7; #34 item 7: an address without its space too)
		 */
		pt_buf_init(&have);
		for (unsigned i = 0; i < pt_capture_space_count(cap); i++)
			pt_buf_printf(&have, "%s%s", i ? ", " : "", pt_capture_space_name(cap, i));
		if (colon)
			st = cli_fail(PT_E_VALUE, "pa: no space '%s' in %s; its spaces: %s", name,
				      argv[optind], have.data ? have.data : "none");
		else
			st = cli_fail(PT_E_VALUE, "pa: '%s' names no space: write SPACE:ADDR, e.g. %s:%s "
				      "(the spaces of %s: %s)", argv[optind + 1],
				      pt_capture_space_count(cap) ? pt_capture_space_name(cap, 0) : "sysmem",
				      argv[optind + 1], argv[optind], have.data ? have.data : "none");
		pt_buf_free(&have);
		pt_capture_free(cap);
		return st;
	}
	ix = pt_pa_index_new(cap);
	if (!ix) {
		pt_capture_free(cap);
		return cli_fail(PT_E_NOMEM, "pa: out of memory");
	}
	pt_buf_init(&out);
	err = pt_render_pa(&out, ix, (unsigned)space, addr, json ? PT_OUT_JSON : PT_OUT_TEXT, &found);
	if (err != PT_OK)
		st = cli_fail(err, "pa: %s", argv[optind + 1]);
	else if (!cli_write_buf(&out))
		st = CLI_EXIT_ERROR;
	else if (!found)
		st = CLI_EXIT_FINDINGS;
	pt_buf_free(&out);
	pt_pa_index_free(ix);
	pt_capture_free(cap);
	return st;
}
