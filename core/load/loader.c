/* SPDX-License-Identifier: MIT */
/*
 * loader.c — the loader API capture sources use (pt_source.h): members
 * copied, mapped in place or read on demand; the capture.ini text a
 * source emits, each line with its provenance; errors, warnings, options,
 * progress; the re-bid of an archive's members.  The end of a load
 * (parse, then bind) is loader_bind.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture_int.h"
#include "pt_num.h"

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

/* Frees M's reader state unless the capture took it. */
static void member_free(struct member *m)
{
	free(m->name);
	pt_member_free_data(m);
	if (m->kind == MK_READER && !m->ud_given && m->free_fn)
		m->free_fn(m->ud);
}

static struct member *member_new(struct pt_loader *ld, const char *name)
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
	ld->cur = ld->nm++;
	return m;
}

/*
 * Stores LEN bytes at OFF of member M (offsets increasing); all-zero
 * chunks are never allocated, a chunk is allocated as far as it is
 * written (a small member costs a small allocation).
 */
static pt_err member_write(struct member *m, uint64_t off, const uint8_t *data, size_t len)
{
	while (len) {
		uint64_t idx = off >> CHUNK_SHIFT, in = off & (CHUNK_SIZE - 1);
		size_t n = (size_t)(CHUNK_SIZE - in < len ? CHUNK_SIZE - in : len);
		struct schunk *c = NULL;

		/* Data comes in increasing offsets: look at the end only. */
		if (m->nc && m->c[m->nc - 1].idx == idx)
			c = &m->c[m->nc - 1];
		else if (m->nc && m->c[m->nc - 1].idx > idx)
			return PT_E_USAGE;
		if (!c && !pt_bytes_zero(data, n)) {
			if (!pt_vec_reserve(&m->c, &m->cap, m->nc + 1, sizeof *m->c))
				return PT_E_NOMEM;
			c = &m->c[m->nc];
			c->data = calloc(1, (size_t)(in + n));
			if (!c->data)
				return PT_E_NOMEM;
			c->idx = idx;
			c->len = (uint32_t)(in + n);
			c->lent = false;
			m->nc++;
		}
		if (c && in + n > c->len) {
			if (!pt_vec_resize(&c->data, (size_t)(in + n), 1))
				return PT_E_NOMEM;
			memset(c->data + c->len, 0, (size_t)(in + n - c->len));
			c->len = (uint32_t)(in + n);
		}
		if (c)
			memcpy(c->data + in, data, n);
		off += n;
		data += n;
		len -= n;
	}
	return PT_OK;
}

pt_err pt_loader_add_copy(struct pt_loader *ld, const char *name, uint64_t off,
			  const void *data, size_t len)
{
	struct member *m = ld->cur < ld->nm ? &ld->m[ld->cur] : NULL;
	pt_err rc;

	if (!name || (len && !data) || (len && off > UINT64_MAX - len))
		return PT_E_USAGE;
	if (!m || m->kind != MK_DATA || off < m->size || strcmp(m->name, name)) {
		m = member_new(ld, name);
		if (!m)
			return PT_E_NOMEM;
		m->kind = MK_DATA;
	}
	rc = member_write(m, off, data, len);
	if (rc)
		return rc;
	if (off + len > m->size)
		m->size = off + len;
	return PT_OK;
}

/* Appends the NUL-terminated S to the capture's string pool: its offset, or SIZE_MAX. */
static size_t pool_add(struct pt_capture *cap, const char *s)
{
	size_t n = strlen(s) + 1, at = cap->npool;

	if (!pt_vec_reserve(&cap->pool, &cap->poolcap, cap->npool + n, 1))
		return SIZE_MAX;
	memcpy(cap->pool + at, s, n);
	cap->npool += n;
	return at;
}

pt_err pt_loader_add_region(struct pt_loader *ld, const char *provenance, const char *name,
			    const char *space, uint64_t base, const void *data, size_t len)
{
	struct dregion *d;

	if (!provenance || !name || !space || (len && !data))
		return PT_E_USAGE;
	if (!pt_vec_reserve(&ld->dreg, &ld->dregcap, ld->ndreg + 1, sizeof *ld->dreg) ||
	    !pt_vec_reserve(&ld->ddata, &ld->ddatacap, ld->nddata + len, 1))
		return PT_E_NOMEM;
	d = &ld->dreg[ld->ndreg];
	d->name = pool_add(ld->cap, name);
	d->space = pool_add(ld->cap, space);
	d->prov = pool_add(ld->cap, provenance);
	if (d->name == SIZE_MAX || d->space == SIZE_MAX || d->prov == SIZE_MAX)
		return PT_E_NOMEM;
	d->base = base;
	d->data = ld->nddata;
	d->len = len;
	d->member = SIZE_MAX;
	d->file = SIZE_MAX;
	d->offset = 0;
	if (len)
		memcpy(ld->ddata + ld->nddata, data, len);
	ld->nddata += len;
	ld->ndreg++;
	return PT_OK;
}

pt_err pt_loader_add_window(struct pt_loader *ld, const char *provenance, const char *name,
			    const char *space, uint64_t base, const char *member, uint64_t offset,
			    uint64_t len)
{
	struct dregion *d;
	size_t mi = ld->nm;

	if (!provenance || !name || !space || !member)
		return PT_E_USAGE;
	/* the member the source added last, as a rule (one mapping, many windows) */
	while (mi > 0 && strcmp(ld->m[mi - 1].name, member))
		mi--;
	if (!mi || ld->m[mi - 1].kind != MK_INPLACE)
		return PT_E_USAGE;
	if (!pt_vec_reserve(&ld->dreg, &ld->dregcap, ld->ndreg + 1, sizeof *ld->dreg))
		return PT_E_NOMEM;
	d = &ld->dreg[ld->ndreg];
	d->name = pool_add(ld->cap, name);
	/* one copy of the space and provenance strings a source repeats for every window */
	d->space = ld->ndreg && !strcmp(ld->cap->pool + ld->dreg[ld->ndreg - 1].space, space)
		   ? ld->dreg[ld->ndreg - 1].space : pool_add(ld->cap, space);
	d->prov = ld->ndreg && !strcmp(ld->cap->pool + ld->dreg[ld->ndreg - 1].prov, provenance)
		  ? ld->dreg[ld->ndreg - 1].prov : pool_add(ld->cap, provenance);
	d->file = ld->ndreg && ld->dreg[ld->ndreg - 1].member == mi - 1 ? ld->dreg[ld->ndreg - 1].file
		  : pool_add(ld->cap, ld->m[mi - 1].name);
	if (d->name == SIZE_MAX || d->space == SIZE_MAX || d->prov == SIZE_MAX || d->file == SIZE_MAX)
		return PT_E_NOMEM;
	d->base = base;
	d->data = 0;
	d->len = (size_t)len;
	d->member = mi - 1;
	d->offset = offset;
	ld->ndreg++;
	return PT_OK;
}

/* The mapping of the file open as FD (mapped whole on first use), or NULL. */
static const struct mapping *file_mapping(struct pt_loader *ld, int fd, const struct stat *st)
{
	struct pt_capture *cap = ld->cap;
	void *p;

	for (size_t i = cap->nmaps; i-- > 0;)
		if (cap->maps[i].dev == st->st_dev && cap->maps[i].ino == st->st_ino)
			return &cap->maps[i];
	p = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (pt_capture_add_mapping(cap, p, (size_t)st->st_size, fd)) {
		munmap(p, (size_t)st->st_size);
		return NULL;
	}
	cap->maps[cap->nmaps - 1].dev = st->st_dev;
	cap->maps[cap->nmaps - 1].ino = st->st_ino;
	return &cap->maps[cap->nmaps - 1];
}

pt_err pt_loader_add_mapped(struct pt_loader *ld, const char *name, int fd,
			    uint64_t file_off, uint64_t len)
{
	const struct mapping *map = NULL;
	struct stat st;
	struct member *m;

	if (!name || fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    file_off > (uint64_t)st.st_size || len > (uint64_t)st.st_size - file_off)
		return PT_E_USAGE;
	if (len) {
		map = file_mapping(ld, fd, &st);
		if (!map)
			return PT_E_IO;
	}
	m = member_new(ld, name);
	if (!m)
		return PT_E_NOMEM;
	m->kind = MK_INPLACE;
	m->size = len;
	m->ptr = map ? (const uint8_t *)map->p + file_off : (const uint8_t *)"";
	return PT_OK;
}

pt_err pt_loader_add_live(struct pt_loader *ld, const char *name, int fd, uint64_t len)
{
	struct stat st;
	struct member *m;
	void *p;

	if (!name || fd < 0 || !len || len > SIZE_MAX || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    len > (uint64_t)st.st_size)
		return PT_E_USAGE;
	/*
	 * MAP_SHARED: the guest's writes are seen at the next read.  Recorded
	 * without a descriptor, so that pt_capture_guard() neither leases nor
	 * copies it and no hole is recorded (capture_guard.c).
	 */
	p = mmap(NULL, (size_t)len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return PT_E_IO;
	if (pt_capture_add_mapping(ld->cap, p, (size_t)len, -1)) {
		munmap(p, (size_t)len);
		return PT_E_NOMEM;
	}
	m = member_new(ld, name);
	if (!m)
		return PT_E_NOMEM;
	m->kind = MK_INPLACE;
	m->size = len;
	m->ptr = p;
	return PT_OK;
}

pt_err pt_loader_add_reader(struct pt_loader *ld, const char *name, uint64_t size,
			    pt_read_fn read, void *ud, void (*free_fn)(void *ud))
{
	struct member *m = name && read ? member_new(ld, name) : NULL;

	if (!m) {
		if (free_fn)
			free_fn(ud);
		return name && read ? PT_E_NOMEM : PT_E_USAGE;
	}
	m->kind = MK_READER;
	m->size = size;
	m->read = read;
	m->ud = ud;
	m->free_fn = free_fn;
	return PT_OK;
}

pt_err pt_loader_reader_why(struct pt_loader *ld, const char *name, pt_why_fn why)
{
	struct member *m = ld->nm ? &ld->m[ld->nm - 1] : NULL;

	if (!m || m->kind != MK_READER || !name || strcmp(m->name, name))
		return PT_E_USAGE;
	m->why = why;
	return PT_OK;
}

pt_err pt_loader_add_absent(struct pt_loader *ld, const char *name, const char *what)
{
	struct member *m = ld->cur < ld->nm ? &ld->m[ld->cur] : NULL;

	if (!name || !what)
		return PT_E_USAGE;
	if (m && !strcmp(m->name, name) && m->kind == MK_DATA) {
		pt_member_free_data(m);
	} else {
		m = member_new(ld, name);
		if (!m)
			return PT_E_NOMEM;
	}
	m->kind = MK_ABSENT;
	m->what = what;
	ld->cur = SIZE_MAX;
	return PT_OK;
}

size_t pt_loader_forget_absent(struct pt_loader *ld, const char *name, const char *what)
{
	size_t w = 0, gone = 0;

	for (size_t i = 0; i < ld->nm; i++) {
		struct member *m = &ld->m[i];

		if (m->kind == MK_ABSENT && m->what == what && !strcmp(m->name, name)) {
			/* the sorted prefix stays sorted without one of its members */
			if (i < ld->nsorted)
				gone++;
			member_free(m);
			continue;
		}
		ld->m[w++] = *m;
	}
	ld->nsorted -= gone;
	gone = ld->nm - w;
	ld->nm = w;
	ld->cur = SIZE_MAX;
	return gone;
}

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	/*
	 * Same name (an error if anything uses it): order by kind, so what is
	 * reported never depends on the order of the source.
	 */
	return (int)x->kind - (int)y->kind;
}

/* Sorts the members by name and folds repeated names into one (count > 1). */
void pt_loader_members_merge(struct pt_loader *ld)
{
	size_t w = 0;

	if (ld->nsorted == ld->nm)
		return;
	qsort(ld->m, ld->nm, sizeof *ld->m, cmp_member);
	for (size_t i = 0; i < ld->nm; i++) {
		if (w > 0 && !strcmp(ld->m[w - 1].name, ld->m[i].name)) {
			ld->m[w - 1].count += ld->m[i].count;
			member_free(&ld->m[i]);
			continue;
		}
		ld->m[w++] = ld->m[i];
	}
	ld->nm = ld->nsorted = w;
	ld->cur = SIZE_MAX;
}

/* The member called NAME: the one being written, the sorted ones, then the rest (newest first). */
struct member *pt_loader_member_find(struct pt_loader *ld, const char *name)
{
	size_t lo = 0, hi = ld->nsorted;

	if (ld->cur < ld->nm && !strcmp(ld->m[ld->cur].name, name))
		return &ld->m[ld->cur];
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
	for (size_t i = ld->nm; i-- > ld->nsorted;)
		if (!strcmp(ld->m[i].name, name))
			return &ld->m[i];
	return NULL;
}

/* Copies the first LEN bytes of member M (LEN <= M->size) to OUT; false when they cannot be read. */
static bool member_read(const struct member *m, uint8_t *out, size_t len)
{
	if (m->kind == MK_INPLACE)
		return pt_mem_copy_mapped(out, m->ptr, len);
	if (m->kind == MK_READER)
		return m->read(m->ud, 0, out, len) == PT_OK;
	memset(out, 0, len);
	for (size_t i = 0; i < m->nc; i++) {
		uint64_t off = m->c[i].idx << CHUNK_SHIFT;
		uint64_t n = m->c[i].len;

		if (off >= len)
			break;
		if (n > len - off)
			n = len - off;
		memcpy(out + off, m->c[i].data, (size_t)n);
	}
	return true;
}

pt_err pt_loader_member_bytes(struct pt_loader *ld, const char *name, size_t max,
			      char **out, size_t *len)
{
	struct member *m = name ? pt_loader_member_find(ld, name) : NULL;

	*out = NULL;
	*len = 0;
	if (!m || m->kind == MK_ABSENT)
		return PT_E_NOTFOUND;
	if (m->size > max || m->size > SIZE_MAX - 1)
		return PT_E_VALUE;
	*out = malloc((size_t)m->size + 1);
	if (!*out)
		return PT_E_NOMEM;
	if (!member_read(m, (uint8_t *)*out, (size_t)m->size)) {
		free(*out);
		*out = NULL;
		return PT_E_IO;
	}
	(*out)[m->size] = 0;
	*len = (size_t)m->size;
	return PT_OK;
}

/* ---- capture.ini text ---- */

pt_err pt_loader_emit_ini(struct pt_loader *ld, const char *text, size_t len,
			  const char *provenance)
{
	bool nl = len && text[len - 1] == '\n';

	if (ld->nomem)
		return PT_E_NOMEM;
	if (ld->emitted && ld->generated != (provenance != NULL))
		return PT_E_USAGE;
	ld->emitted = true;
	ld->generated = provenance != NULL;
	if (len > SIZE_MAX - ld->len - 2 ||
	    !pt_vec_reserve(&ld->text, &ld->textcap, ld->len + len + 2, 1))
		goto nomem;
	memcpy(ld->text + ld->len, text, len);
	ld->len += len;
	if (!nl)
		ld->text[ld->len++] = '\n';
	ld->text[ld->len] = 0;
	if (!provenance)
		return PT_OK;
	/* One origin per line of TEXT. */
	for (const char *p = text, *e = text + len; p < e || (p == e && !len);) {
		const char *q = memchr(p, '\n', (size_t)(e - p));

		if (!pt_vec_reserve(&ld->origin, &ld->origincap, ld->nlines + 1, sizeof *ld->origin))
			goto nomem;
		ld->origin[ld->nlines] = strdup(provenance);
		if (!ld->origin[ld->nlines])
			goto nomem;
		ld->nlines++;
		if (!q)
			break;
		p = q + 1;
	}
	return PT_OK;
nomem:
	ld->nomem = true;
	return PT_E_NOMEM;
}

pt_err pt_loader_emitf(struct pt_loader *ld, const char *provenance, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	int n;
	pt_err rc;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0) {
		ld->nomem = true;
		return PT_E_NOMEM;
	}
	rc = pt_loader_emit_ini(ld, line, (size_t)n, provenance);
	free(line);
	return rc;
}

pt_err pt_loader_set_root(struct pt_loader *ld, const char *prefix)
{
	char *r = strdup(prefix ? prefix : "");

	if (!r)
		return PT_E_NOMEM;
	free(ld->root);
	ld->root = r;
	return PT_OK;
}

void pt_loader_set_resolve(struct pt_loader *ld, pt_resolve_fn fn, void *ud, void (*done)(void *ud))
{
	if (ld->resolve_done)
		ld->resolve_done(ld->resolve_ud);
	ld->resolve = fn;
	ld->resolve_ud = ud;
	ld->resolve_done = done;
}

void pt_loader_set_open(struct pt_loader *ld, pt_open_fn fn)
{
	ld->open = fn;
}

bool pt_loader_as_memory(const struct pt_loader *ld)
{
	return ld->as_memory;
}

/* ---- errors, warnings, options, progress ---- */

pt_err pt_loader_fail(struct pt_loader *ld, pt_err rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pt_capture_vset_error(ld->cap, fmt, ap);
	va_end(ap);
	return rc;
}

void pt_loader_warn(struct pt_loader *ld, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pt_capture_vwarn(ld->cap, fmt, ap);
	va_end(ap);
}

const struct pt_load_opts *pt_loader_opts(const struct pt_loader *ld)
{
	return ld->opts;
}

const struct pt_source *pt_source_best(const struct pt_source *const *sources, const struct pt_probe *p)
{
	const struct pt_source *best = NULL;
	int top = 0;

	for (const struct pt_source *const *s = sources; *s; s++) {
		int b = (*s)->bid(p);

		if (b > top) {
			top = b;
			best = *s;
		}
	}
	return best;
}

pt_err pt_loader_check_opts(struct pt_loader *ld, const struct pt_source *const *sources)
{
	char err[256];

	/* every source's own options, whatever the capture: a wrong one fails before a byte is read */
	for (const struct pt_source *const *s = sources; *s; s++) {
		pt_err rc = (*s)->check_opts ? (*s)->check_opts(ld->opts, err, sizeof err) : PT_OK;

		if (rc)
			return pt_loader_fail(ld, rc, "%s", err);
	}
	return PT_OK;
}

void pt_loader_progress(struct pt_loader *ld, uint64_t done, uint64_t total, bool force)
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
	ld->cap->progress(ld->cap->progress_ud, done, total);
}

/* ---- files a source opens ---- */

const char *pt_file_type_name(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "regular file";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "symbolic link";
	case S_IFCHR: return "character device";
	case S_IFBLK: return "block device";
	case S_IFIFO: return "FIFO";
	case S_IFSOCK: return "socket";
	default: return "special file";
	}
}

int pt_loader_open_file(struct pt_loader *ld, int dirfd, const char *name, const char *label,
			struct stat *st)
{
	int fd, e;

	/* Not even opened when it is not a regular file: opening a device can have effects. */
	if (fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st->st_mode)) {
		if (label)
			pt_capture_set_error(ld->cap, "%s: is a %s; ptfs reads only regular files", label,
					     pt_file_type_name(st->st_mode));
		errno = EINVAL;
		return -1;
	}
	fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	e = errno;
	if (fd >= 0 && fstat(fd, st)) {
		e = errno;
		close(fd);
		fd = -1;
	} else if (fd >= 0 && !S_ISREG(st->st_mode)) {
		/* replaced between the two looks */
		close(fd);
		fd = -1;
		e = EINVAL;
		if (label)
			pt_capture_set_error(ld->cap, "%s: is a %s; ptfs reads only regular files", label,
					     pt_file_type_name(st->st_mode));
		errno = e;
		return -1;
	}
	if (fd < 0 && label && e == ELOOP)
		pt_capture_set_error(ld->cap, "%s: is a symbolic link; ptfs reads only regular files", label);
	else if (fd < 0 && label)
		pt_capture_set_error(ld->cap, "%s: %s", label, strerror(e));
	errno = e;
	return fd;
}

/* ---- the archive's re-bid ---- */

pt_err pt_loader_rebid(struct pt_loader *ld, const char *only_dir)
{
	const struct pt_source *best = NULL;
	const char **names;
	struct pt_probe p = {.path = ld->path, .fd = -1, .only_dir = only_dir};
	char *head = NULL;
	size_t n = 0, hlen = 0;
	pt_err rc;

	pt_loader_members_merge(ld);
	names = malloc((ld->nm ? ld->nm : 1) * sizeof *names);
	if (!names)
		return pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", ld->path);
	for (size_t i = 0; i < ld->nm; i++)
		if (ld->m[i].kind != MK_ABSENT)
			names[n++] = ld->m[i].name;
	p.members = names;
	p.nmembers = n;
	if (n == 1) {
		struct member *m = pt_loader_member_find(ld, names[0]);

		hlen = m->size < PT_PROBE_HEAD ? (size_t)m->size : PT_PROBE_HEAD;
		head = malloc(hlen ? hlen : 1);
		if (head && member_read(m, (uint8_t *)head, hlen)) {
			p.head = (const uint8_t *)head;
			p.head_len = hlen;
		}
	}
	best = pt_source_best(ld->sources, &p);
	free(head);
	if (!best) {
		free(names);
		return PT_E_NOTFOUND;
	}
	ld->src = best;
	ld->cap->source_kind = best->kind;
	rc = best->load(ld, &p);
	free(names);
	return rc;
}

void pt_loader_free(struct pt_loader *ld)
{
	for (size_t i = 0; i < ld->nm; i++)
		member_free(&ld->m[i]);
	free(ld->m);
	for (size_t i = 0; i < ld->nlines; i++)
		free(ld->origin[i]);
	free(ld->origin);
	free(ld->dumpline);
	free(ld->text);
	free(ld->root);
	free(ld->dreg);
	free(ld->ddata);
	if (ld->resolve_done)
		ld->resolve_done(ld->resolve_ud);
}
