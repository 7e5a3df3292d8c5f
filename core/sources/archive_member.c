/* SPDX-License-Identifier: MIT */
/*
 * archive_member.c — one member of an archive read while archive.c streams
 * it (either pass): its name normalised or refused, its data kept as its
 * non-zero 4 KiB chunks, or, in an uncompressed tar, served in place from
 * the mapped file when libarchive's bytes are the file's there; the budget
 * of data kept before capture.ini.  archive.c calls in here; nothing here
 * calls archive.c.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "archive_int.h"
#include "pt_num.h"
#include "pt_source.h"
#include "pt_vec.h"

pt_err pt_arch_fail(struct pt_arch *ar, struct archive *a)
{
	const char *s = archive_error_string(a);

	return pt_loader_fail(ar->ld, PT_E_ARCHIVE, "%s: %s", ar->path, s ? s : "unreadable archive");
}

/* The absent member's what when the file cannot be read a second time. */
#define STR_(x) #x
#define STR(x) STR_(x)
const char pt_arch_deferred_what[] = "comes before capture.ini in the archive, where ptfs keeps at most "
	STR(PRE_INI_MIB) " MiB of data, and the file cannot be read a second time: put capture.ini first";

/* The member being read: its name, its size, the non-zero chunks it keeps. */
struct cur {
	const char *name;
	bool size_known;
	uint64_t size;
	uint64_t end;          /* past the last byte read */
	uint64_t nc, last_idx; /* non-zero chunks, the last one's index */
	bool dropped;
};

/* Counts the non-zero 4 KiB chunks of member offsets [OFF, OFF+LEN) that BUF holds. */
static void count_chunks(struct cur *c, uint64_t off, const uint8_t *buf, size_t len)
{
	while (len) {
		uint64_t idx = off >> CHUNK_SHIFT, in = off & (CHUNK_SIZE - 1);
		size_t n = (size_t)(CHUNK_SIZE - in < len ? CHUNK_SIZE - in : len);

		if ((c->nc == 0 || c->last_idx != idx) && !pt_bytes_zero(buf, n)) {
			c->nc++;
			c->last_idx = idx;
		}
		off += n;
		buf += n;
		len -= n;
	}
}

/*
 * Reads the data of the current entry (the first block may already be in
 * hand) into member C->name.  More than BUDGET bytes of non-zero chunks:
 * the member's data is dropped and it is absent (deferred).
 */
static pt_err read_data(struct pt_arch *ar, struct archive *a, struct cur *c,
			const void *buf, size_t len, int64_t off, uint64_t budget)
{
	pt_err rc;
	int r;

	for (;;) {
		if (!c->dropped && c->nc > budget >> CHUNK_SHIFT) {
			char *dup = strdup(c->name);

			/* over the budget of data kept before capture.ini: keep nothing (for now) */
			c->dropped = true;
			if (!dup || !pt_vec_reserve(&ar->deferred, &ar->deferredcap, ar->ndeferred + 1,
						    sizeof *ar->deferred)) {
				free(dup);
				return pt_loader_fail(ar->ld, PT_E_NOMEM, "%s: out of memory", ar->path);
			}
			ar->deferred[ar->ndeferred++] = dup;
			if (pt_loader_add_absent(ar->ld, c->name, pt_arch_deferred_what))
				return pt_loader_fail(ar->ld, PT_E_NOMEM, "%s: out of memory", ar->path);
			if (c->size_known)
				return PT_OK;    /* the next header skips the rest */
		}
		if (buf && len && !c->dropped) {
			if (off < 0 || (uint64_t)off < c->end ||
			    (c->size_known && (uint64_t)off + len > c->size))
				goto toolong;
			count_chunks(c, (uint64_t)off, buf, len);
			rc = pt_loader_add_copy(ar->ld, c->name, (uint64_t)off, buf, len);
			if (rc)
				return pt_loader_fail(ar->ld, rc, "%s: out of memory reading '%s'", ar->path,
						      c->name);
			c->end = (uint64_t)off + len;
		}
		pt_loader_progress(ar->ld, (uint64_t)archive_filter_bytes(a, -1), ar->total, false);
		r = archive_read_data_block(a, &buf, &len, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN)
			return pt_arch_fail(ar, a);
	}
	/* A size from the header past the last block: the member ends in a hole. */
	if (!c->dropped && c->size_known && c->size > c->end &&
	    pt_loader_add_copy(ar->ld, c->name, c->size, NULL, 0))
		return pt_loader_fail(ar->ld, PT_E_NOMEM, "%s: out of memory", ar->path);
	return PT_OK;
toolong:
	return pt_loader_fail(ar->ld, PT_E_ARCHIVE, "%s: member '%s' holds data past its size", ar->path,
			      c->name);
}

/* Whether the LEN bytes at OFF of the file are BUF's (the archive's block is the file's bytes). */
static bool same_bytes(int fd, uint64_t off, const void *buf, size_t len)
{
	uint8_t tmp[4096];
	const uint8_t *b = buf;

	while (len) {
		size_t n = len < sizeof tmp ? len : sizeof tmp;
		ssize_t got = pread(fd, tmp, n, (off_t)off);

		if (got != (ssize_t)n || memcmp(tmp, b, n))
			return false;
		b += n;
		off += n;
		len -= n;
	}
	return true;
}

/*
 * The current entry, NAME.  In an uncompressed tar, the bytes are served
 * in place when libarchive's first block is exactly the file's bytes
 * there; else copied.  *KEPT: the non-zero chunks copied.
 */
pt_err pt_arch_read_regular(struct pt_arch *ar, struct archive *a, struct archive_entry *e,
			    const char *name, uint64_t budget, uint64_t *kept)
{
	struct cur c = {.name = name};
	const void *buf = NULL;
	size_t len = 0;
	int64_t off = 0;
	pt_err rc;
	int r;

	*kept = 0;
	c.size_known = archive_entry_size_is_set(e) && archive_entry_size(e) >= 0;
	c.size = c.size_known ? (uint64_t)archive_entry_size(e) : 0;
	if (ar->inplace_ok && c.size_known && archive_entry_sparse_count(e) == 0) {
		/* libarchive has consumed the header: the data starts here. */
		int64_t data_off = archive_filter_bytes(a, 0);

		if (c.size == 0) {
			rc = pt_loader_add_mapped(ar->ld, name, ar->fd, 0, 0);
			return rc ? pt_loader_fail(ar->ld, rc, "%s: out of memory", ar->path) : PT_OK;
		}
		r = archive_read_data_block(a, &buf, &len, &off);
		if (r < ARCHIVE_WARN)
			return pt_arch_fail(ar, a);
		if (r == ARCHIVE_OK && data_off >= 0 && off == 0 && len > 0 && len <= c.size &&
		    (uint64_t)data_off <= ar->total && c.size <= ar->total - (uint64_t)data_off &&
		    same_bytes(ar->fd, (uint64_t)data_off, buf, len)) {
			rc = pt_loader_add_mapped(ar->ld, name, ar->fd, (uint64_t)data_off, c.size);
			if (rc == PT_OK)
				return PT_OK;    /* the next header skips the rest with a seek */
			if (rc != PT_E_IO)
				return pt_loader_fail(ar->ld, rc, "%s: out of memory", ar->path);
			ar->inplace_ok = false;    /* not mappable: copy, from the block in hand */
		}
		if (r == ARCHIVE_EOF)
			buf = NULL, len = 0;
	}
	/* The member exists even when it holds no byte. */
	rc = pt_loader_add_copy(ar->ld, name, 0, NULL, 0);
	if (rc)
		return pt_loader_fail(ar->ld, rc, "%s: out of memory", ar->path);
	if (buf == NULL) {
		r = archive_read_data_block(a, &buf, &len, &off);
		if (r == ARCHIVE_EOF) {
			buf = NULL;
			len = 0;
		} else if (r < ARCHIVE_WARN) {
			return pt_arch_fail(ar, a);
		}
	}
	rc = buf || c.size ? read_data(ar, a, &c, buf, len, off, budget) : PT_OK;
	if (!rc && !c.dropped)
		*kept = c.nc;
	return rc;
}

/*
 * After the first header: whether members can be read in place.  Only an
 * uncompressed tar has member data verbatim in the file.
 */
bool pt_arch_can_inplace(const struct pt_arch *ar, struct archive *a)
{
	return archive_filter_count(a) == 1 && archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE &&
	       (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_TAR && ar->total > 0;
}

/* The normalised name of the current entry in *NAME (malloc'd), or NULL when it is never used. */
pt_err pt_arch_entry_name(struct pt_arch *ar, struct archive_entry *e, char **name)
{
	const char *raw = archive_entry_pathname(e);

	*name = NULL;
	if (!raw) {
		if (!ar->again)
			pt_loader_warn(ar->ld, "member with an unreadable name: ignored");
		return PT_OK;
	}
	if (strlen(raw) > MAX_MEMBER_NAME) {
		if (!ar->again)
			pt_loader_warn(ar->ld, "member '%.64s...' has a name longer than %d bytes: ignored",
				       raw, MAX_MEMBER_NAME);
		return PT_OK;
	}
	*name = strdup(raw);
	if (!*name)
		return pt_loader_fail(ar->ld, PT_E_NOMEM, "%s: out of memory", ar->path);
	if (!pt_path_normalise(*name)) {
		if (ar->again)
			;   /* said in the first pass */
		else if (raw[0] == '/')
			pt_loader_warn(ar->ld, "member '%s' has an absolute name: never used", raw);
		else if (strstr(raw, ".."))
			pt_loader_warn(ar->ld, "member '%s' has a '..' component: never used", raw);
		/* else the root directory itself ("./"): nothing to say */
		free(*name);
		*name = NULL;
	}
	return PT_OK;
}
