/* SPDX-License-Identifier: MIT */
/*
 * sources.c — the capture sources, one line each (pt_source.h).  Every
 * source bids on the same probe; the highest bid loads, 0 is "not mine",
 * and of equal bids the first listed wins.  Adding a source is one file
 * under core/sources/ and one line here (HACKING.md).
 *
 * The public load (pt_capture.h pt_capture_load_opts()) is here, above the
 * load layer it calls: it passes the table down to pt_capture_load_from(),
 * so that the dispatch of a load runs down the layers, never up (issue #41
 * item 3).
 */
#include "pt_source.h"

extern const struct pt_source pt_source_archive, pt_source_dir, pt_source_umr, pt_source_gem5,
	pt_source_elf, pt_source_kdump, pt_source_qmp;

const struct pt_source *const pt_sources[] = {
	&pt_source_umr,      /* a umr test log or envdef (bid 20), or an archive of one */
	&pt_source_gem5,     /* a gem5 checkpoint directory (bid 20), or an archive of one */
	&pt_source_elf,      /* an ELF core: QEMU dump-guest-memory, /proc/vmcore (bid 20) */
	&pt_source_kdump,    /* a kdump-compressed file, through libkdumpfile (bid 20) */
	&pt_source_qmp,      /* a UNIX socket: a running QEMU guest's QMP (bid 20) */
	&pt_source_dir,      /* a directory holding capture.ini (bid 10) */
	&pt_source_archive,  /* any other regular file: an archive libarchive reads (bid 1) */
	NULL,
};

pt_err pt_capture_load_opts(struct pt_capture *cap, const char *path, const struct pt_load_opts *opts)
{
	return pt_capture_load_from(cap, path, opts, pt_sources);
}

pt_err pt_capture_load(struct pt_capture *cap, const char *path)
{
	return pt_capture_load_from(cap, path, NULL, pt_sources);
}
