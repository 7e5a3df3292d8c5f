/* SPDX-License-Identifier: MIT */
/*
 * capture.c — loading a capture archive or directory (pt_capture.h).
 *
 * An archive is read in ONE streaming pass: which members matter is known
 * only from capture.ini, and capture.ini may come after the blobs.  So every
 * regular member is kept while streaming (its non-zero chunks only, or, for
 * an uncompressed tar, just its offset in an mmap of the file), then
 * capture.ini is parsed and the members it names are bound to regions; the
 * rest are dropped.  When capture.ini is found at the archive root before
 * the blobs, members it does not name are dropped as they stream by.
 *
 * A directory is not walked: capture.ini and the files it names are opened
 * (without following symbolic links) and mapped.
 *
 * Nothing depends on member order except which error wins, and even then
 * errors about capture.ini lines are reported in line order.
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ini.h"
#include "pt_capture.h"

#define CHUNK_SHIFT 16
#define CHUNK_SIZE ((uint64_t)1 << CHUNK_SHIFT)
#define MAX_MEMBER_NAME 4096    /* longer member names are ignored */
#define MAX_WARNINGS 100        /* kept; the rest are counted in one last warning */
#define PROGRESS_NS 250000000L  /* at most four progress calls a second */

/* The non-zero chunks of a copied member, sorted by index. */
struct schunk {
	uint64_t idx;
	uint8_t *data;
	uint32_t len;       /* bytes allocated */
};

enum mkind {
	MK_DATA,            /* regular, data in chunks */
	MK_INPLACE,         /* regular, data at ptr (mmap of the archive) */
	MK_DROPPED,         /* regular, data skipped: no section can name it */
	MK_IGNORED,         /* not a regular file: never used */
};

struct member {
	char *name;         /* normalised */
	enum mkind kind;
	const char *what;   /* MK_IGNORED: "symbolic link", ... */
	uint64_t size;
	const uint8_t *ptr; /* MK_INPLACE */
	struct schunk *c;
	size_t nc, cap;
	unsigned count;     /* occurrences of the name in the archive (after merge) */
	unsigned users;     /* [memory] sections still to bind it */
};

/*
 * An mmap of a file read in place (an uncompressed archive, a directory
 * capture's blob), with a read-only descriptor of the file kept open for
 * pt_capture_guard()'s lease.  `fd` is -1 once the mapping is private.
 */
struct mapping {
	void *p;
	size_t len;
	int fd;
};

struct pt_capture {
	char err[1024];
	char **warn;
	size_t nwarn;
	size_t nwarn_dropped;
	pt_progress_fn progress;
	void *progress_ud;
	bool load_called;

	/* valid after a successful load */
	char *source;
	struct pt_manifest *man;
	struct pt_mem *mem;
	struct pt_region_info *regions;
	size_t nregions;
	struct pt_context *ctx;
	size_t nctx;
	const struct pt_context **ctx_sorted;
	struct mapping *maps;
	size_t nmaps, mapcap;
	bool guarded;           /* pt_capture_guard() was called */
};

/* State of one load. */
struct loader {
	struct pt_capture *cap;
	const char *path;
	struct member *m;
	size_t nm, mcap;
	/* the archive's top level: the first directory name and whether there are more */
	char *topdir;
	bool many_topdirs;
	/* uncompressed tar: the file mapped in place */
	const uint8_t *map;
	uint64_t map_len;
	/* early filter: capture.ini at the root came first; only these names are kept */
	bool filter;
	char **needed;
	size_t nneeded;
	/* directory capture: the capture root */
	int rootfd;
	/* progress */
	uint64_t total;
	struct timespec last;
};

/*
 * Copies S to OUT (LEN bytes) so that it is safe on a terminal: control
 * characters (C0, DEL, C1) and bytes that are not UTF-8 become \xNN.
 * Member names come from the archive and may hold anything.
 */
static void sanitise(char *out, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;

	for (size_t i = 0; i < n && o + 1 < len;) {
		size_t l = pt_utf8_len(p + i, n - i);
		bool c1 = l == 2 && p[i] == 0xc2 && p[i + 1] < 0xa0;

		if (l == 0 || c1 || p[i] < 0x20 || p[i] == 0x7f) {
			size_t k = l ? l : 1;

			for (size_t j = 0; j < k && o + 5 < len; j++)
				o += (size_t)snprintf(out + o, len - o, "\\x%02x", p[i + j]);
			if (o + 5 >= len)
				break;
			i += k;
			continue;
		}
		if (o + l >= len)
			break;
		memcpy(out + o, p + i, l);
		o += l;
		i += l;
	}
	out[o] = 0;
}

static void set_err(struct pt_capture *cap, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct pt_capture *cap, const char *fmt, ...)
{
	char raw[sizeof cap->err];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	sanitise(cap->err, sizeof cap->err, raw);
}

static void warn(struct pt_capture *cap, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct pt_capture *cap, const char *fmt, ...)
{
	va_list ap;
	char *raw, *s, **n;
	size_t len;

	if (cap->nwarn >= MAX_WARNINGS) {
		cap->nwarn_dropped++;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&raw, fmt, ap) < 0)
		raw = NULL;
	va_end(ap);
	if (!raw)
		return;
	len = strlen(raw) * 4 + 1;
	s = malloc(len);
	if (s)
		sanitise(s, len, raw);
	free(raw);
	if (!s)
		return;
	n = realloc(cap->warn, (cap->nwarn + 1) * sizeof *n);
	if (!n) {
		free(s);
		return;
	}
	cap->warn = n;
	cap->warn[cap->nwarn++] = s;
}

struct pt_capture *pt_capture_new(void)
{
	return calloc(1, sizeof(struct pt_capture));
}

/* Frees everything a load built (not the error or the warnings). */
static void unload(struct pt_capture *cap)
{
	pt_mem_free(cap->mem);
	cap->mem = NULL;
	for (size_t i = 0; i < cap->nmaps; i++) {
		munmap(cap->maps[i].p, cap->maps[i].len);
		if (cap->maps[i].fd >= 0)
			close(cap->maps[i].fd);
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
	cap->nctx = 0;
	pt_manifest_free(cap->man);
	cap->man = NULL;
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

/* Records mapping P of LEN bytes of the file open as FD (FD is duplicated, not taken). */
static pt_err add_mapping(struct pt_capture *cap, void *p, size_t len, int fd)
{
	if (cap->nmaps == cap->mapcap) {
		size_t ncap = cap->mapcap ? cap->mapcap * 2 : 8;
		struct mapping *n = realloc(cap->maps, ncap * sizeof *n);

		if (!n)
			return PT_E_NOMEM;
		cap->maps = n;
		cap->mapcap = ncap;
	}
	cap->maps[cap->nmaps].p = p;
	cap->maps[cap->nmaps].len = len;
	/* No descriptor left: pt_capture_guard() then copies the pages at once. */
	cap->maps[cap->nmaps].fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	cap->nmaps++;
	return PT_OK;
}

static void progress(struct loader *ld, uint64_t done, bool force)
{
	struct timespec now;
	long long ns;

	if (!ld->cap->progress)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (long long)(now.tv_sec - ld->last.tv_sec) * 1000000000LL +
	     (now.tv_nsec - ld->last.tv_nsec);
	if (!force && ns < PROGRESS_NS)
		return;
	ld->last = now;
	ld->cap->progress(ld->cap->progress_ud, done, ld->total);
}

/* ---- members ---- */

static void member_free_data(struct member *m)
{
	for (size_t i = 0; i < m->nc; i++)
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
static pt_err member_write(struct member *m, bool size_known, uint64_t off,
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
			if (m->nc == m->cap) {
				size_t ncap = m->cap ? m->cap * 2 : 4;
				struct schunk *nc = realloc(m->c, ncap * sizeof *nc);

				if (!nc)
					return PT_E_NOMEM;
				m->c = nc;
				m->cap = ncap;
			}
			c = &m->c[m->nc];
			c->data = calloc(1, (size_t)clen);
			if (!c->data)
				return PT_E_NOMEM;
			c->idx = idx;
			c->len = (uint32_t)clen;
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

static struct member *member_new(struct loader *ld, const char *name)
{
	struct member *m;

	if (ld->nm == ld->mcap) {
		size_t ncap = ld->mcap ? ld->mcap * 2 : 64;
		struct member *n = realloc(ld->m, ncap * sizeof *n);

		if (!n)
			return NULL;
		ld->m = n;
		ld->mcap = ncap;
	}
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

	set_err(ld->cap, "%s: %s", ld->path, s ? s : "unreadable archive");
	return PT_E_ARCHIVE;
}

/* Reads the data of the current entry into M (the first block may already be in hand). */
static pt_err read_data(struct loader *ld, struct archive *a, struct member *m, bool size_known,
			const void *buf, size_t len, int64_t off)
{
	pt_err rc;
	int r;

	for (;;) {
		if (buf && len) {
			if (off < 0 || (size_known && (uint64_t)off + len > m->size))
				goto toolong;
			rc = member_write(m, size_known, (uint64_t)off, buf, len);
			if (rc == PT_E_ARCHIVE)
				goto toolong;
			if (rc) {
				set_err(ld->cap, "%s: out of memory reading '%s'", ld->path, m->name);
				return rc;
			}
			if (!size_known && (uint64_t)off + len > m->size)
				m->size = (uint64_t)off + len;
		}
		progress(ld, (uint64_t)archive_filter_bytes(a, -1), false);
		r = archive_read_data_block(a, &buf, &len, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN)
			return archive_fail(ld, a);
	}
	/* The last chunk of a member of unknown size was allocated whole: trim it. */
	if (!size_known && m->nc) {
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
	set_err(ld->cap, "%s: member '%s' holds data past its size", ld->path, m->name);
	return PT_E_ARCHIVE;
}

/*
 * The current entry of an uncompressed tar: use the bytes in the mapped file
 * when libarchive's first block is exactly there, else copy.
 */
static pt_err read_regular(struct loader *ld, struct archive *a, struct archive_entry *e,
			   struct member *m, bool inplace_ok)
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
	return read_data(ld, a, m, size_known, buf, len, off);
}

static pt_err scan_archive(struct loader *ld, int fd)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	bool first = true, inplace_ok = false;
	char *name = NULL;
	pt_err rc = PT_OK;

	if (!a) {
		set_err(ld->cap, "%s: out of memory", ld->path);
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
		progress(ld, (uint64_t)archive_filter_bytes(a, -1), false);
		if (first) {
			/* Only an uncompressed tar has member data verbatim in the file. */
			first = false;
			inplace_ok = archive_filter_count(a) == 1 &&
				     archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE &&
				     (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) == ARCHIVE_FORMAT_TAR &&
				     ld->total > 0;
			if (inplace_ok) {
				void *p = mmap(NULL, (size_t)ld->total, PROT_READ, MAP_PRIVATE, fd, 0);

				if (p == MAP_FAILED || add_mapping(ld->cap, p, (size_t)ld->total, fd)) {
					if (p != MAP_FAILED)
						munmap(p, (size_t)ld->total);
					inplace_ok = false;
				} else {
					ld->map = p;
					ld->map_len = ld->total;
				}
			}
		}
		raw = archive_entry_pathname(e);
		if (!raw) {
			warn(ld->cap, "member with an unreadable name: ignored");
			continue;
		}
		if (strlen(raw) > MAX_MEMBER_NAME) {
			warn(ld->cap, "member '%.64s...' has a name longer than %d bytes: ignored",
			     raw, MAX_MEMBER_NAME);
			continue;
		}
		free(name);
		name = strdup(raw);
		if (!name) {
			set_err(ld->cap, "%s: out of memory", ld->path);
			rc = PT_E_NOMEM;
			goto out;
		}
		if (!pt_path_normalise(name)) {
			if (raw[0] == '/')
				warn(ld->cap, "member '%s' has an absolute name: never used", raw);
			else if (strstr(raw, ".."))
				warn(ld->cap, "member '%s' has a '..' component: never used", raw);
			/* else the root directory itself ("./"): nothing to say */
			continue;
		}
		type = archive_entry_filetype(e);
		note_top(ld, name, type == AE_IFDIR);
		if (type == AE_IFDIR)
			continue;
		m = member_new(ld, name);
		if (!m) {
			set_err(ld->cap, "%s: out of memory", ld->path);
			rc = PT_E_NOMEM;
			goto out;
		}
		if (archive_entry_hardlink(e)) {
			m->kind = MK_IGNORED;
			m->what = "hard link";
			warn(ld->cap, "member '%s' is a hard link: ignored (only regular files are read)", name);
			continue;
		}
		if (type != AE_IFREG) {
			m->kind = MK_IGNORED;
			m->what = type_name(type);
			warn(ld->cap, "member '%s' is a %s: ignored (only regular files are read)",
			     name, m->what);
			continue;
		}
		if (ld->filter && !is_needed(ld, name)) {
			m->kind = MK_DROPPED;
			m->size = archive_entry_size(e) > 0 ? (uint64_t)archive_entry_size(e) : 0;
			continue;
		}
		rc = read_regular(ld, a, e, m, inplace_ok);
		if (rc)
			goto out;
		if (!ld->filter && !strcmp(name, "capture.ini"))
			start_filter(ld, m);
	}
	progress(ld, (uint64_t)archive_filter_bytes(a, -1), true);
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
			member_free_data(&ld->m[i]);
			continue;
		}
		ld->m[w++] = ld->m[i];
	}
	ld->nm = w;
}

/* ---- binding capture.ini to members ---- */

static unsigned count_spaces(const struct pt_format *fmt)
{
	unsigned n = 0;

	while (fmt->spaces[n])
		n++;
	return n;
}

/* Looks up the member a [memory] section names, relative to ROOT ("" or "dir/"). */
typedef pt_err (*resolve_fn)(struct loader *ld, const struct pt_manifest_mem *mm,
			     const char *root, struct member **out);

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
		set_err(ld->cap, "capture.ini:%u: file '%s' of [memory %s] is not in the capture",
			mm->file_line, mm->file, mm->name);
		return PT_E_CAPTURE;
	}
	if (m->count > 1) {
		set_err(ld->cap, "capture.ini:%u: file '%s' of [memory %s] appears %u times in the archive",
			mm->file_line, mm->file, mm->name, m->count);
		return PT_E_CAPTURE;
	}
	if (m->kind == MK_IGNORED) {
		set_err(ld->cap,
			"capture.ini:%u: file '%s' of [memory %s] is a %s in the capture (only regular files are read)",
			mm->file_line, mm->file, mm->name, m->what);
		return PT_E_CAPTURE;
	}
	*out = m;
	return PT_OK;
}

static pt_err fill_contexts(struct pt_capture *cap)
{
	const struct pt_manifest *man = cap->man;

	cap->ctx = calloc(man->nctx ? man->nctx : 1, sizeof *cap->ctx);
	cap->ctx_sorted = calloc(man->nctx ? man->nctx : 1, sizeof *cap->ctx_sorted);
	if (!cap->ctx || !cap->ctx_sorted) {
		set_err(cap, "%s: out of memory", cap->source);
		return PT_E_NOMEM;
	}
	for (size_t i = 0; i < man->nctx; i++) {
		const struct pt_manifest_ctx *mc = &man->ctx[i];
		struct pt_context *c = &cap->ctx[i];

		c->name = mc->name;
		c->index = (unsigned)i;
		c->cap = cap;
		c->fmt = man->fmt;
		c->nannotations = mc->nann;
		c->annotations = mc->ann;
		c->ini_line = mc->line;
		if (mc->gart) {
			char buf[512] = "";
			pt_err rc = pt_gart_layout_decode(mc->raw, mc->has, &c->gart, buf, sizeof buf);

			if (rc) {
				set_err(cap, "capture.ini:%u: [gart %s]: %s", mc->line, mc->name,
					buf[0] ? buf : pt_strerror(rc));
				return rc;
			}
			c->root_space = c->gart.table_space;
			c->root_addr = c->gart.table_addr;
			c->root_entries = c->gart.entries;
			c->root_page_shift = 12 + c->gart.bfs;
			c->va_base = c->gart.va_start;
			c->big_page_size = 0;
			pt_gart_space_bias(&c->gart, c->space_bias);
		} else {
			c->root_space = mc->space;
			c->root_addr = mc->address;
			c->root_entries = (uint64_t)1 << man->fmt->levels[0].bits;
			c->root_page_shift = 0;
			c->va_base = 0;
			c->big_page_size = mc->big_page_size;
		}
		cap->ctx_sorted[i] = c;
	}
	cap->nctx = man->nctx;
	return PT_OK;
}

static int cmp_ctx(const void *a, const void *b)
{
	return strcmp((*(const struct pt_context *const *)a)->name,
		      (*(const struct pt_context *const *)b)->name);
}

/* Moves member M's bytes into built region ID; frees the chunks after the last user. */
static pt_err copy_member(struct pt_capture *cap, struct member *m, unsigned id)
{
	bool last = --m->users == 0;

	for (size_t i = 0; i < m->nc; i++) {
		uint64_t off = m->c[i].idx << CHUNK_SHIFT;
		uint64_t n = m->c[i].len;
		pt_err rc;

		if (off < m->size) {
			if (n > m->size - off)
				n = m->size - off;
			/* The last user takes the chunk itself: no second copy. */
			if (last && pt_mem_region_adopt(cap->mem, id, off, m->c[i].data,
							m->c[i].len) == PT_OK) {
				m->c[i].data = NULL;
				continue;
			}
			rc = pt_mem_region_write(cap->mem, id, off, m->c[i].data, (size_t)n);
			if (rc)
				return rc;
		}
		/* Free as we go, so a big member never exists twice in memory. */
		if (last) {
			free(m->c[i].data);
			m->c[i].data = NULL;
		}
	}
	if (last)
		member_free_data(m);
	return PT_OK;
}

/*
 * The shared end of a load: the manifest is in cap->man; bind its [memory]
 * sections through RESOLVE, seal the memory, fill the contexts.
 */
static pt_err bind(struct loader *ld, resolve_fn resolve, const char *root)
{
	struct pt_capture *cap = ld->cap;
	const struct pt_manifest *man = cap->man;
	struct member **mm;
	unsigned a = 0, b = 0, min_entry = 16;
	pt_err rc;

	/* A blob is a set of tables: its size should be whole entries of the smallest kind. */
	for (const struct pt_level *l = man->fmt->levels; l->name; l++)
		if (l->entry_size < min_entry)
			min_entry = l->entry_size;
	/* Context checks need only capture.ini: report them before member problems. */
	rc = fill_contexts(cap);
	if (rc)
		return rc;
	cap->mem = pt_mem_new(count_spaces(man->fmt));
	cap->regions = calloc(man->nmem ? man->nmem : 1, sizeof *cap->regions);
	mm = calloc(man->nmem ? man->nmem : 1, sizeof *mm);
	if (!cap->mem || !cap->regions || !mm) {
		free(mm);
		set_err(cap, "%s: out of memory", ld->path);
		return PT_E_NOMEM;
	}
	/* Every member first, in capture.ini order, so the first bad section is reported. */
	for (size_t i = 0; i < man->nmem; i++) {
		const struct pt_manifest_mem *s = &man->mem[i];

		rc = resolve(ld, s, root, &mm[i]);
		if (rc)
			goto out;
		if (mm[i]->size && mm[i]->size - 1 > UINT64_MAX - s->base) {
			set_err(cap, "capture.ini:%u: [memory %s] of 0x%llx bytes at 0x%llx ends past 2^64",
				s->line, s->name, (unsigned long long)mm[i]->size,
				(unsigned long long)s->base);
			rc = PT_E_VALUE;
			goto out;
		}
		mm[i]->users++;
		if (mm[i]->size % min_entry)
			warn(cap, "[memory %s] (%s): %llu bytes is not a multiple of the %u-byte "
			     "entry size; the last %llu bytes hold no whole entry", s->name, s->file,
			     (unsigned long long)mm[i]->size, min_entry,
			     (unsigned long long)(mm[i]->size % min_entry));
	}
	for (size_t i = 0; i < man->nmem; i++) {
		const struct pt_manifest_mem *s = &man->mem[i];
		struct member *m = mm[i];
		struct pt_region_info *ri = &cap->regions[i];
		unsigned id;

		ri->name = s->name;
		ri->file = s->file;
		ri->space = s->space;
		ri->base = s->base;
		ri->size = m->size;
		ri->in_place = m->kind == MK_INPLACE;
		if (ri->in_place) {
			rc = pt_mem_add_borrowed(cap->mem, s->space, s->base, m->ptr, m->size, &id);
		} else {
			rc = pt_mem_add_built(cap->mem, s->space, s->base, m->size, &id);
			if (!rc)
				rc = copy_member(cap, m, id);
		}
		if (rc) {
			set_err(cap, "%s: out of memory", ld->path);
			goto out;
		}
		cap->nregions++;
	}
	rc = pt_mem_seal(cap->mem, &a, &b);
	if (rc == PT_E_CAPTURE) {
		const struct pt_region_info *x = &cap->regions[a], *y = &cap->regions[b];

		set_err(cap,
			"capture.ini:%u: [memory %s] (%s 0x%llx-0x%llx) overlaps [memory %s] (line %u, 0x%llx-0x%llx)",
			man->mem[b].line, y->name, man->fmt->spaces[y->space],
			(unsigned long long)y->base, (unsigned long long)(y->base + y->size - 1),
			x->name, man->mem[a].line,
			(unsigned long long)x->base, (unsigned long long)(x->base + x->size - 1));
		goto out;
	} else if (rc) {
		set_err(cap, "%s: out of memory", ld->path);
		goto out;
	}
	if (cap->nctx)
		qsort(cap->ctx_sorted, cap->nctx, sizeof *cap->ctx_sorted, cmp_ctx);
	for (size_t i = 0; i < cap->nctx; i++)
		cap->ctx[i].mem = cap->mem;
out:
	free(mm);
	return rc;
}

/* Parses capture.ini (LEN bytes of TEXT) into cap->man. */
static pt_err parse_manifest(struct pt_capture *cap, const char *text, size_t len)
{
	char err[sizeof cap->err];
	pt_err rc = pt_manifest_parse(text, len, &cap->man, err, sizeof err);

	if (rc)
		set_err(cap, "%s", err);
	return rc;
}

static pt_err load_archive(struct loader *ld, int fd)
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
			set_err(ld->cap, "%s: out of memory", ld->path);
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
		set_err(ld->cap, "%s: two capture.ini: 'capture.ini' and '%s'", ld->path, dirini);
		rc = PT_E_CAPTURE;
		goto out;
	}
	if (!ini_root && !ini_dir && ini_link) {
		set_err(ld->cap, "%s: %s is a %s; ptfs reads only regular files", ld->path,
			ini_link->name, ini_link->what);
		rc = PT_E_CAPTURE;
		goto out;
	}
	if (!ini_root && !ini_dir) {
		set_err(ld->cap, "%s: no capture.ini at the archive root or in its only top-level directory",
			ld->path);
		rc = PT_E_CAPTURE;
		goto out;
	}
	ini = ini_root ? ini_root : ini_dir;
	if (ini->count > 1) {
		set_err(ld->cap, "%s: '%s' appears %u times in the archive", ld->path, ini->name,
			ini->count);
		rc = PT_E_CAPTURE;
		goto out;
	}
	if (ini->size > PT_INI_MAX_SIZE) {
		set_err(ld->cap, "%s: '%s' is larger than %u MiB", ld->path, ini->name,
			PT_INI_MAX_SIZE >> 20);
		rc = PT_E_CAPTURE;
		goto out;
	}
	text = malloc(ini->size ? (size_t)ini->size : 1);
	if (!text) {
		set_err(ld->cap, "%s: out of memory", ld->path);
		rc = PT_E_NOMEM;
		goto out;
	}
	member_read_all(ini, text);
	rc = parse_manifest(ld->cap, (const char *)text, (size_t)ini->size);
	if (rc)
		goto out;
	if (asprintf(&root, "%s%s", ini_dir ? ld->topdir : "", ini_dir ? "/" : "") < 0) {
		set_err(ld->cap, "%s: out of memory", ld->path);
		rc = PT_E_NOMEM;
		goto out;
	}
	rc = bind(ld, resolve_archive, root);
out:
	free(text);
	free(root);
	free(dirini);
	return rc;
}

/* ---- directories ---- */

/* Opens PATH under DIRFD without following a symbolic link anywhere on the way. */
static int open_nofollow(int dirfd, const char *path, struct stat *st)
{
	char *copy = strdup(path), *p, *slash;
	int fd = dup(dirfd);

	if (!copy || fd < 0) {
		free(copy);
		if (fd >= 0)
			close(fd);
		errno = ENOMEM;
		return -1;
	}
	for (p = copy; (slash = strchr(p, '/')); p = slash + 1) {
		int nfd;

		*slash = 0;
		nfd = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (nfd < 0) {
			free(copy);
			return -1;
		}
		fd = nfd;
	}
	{
		int nfd = openat(fd, p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		int e = errno;

		close(fd);
		free(copy);
		errno = e;
		if (nfd < 0)
			return -1;
		if (fstat(nfd, st)) {
			e = errno;
			close(nfd);
			errno = e;
			return -1;
		}
		return nfd;
	}
}

/* A member of a directory capture: mapped in place, one member per [memory] section. */
static pt_err resolve_dir(struct loader *ld, const struct pt_manifest_mem *mm,
			  const char *root, struct member **out)
{
	struct stat st;
	struct member *m;
	int fd = open_nofollow(ld->rootfd, mm->path, &st);

	(void)root;
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) {
		set_err(ld->cap,
			"capture.ini:%u: file '%s' of [memory %s] is a symbolic link or under one (only regular files are read)",
			mm->file_line, mm->file, mm->name);
		warn(ld->cap, "file '%s' is a symbolic link: ignored", mm->path);
		return PT_E_CAPTURE;
	}
	if (fd < 0 && errno == ENOENT) {
		set_err(ld->cap, "capture.ini:%u: file '%s' of [memory %s] is not in the capture",
			mm->file_line, mm->file, mm->name);
		return PT_E_CAPTURE;
	}
	if (fd < 0) {
		set_err(ld->cap, "capture.ini:%u: file '%s' of [memory %s]: %s",
			mm->file_line, mm->file, mm->name, strerror(errno));
		return PT_E_IO;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		set_err(ld->cap,
			"capture.ini:%u: file '%s' of [memory %s] is not a regular file (only regular files are read)",
			mm->file_line, mm->file, mm->name);
		return PT_E_CAPTURE;
	}
	m = member_new(ld, mm->path);
	if (!m) {
		close(fd);
		set_err(ld->cap, "%s: out of memory", ld->path);
		return PT_E_NOMEM;
	}
	m->kind = MK_INPLACE;
	m->size = (uint64_t)st.st_size;
	m->ptr = (const uint8_t *)"";
	if (st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			int e = errno;

			close(fd);
			set_err(ld->cap, "capture.ini:%u: file '%s' of [memory %s]: mmap: %s",
				mm->file_line, mm->file, mm->name, strerror(e));
			return PT_E_IO;
		}
		if (add_mapping(ld->cap, p, (size_t)st.st_size, fd)) {
			munmap(p, (size_t)st.st_size);
			close(fd);
			set_err(ld->cap, "%s: out of memory", ld->path);
			return PT_E_NOMEM;
		}
		m->ptr = p;
	}
	close(fd);
	*out = m;
	return PT_OK;
}

/* Reads the regular file NAME under DIRFD (at most PT_INI_MAX_SIZE bytes). */
static pt_err read_small(struct loader *ld, int dirfd, const char *name, char **text, size_t *len)
{
	struct stat st;
	int fd = open_nofollow(dirfd, name, &st);
	size_t got = 0;

	if (fd < 0) {
		set_err(ld->cap, "%s/%s: %s", ld->path, name, strerror(errno));
		return PT_E_IO;
	}
	if (st.st_size > PT_INI_MAX_SIZE) {
		close(fd);
		set_err(ld->cap, "%s: '%s' is larger than %u MiB", ld->path, name, PT_INI_MAX_SIZE >> 20);
		return PT_E_CAPTURE;
	}
	*text = malloc((size_t)st.st_size + 1);
	if (!*text) {
		close(fd);
		set_err(ld->cap, "%s: out of memory", ld->path);
		return PT_E_NOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, *text + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	return PT_OK;
}

/* What kind of thing NAME under DIRFD is, without following links: 'f', 'd', 'l', other or 0. */
static char entry_kind(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (S_ISREG(st.st_mode))
		return 'f';
	if (S_ISDIR(st.st_mode))
		return 'd';
	if (S_ISLNK(st.st_mode))
		return 'l';
	return '?';
}

static pt_err load_dir(struct loader *ld, int dfd)
{
	char *topdir = NULL, *dirini = NULL, *text = NULL;
	int ndirs = 0, dupfd;
	bool at_root, in_dir = false;
	DIR *d;
	struct dirent *de;
	char k;
	size_t len = 0;
	pt_err rc;

	k = entry_kind(dfd, "capture.ini");
	at_root = k == 'f';
	if (k && k != 'f')
		warn(ld->cap, "capture.ini is not a regular file: ignored");
	/* The only top-level directory (stop counting at two). */
	dupfd = dup(dfd);
	d = dupfd >= 0 ? fdopendir(dupfd) : NULL;
	if (!d) {
		if (dupfd >= 0)
			close(dupfd);
		set_err(ld->cap, "%s: %s", ld->path, strerror(errno));
		return PT_E_IO;
	}
	while (ndirs < 2 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type == DT_DIR || (de->d_type == DT_UNKNOWN && entry_kind(dfd, de->d_name) == 'd')) {
			if (ndirs++ == 0)
				topdir = strdup(de->d_name);
		}
	}
	closedir(d);
	if (ndirs == 1 && topdir) {
		if (asprintf(&dirini, "%s/capture.ini", topdir) < 0) {
			free(topdir);
			set_err(ld->cap, "%s: out of memory", ld->path);
			return PT_E_NOMEM;
		}
		{
			int tfd = openat(dfd, topdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (tfd >= 0) {
				in_dir = entry_kind(tfd, "capture.ini") == 'f';
				close(tfd);
			}
		}
	}
	if (at_root && in_dir) {
		set_err(ld->cap, "%s: two capture.ini: 'capture.ini' and '%s'", ld->path, dirini);
		rc = PT_E_CAPTURE;
		goto out;
	}
	if (!at_root && !in_dir && k == 'l') {
		set_err(ld->cap, "%s: capture.ini is a symbolic link; ptfs reads only regular files",
			ld->path);
		rc = PT_E_CAPTURE;
		goto out;
	}
	if (!at_root && !in_dir) {
		set_err(ld->cap, "%s: no capture.ini at the directory root or in its only subdirectory",
			ld->path);
		rc = PT_E_CAPTURE;
		goto out;
	}
	ld->rootfd = in_dir ? openat(dfd, topdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			   : dup(dfd);
	if (ld->rootfd < 0) {
		set_err(ld->cap, "%s: %s", ld->path, strerror(errno));
		rc = PT_E_IO;
		goto out;
	}
	rc = read_small(ld, ld->rootfd, "capture.ini", &text, &len);
	if (rc)
		goto out;
	rc = parse_manifest(ld->cap, text, len);
	if (rc)
		goto out;
	/* resolve_dir adds one member per section: never let the array move under bind(). */
	ld->mcap = ld->cap->man->nmem ? ld->cap->man->nmem : 1;
	ld->m = calloc(ld->mcap, sizeof *ld->m);
	if (!ld->m) {
		set_err(ld->cap, "%s: out of memory", ld->path);
		rc = PT_E_NOMEM;
		goto out;
	}
	rc = bind(ld, resolve_dir, "");
out:
	if (ld->rootfd >= 0)
		close(ld->rootfd);
	free(text);
	free(topdir);
	free(dirini);
	return rc;
}

/*
 * Whether the regular file open as FD is a capture.ini rather than a
 * capture: text (no NUL byte at its start) named so, or text whose first
 * section (after blank and comment lines) is [capture].  Such a file is no archive, and libarchive's
 * "Unrecognized archive format" would not say what to pass instead.
 */
static bool is_bare_ini(const char *path, int fd)
{
	const char *base = strrchr(path, '/');
	char buf[512];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	const char *p = buf;

	base = base ? base + 1 : path;
	if (n < 0)
		return false;
	/* an archive has NUL bytes early (a tar header, a compressor's header) */
	if (memchr(buf, 0, (size_t)n))
		return false;
	if (strcmp(base, "capture.ini") == 0)
		return true;
	buf[n] = 0;
	for (;;) {
		p += strspn(p, " \t\r\n");
		if (*p != ';' && *p != '#')
			break;
		p = strchr(p, '\n');
		if (!p)
			return false;
	}
	return strncmp(p, "[capture]", 9) == 0;
}

/* ---- public ---- */

pt_err pt_capture_load(struct pt_capture *cap, const char *path)
{
	struct loader ld = {.cap = cap, .path = path, .rootfd = -1};
	struct stat st;
	int fd;
	pt_err rc;

	if (!cap || !path)
		return PT_E_USAGE;
	if (cap->load_called) {
		set_err(cap, "%s: a capture is loaded only once", path);
		return PT_E_USAGE;
	}
	cap->load_called = true;
	cap->err[0] = 0;
	cap->source = strdup(path);
	if (!cap->source) {
		set_err(cap, "%s: out of memory", path);
		return PT_E_NOMEM;
	}
	clock_gettime(CLOCK_MONOTONIC, &ld.last);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		set_err(cap, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(cap->source);
		cap->source = NULL;
		return PT_E_IO;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = load_dir(&ld, fd);
	} else if (S_ISREG(st.st_mode) && is_bare_ini(path, fd)) {
		set_err(cap, "%s is a capture.ini, not a capture: pass the directory holding it, "
			"or an archive of that directory", path);
		rc = PT_E_USAGE;
	} else {
		ld.total = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
		rc = load_archive(&ld, fd);
	}
	close(fd);
	for (size_t i = 0; i < ld.nm; i++) {
		free(ld.m[i].name);
		member_free_data(&ld.m[i]);
	}
	free(ld.m);
	free(ld.topdir);
	for (size_t i = 0; i < ld.nneeded; i++)
		free(ld.needed[i]);
	free(ld.needed);
	if (cap->nwarn_dropped) {
		size_t n = cap->nwarn_dropped;

		cap->nwarn_dropped = 0;
		cap->nwarn--;    /* make room: the summary replaces the last one kept */
		free(cap->warn[cap->nwarn]);
		warn(cap, "%zu more warnings not shown", n + 1);
	}
	if (rc) {
		/* Never half loaded: no memory, no contexts. */
		unload(cap);
		return rc;
	}
	return PT_OK;
}

const char *pt_capture_error(const struct pt_capture *cap)
{
	return cap ? cap->err : "";
}

void pt_text_escape(char *out, size_t len, const char *s)
{
	if (!out || !len)
		return;
	sanitise(out, len, s ? s : "");
}

size_t pt_capture_warning_count(const struct pt_capture *cap)
{
	return cap ? cap->nwarn : 0;
}

const char *pt_capture_warning(const struct pt_capture *cap, size_t i)
{
	return cap && i < cap->nwarn ? cap->warn[i] : NULL;
}

const struct pt_format *pt_capture_format(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->fmt : NULL;
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

size_t pt_capture_context_count(const struct pt_capture *cap)
{
	return cap ? cap->nctx : 0;
}

const struct pt_context *pt_capture_context(const struct pt_capture *cap, size_t i)
{
	return cap && i < cap->nctx ? &cap->ctx[i] : NULL;
}

const struct pt_context *pt_capture_context_find(const struct pt_capture *cap, const char *name)
{
	size_t lo = 0, hi;

	if (!cap || !name)
		return NULL;
	hi = cap->nctx;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(cap->ctx_sorted[mid]->name, name);

		if (c == 0)
			return cap->ctx_sorted[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- guarding in-place data --------------------------------------------- */

/*
 * Makes mapping M independent of its file: its bytes are copied into fresh
 * anonymous memory, which mremap() then moves over the file mapping at the
 * same address in one step, so readers on other threads see the same bytes
 * throughout and no pointer into the capture changes.  (Dirtying the
 * MAP_PRIVATE pages is not enough: truncating a file unmaps even the
 * private copies past the new end, and the next read is SIGBUS.)  Only
 * system calls and memcpy: usable from a signal handler.  If memory cannot
 * be had, the mapping stays as it is and the lease is kept, so the writer
 * waits for the kernel's lease-break time rather than the daemon crashing
 * at once.
 */
static void privatize(struct mapping *m)
{
	void *copy;

	if (m->fd < 0)
		return;
	copy = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy == MAP_FAILED)
		return;
	memcpy(copy, m->p, m->len);
	mprotect(copy, m->len, PROT_READ);
	if (mremap(copy, m->len, m->len, MREMAP_MAYMOVE | MREMAP_FIXED, m->p) == MAP_FAILED) {
		munmap(copy, m->len);
		return;
	}
	fcntl(m->fd, F_SETLEASE, F_UNLCK);
	close(m->fd);
	m->fd = -1;
}

pt_err pt_capture_guard(struct pt_capture *cap, int sig)
{
	if (!cap)
		return PT_E_USAGE;
	cap->guarded = true;
	for (size_t i = 0; i < cap->nmaps; i++) {
		struct mapping *m = &cap->maps[i];

		if (m->fd < 0)
			continue;
		/* The break signal carries the descriptor (si_fd) so the handler knows the file. */
		if (sig > 0 && fcntl(m->fd, F_SETSIG, sig) == 0 &&
		    fcntl(m->fd, F_SETOWN, getpid()) == 0 &&
		    fcntl(m->fd, F_SETLEASE, F_RDLCK) == 0)
			continue;
		/* No lease (not the file's owner, a network file system, a writer
		 * already): copy now rather than serve bytes that may change. */
		privatize(m);
	}
	return PT_OK;
}

void pt_capture_guard_break(struct pt_capture *cap, int fd)
{
	if (!cap || fd < 0 || !cap->guarded)
		return;
	for (size_t i = 0; i < cap->nmaps; i++)
		if (cap->maps[i].fd == fd)
			privatize(&cap->maps[i]);
}

size_t pt_capture_guard_pending(const struct pt_capture *cap)
{
	size_t n = 0;

	for (size_t i = 0; cap && i < cap->nmaps; i++)
		n += cap->maps[i].fd >= 0;
	return n;
}
