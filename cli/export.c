/* SPDX-License-Identifier: MIT */
/*
 * export.c — `ptfs-tool export CAPTURE DIR`: the tree the mount shows
 * (DESIGN §4), written to a real directory, so that
 * `diff -r --no-dereference -x walk MNT DIR` is empty.
 *
 * The tree rules, the same ones fs/ follows:
 *   DIR/capture                      pt_render_capture
 *   DIR/CTX/info, DIR/CTX/maps       pt_render_info, pt_render_maps
 *   DIR/CTX/ROOTLEVEL/               the root table (always listed)
 *     N                              a listed entry that is not a pointer: its entry file
 *     N/entry                        a pointer entry: a directory with its entry file
 *     N/LEVEL/                       and one directory per target table whose cover is not NONE
 *   DIR/CTX/va/NAME -> ../PATH       one relative symlink per resolved page
 *   DIR/CTX/walk/                    empty: the mount lists nothing there either
 * Listed entries are the captured non-zero ones (all captured ones with
 * --all-entries), as pt_table_next() gives them.  Files are 0444 and
 * directories 0555, set after a directory is filled.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define EXPORT_PATH_MAX 4096

static const char export_help[] =
	"Usage: ptfs-tool export [--all-entries] CAPTURE DIR\n"
	"\n"
	"Writes the tree `ptfs CAPTURE MNT` would show to DIR (which must not exist\n"
	"or be empty): capture, per context info, maps, the table tree and va/\n"
	"symlinks; walk/ is left empty.  Files are 0444 and directories 0555, like\n"
	"the mount.  --all-entries also lists zero entries (mount -o all_entries).\n";

struct exporter {
	bool all_entries;
	struct pt_buf buf;
};

static int mkdir_w(const char *path)
{
	/* Writable while it is filled; the final 0555 comes from seal_dir(). */
	if (mkdir(path, 0755) != 0)
		return cli_fail(PT_E_IO, "%s: mkdir: %s", path, strerror(errno));
	return CLI_EXIT_OK;
}

static int seal_dir(const char *path)
{
	if (chmod(path, 0555) != 0)
		return cli_fail(PT_E_IO, "%s: chmod: %s", path, strerror(errno));
	return CLI_EXIT_OK;
}

static int write_file(const char *path, const struct pt_buf *b)
{
	int fd, e;

	if (b->oom)
		return cli_fail(PT_E_NOMEM, "%s: out of memory", path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return cli_fail(PT_E_IO, "%s: %s", path, strerror(errno));
	for (size_t off = 0; off < b->len;) {
		ssize_t n = write(fd, b->data + off, b->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n < 0 ? errno : EIO;
			close(fd);
			return cli_fail(PT_E_IO, "%s: %s", path, strerror(e));
		}
		off += (size_t)n;
	}
	if (fchmod(fd, 0444) != 0 || close(fd) != 0) {
		e = errno;
		return cli_fail(PT_E_IO, "%s: %s", path, strerror(e));
	}
	return CLI_EXIT_OK;
}

static int join(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, EXPORT_PATH_MAX, "%s/%s", dir, name);

	if (n < 0 || n >= EXPORT_PATH_MAX)
		return cli_fail(PT_E_IO, "%s/%s: path too long", dir, name);
	return CLI_EXIT_OK;
}

static int render_err(pt_err err, const char *path)
{
	return cli_fail(err, "%s: cannot render", path);
}

/* Writes every listed entry of table T into the (existing) directory DIR. */
static int export_table(struct exporter *x, const struct pt_table *t, const char *dir)
{
	const struct pt_format *fmt = t->ctx->fmt;
	char path[EXPORT_PATH_MAX], sub[EXPORT_PATH_MAX], name[32];
	struct pt_entry e;
	uint64_t idx = 0;
	int st;

	while (idx < t->entries && pt_table_next(t, &idx, x->all_entries, &e)) {
		pt_err err;

		snprintf(name, sizeof name, "%" PRIu64, idx);
		if ((st = join(path, dir, name)) != CLI_EXIT_OK)
			return st;
		pt_buf_reset(&x->buf);
		err = pt_render_entry(&x->buf, t, idx, &e, PT_OUT_TEXT);
		if (err != PT_OK)
			return render_err(err, path);
		if (!pt_entry_is_dir(&e)) {
			if ((st = write_file(path, &x->buf)) != CLI_EXIT_OK)
				return st;
			idx++;
			continue;
		}
		if ((st = mkdir_w(path)) != CLI_EXIT_OK ||
		    (st = join(sub, path, "entry")) != CLI_EXIT_OK ||
		    (st = write_file(sub, &x->buf)) != CLI_EXIT_OK)
			return st;
		for (unsigned which = 0; which < 2; which++) {
			struct pt_table child;

			if (!pt_table_child(t, idx, &e, which, &child) || child.cover == PT_COVER_NONE)
				continue;
			if ((st = join(sub, path, fmt->levels[child.level].name)) != CLI_EXIT_OK ||
			    (st = mkdir_w(sub)) != CLI_EXIT_OK ||
			    (st = export_table(x, &child, sub)) != CLI_EXIT_OK ||
			    (st = seal_dir(sub)) != CLI_EXIT_OK)
				return st;
		}
		if ((st = seal_dir(path)) != CLI_EXIT_OK)
			return st;
		idx++;
	}
	return CLI_EXIT_OK;
}

static int export_va(const struct pt_context *ctx, const char *dir)
{
	char path[EXPORT_PATH_MAX], name[40], target[EXPORT_PATH_MAX];
	struct pt_page_iter it;
	struct pt_page pg;
	int st, n;

	pt_pages_init(&it, ctx, 0);
	while (pt_pages_next(&it, &pg)) {
		pt_va_name(ctx->fmt, pg.va, name, sizeof name);
		memcpy(target, "../", 4);
		n = pt_node_path(&pg.node, target + 3, sizeof target - 3);
		if (n < 0 || (size_t)n >= sizeof target - 3)
			return cli_fail(PT_E_IO, "%s/%s: link target too long", dir, name);
		if ((st = join(path, dir, name)) != CLI_EXIT_OK)
			return st;
		if (symlink(target, path) != 0)
			return cli_fail(PT_E_IO, "%s: symlink: %s", path, strerror(errno));
	}
	return CLI_EXIT_OK;
}

static int export_context(struct exporter *x, const struct pt_context *ctx, const char *root)
{
	char dir[EXPORT_PATH_MAX], path[EXPORT_PATH_MAX];
	struct pt_table t;
	pt_err err;
	int st;

	if ((st = join(dir, root, ctx->name)) != CLI_EXIT_OK || (st = mkdir_w(dir)) != CLI_EXIT_OK)
		return st;

	if ((st = join(path, dir, "info")) != CLI_EXIT_OK)
		return st;
	pt_buf_reset(&x->buf);
	if ((err = pt_render_info(&x->buf, ctx, PT_OUT_TEXT)) != PT_OK)
		return render_err(err, path);
	if ((st = write_file(path, &x->buf)) != CLI_EXIT_OK)
		return st;

	if ((st = join(path, dir, "maps")) != CLI_EXIT_OK)
		return st;
	pt_buf_reset(&x->buf);
	if ((err = pt_render_maps(&x->buf, ctx, PT_OUT_TEXT)) != PT_OK)
		return render_err(err, path);
	if ((st = write_file(path, &x->buf)) != CLI_EXIT_OK)
		return st;

	pt_table_root(ctx, &t);
	if ((st = join(path, dir, ctx->fmt->levels[t.level].name)) != CLI_EXIT_OK ||
	    (st = mkdir_w(path)) != CLI_EXIT_OK ||
	    (st = export_table(x, &t, path)) != CLI_EXIT_OK ||
	    (st = seal_dir(path)) != CLI_EXIT_OK)
		return st;

	if ((st = join(path, dir, "va")) != CLI_EXIT_OK || (st = mkdir_w(path)) != CLI_EXIT_OK ||
	    (st = export_va(ctx, path)) != CLI_EXIT_OK || (st = seal_dir(path)) != CLI_EXIT_OK)
		return st;

	if ((st = join(path, dir, "walk")) != CLI_EXIT_OK || (st = mkdir_w(path)) != CLI_EXIT_OK ||
	    (st = seal_dir(path)) != CLI_EXIT_OK)
		return st;
	return seal_dir(dir);
}

/* DIR must not exist (it is created) or be an empty directory. */
static int prepare_dir(const char *dir)
{
	struct stat sb;
	struct dirent *de;
	DIR *d;

	if (stat(dir, &sb) != 0) {
		if (errno != ENOENT)
			return cli_fail(PT_E_IO, "%s: %s", dir, strerror(errno));
		return mkdir_w(dir);
	}
	if (!S_ISDIR(sb.st_mode))
		return cli_fail(PT_E_USAGE, "export: %s exists and is not a directory", dir);
	d = opendir(dir);
	if (!d)
		return cli_fail(PT_E_IO, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			closedir(d);
			return cli_fail(PT_E_USAGE, "export: %s is not empty", dir);
		}
	}
	closedir(d);
	return CLI_EXIT_OK;
}

int cli_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{"all-entries", no_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct exporter x = {0};
	char path[EXPORT_PATH_MAX];
	struct pt_capture *cap;
	const char *dir;
	pt_err err;
	int c, st = CLI_EXIT_OK;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ha", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(export_help, stdout);
			return CLI_EXIT_OK;
		case 'a':
			x.all_entries = true;
			break;
		default:
			return cli_opt_error("export", argv, c);
		}
	}
	if (argc - optind != 2)
		return cli_fail(PT_E_USAGE, "export: needs CAPTURE DIR (try 'ptfs-tool export --help')");
	dir = argv[optind + 1];
	/* Check DIR before the (possibly long) load, create it after: a bad capture leaves nothing. */
	{
		struct stat sb;

		if (stat(dir, &sb) == 0 && (st = prepare_dir(dir)) != CLI_EXIT_OK)
			return st;
	}
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	if ((st = prepare_dir(dir)) != CLI_EXIT_OK) {
		pt_capture_free(cap);
		return st;
	}

	pt_buf_init(&x.buf);
	if ((st = join(path, dir, "capture")) == CLI_EXIT_OK) {
		err = pt_render_capture(&x.buf, cap, PT_OUT_TEXT);
		st = err != PT_OK ? render_err(err, path) : write_file(path, &x.buf);
	}
	for (size_t i = 0; i < pt_capture_context_count(cap) && st == CLI_EXIT_OK; i++)
		st = export_context(&x, pt_capture_context(cap, i), dir);
	if (st == CLI_EXIT_OK)
		st = seal_dir(dir);
	pt_buf_free(&x.buf);
	pt_capture_free(cap);
	return st;
}
