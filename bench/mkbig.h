/* SPDX-License-Identifier: MIT */
/*
 * mkbig.h — what the two files of bench/mkbig share: its options (parsed by
 * mkbig_opts.c) and its one error exit.
 */
#ifndef MKBIG_H
#define MKBIG_H

#include <stdbool.h>
#include <stdint.h>

#define KiB ((uint64_t)1024)
#define MiB (1024 * KiB)
#define GiB (1024 * MiB)

/* Prints "mkbig: ..." and exits 1. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ------------------------------------------------------------------ */
/* Options.                                                             */

enum { PS_4K, PS_64K, PS_2M, PS__N };
extern const char *const ps_name[PS__N];
extern const uint64_t ps_bytes[PS__N];
extern const unsigned ps_per_slot[PS__N];

enum { SPACES_VID, SPACES_SYS, SPACES_BOTH };
extern const char *const spaces_name[3];
enum { CT_NONE, CT_GZ, CT_ZST, CT_DIR };

struct opts {
	uint64_t entries;
	unsigned contexts;
	unsigned mix[PS__N];
	int tables;          /* SPACES_* */
	int pages;           /* SPACES_* */
	int compress;        /* CT_* */
	unsigned change;     /* permille */
	uint64_t seed;
	uint64_t zero_pad;
	uint64_t spread;     /* table pages this many pages apart (1: dense) */
	const char *vas_file;
	unsigned nvas;
	bool blob;
	bool ver3;           /* --format ver3 */
	const char *format;  /* --format of a CPU/IOMMU format: a build spec (mkbig_spec.c) */
	const char *out;
};

/* Fills O from the command line (exits 2 on a usage error). */
void parse_opts(int argc, char **argv, struct opts *o);

/* mkbig_spec.c: is NAME a format written as a `ptfs-tool build` spec; write it. */
bool mkbig_spec_format(const char *name);
int mkbig_write_spec(const struct opts *o);

#endif
