/* SPDX-License-Identifier: MIT */
/*
 * archive.c — the archive source: any archive libarchive reads, in ONE
 * streaming pass (docs/design.md §3).
 *
 * Which members matter is known only from capture.ini, and capture.ini may
 * come after the blobs.  So every regular member is kept while streaming
 * (its non-zero chunks only, or, for an uncompressed tar, just its place
 * in an mmap of the file: pt_loader_add_mapped()), then capture.ini is
 * emitted and the loader binds the members it names; the rest are
 * dropped.  When capture.ini is found at the archive root before the
 * blobs, members it does not name are dropped as they stream by.  Data
 * before capture.ini is kept up to a budget; a member over it is dropped,
 * and when capture.ini names it the file is read a second time for just
 * the members it names (second_pass(): member order does not matter,
 * issue #20 item 6).  An
 * archive without capture.ini is offered to the other sources
 * (pt_loader_rebid(): an archive of a gem5 checkpoint or of a umr log).
 * Reading one member's data is archive_member.c.
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

#include "pt_source.h"
#include "archive_int.h"
#include "pt_vec.h"



/* Notes capture.ini candidate NAME (WHAT: not a regular file). */
static pt_err note_ini(struct pt_arch *ar, const char *name, const char *what)
{
	const char *sl = strchr(name, '/');
	const char *base = sl ? sl + 1 : name;

	if (strcmp(base, "capture.ini") || (sl && strchr(base, '/')))
		return PT_OK;
	for (size_t i = 0; i < ar->nini; i++)
		if (!strcmp(ar->ini[i].name, name)) {
			ar->ini[i].count++;
			if (what && !ar->ini[i].what)
				ar->ini[i].what = what;
			return PT_OK;
		}
	if (!pt_vec_reserve(&ar->ini, &ar->inicap, ar->nini + 1, sizeof *ar->ini))
		return PT_E_NOMEM;
	ar->ini[ar->nini].name = strdup(name);
	if (!ar->ini[ar->nini].name)
		return PT_E_NOMEM;
	ar->ini[ar->nini].count = 1;
	ar->ini[ar->nini].what = what;
	ar->nini++;
	return PT_OK;
}

static const struct ini_seen *ini_find(const struct pt_arch *ar, const char *name)
{
	for (size_t i = 0; i < ar->nini; i++)
		if (!strcmp(ar->ini[i].name, name))
			return &ar->ini[i];
	return NULL;
}

static void note_top(struct pt_arch *ar, const char *name, bool is_dir)
{
	const char *slash = strchr(name, '/');
	size_t n;

	if (!slash && !is_dir)
		return;
	n = slash ? (size_t)(slash - name) : strlen(name);
	if (!ar->topdir) {
		ar->topdir = strndup(name, n);
	} else if (strlen(ar->topdir) != n || strncmp(ar->topdir, name, n)) {
		ar->many_topdirs = true;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_needed(const struct pt_arch *ar, const char *name)
{
	return ar->nneeded &&
	       bsearch(&name, ar->needed, ar->nneeded, sizeof *ar->needed, cmp_str) != NULL;
}

/*
 * capture.ini came at the archive root: from now on, only members that one
 * of its [memory] sections names are worth keeping.  A capture.ini that does
 * not parse keeps nothing more (the load fails anyway).
 */
static void start_filter(struct pt_arch *ar)
{
	struct pt_ini *p = NULL;
	char *text = NULL;
	size_t len;
	char err[8];

	/* not kept (over the budget, or too large): no filter, the second pass reads what it names */
	if (pt_loader_member_bytes(ar->ld, "capture.ini", PT_INI_MAX_SIZE, &text, &len))
		return;
	ar->filter = true;
	if (pt_ini_parse(text, len, &p, err, sizeof err) == PT_OK) {
		for (size_t i = 0; i < p->nsec; i++) {
			if (strcmp(p->sec[i].type, "memory"))
				continue;
			for (size_t k = 0; k < p->sec[i].nkv; k++) {
				char *path;

				if (strcmp(p->sec[i].kv[k].key, "file"))
					continue;
				path = strdup(p->sec[i].kv[k].value);
				if (!path || !pt_vec_reserve(&ar->needed, &ar->neededcap, ar->nneeded + 1,
							     sizeof *ar->needed)) {
					/* Without the full list the filter could drop a needed member. */
					free(path);
					ar->filter = false;
					goto out;
				}
				if (pt_path_normalise(path))
					ar->needed[ar->nneeded++] = path;
				else
					free(path);
			}
		}
		if (ar->nneeded)
			qsort(ar->needed, ar->nneeded, sizeof *ar->needed, cmp_str);
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

/* What a [memory] section naming a member of type T (or a hard link) is told. */
static const char *absent_what(mode_t t, bool hardlink)
{
	if (hardlink)
		return "is a hard link in the capture (only regular files are read)";
	switch (t) {
	case AE_IFLNK: return "is a symbolic link in the capture (only regular files are read)";
	case AE_IFCHR: return "is a character device in the capture (only regular files are read)";
	case AE_IFBLK: return "is a block device in the capture (only regular files are read)";
	case AE_IFIFO: return "is a FIFO in the capture (only regular files are read)";
	case AE_IFSOCK: return "is a socket in the capture (only regular files are read)";
	default: return "is a special file in the capture (only regular files are read)";
	}
}

/* ---- the archive pass ---- */
/* One member that is not a regular file (or a hard link): absent, with a warning. */
static pt_err add_special(struct pt_arch *ar, const char *name, mode_t type, bool hardlink)
{
	pt_err rc = note_ini(ar, name, hardlink ? "hard link" : type_name(type));

	if (!rc)
		rc = pt_loader_add_absent(ar->ld, name, absent_what(type, hardlink));
	if (rc)
		return pt_loader_fail(ar->ld, PT_E_NOMEM, "%s: out of memory", ar->path);
	if (hardlink)
		pt_loader_warn(ar->ld, "member '%s' is a hard link: ignored (only regular files are read)", name);
	else
		pt_loader_warn(ar->ld, "member '%s' is a %s: ignored (only regular files are read)", name,
			       type_name(type));
	return PT_OK;
}

static pt_err scan_archive(struct pt_arch *ar)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	bool first = true;
	uint64_t prekept = 0;    /* non-zero bytes kept before the filter is known */
	char *name = NULL;
	pt_err rc = PT_OK;

	if (!a)
		return pt_loader_fail(ar->ld, PT_E_NOMEM, "%s: out of memory", ar->path);
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_fd(a, ar->fd, 65536) != ARCHIVE_OK) {
		rc = pt_arch_fail(ar, a);
		goto out;
	}
	for (;;) {
		int r = archive_read_next_header(a, &e);
		uint64_t kept;
		mode_t type;

		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			rc = pt_arch_fail(ar, a);
			goto out;
		}
		pt_loader_progress(ar->ld, (uint64_t)archive_filter_bytes(a, -1), ar->total, false);
		if (first) {
			first = false;
			ar->inplace_ok = pt_arch_can_inplace(ar, a);
		}
		free(name);
		rc = pt_arch_entry_name(ar, e, &name);
		if (rc)
			goto out;
		if (!name)
			continue;
		type = archive_entry_filetype(e);
		note_top(ar, name, type == AE_IFDIR);
		if (type == AE_IFDIR)
			continue;
		if (archive_entry_hardlink(e) || type != AE_IFREG) {
			rc = add_special(ar, name, type, archive_entry_hardlink(e) != NULL);
			if (rc)
				goto out;
			continue;
		}
		rc = note_ini(ar, name, NULL);
		if (rc) {
			rc = pt_loader_fail(ar->ld, rc, "%s: out of memory", ar->path);
			goto out;
		}
		if (ar->filter && !is_needed(ar, name))
			continue;    /* no section can name it */
		rc = pt_arch_read_regular(ar, a, e, name, ar->filter ? UINT64_MAX : PRE_INI_BUDGET - prekept, &kept);
		if (rc)
			goto out;
		if (!ar->filter)
			prekept += kept << CHUNK_SHIFT;
		if (!ar->filter && !strcmp(name, "capture.ini"))
			start_filter(ar);
	}
	pt_loader_progress(ar->ld, (uint64_t)archive_filter_bytes(a, -1), ar->total, true);
out:
	free(name);
	archive_read_free(a);
	return rc;
}

/*
 * Whether the file is a capture.ini rather than a capture: text (no NUL
 * byte at its start) named so, or text whose first section (after blank
 * and comment lines) is [capture].  Such a file is no archive, and
 * libarchive's "Unrecognized archive format" would not say what to pass
 * instead.
 */
static bool is_bare_ini(const struct pt_probe *p)
{
	const char *base = strrchr(p->path, '/');
	char buf[512];
	size_t n = p->head_len < sizeof buf - 1 ? p->head_len : sizeof buf - 1;
	const char *s = buf;

	base = base ? base + 1 : p->path;
	memcpy(buf, p->head, n);
	/* an archive has NUL bytes early (a tar header, a compressor's header) */
	if (memchr(buf, 0, n))
		return false;
	if (strcmp(base, "capture.ini") == 0)
		return true;
	buf[n] = 0;
	for (;;) {
		s += strspn(s, " \t\r\n");
		if (*s != ';' && *s != '#')
			break;
		s = strchr(s, '\n');
		if (!s)
			return false;
	}
	return strncmp(s, "[capture]", 9) == 0;
}

/* The capture.ini that counts: at the root, or in the only top-level directory. */
static pt_err pick_ini(struct pt_arch *ar, const struct ini_seen **out, bool *in_dir)
{
	const struct ini_seen *root = ini_find(ar, "capture.ini"), *dir = NULL, *link = NULL;
	char *dirini = NULL;
	pt_err rc = PT_OK;

	*out = NULL;
	if (root && root->what && root->count == 1) {
		link = root;   /* a link or device: say so if nothing else is found */
		root = NULL;
	}
	if (ar->topdir && !ar->many_topdirs) {
		if (asprintf(&dirini, "%s/capture.ini", ar->topdir) < 0)
			return pt_loader_fail(ar->ld, PT_E_NOMEM, "%s: out of memory", ar->path);
		dir = ini_find(ar, dirini);
		if (dir && dir->what && dir->count == 1) {
			if (!link)
				link = dir;
			dir = NULL;
		}
	}
	if (root && dir)
		rc = pt_loader_fail(ar->ld, PT_E_CAPTURE, "%s: two capture.ini: 'capture.ini' and '%s'",
				    ar->path, dirini);
	else if (!root && !dir && link)
		rc = pt_loader_fail(ar->ld, PT_E_CAPTURE, "%s: %s is a %s; ptfs reads only regular files",
				    ar->path, link->name, link->what);
	*out = root ? root : dir;
	*in_dir = !root;
	free(dirini);
	return rc;
}

/* ---- the second pass: members over the budget that capture.ini names ---- */

/*
 * Reads the archive again from its start, and of its regular members only
 * those called one of WANT (sorted; every occurrence, so a repeated name
 * is still reported as repeated), with BUDGET bytes of non-zero data each.
 * The first pass made them absent (pt_arch_deferred_what): that is forgotten first.
 * A file that does not seek back is left as it is (they stay absent).
 */
static pt_err reread(struct pt_arch *ar, char **want, size_t nwant, uint64_t budget)
{
	struct archive *a;
	struct archive_entry *e;
	char *name = NULL;
	pt_err rc = PT_OK;

	if (!nwant || lseek(ar->fd, 0, SEEK_SET) != 0)
		return PT_OK;
	a = archive_read_new();
	if (!a)
		return pt_loader_fail(ar->ld, PT_E_NOMEM, "%s: out of memory", ar->path);
	for (size_t i = 0; i < nwant; i++)
		pt_loader_forget_absent(ar->ld, want[i], pt_arch_deferred_what);
	ar->again = true;
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_fd(a, ar->fd, 65536) != ARCHIVE_OK) {
		rc = pt_arch_fail(ar, a);
		goto out;
	}
	for (;;) {
		int r = archive_read_next_header(a, &e);
		uint64_t kept;

		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			rc = pt_arch_fail(ar, a);
			goto out;
		}
		free(name);
		rc = pt_arch_entry_name(ar, e, &name);
		if (rc)
			goto out;
		if (!name || archive_entry_hardlink(e) || archive_entry_filetype(e) != AE_IFREG ||
		    !bsearch(&name, want, nwant, sizeof *want, cmp_str))
			continue;
		rc = pt_arch_read_regular(ar, a, e, name, budget, &kept);
		if (rc)
			goto out;
	}
	pt_loader_progress(ar->ld, (uint64_t)archive_filter_bytes(a, -1), ar->total, true);
out:
	ar->again = false;
	free(name);
	archive_read_free(a);
	return rc;
}

/* Whether NAME was dropped over the budget in the first pass. */
static bool was_deferred(const struct pt_arch *ar, const char *name)
{
	for (size_t i = 0; i < ar->ndeferred; i++)
		if (!strcmp(ar->deferred[i], name))
			return true;
	return false;
}

/*
 * The deferred members the [memory] sections of capture.ini TEXT name
 * (PREFIX: the directory capture.ini is in, "" or "dir/") into *WANT,
 * sorted.  A capture.ini that does not parse wants nothing: its error is
 * reported when it is emitted.
 */
static pt_err wanted(struct pt_arch *ar, const char *text, size_t len, const char *prefix,
		     char ***want, size_t *nwant)
{
	struct pt_ini *p = NULL;
	size_t cap = 0;
	char err[8];
	pt_err rc = PT_OK;

	*want = NULL;
	*nwant = 0;
	if (pt_ini_parse(text, len, &p, err, sizeof err) != PT_OK)
		return PT_OK;
	for (size_t i = 0; i < p->nsec && !rc; i++) {
		if (strcmp(p->sec[i].type, "memory"))
			continue;
		for (size_t k = 0; k < p->sec[i].nkv && !rc; k++) {
			char *path = NULL, *full = NULL;

			if (strcmp(p->sec[i].kv[k].key, "file"))
				continue;
			path = strdup(p->sec[i].kv[k].value);
			if (!path) {
				rc = PT_E_NOMEM;
			} else if (pt_path_normalise(path)) {
				if (asprintf(&full, "%s%s", prefix, path) < 0) {
					full = NULL;
					rc = PT_E_NOMEM;
				} else if (was_deferred(ar, full)) {
					if (!pt_vec_reserve(want, &cap, *nwant + 1, sizeof **want))
						rc = PT_E_NOMEM;
					else
						(*want)[(*nwant)++] = full, full = NULL;
				}
			}
			free(full);
			free(path);
		}
	}
	pt_ini_free(p);
	if (!rc && *nwant)
		qsort(*want, *nwant, sizeof **want, cmp_str);
	return rc;
}

/*
 * Member order does not matter (ptfs-capture(5), Loading): when the first
 * pass dropped members over its budget before capture.ini was seen, the
 * archive — always a regular file here, so it can be read again — is read
 * a second time for the ones capture.ini names (and first, if capture.ini
 * itself was dropped, for it).  Memory stays what capture.ini first would
 * have cost: only named members are kept.
 */
static pt_err second_pass(struct pt_arch *ar)
{
	const struct ini_seen *ini;
	char **want = NULL, *text = NULL, *prefix = NULL, *one;
	size_t nwant = 0, len = 0;
	bool in_dir;
	pt_err rc;

	if (!ar->ndeferred)
		return PT_OK;
	rc = pick_ini(ar, &ini, &in_dir);
	if (rc || !ini || ini->count > 1)
		return rc;    /* archive_ini() says what is wrong */
	one = (char *)ini->name;
	if (was_deferred(ar, one) && (rc = reread(ar, &one, 1, PT_INI_MAX_SIZE + CHUNK_SIZE)))
		return rc;
	if (pt_loader_member_bytes(ar->ld, ini->name, PT_INI_MAX_SIZE, &text, &len) != PT_OK)
		return PT_OK;
	if (asprintf(&prefix, "%s%s", in_dir ? ar->topdir : "", in_dir ? "/" : "") < 0)
		rc = PT_E_NOMEM;
	if (!rc)
		rc = wanted(ar, text, len, prefix, &want, &nwant);
	if (rc)
		rc = pt_loader_fail(ar->ld, rc, "%s: out of memory", ar->path);
	else
		rc = reread(ar, want, nwant, UINT64_MAX);
	for (size_t i = 0; i < nwant; i++)
		free(want[i]);
	free(want);
	free(prefix);
	free(text);
	return rc;
}

static pt_err archive_ini(struct pt_arch *ar)
{
	const struct ini_seen *ini;
	bool in_dir;
	char *text = NULL, *root = NULL;
	size_t len = 0;
	pt_err rc = pick_ini(ar, &ini, &in_dir);

	if (rc)
		return rc;
	if (!ini) {
		/* No capture.ini: an archive of a capture another tool wrote (gem5, umr)? */
		rc = pt_loader_rebid(ar->ld, ar->topdir && !ar->many_topdirs ? ar->topdir : NULL);
		if (rc != PT_E_NOTFOUND)
			return rc;
		return pt_loader_fail(ar->ld, PT_E_CAPTURE,
			"%s: no capture.ini at the archive root or in its only top-level directory", ar->path);
	}
	if (ini->count > 1)
		return pt_loader_fail(ar->ld, PT_E_CAPTURE, "%s: '%s' appears %u times in the archive",
				      ar->path, ini->name, ini->count);
	rc = pt_loader_member_bytes(ar->ld, ini->name, PT_INI_MAX_SIZE, &text, &len);
	if (rc == PT_E_VALUE)
		return pt_loader_fail(ar->ld, PT_E_CAPTURE, "%s: '%s' is larger than %u MiB", ar->path,
				      ini->name, PT_INI_MAX_SIZE >> 20);
	if (rc == PT_E_NOTFOUND)
		return pt_loader_fail(ar->ld, PT_E_CAPTURE, "%s: '%s' %s", ar->path, ini->name, pt_arch_deferred_what);
	if (rc)
		return pt_loader_fail(ar->ld, rc, "%s: out of memory", ar->path);
	rc = pt_loader_emit_ini(ar->ld, text, len, NULL);
	free(text);
	if (!rc && asprintf(&root, "%s%s", in_dir ? ar->topdir : "", in_dir ? "/" : "") < 0)
		rc = PT_E_NOMEM;
	if (!rc)
		rc = pt_loader_set_root(ar->ld, root);
	free(root);
	return rc ? pt_loader_fail(ar->ld, rc, "%s: out of memory", ar->path) : PT_OK;
}

static int archive_bid(const struct pt_probe *p)
{
	/* Any regular file: libarchive tells (the fallback, lowest bid). */
	return p->fd >= 0 && S_ISREG(p->st->st_mode) ? 1 : 0;
}

static pt_err archive_load(struct pt_loader *ld, const struct pt_probe *p)
{
	struct pt_arch ar = {.ld = ld, .path = p->path, .fd = p->fd, .total = (uint64_t)p->st->st_size};
	pt_err rc;

	if (is_bare_ini(p))
		return pt_loader_fail(ld, PT_E_USAGE, "%s is a capture.ini, not a capture: pass the directory "
				      "holding it, or an archive of that directory", p->path);
	rc = scan_archive(&ar);
	if (!rc)
		rc = second_pass(&ar);
	if (!rc)
		rc = archive_ini(&ar);
	free(ar.topdir);
	for (size_t i = 0; i < ar.ndeferred; i++)
		free(ar.deferred[i]);
	free(ar.deferred);
	for (size_t i = 0; i < ar.nneeded; i++)
		free(ar.needed[i]);
	free(ar.needed);
	for (size_t i = 0; i < ar.nini; i++)
		free(ar.ini[i].name);
	free(ar.ini);
	return rc;
}

const struct pt_source pt_source_archive = {
	.name = "archive",
	.kind = NULL,
	.bid = archive_bid,
	.load = archive_load,
};
