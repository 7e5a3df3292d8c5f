/* SPDX-License-Identifier: MIT */
/*
 * capture_archive.c — the one streaming pass over a capture archive
 * (libarchive): every regular member kept as non-zero chunks or, for an
 * uncompressed tar, as its offset in an mmap of the file; then capture.ini
 * is parsed and bound (capture.c).
 */
#include <archive.h>
#include <archive_entry.h>
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

/* ---- members ---- */

void pt_member_free_data(struct member *m)
{
	for (size_t i = 0; i < m->nc; i++)
		if (!m->c[i].lent)
			free(m->c[i].data);
	free(m->c);
	m->c = NULL;
	m->nc = m->cap = 0;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

/*
 * Stores LEN bytes at OFF of member M; all-zero chunks are never allocated.
 * SIZE_KNOWN: M->size is the member's real size, so the last chunk can be
 * allocated short.
 */
pt_err pt_member_write(struct member *m, bool size_known, uint64_t off,
		       const uint8_t *data, size_t len)
{
	while (len) {
		uint64_t idx = off >> CHUNK_SHIFT, in = off & (CHUNK_SIZE - 1);
		size_t n = (size_t)(CHUNK_SIZE - in < len ? CHUNK_SIZE - in : len);
		struct schunk *c = NULL;

		/* libarchive hands data out in increasing offsets: look at the end only. */
		if (m->nc && m->c[m->nc - 1].idx == idx)
			c = &m->c[m->nc - 1];
		else if (m->nc && m->c[m->nc - 1].idx > idx)
			return PT_E_ARCHIVE;
		if (!c && !all_zero(data, n)) {
			uint64_t clen = CHUNK_SIZE;

			if (size_known && m->size - (idx << CHUNK_SHIFT) < CHUNK_SIZE)
				clen = m->size - (idx << CHUNK_SHIFT);
			if (!pt_vec_reserve(&m->c, &m->cap, m->nc + 1, sizeof *m->c))
				return PT_E_NOMEM;
			c = &m->c[m->nc];
			c->data = calloc(1, (size_t)clen);
			if (!c->data)
				return PT_E_NOMEM;
			c->idx = idx;
			c->len = (uint32_t)clen;
			c->lent = false;
			m->nc++;
		}
		if (c) {
			if (in + n > c->len)
				return PT_E_ARCHIVE;    /* more data than the header said */
			memcpy(c->data + in, data, n);
		}
		off += n;
		data += n;
		len -= n;
	}
	return PT_OK;
}

/* Copies member bytes [0, M->size) to OUT (for capture.ini). */
static void member_read_all(const struct member *m, uint8_t *out)
{
	if (m->kind == MK_INPLACE) {
		memcpy(out, m->ptr, (size_t)m->size);
		return;
	}
	memset(out, 0, (size_t)m->size);
	for (size_t i = 0; i < m->nc; i++) {
		uint64_t off = m->c[i].idx << CHUNK_SHIFT;
		uint64_t n = m->c[i].len;

		if (off >= m->size)
			continue;
		if (n > m->size - off)
			n = m->size - off;
		memcpy(out + off, m->c[i].data, (size_t)n);
	}
}

struct member *pt_member_new(struct loader *ld, const char *name)
{
	struct member *m;

	if (!pt_vec_reserve(&ld->m, &ld->mcap, ld->nm + 1, sizeof *ld->m))
		return NULL;
	m = &ld->m[ld->nm];
	memset(m, 0, sizeof *m);
	m->name = strdup(name);
	if (!m->name)
		return NULL;
	m->count = 1;
	ld->nm++;
	return m;
}

static void note_top(struct loader *ld, const char *name, bool is_dir)
{
	const char *slash = strchr(name, '/');
	size_t n;

	if (!slash && !is_dir)
		return;
	n = slash ? (size_t)(slash - name) : strlen(name);
	if (!ld->topdir) {
		ld->topdir = strndup(name, n);
	} else if (strlen(ld->topdir) != n || strncmp(ld->topdir, name, n)) {
		ld->many_topdirs = true;
	}
}

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	/*
	 * Same name (an error if anything uses it): order by kind, so what is
	 * reported never depends on the order of the archive.
	 */
	return (int)x->kind - (int)y->kind;
}

static struct member *member_find(struct loader *ld, const char *name)
{
	size_t lo = 0, hi = ld->nm;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ld->m[mid].name, name);

		if (c == 0)
			return &ld->m[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_needed(const struct loader *ld, const char *name)
{
	return ld->nneeded &&
	       bsearch(&name, ld->needed, ld->nneeded, sizeof *ld->needed, cmp_str) != NULL;
}

/*
 * capture.ini came at the archive root: from now on, only members that one
 * of its [memory] sections names are worth keeping.  A capture.ini that does
 * not parse keeps nothing more (the load fails anyway).
 */
static void start_filter(struct loader *ld, const struct member *ini)
{
	struct pt_ini *p = NULL;
	uint8_t *text;
	char err[8];

	ld->filter = true;
	if (ini->size > PT_INI_MAX_SIZE)
		return;
	text = malloc(ini->size ? (size_t)ini->size : 1);
	if (!text)
		return;
	member_read_all(ini, text);
	if (pt_ini_parse((const char *)text, (size_t)ini->size, &p, err, sizeof err) == PT_OK) {
		for (size_t i = 0; i < p->nsec; i++) {
			if (strcmp(p->sec[i].type, "memory"))
				continue;
			for (size_t k = 0; k < p->sec[i].nkv; k++) {
				char *path, **n;

				if (strcmp(p->sec[i].kv[k].key, "file"))
					continue;
				path = strdup(p->sec[i].kv[k].value);
				n = realloc(ld->needed, (ld->nneeded + 1) * sizeof *n);
				if (!path || !n) {
					/* Without the full list the filter could drop a needed member. */
					free(path);
					if (n)
						ld->needed = n;
					ld->filter = false;
					goto out;
				}
				ld->needed = n;
				if (pt_path_normalise(path))
					ld->needed[ld->nneeded++] = path;
				else
					free(path);
			}
		}
		if (ld->nneeded)
			qsort(ld->needed, ld->nneeded, sizeof *ld->needed, cmp_str);
	}
out:
	pt_ini_free(p);
	free(text);
}

static const char *type_name(mode_t t)
{
	switch (t) {
	case AE_IFLNK: return "symbolic link";
	case AE_IFCHR: return "character device";
	case AE_IFBLK: return "block device";
	case AE_IFIFO: return "FIFO";
	case AE_IFSOCK: return "socket";
	default: return "special file";
	}
}

/* ---- the archive pass ---- */

static pt_err archive_fail(struct loader *ld, struct archive *a)
{
	const char *s = archive_error_string(a);

	pt_capture_set_error(ld->cap, "%s: %s", ld->path, s ? s : "unreadable archive");
	return PT_E_ARCHIVE;
}

/*
 * Members before capture.ini cannot be told apart (named or not), so they
 * are kept; but only up to PRE_INI_BUDGET bytes of non-zero data in all, so
 * that a large member nobody names costs nothing (issue 16 item 4).  A
 * member cut by the budget is marked with DEFERRED_WHAT: a section naming
 * it fails with "put capture.ini first".
 */
#define PRE_INI_BUDGET (UINT64_C(64) << 20)
static const char deferred_what[] = "member read before capture.ini";

/*
 * Reads the data of the current entry into M (the first block may already
 * be in hand).  More than BUDGET bytes of non-zero chunks: M's data is
 * dropped and it is marked deferred.
 */
static pt_err read_data(struct loader *ld, struct archive *a, struct member *m, bool size_known,
			const void *buf, size_t len, int64_t off, uint64_t budget)
{
	pt_err rc;
	int r;

	for (;;) {
		if (m->nc > budget >> CHUNK_SHIFT) {
			/* over the budget of data kept before capture.ini: keep nothing */
			pt_member_free_data(m);
			m->kind = MK_DROPPED;
			m->what = deferred_what;
			if (size_known)
				return PT_OK;    /* the next header skips the rest */
			budget = 0;
		}
		if (buf && len && m->kind == MK_DROPPED) {
			if (!size_known && off >= 0 && (uint64_t)off + len > m->size)
				m->size = (uint64_t)off + len;
		} else if (buf && len) {
			if (off < 0 || (size_known && (uint64_t)off + len > m->size))
				goto toolong;
			rc = pt_member_write(m, size_known, (uint64_t)off, buf, len);
			if (rc == PT_E_ARCHIVE)
				goto toolong;
			if (rc) {
				pt_capture_set_error(ld->cap, "%s: out of memory reading '%s'", ld->path, m->name);
				return rc;
			}
			if (!size_known && (uint64_t)off + len > m->size)
				m->size = (uint64_t)off + len;
		}
		pt_loader_progress(ld, (uint64_t)archive_filter_bytes(a, -1), false);
		r = archive_read_data_block(a, &buf, &len, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN)
			return archive_fail(ld, a);
	}
	/* The last chunk of a member of unknown size was allocated whole: trim it. */
	if (!size_known && m->nc && m->kind != MK_DROPPED) {
		struct schunk *c = &m->c[m->nc - 1];
		uint64_t want = m->size - (c->idx << CHUNK_SHIFT);

		if (want < c->len) {
			uint8_t *p = realloc(c->data, (size_t)want);

			if (p) {
				c->data = p;
				c->len = (uint32_t)want;
			}
		}
	}
	return PT_OK;
toolong:
	pt_capture_set_error(ld->cap, "%s: member '%s' holds data past its size", ld->path, m->name);
	return PT_E_ARCHIVE;
}

/*
 * The current entry of an uncompressed tar: use the bytes in the mapped file
 * when libarchive's first block is exactly there, else copy.
 */
static pt_err read_regular(struct loader *ld, struct archive *a, struct archive_entry *e,
			   struct member *m, bool inplace_ok, uint64_t budget)
{
	bool size_known = archive_entry_size_is_set(e) && archive_entry_size(e) >= 0;
	const void *buf = NULL;
	size_t len = 0;
	int64_t off = 0;
	int r;

	m->size = size_known ? (uint64_t)archive_entry_size(e) : 0;
	if (inplace_ok && size_known && archive_entry_sparse_count(e) == 0) {
		/* libarchive has consumed the header: the data starts here. */
		int64_t data_off = archive_filter_bytes(a, 0);

		if (m->size == 0) {
			m->kind = MK_INPLACE;
			m->ptr = ld->map;
			return PT_OK;
		}
		r = archive_read_data_block(a, &buf, &len, &off);
		if (r < ARCHIVE_WARN)
			return archive_fail(ld, a);
		if (r == ARCHIVE_OK && data_off >= 0 && off == 0 && len > 0 && len <= m->size &&
		    (uint64_t)data_off <= ld->map_len && m->size <= ld->map_len - (uint64_t)data_off &&
		    memcmp(ld->map + data_off, buf, len) == 0) {
			m->kind = MK_INPLACE;
			m->ptr = ld->map + data_off;
			return PT_OK;    /* the next header skips the rest with a seek */
		}
		if (r == ARCHIVE_EOF)
			buf = NULL, len = 0;
	}
	m->kind = MK_DATA;
	if (buf == NULL) {
		r = archive_read_data_block(a, &buf, &len, &off);
		if (r == ARCHIVE_EOF)
			return PT_OK;
		if (r < ARCHIVE_WARN)
			return archive_fail(ld, a);
	}
	return read_data(ld, a, m, size_known, buf, len, off, budget);
}

/*
 * After the first header: whether members can be read in place, and if so
 * the file mapped.  Only an uncompressed tar has member data verbatim in
 * the file; a failed mmap just means copying.
 */
static bool map_inplace(struct loader *ld, struct archive *a, int fd)
{
	void *p;

	if (archive_filter_count(a) != 1 || archive_filter_code(a, 0) != ARCHIVE_FILTER_NONE ||
	    (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) != ARCHIVE_FORMAT_TAR || ld->total == 0)
		return false;
	p = mmap(NULL, (size_t)ld->total, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED || pt_capture_add_mapping(ld->cap, p, (size_t)ld->total, fd)) {
		if (p != MAP_FAILED)
			munmap(p, (size_t)ld->total);
		return false;
	}
	ld->map = p;
	ld->map_len = ld->total;
	return true;
}

static pt_err scan_archive(struct loader *ld, int fd)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	bool first = true, inplace_ok = false;
	uint64_t prekept = 0;    /* non-zero bytes kept before the filter is known */
	char *name = NULL;
	pt_err rc = PT_OK;

	if (!a) {
		pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
		return PT_E_NOMEM;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
		rc = archive_fail(ld, a);
		goto out;
	}
	for (;;) {
		int r = archive_read_next_header(a, &e);
		const char *raw;
		struct member *m;
		mode_t type;

		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			rc = archive_fail(ld, a);
			goto out;
		}
		pt_loader_progress(ld, (uint64_t)archive_filter_bytes(a, -1), false);
		if (first) {
			first = false;
			inplace_ok = map_inplace(ld, a, fd);
		}
		raw = archive_entry_pathname(e);
		if (!raw) {
			pt_capture_warn(ld->cap, "member with an unreadable name: ignored");
			continue;
		}
		if (strlen(raw) > MAX_MEMBER_NAME) {
			pt_capture_warn(ld->cap, "member '%.64s...' has a name longer than %d bytes: ignored",
			     raw, MAX_MEMBER_NAME);
			continue;
		}
		free(name);
		name = strdup(raw);
		if (!name) {
			pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
			rc = PT_E_NOMEM;
			goto out;
		}
		if (!pt_path_normalise(name)) {
			if (raw[0] == '/')
				pt_capture_warn(ld->cap, "member '%s' has an absolute name: never used", raw);
			else if (strstr(raw, ".."))
				pt_capture_warn(ld->cap, "member '%s' has a '..' component: never used", raw);
			/* else the root directory itself ("./"): nothing to say */
			continue;
		}
		type = archive_entry_filetype(e);
		note_top(ld, name, type == AE_IFDIR);
		if (type == AE_IFDIR)
			continue;
		m = pt_member_new(ld, name);
		if (!m) {
			pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
			rc = PT_E_NOMEM;
			goto out;
		}
		if (archive_entry_hardlink(e)) {
			m->kind = MK_IGNORED;
			m->what = "hard link";
			pt_capture_warn(ld->cap, "member '%s' is a hard link: ignored (only regular files are read)", name);
			continue;
		}
		if (type != AE_IFREG) {
			m->kind = MK_IGNORED;
			m->what = type_name(type);
			pt_capture_warn(ld->cap, "member '%s' is a %s: ignored (only regular files are read)",
			     name, m->what);
			continue;
		}
		if (ld->filter && !is_needed(ld, name)) {
			m->kind = MK_DROPPED;
			m->size = archive_entry_size(e) > 0 ? (uint64_t)archive_entry_size(e) : 0;
			continue;
		}
		rc = read_regular(ld, a, e, m, inplace_ok,
				  ld->filter ? UINT64_MAX : PRE_INI_BUDGET - prekept);
		if (rc)
			goto out;
		if (!ld->filter && m->kind == MK_DATA)
			prekept += (uint64_t)m->nc << CHUNK_SHIFT;
		if (!ld->filter && !strcmp(name, "capture.ini"))
			start_filter(ld, m);
	}
	pt_loader_progress(ld, (uint64_t)archive_filter_bytes(a, -1), true);
out:
	free(name);
	archive_read_free(a);
	return rc;
}

/* Sorts the members by name and folds repeated names into one (count > 1). */
static void merge_members(struct loader *ld)
{
	size_t w = 0;

	if (ld->nm)
		qsort(ld->m, ld->nm, sizeof *ld->m, cmp_member);
	for (size_t i = 0; i < ld->nm; i++) {
		if (w > 0 && !strcmp(ld->m[w - 1].name, ld->m[i].name)) {
			ld->m[w - 1].count++;
			free(ld->m[i].name);
			pt_member_free_data(&ld->m[i]);
			continue;
		}
		ld->m[w++] = ld->m[i];
	}
	ld->nm = w;
}

static pt_err resolve_archive(struct loader *ld, const struct pt_manifest_mem *mm,
			      const char *root, struct member **out)
{
	char *full;
	struct member *m;

	if (asprintf(&full, "%s%s", root, mm->path) < 0)
		return PT_E_NOMEM;
	m = member_find(ld, full);
	free(full);
	if (!m) {
		pt_capture_set_error(ld->cap, "capture.ini:%u: file '%s' of [memory %s] is not in the capture",
			mm->file_line, mm->file, mm->name);
		return PT_E_CAPTURE;
	}
	if (m->count > 1) {
		pt_capture_set_error(ld->cap, "capture.ini:%u: file '%s' of [memory %s] appears %u times in the archive",
			mm->file_line, mm->file, mm->name, m->count);
		return PT_E_CAPTURE;
	}
	if (m->kind == MK_DROPPED && m->what == deferred_what) {
		pt_capture_set_error(ld->cap,
			"capture.ini:%u: file '%s' of [memory %s] comes before capture.ini in the archive, "
			"where ptfs keeps at most %u MiB of data: put capture.ini first",
			mm->file_line, mm->file, mm->name, (unsigned)(PRE_INI_BUDGET >> 20));
		return PT_E_CAPTURE;
	}
	if (m->kind == MK_IGNORED) {
		pt_capture_set_error(ld->cap,
			"capture.ini:%u: file '%s' of [memory %s] is a %s in the capture (only regular files are read)",
			mm->file_line, mm->file, mm->name, m->what);
		return PT_E_CAPTURE;
	}
	*out = m;
	return PT_OK;
}

pt_err pt_loader_load_archive(struct loader *ld, int fd)
{
	struct member *ini_root, *ini_dir = NULL, *ini, *ini_link = NULL;
	char *dirini = NULL, *root = NULL;
	uint8_t *text = NULL;
	pt_err rc;

	rc = scan_archive(ld, fd);
	if (rc)
		return rc;
	merge_members(ld);
	ini_root = member_find(ld, "capture.ini");
	if (ini_root && ini_root->kind == MK_IGNORED && ini_root->count == 1) {
		ini_link = ini_root;   /* a link or device: say so if nothing else is found */
		ini_root = NULL;
	}
	if (ld->topdir && !ld->many_topdirs) {
		if (asprintf(&dirini, "%s/capture.ini", ld->topdir) < 0) {
			pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
			return PT_E_NOMEM;
		}
		ini_dir = member_find(ld, dirini);
		if (ini_dir && ini_dir->kind == MK_IGNORED && ini_dir->count == 1) {
			if (!ini_link)
				ini_link = ini_dir;
			ini_dir = NULL;
		}
	}
	if (ini_root && ini_dir) {
		pt_capture_set_error(ld->cap, "%s: two capture.ini: 'capture.ini' and '%s'", ld->path, dirini);
		rc = PT_E_CAPTURE;
		goto out;
	}
	if (!ini_root && !ini_dir && ini_link) {
		pt_capture_set_error(ld->cap, "%s: %s is a %s; ptfs reads only regular files", ld->path,
			ini_link->name, ini_link->what);
		rc = PT_E_CAPTURE;
		goto out;
	}
	if (!ini_root && !ini_dir && pt_loader_is_gem5_members(ld)) {
		rc = pt_loader_load_gem5_members(ld);   /* an archive of a gem5 checkpoint (capture_src.c) */
		goto out;
	}
	if (!ini_root && !ini_dir) {
		pt_capture_set_error(ld->cap, "%s: no capture.ini at the archive root or in its only top-level directory",
			ld->path);
		rc = PT_E_CAPTURE;
		goto out;
	}
	ini = ini_root ? ini_root : ini_dir;
	if (ini->count > 1) {
		pt_capture_set_error(ld->cap, "%s: '%s' appears %u times in the archive", ld->path, ini->name,
			ini->count);
		rc = PT_E_CAPTURE;
		goto out;
	}
	if (ini->size > PT_INI_MAX_SIZE) {
		pt_capture_set_error(ld->cap, "%s: '%s' is larger than %u MiB", ld->path, ini->name,
			PT_INI_MAX_SIZE >> 20);
		rc = PT_E_CAPTURE;
		goto out;
	}
	text = malloc(ini->size ? (size_t)ini->size : 1);
	if (!text) {
		pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
		rc = PT_E_NOMEM;
		goto out;
	}
	member_read_all(ini, text);
	rc = pt_capture_parse_manifest(ld->cap, (const char *)text, (size_t)ini->size);
	if (rc)
		goto out;
	if (asprintf(&root, "%s%s", ini_dir ? ld->topdir : "", ini_dir ? "/" : "") < 0) {
		pt_capture_set_error(ld->cap, "%s: out of memory", ld->path);
		rc = PT_E_NOMEM;
		goto out;
	}
	rc = pt_loader_bind(ld, resolve_archive, root);
out:
	free(text);
	free(root);
	free(dirini);
	return rc;
}

