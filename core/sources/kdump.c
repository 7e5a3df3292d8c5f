/* SPDX-License-Identifier: MIT */
/*
 * kdump.c — the kdump-compressed source (docs/design.md §3.2): makedumpfile's
 * files and QEMU dump-guest-memory -z|-l|-s (kdump-raw-* since QEMU 8.2).
 * The reader is src_kdump.c (libkdumpfile).  Physical memory is one
 * member read on demand, page by page, through libkdumpfile: nothing is
 * decompressed at mount, and a page the dump excludes is not captured.
 * A flattened file (QEMU before 8.2) is reassembled into an unlinked
 * temporary file first (src_kdump_flat.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_buf.h"
#include "pt_source.h"
#include "pt_src_kdump.h"

static pt_err kdump_read_fn(void *ud, uint64_t off, void *buf, size_t len)
{
	return pt_kdump_read(ud, off, buf, len) ? PT_OK : PT_E_CAPTURE;
}

static bool kdump_why_fn(void *ud, uint64_t off, char *why, size_t len)
{
	return pt_kdump_unreadable(ud, off, why, len);
}

static void kdump_free_fn(void *ud)
{
	pt_kdump_close(ud);
}

/* SIZE as people say it: the unit's whole number when exact (32K), else one decimal (35.1M). */
static void approx_size(uint64_t size, char *out, size_t len)
{
	static const char unit[] = "KMGT";
	unsigned u = 0;

	if (size < 1024) {
		snprintf(out, len, "%" PRIu64 "B", size);
		return;
	}
	while (u + 1 < sizeof unit - 1 && size >> (10 * (u + 2)))
		u++;
	if (!(size & ((UINT64_C(1) << (10 * (u + 1))) - 1)))
		snprintf(out, len, "%" PRIu64 "%c", size >> (10 * (u + 1)), unit[u]);
	else
		snprintf(out, len, "%.1f%c", (double)size / (double)(UINT64_C(1) << (10 * (u + 1))), unit[u]);
}

/*
 * Where a flattened file is reassembled: $TMPDIR, else /var/tmp (on disk
 * where /tmp is a tmpfs: the point is that the data never sits in memory).
 */
static const char *tmp_dir(void)
{
	const char *d = getenv("TMPDIR");

	return d && d[0] == '/' ? d : "/var/tmp";
}

static pt_err kdump_load(struct pt_loader *ld, const struct pt_probe *p)
{
	const char *label = pt_path_base(p->path);
	struct pt_dump_region r = {"ram", 0, 0, 0};
	struct pt_kdump *k;
	char err[1024];
	pt_err rc;
	int fd = p->fd;

	/* QEMU before 8.2's kdump-* and makedumpfile -F: libkdumpfile 0.5.1 reads the seekable layout only */
	if (pt_kdump_detect(p->head, p->head_len) == PT_KDUMP_FLAT) {
		uint64_t size;
		char sz[24];

		rc = pt_kdump_unflatten(p->fd, label, tmp_dir(), &fd, &size, err, sizeof err);
		if (rc)
			return pt_loader_fail(ld, rc, "%s", err);
		approx_size(size, sz, sizeof sz);
		pt_loader_warn(ld, "a flattened kdump file (makedumpfile's stream format): reassembled into "
			       "an unlinked temporary file of %s (0x%" PRIx64 " bytes) in %s, freed when the "
			       "capture is closed", sz, size, tmp_dir());
	}
	rc = pt_kdump_open(fd, label, &k, err, sizeof err);
	/* K reads through its own duplicate: the temporary file lives as long as it does */
	if (fd != p->fd)
		close(fd);
	if (rc)
		return pt_loader_fail(ld, rc, "%s", err);
	r.length = pt_kdump_size(k);
	/* from here the loader owns K (pt_kdump_close() when the capture is freed) */
	/* the file's warnings (pages it cannot read) before the loader owns K */
	for (const char *w = pt_kdump_warnings(k), *nl; (nl = strchr(w, '\n')); w = nl + 1)
		pt_loader_warn(ld, "%.*s", (int)(nl - w), w);
	rc = pt_loader_add_reader(ld, "physmem", r.length, kdump_read_fn, k, kdump_free_fn);
	if (rc == PT_OK)
		rc = pt_loader_reader_why(ld, "physmem", kdump_why_fn);
	if (rc)
		return pt_loader_fail(ld, rc, "%s: out of memory", label);
	{
		struct pt_dump_facts f = *pt_kdump_facts(k);

		f.tbi = pt_loader_opts(ld)->tbi;
		return pt_dump_emit(ld, &f, "kdump file", label, "physmem", &r, 1);
	}
}

static int kdump_bid(const struct pt_probe *p)
{
	if (p->fd < 0 || !S_ISREG(p->st->st_mode) || !p->head)
		return 0;
	return pt_kdump_detect(p->head, p->head_len) != PT_KDUMP_NONE ? 20 : 0;
}

const struct pt_source pt_source_kdump = {
	.name = "kdump",
	.kind = "kdump file",
	.bid = kdump_bid,
	.load = kdump_load,
	.dump = true,
};
