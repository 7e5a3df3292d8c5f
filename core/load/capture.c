/* SPDX-License-Identifier: MIT */
/*
 * capture.c — loading a capture (pt_capture.h): the capture object, the
 * dispatch to the capture sources (pt_source.h: the path is opened once,
 * every source bids on the same probe, the highest bid loads), the end of
 * the load (loader_bind.c), the public getters of what capture.ini says.
 * The top of the load chain (HACKING.md): no file of core/load/ calls it.
 * The loader API the sources use is loader.c, leases capture_guard.c,
 * contexts and spaces by name lookup.c (capture_int.h lists what they
 * share); the sources themselves are core/sources/.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture_int.h"

struct pt_capture *pt_capture_new(void)
{
	return calloc(1, sizeof(struct pt_capture));
}

/* Frees everything a load built (not the error or the warnings). */
static void unload(struct pt_capture *cap)
{
	pt_mem_free(cap->mem);
	cap->mem = NULL;
	pt_live_free(cap);
	/* After the memory: its reader regions used these. */
	for (size_t i = 0; i < cap->nowned; i++)
		if (cap->owned[i].free_fn)
			cap->owned[i].free_fn(cap->owned[i].ud);
	free(cap->owned);
	cap->owned = NULL;
	cap->nowned = cap->ownedcap = 0;
	cap->pci = NULL;        /* freed with the owned list */
	for (size_t i = 0; i < cap->nmaps; i++) {
		munmap(cap->maps[i].p, cap->maps[i].len);
		if (cap->maps[i].fd >= 0)
			close(cap->maps[i].fd);
		free(cap->maps[i].used);
	}
	free(cap->maps);
	cap->maps = NULL;
	cap->nmaps = cap->mapcap = 0;
	free(cap->regions);
	cap->regions = NULL;
	cap->nregions = 0;
	free(cap->ctx);
	cap->ctx = NULL;
	free(cap->ctx_sorted);
	cap->ctx_sorted = NULL;
	free(cap->xlate);
	cap->xlate = NULL;
	free(cap->xsname);
	cap->xsname = NULL;
	for (size_t i = 0; cap->iopages && cap->man && i < cap->man->niommu; i++)
		free(cap->iopages[i].pg);
	free(cap->iopages);
	cap->iopages = NULL;
	cap->nctx = 0;
	pt_manifest_free(cap->man);
	cap->man = NULL;
	free(cap->pool);
	cap->pool = NULL;
	cap->npool = cap->poolcap = 0;
	free(cap->source);
	cap->source = NULL;
}

void pt_capture_free(struct pt_capture *cap)
{
	if (!cap)
		return;
	unload(cap);
	for (size_t i = 0; i < cap->nwarn; i++)
		free(cap->warn[i]);
	free(cap->warn);
	free(cap);
}

void pt_capture_set_progress(struct pt_capture *cap, pt_progress_fn fn, void *ud)
{
	if (!cap)
		return;
	cap->progress = fn;
	cap->progress_ud = ud;
}

/* ---- public ---- */

/*
 * Opens PATH for the probe: never blocking on a FIFO, and only a regular
 * file or a directory (docs/design.md §3: "only regular files are read"); its
 * first bytes into HEAD.  A symbolic link the user names on the command
 * line is followed, as every tool follows one (`ptfs latest.tar.gz mnt`);
 * what it names must still be a regular file or a directory.  Files a
 * capture names inside itself never follow links (the sources' opens).
 */
static pt_err probe_open(struct pt_capture *cap, const char *path, struct pt_probe *p,
			 struct stat *st, uint8_t *head)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	/* A UNIX socket cannot be opened (ENXIO): its path is held for the QMP source to connect (issue #33). */
	if (fd < 0 && errno == ENXIO)
		fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0 || fstat(fd, st)) {
		pt_capture_set_error(cap, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return PT_E_IO;
	}
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) && !S_ISSOCK(st->st_mode)) {
		pt_capture_set_error(cap, "%s: is a %s; ptfs reads a capture from a regular file or a directory "
				     "(or a QEMU QMP socket)",
				     path, pt_file_type_name(st->st_mode));
		close(fd);
		return PT_E_USAGE;
	}
	p->path = path;
	p->fd = fd;
	p->st = st;
	if (S_ISREG(st->st_mode)) {
		do
			n = pread(fd, head, PT_PROBE_HEAD, 0);
		while (n < 0 && errno == EINTR);
		p->head = head;
		p->head_len = n > 0 ? (size_t)n : 0;
	}
	return PT_OK;
}

pt_err pt_capture_load_from(struct pt_capture *cap, const char *path, const struct pt_load_opts *opts,
			    const struct pt_source *const *sources)
{
	static const struct pt_load_opts defaults;
	struct pt_loader ld = {.cap = cap, .path = path, .cur = SIZE_MAX, .opts = opts ? opts : &defaults,
			       .sources = sources};
	struct pt_probe probe = {.fd = -1};
	uint8_t head[PT_PROBE_HEAD];
	struct stat st;
	pt_err rc;

	if (!cap || !path || !sources)
		return PT_E_USAGE;
	if (cap->load_called) {
		pt_capture_set_error(cap, "%s: a capture is loaded only once", path);
		return PT_E_USAGE;
	}
	cap->load_called = true;
	cap->all_entries = ld.opts->all_entries;
	cap->err[0] = 0;
	cap->source = strdup(path);
	if (!cap->source) {
		pt_capture_set_error(cap, "%s: out of memory", path);
		return PT_E_NOMEM;
	}
	clock_gettime(CLOCK_MONOTONIC, &ld.last);
	rc = pt_loader_check_opts(&ld, sources);
	if (rc || (rc = probe_open(cap, path, &probe, &st, head))) {
		free(cap->source);
		cap->source = NULL;
		return rc;
	}
	/* The kind is recognised from the content, never from the name. */
	ld.src = pt_source_best(sources, &probe);
	if (!ld.src) {
		rc = pt_loader_fail(&ld, PT_E_ARCHIVE, "%s: not a capture ptfs reads", path);
	} else {
		cap->source_kind = ld.src->kind;
		rc = ld.src->load(&ld, &probe);
		if (!rc)
			rc = pt_loader_finish(&ld);
	}
	close(probe.fd);
	pt_loader_free(&ld);
	if (cap->nwarn_dropped) {
		size_t n = cap->nwarn_dropped;

		cap->nwarn_dropped = 0;
		cap->nwarn--;    /* make room: the summary replaces the last one kept */
		free(cap->warn[cap->nwarn]);
		pt_capture_warn(cap, "%zu more warnings not shown", n + 1);
	}
	if (rc) {
		/* Never half loaded: no memory, no contexts. */
		unload(cap);
		return rc;
	}
	return PT_OK;
}

const struct pt_format *pt_capture_format(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->fmt : NULL;
}

const char *pt_capture_source_kind(const struct pt_capture *cap)
{
	return cap && cap->source_kind ? cap->source_kind : "capture archive";
}

unsigned pt_capture_version(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->version : 0;
}

const char *pt_capture_source(const struct pt_capture *cap)
{
	return cap ? cap->source : NULL;
}

const char *pt_capture_gpu(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->gpu : NULL;
}

const char *pt_capture_description(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->description : NULL;
}

size_t pt_capture_annotation_count(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->nann : 0;
}

const struct pt_kv *pt_capture_annotation(const struct pt_capture *cap, size_t i)
{
	return cap && cap->man && i < cap->man->nann ? &cap->man->ann[i] : NULL;
}

size_t pt_capture_region_count(const struct pt_capture *cap)
{
	return cap && cap->mem ? cap->nregions : 0;
}

const struct pt_region_info *pt_capture_region(const struct pt_capture *cap, size_t i)
{
	return cap && cap->mem && i < cap->nregions ? &cap->regions[i] : NULL;
}

const struct pt_mem *pt_capture_mem(const struct pt_capture *cap)
{
	return cap ? cap->mem : NULL;
}

