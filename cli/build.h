/* SPDX-License-Identifier: MIT */
/*
 * build.h — what the two files of `ptfs-tool build` share: the spec as
 * read (build.c) and the run that builds, writes and checks the capture
 * (build_run.c).
 */
#ifndef PT_CLI_BUILD_H
#define PT_CLI_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "pt_format.h"

#define SPEC_FLAGS_MAX 16

/* One `map = VA SIZE SPACE PA [FLAG,...]` line. */
struct spec_map {
	uint64_t va, size, pa;
	char *space;
	char *flags[SPEC_FLAGS_MAX];
	unsigned nflags;
	unsigned line;
};

/* One `key = value` line (values trimmed). */
struct spec_line {
	char *key, *value;
	unsigned line;
};

struct spec_section {
	char type[64], name[256];
	unsigned line;                     /* of the header */
	struct spec_line *kv;
	size_t nkv, kvcap;
	struct spec_map *maps;
	size_t nmaps, mapcap;
	const struct pt_format *fmt;       /* a context section's format, else NULL */
	uint64_t va_lo, va_hi;             /* what its maps cover, inclusive */
	uint64_t root;                     /* the root table the builder allocated */
	unsigned root_space;               /* its space id */
};

struct spec {
	const char *path;
	struct spec_section *sec;
	size_t nsec, seccap;
};

/* The value of KEY in section UD (a struct spec_section *), or NULL: the build_keys getter. */
const char *cli_spec_get(void *ud, const char *key);
void cli_spec_free(struct spec *sp);
/* Builds SP into OUT and checks it; an exit status. */
int cli_build_run(struct spec *sp, const char *out, bool force);

#endif
