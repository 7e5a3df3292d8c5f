/* SPDX-License-Identifier: MIT */
/*
 * mkbig_opts.c — bench/mkbig's command line: sizes, the page-size mix,
 * where tables and pages live, the container (mkbig.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mkbig.h"

const char *const ps_name[PS__N] = { "4k", "64k", "2m" };
const uint64_t ps_bytes[PS__N] = { 4 * KiB, 64 * KiB, 2 * MiB };
const unsigned ps_per_slot[PS__N] = { 512, 32, 1 };
const char *const spaces_name[3] = { "vidmem", "sysmem", "both" };

static uint64_t parse_size(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		die("bad %s '%s'", what, s);
	switch (*end) {
	case 'k': case 'K': v *= KiB; end++; break;
	case 'm': case 'M': v *= MiB; end++; break;
	case 'g': case 'G': v *= GiB; end++; break;
	case 'e': /* 1e6 */
		if (end[1] >= '0' && end[1] <= '9') {
			unsigned long long p = strtoull(end + 1, &end, 10);

			while (p--)
				v *= 10;
		}
		break;
	default: break;
	}
	if (*end)
		die("bad %s '%s'", what, s);
	return v;
}

static void parse_mix(const char *s, unsigned mix[PS__N])
{
	char buf[128];
	unsigned total = 0;

	memset(mix, 0, PS__N * sizeof(mix[0]));
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		char *colon = strchr(tok, ':');
		unsigned i;

		if (!colon)
			die("bad --mix item '%s' (want SIZE:PERCENT)", tok);
		*colon = 0;
		for (i = 0; i < PS__N; i++)
			if (strcasecmp(tok, ps_name[i]) == 0)
				break;
		if (i == PS__N)
			die("bad page size '%s' in --mix (4k, 64k, 2m)", tok);
		mix[i] = (unsigned)parse_size(colon + 1, "--mix percent");
		total += mix[i];
	}
	if (total == 0)
		die("--mix gives no page sizes");
}

static int parse_spaces(const char *s, const char *what)
{
	if (strcmp(s, "vidmem") == 0)
		return SPACES_VID;
	if (strcmp(s, "sysmem") == 0)
		return SPACES_SYS;
	if (strcmp(s, "both") == 0 || strcmp(s, "vidmem,sysmem") == 0)
		return SPACES_BOTH;
	die("bad %s '%s' (vidmem, sysmem, both)", what, s);
}

static void usage(FILE *f)
{
	fputs("usage: mkbig [options] OUT\n"
	      "Writes a large regular nv-gmmu-ver2 capture archive (tar, tar.gz, tar.zst or a\n"
	      "directory) and prints key=value statistics on stdout.\n"
	      "  --entries N        leaf entries (mapped pages) in all, default 100000 (1e6 ok)\n"
	      "  --contexts N       [pdb] contexts sharing the entries, default 1\n"
	      "  --mix 4k:P,64k:P,2m:P   page-size mix in %% of leaf entries, default 4k:70,64k:25,2m:5\n"
	      "  --tables SPACE     where tables live: vidmem, sysmem, both (alternating); default vidmem\n"
	      "  --pages SPACE      where mapped pages point: vidmem, sysmem, both; default both\n"
	      "  --compress C       none (tar), gz, zst, dir; default from OUT's suffix, else none\n"
	      "  --change PERMILLE  change about PERMILLE/1000 leaf entries (the diff 'after' capture)\n"
	      "  --seed N           default 1\n"
	      "  --zero-pad SIZE    append SIZE zero bytes to every memory member\n"
	      "  --spread N         put table pages N pages apart, zeros between (default 1:\n"
	      "                     dense); memory members grow N-fold, mostly zero\n"
	      "  --vas FILE         write mapped sample pages as 'CONTEXT VA PATH' lines ...\n"
	      "  --nvas N           ... this many, in random order, default 1000\n"
	      "  --format F         ver2 (default) or ver3 (nv-gmmu-ver3, chip gh100); or\n"
	      "                     x86-64, intel-vtd, amd-vi, arm64, arm-smmuv3: OUT is then a spec for\n"
	      "                     `ptfs-tool build SPEC CAPTURE` (--mix 4k:P,2m:P only)\n"
	      "  --blob             write OUT as a raw blob of --entries valid 4 KiB PTEs\n"
	      "                     (for ptfs-tool decode --blob) instead of a capture\n", f);
}

void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "entries", required_argument, NULL, 'n' },
		{ "contexts", required_argument, NULL, 'c' },
		{ "mix", required_argument, NULL, 'm' },
		{ "tables", required_argument, NULL, 't' },
		{ "pages", required_argument, NULL, 'p' },
		{ "compress", required_argument, NULL, 'z' },
		{ "change", required_argument, NULL, 'x' },
		{ "seed", required_argument, NULL, 's' },
		{ "zero-pad", required_argument, NULL, 'Z' },
		{ "spread", required_argument, NULL, 'S' },
		{ "vas", required_argument, NULL, 'v' },
		{ "nvas", required_argument, NULL, 'V' },
		{ "blob", no_argument, NULL, 'b' },
		{ "format", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->entries = 100000;
	o->contexts = 1;
	o->mix[PS_4K] = 70;
	o->mix[PS_64K] = 25;
	o->mix[PS_2M] = 5;
	o->tables = SPACES_VID;
	o->pages = SPACES_BOTH;
	o->compress = -1;
	o->seed = 1;
	o->nvas = 1000;
	o->spread = 1;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'n': o->entries = parse_size(optarg, "--entries"); break;
		case 'c': o->contexts = (unsigned)parse_size(optarg, "--contexts"); break;
		case 'm': parse_mix(optarg, o->mix); break;
		case 't': o->tables = parse_spaces(optarg, "--tables"); break;
		case 'p': o->pages = parse_spaces(optarg, "--pages"); break;
		case 'z':
			if (strcmp(optarg, "none") == 0 || strcmp(optarg, "tar") == 0)
				o->compress = CT_NONE;
			else if (strcmp(optarg, "gz") == 0 || strcmp(optarg, "gzip") == 0)
				o->compress = CT_GZ;
			else if (strcmp(optarg, "zst") == 0 || strcmp(optarg, "zstd") == 0)
				o->compress = CT_ZST;
			else if (strcmp(optarg, "dir") == 0)
				o->compress = CT_DIR;
			else
				die("bad --compress '%s' (none, gz, zst, dir)", optarg);
			break;
		case 'x':
			o->change = (unsigned)parse_size(optarg, "--change");
			if (o->change > 1000)
				die("--change is in permille (0..1000)");
			break;
		case 's': o->seed = parse_size(optarg, "--seed"); break;
		case 'Z': o->zero_pad = parse_size(optarg, "--zero-pad"); break;
		case 'S':
			o->spread = parse_size(optarg, "--spread");
			if (o->spread < 1 || o->spread > 65536)
				die("--spread must be 1..65536");
			break;
		case 'v': o->vas_file = optarg; break;
		case 'V': o->nvas = (unsigned)parse_size(optarg, "--nvas"); break;
		case 'b': o->blob = true; break;
		case 'F':
			if (mkbig_spec_format(optarg)) {
				o->format = optarg;
				break;
			}
			if (strcmp(optarg, "ver2") && strcmp(optarg, "ver3"))
				die("--format: ver2, ver3, x86-64, intel-vtd, amd-vi, arm64 or arm-smmuv3, not '%s'",
				    optarg);
			o->ver3 = !strcmp(optarg, "ver3");
			break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		exit(2);
	}
	o->out = argv[optind];
	if (o->compress < 0) {
		size_t n = strlen(o->out);

		if (n > 3 && strcmp(o->out + n - 3, ".gz") == 0)
			o->compress = CT_GZ;
		else if (n > 4 && strcmp(o->out + n - 4, ".zst") == 0)
			o->compress = CT_ZST;
		else
			o->compress = CT_NONE;
	}
	if (o->contexts == 0 || o->contexts > 64)
		die("--contexts must be 1..64");
	if (o->entries < o->contexts)
		die("fewer --entries than --contexts");
}
