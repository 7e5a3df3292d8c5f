/* SPDX-License-Identifier: MIT */
/*
 * gem5.c — the gem5 source (docs/design.md §3.1): a GPUFS checkpoint directory
 * (m5.cpt + *.pmem images) or an archive of one, read natively.  The
 * parser is src_gem5.c; this file streams the images into members and
 * turns the checkpoint's registers into the capture.ini text of an
 * amd-gart context vmid0 and amd-gpuvm contexts vmidN, each line with the
 * m5.cpt line it came from.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_source.h"
#include "pt_src_gem5.h"

/* The formats sources produce contexts of (docs/design.md §3.1). */
#define FMT_VMID0 "amd-gart"
#define FMT_VMIDN "amd-gpuvm"
#define MAX_CONFIG_SIZE (64u << 20)

/* The state of one checkpoint load. */
struct g5 {
	struct pt_loader *ld;
	const char *path;
	int dfd;               /* the checkpoint directory, or -1: the archive's members */
	const char *prefix;    /* members: "" or "dir/" */
	const char *label;     /* what messages about m5.cpt lines name */
	uint64_t done, total;  /* progress: bytes of the images consumed */
};

/*
 * Reads a whole small file at DFD/NAME (at most MAX bytes); *TEXT NULL if
 * absent.  QUIET: a file that cannot be read is reported as absent, with
 * PT_E_IO, and no message (config.ini: the convention is used, and said);
 * a file that is not regular is refused either way.
 */
static pt_err read_file(struct g5 *g, int dfd, const char *name, size_t max, bool quiet,
			char **text, size_t *len)
{
	char label[4200];
	struct stat st;
	size_t got = 0;
	ssize_t n;
	int fd;

	*text = NULL;
	*len = 0;
	snprintf(label, sizeof label, "%s/%s", g->path, name);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return PT_OK;
		if (quiet)
			return PT_E_IO;
		return pt_loader_fail(g->ld, PT_E_IO, "%s: %s", label, strerror(errno));
	}
	/* Never opened when it is not a regular file (a FIFO would block): refused by name. */
	fd = pt_loader_open_file(g->ld, dfd, name, quiet && S_ISREG(st.st_mode) ? NULL : label, &st);
	if (fd < 0)
		return quiet && S_ISREG(st.st_mode) ? PT_E_IO : PT_E_CAPTURE;
	if ((uint64_t)st.st_size > max) {
		close(fd);
		if (quiet)
			return PT_E_IO;
		return pt_loader_fail(g->ld, PT_E_CAPTURE, "%s/%s: not a regular file of at most %zu MiB",
				      g->path, name, max >> 20);
	}
	*text = malloc((size_t)st.st_size + 1);
	if (!*text) {
		close(fd);
		return pt_loader_fail(g->ld, PT_E_NOMEM, "%s: out of memory", g->path);
	}
	while (got < (size_t)st.st_size && (n = read(fd, *text + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	*len = got;
	return PT_OK;
}

/*
 * Streams the (gzip'd or plain) image FILE — open as FD, or the BUF_LEN
 * bytes at BUF_IN — into member MNAME of SIZE bytes: one pass, zero chunks
 * never allocated, progress in compressed bytes.
 */
static pt_err stream_image(struct g5 *g, int fd, const char *file, const uint8_t *buf_in,
			   size_t buf_len, const char *mname, uint64_t size)
{
	struct pt_loader *ld = g->ld;
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	pt_err rc = PT_OK;

	if (!a || pt_loader_add_copy(ld, mname, 0, NULL, 0)) {
		rc = PT_E_NOMEM;
		goto out;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_raw(a);
	if ((buf_in ? archive_read_open_memory(a, buf_in, buf_len) : archive_read_open_fd(a, fd, 1 << 16)) != ARCHIVE_OK ||
	    archive_read_next_header(a, &e) != ARCHIVE_OK) {
		rc = pt_loader_fail(ld, PT_E_ARCHIVE, "%s/%s: %s", g->path, file, archive_error_string(a));
		goto out;
	}
	for (;;) {
		const void *buf;
		size_t len;
		la_int64_t off;
		int r = archive_read_data_block(a, &buf, &len, &off);

		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK) {
			rc = pt_loader_fail(ld, PT_E_ARCHIVE, "%s/%s: %s", g->path, file, archive_error_string(a));
			goto out;
		}
		if ((uint64_t)off > size || len > size - (uint64_t)off) {
			rc = pt_loader_fail(ld, PT_E_CAPTURE, "%s/%s: image larger than its range_size 0x%" PRIx64,
					    g->path, file, size);
			goto out;
		}
		rc = pt_loader_add_copy(ld, mname, (uint64_t)off, buf, len);
		if (rc)
			goto out;
		pt_loader_progress(ld, g->done + (uint64_t)archive_filter_bytes(a, -1), g->total, false);
	}
	/* The image may end before its range: the rest reads as zero. */
	rc = pt_loader_add_copy(ld, mname, size, NULL, 0);
	g->done += (uint64_t)archive_filter_bytes(a, -1);
out:
	if (rc == PT_E_NOMEM)
		pt_loader_fail(ld, rc, "%s: out of memory", g->path);
	if (a)
		archive_read_free(a);
	return rc;
}

/* Store S's image into a member: the file beside m5.cpt, or the archive's member. */
static pt_err load_store(struct g5 *g, const struct pt_gem5_store *s, const char *mname)
{
	char member[4200], label[4200], *b = NULL;
	size_t blen = 0;
	struct stat st;
	pt_err rc;
	int fd;

	if (g->dfd >= 0) {
		snprintf(label, sizeof label, "%s/%s", g->path, s->file);
		fd = pt_loader_open_file(g->ld, g->dfd, s->file, label, &st);
		if (fd < 0)
			return PT_E_CAPTURE;
		rc = stream_image(g, fd, s->file, NULL, 0, mname, s->size);
		close(fd);
		return rc;
	}
	/* The archive member is the compressed image: inflate it into a member of its own. */
	snprintf(member, sizeof member, "%s%s", g->prefix, s->file);
	rc = pt_loader_member_bytes(g->ld, member, SIZE_MAX - 1, &b, &blen);
	if (rc == PT_E_NOTFOUND)
		return pt_loader_fail(g->ld, PT_E_CAPTURE, "%s:%u: %s%s is not in the archive", g->label,
				      s->line, g->prefix, s->file);
	if (rc)
		return pt_loader_fail(g->ld, PT_E_NOMEM, "%s: out of memory", g->path);
	rc = stream_image(g, -1, s->file, (const uint8_t *)b, blen, mname, s->size);
	free(b);
	return rc;
}

static uint64_t file_size(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? (uint64_t)st.st_size : 0;
}

/* The [memory] sections of the device and host stores, and their members. */
static pt_err emit_stores(struct g5 *g, const struct pt_gem5_cpt *cpt)
{
	struct pt_loader *ld = g->ld;
	const char *label = g->label;
	char o[512];
	pt_err rc = PT_OK;

	if (g->dfd >= 0) {
		g->total = 0;
		if (cpt->has_vram)
			g->total += file_size(g->dfd, cpt->vram.file);
		for (size_t i = 0; i < cpt->nsys; i++)
			g->total += file_size(g->dfd, cpt->sys[i].file);
	}
	for (size_t i = 0; i <= cpt->nsys && !rc; i++) {
		const struct pt_gem5_store *s = i == 0 ? (cpt->has_vram ? &cpt->vram : NULL) : &cpt->sys[i - 1];
		char mname[600];

		if (!s)
			continue;
		snprintf(o, sizeof o, "%s:%u", label, s->line);
		pt_loader_emitf(ld, o, "[memory %s]", s->section);
		pt_loader_emitf(ld, o, "space = %s", i == 0 ? "vram" : "sysmem");
		pt_loader_emitf(ld, o, "base = 0x%" PRIx64, s->base);
		if (g->dfd >= 0)
			snprintf(mname, sizeof mname, "%s", s->file);
		else
			snprintf(mname, sizeof mname, "gem5.image/%s", s->file);
		pt_loader_emitf(ld, o, "file = %s", mname);
		rc = load_store(g, s, mname);
	}
	pt_loader_progress(ld, g->done, g->total, true);
	return rc;
}

/* The contexts: the GART of VMID0 from the [...GPUVM] registers, a GPUVM per ptBase root. */
static void emit_contexts(struct g5 *g, const struct pt_gem5_cpt *cpt,
			  const struct pt_format *f0, const struct pt_format *fn)
{
	struct pt_loader *ld = g->ld;
	const char *label = g->label;
	char o[512];

	snprintf(o, sizeof o, "%s:%u", label, cpt->gpuvm_line);
	pt_loader_emitf(ld, o, "[%s vmid0]", f0->ctx_section);
	for (unsigned r = 0; r < PT_G5_REG__COUNT; r++) {
		if (!cpt->reg[r].has)
			continue;
		snprintf(o, sizeof o, "%s:%u", label, cpt->reg[r].line);
		pt_loader_emitf(ld, o, "%s = 0x%" PRIx64, pt_gem5_reg_name(r), cpt->reg[r].raw);
		pt_loader_emitf(ld, o, "x-from-%s = %s:%u %s", pt_gem5_reg_name(r), label, cpt->reg[r].line,
			 cpt->reg[r].key);
	}
	for (unsigned v = 1; cpt->has_pt_base && v < PT_GEM5_VMIDS; v++) {
		if (!cpt->pt_base[v])
			continue;
		if (!fn) {
			pt_loader_warn(ld, "vmid%u: %s contexts are not supported by this build",
					v, FMT_VMIDN);
			continue;
		}
		snprintf(o, sizeof o, "%s:%u", label, cpt->pt_base_line);
		pt_loader_emitf(ld, o, "[%s vmid%u]", fn->ctx_section, v);
		pt_loader_emitf(ld, o, "gfx = 9");
		pt_loader_emitf(ld, o, "page_table_base_addr = 0x%" PRIx64, cpt->pt_base[v]);
		/*
		 * gem5 keeps only the root of a VMID > 0 (ptStart/ptEnd are never
		 * written): its walker (pagetable_walker.cc) and Linux gmc_v9_0 use
		 * 4 levels over the 48-bit VA, a 512-entry root indexed from VA
		 * bit 39, block size 0 — the checkpoint's model, stated, not guessed.
		 */
		pt_loader_emitf(ld, o, "page_table_start_addr = 0x0");
		pt_loader_emitf(ld, o, "page_table_end_addr = 0xfffffffff");
		pt_loader_emitf(ld, o, "page_table_depth = 3");
		pt_loader_emitf(ld, o, "page_table_block_size = 0");
		if (cpt->reg[PT_G5_FB_OFFSET].has)
			pt_loader_emitf(ld, o, "fb_offset = 0x%" PRIx64, cpt->reg[PT_G5_FB_OFFSET].raw);
		pt_loader_emitf(ld, o, "x-from-page_table_base_addr = %s:%u ptBase[%u]", label,
			 cpt->pt_base_line, v);
		pt_loader_emitf(ld, o, "x-geometry = gem5 model: 4 levels, 48-bit VA (ptStart/ptEnd not saved)");
	}
}

/* m5.cpt and config.ini (NULL when absent or unreadable), from the directory or the members. */
static pt_err read_cpt(struct g5 *g, char **text, size_t *len, char **config, size_t *config_len)
{
	char name[4200];
	pt_err rc;
	int pfd;

	*config = NULL;
	*config_len = 0;
	if (g->dfd < 0) {
		snprintf(name, sizeof name, "%sm5.cpt", g->prefix);
		rc = pt_loader_member_bytes(g->ld, name, PT_GEM5_MAX_SIZE, text, len);
		if (rc == PT_E_VALUE)
			return pt_loader_fail(g->ld, PT_E_CAPTURE, "%s: %s larger than %u MiB", g->path, name,
					      PT_GEM5_MAX_SIZE >> 20);
		if (rc)
			return pt_loader_fail(g->ld, PT_E_NOMEM, "%s: out of memory", g->path);
		/* An archive of m5out/: config.ini beside the checkpoint directory. */
		if (*g->prefix)
			pt_loader_member_bytes(g->ld, "config.ini", MAX_CONFIG_SIZE, config, config_len);
		return PT_OK;
	}
	rc = read_file(g, g->dfd, "m5.cpt", PT_GEM5_MAX_SIZE, false, text, len);
	if (rc)
		return rc;
	/* The run's config.ini sits in the checkpoint's parent (m5out/). */
	pfd = openat(g->dfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd >= 0) {
		/* unreadable: the convention, said by the caller; not a regular file: refused */
		rc = read_file(g, pfd, "config.ini", MAX_CONFIG_SIZE, true, config, config_len);
		close(pfd);
		if (rc == PT_E_CAPTURE) {
			free(*text);
			*text = NULL;
			return rc;
		}
	}
	return PT_OK;
}

/* A gem5 checkpoint: the directory G->dfd, or the archive's members under G->prefix. */
static pt_err load_gem5(struct g5 *g)
{
	struct pt_loader *ld = g->ld;
	const struct pt_format *f0 = pt_format_find(FMT_VMID0), *fn = pt_format_find(FMT_VMIDN);
	struct pt_gem5_cpt *cpt = NULL;
	char *text = NULL, *config = NULL, err[1024];
	size_t len = 0, config_len = 0;
	pt_err rc;

	rc = read_cpt(g, &text, &len, &config, &config_len);
	if (rc)
		return rc;
	rc = pt_gem5_parse(text, len, g->label, NULL, config, config_len, &cpt, err, sizeof err);
	free(text);
	free(config);
	if (rc)
		return pt_loader_fail(ld, rc, "%s", err);
	if (cpt->sys_by_convention && cpt->nsys)
		pt_loader_warn(ld, "no config.ini beside the checkpoint: host stores placed by "
				"the x86 GPUFS convention (store0 at 0, store1 at 4 GiB)");
	pt_loader_emitf(ld, g->label, "[capture]");
	pt_loader_emitf(ld, g->label, "version = 1");
	pt_loader_emitf(ld, g->label, "format = %s", f0->name);
	rc = emit_stores(g, cpt);
	if (!rc)
		emit_contexts(g, cpt, f0, fn);
	pt_gem5_free(cpt);
	return rc;
}

/* Whether NAME is among the sorted MEMBERS. */
static bool has_member(const struct pt_probe *p, const char *name)
{
	size_t lo = 0, hi = p->nmembers;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(p->members[mid], name);

		if (c == 0)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* The members' prefix of m5.cpt ("" or "dir/") into OUT, or false. */
static bool members_prefix(const struct pt_probe *p, char *out, size_t len)
{
	char name[4200 + 8];

	if (has_member(p, "m5.cpt")) {
		out[0] = 0;
		return true;
	}
	if (!p->only_dir || strlen(p->only_dir) + 2 > len || strlen(p->only_dir) > 4200)
		return false;
	snprintf(name, sizeof name, "%s/m5.cpt", p->only_dir);
	if (!has_member(p, name))
		return false;
	snprintf(out, len, "%s/", p->only_dir);
	return true;
}

/*
 * A checkpoint directory: m5.cpt (of any type: the load says what it is
 * when it is not a regular file) and no capture.ini; or an archive whose
 * root or only directory holds m5.cpt.
 */
static int gem5_bid(const struct pt_probe *p)
{
	struct stat st;
	char prefix[4200];

	if (p->fd < 0)
		return members_prefix(p, prefix, sizeof prefix) ? 20 : 0;
	return S_ISDIR(p->st->st_mode) && fstatat(p->fd, "m5.cpt", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       fstatat(p->fd, "capture.ini", &st, AT_SYMLINK_NOFOLLOW) != 0 ? 20 : 0;
}

static pt_err gem5_load(struct pt_loader *ld, const struct pt_probe *p)
{
	char prefix[4200] = "";
	struct g5 g = {.ld = ld, .path = p->path, .dfd = p->fd, .prefix = prefix, .label = "m5.cpt"};

	if (p->fd < 0 && !members_prefix(p, prefix, sizeof prefix))
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s: no m5.cpt", p->path);
	return load_gem5(&g);
}

const struct pt_source pt_source_gem5 = {
	.name = "gem5",
	.kind = "gem5 checkpoint",
	.bid = gem5_bid,
	.load = gem5_load,
};
