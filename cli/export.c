/* SPDX-License-Identifier: MIT */
/*
 * export.c — `ptfs-tool export CAPTURE DIR`: the tree the mount shows
 * (docs/design.md §4), written to a real directory, so that
 * `diff -r --no-dereference -x walk MNT DIR` is empty.
 *
 * The tree is core's (core/tree.c), the one fs/ serves: this is only a
 * recursion over pt_tree_list() writing each child as what pt_tree_kind()
 * says it is.  walk/, vs/ and pa/SPACE/ list nothing, so they stay empty.  Files are 0444 and
 * directories 0555, set after a directory is filled.  The tree is written
 * in a temporary directory beside DIR and renamed to DIR when complete
 * (outfile.h): a failure or a ^C leaves neither a partial tree nor its
 * temporary.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"
#include "pt_entries.h"
#include "pt_tree.h"

#define EXPORT_PATH_MAX 4096

static const char export_help[] =
	"Usage: ptfs-tool export [--all-entries] CAPTURE DIR\n"
	"\n"
	"Writes the tree `ptfs CAPTURE MNT` would show to DIR (which must not exist\n"
	"or be empty; a symbolic link is refused): capture, per context info, maps, the table tree and va/\n"
	"symlinks; walk/, vs/ and pa/SPACE/ are left empty.  Files are 0444 and directories 0555, like\n"
	"the mount.  --all-entries (a load option: every command takes it) also lists\n"
	"zero entries and makes devices an IOMMU blocks contexts (mount -o all_entries).\n"
	"Memory: the capture and one file's render (at most 64 MiB, a maps); every\n"
	"entries file is streamed.  Progress goes to stderr when it is a terminal.\n"
	"The tree is written under a temporary name beside DIR and renamed to DIR\n"
	"when complete: a failed or interrupted export leaves nothing.\n";

struct exporter {
	const struct pt_tree *tree;
	struct pt_buf buf;
	/* progress on a terminal (stderr): files and bytes written, when last shown */
	bool progress;
	uint64_t files, bytes;
	struct timespec shown;
	int st;          /* CLI_EXIT_OK until a child fails */
	const char *dir; /* the directory being filled */
	/* of the listing call under way in DIR: children written, the cookie after the last */
	uint64_t listed, next;
};

/* The temporary the tree is written in, and the DIR it becomes: messages name DIR. */
static const char *shown_tmp, *shown_out;

/* PATH under the temporary as the user will know it (under DIR).  Valid until the next call. */
static const char *shown(const char *path)
{
	static char buf[EXPORT_PATH_MAX + 256];
	size_t n = shown_tmp ? strlen(shown_tmp) : 0;

	if (!n || strncmp(path, shown_tmp, n) || (path[n] && path[n] != '/'))
		return path;
	snprintf(buf, sizeof buf, "%s%s", shown_out, path + n);
	return buf;
}

static int mkdir_w(const char *path)
{
	/* Writable while it is filled; the final 0555 comes from seal_dir(). */
	if (mkdir(path, 0755) != 0)
		return cli_fail(PT_E_IO, "%s: mkdir: %s", shown(path), strerror(errno));
	return CLI_EXIT_OK;
}

static int seal_dir(const char *path)
{
	if (chmod(path, 0555) != 0)
		return cli_fail(PT_E_IO, "%s: chmod: %s", shown(path), strerror(errno));
	return CLI_EXIT_OK;
}

/* At most every PROGRESS_NS, on a terminal: how far the export is (one line, redrawn). */
#define PROGRESS_NS 250000000LL

static void progress(struct exporter *x, bool last)
{
	struct timespec now;

	if (!x->progress)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!last && (now.tv_sec - x->shown.tv_sec) * 1000000000LL +
		     (now.tv_nsec - x->shown.tv_nsec) < PROGRESS_NS)
		return;
	x->shown = now;
	fprintf(stderr, "\rptfs-tool export: %llu files, %llu MiB written%s",
		(unsigned long long)x->files, (unsigned long long)(x->bytes >> 20), last ? "\n" : "");
}

/* LEN bytes of DATA to FD (a file being written); errno on failure, 0 on success. */
static int write_all(struct exporter *x, int fd, const char *data, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = outfile_interrupted() ? (errno = EINTR, -1) : write(fd, data + off, len - off);

		if (n < 0 && errno == EINTR && !outfile_interrupted())
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		off += (size_t)n;
		x->bytes += (uint64_t)n;
	}
	progress(x, false);
	return 0;
}

static int open_w(const char *path, int *fd)
{
	*fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (*fd < 0)
		return cli_fail(PT_E_IO, "%s: %s", shown(path), strerror(errno));
	return CLI_EXIT_OK;
}

/* Ends file FD at PATH: 0444, closed; E: the errno of a failed write (0: none). */
static int close_w(struct exporter *x, const char *path, int fd, int e)
{
	if (!e && (fchmod(fd, 0444) != 0 || close(fd) != 0))
		e = errno;
	else if (e)
		close(fd);
	if (e && outfile_interrupted())
		return CLI_EXIT_ERROR;   /* a signal, not a failure: the tree goes, then the signal ends us */
	if (e)
		return cli_fail(PT_E_IO, "%s: %s", shown(path), strerror(e));
	x->files++;
	return CLI_EXIT_OK;
}

static int write_file(struct exporter *x, const char *path, const struct pt_buf *b)
{
	int fd, st;

	if (b->oom)
		return cli_fail(PT_E_NOMEM, "%s: out of memory", shown(path));
	if ((st = open_w(path, &fd)) != CLI_EXIT_OK)
		return st;
	return close_w(x, path, fd, write_all(x, fd, b->data, b->len));
}

/* pt_entries_write() sink: a piece of CTX/entries to the file being written. */
struct entries_out {
	struct exporter *x;
	int fd, err;
};

static bool entries_sink(void *ud, const char *data, size_t len)
{
	struct entries_out *o = ud;

	o->err = write_all(o->x, o->fd, data, len);
	return o->err == 0;
}

/*
 * CTX/entries, streamed as it is rendered: its text can be far larger than
 * memory (2^25 lines, ~14 GB, from one self-pointing table), and the mount
 * never holds it either (core/view/entries.c).
 */
static int write_entries(struct exporter *x, const struct pt_tnode *node, const char *path)
{
	struct entries_out o = {x, -1, 0};
	pt_err err;
	int st;

	if ((st = open_w(path, &o.fd)) != CLI_EXIT_OK)
		return st;
	err = pt_entries_write(x->tree, node->ctx, PT_ENTRIES_LINES_MAX, entries_sink, &o, NULL);
	if (err != PT_OK && !o.err) {
		close(o.fd);
		return cli_fail(err, "%s: cannot render", shown(path));
	}
	return close_w(x, path, o.fd, o.err);
}

static int join(char *out, const char *dir, const char *name)
{
	int n = snprintf(out, EXPORT_PATH_MAX, "%s/%s", dir, name);

	if (n < 0 || n >= EXPORT_PATH_MAX)
		return cli_fail(PT_E_IO, "%s/%s: path too long", shown(dir), name);
	return CLI_EXIT_OK;
}

static int export_dir(struct exporter *x, const struct pt_tnode *dir, const char *path);

/* pt_tree_list() callback: writes one child of X->dir; false (stop) on a failure. */
static bool export_child(void *ud, const char *name, const struct pt_tnode *child, uint64_t next)
{
	struct exporter *x = ud;
	char path[EXPORT_PATH_MAX], target[EXPORT_PATH_MAX];
	pt_err err;

	if (outfile_interrupted()) {
		x->st = CLI_EXIT_ERROR;   /* outfile_abort() removes the tree, then the signal ends us */
		return false;
	}
	x->listed++;
	x->next = next;
	if ((x->st = join(path, x->dir, name)) != CLI_EXIT_OK)
		return false;
	switch (pt_tree_kind(child)) {
	case PT_TK_DIR:
		if ((x->st = mkdir_w(path)) == CLI_EXIT_OK) {
			uint64_t listed = x->listed, after = x->next;

			x->st = export_dir(x, child, path);
			x->listed = listed;
			x->next = after;
		}
		break;
	case PT_TK_LINK:
		err = pt_tree_readlink(x->tree, child, target, sizeof target);
		if (err != PT_OK)
			x->st = cli_fail(err == PT_E_TRUNCATED ? PT_E_IO : err,
					 "%s: no link target", shown(path));
		else if (symlink(target, path) != 0)
			x->st = cli_fail(PT_E_IO, "%s: symlink: %s", shown(path), strerror(errno));
		break;
	default:
		if (child->type == PT_TN_ENTRIES) {
			x->st = write_entries(x, child, path);
			break;
		}
		/* every other file is bounded: maps and info by their 64 MiB render bound */
		pt_buf_reset(&x->buf);
		err = pt_tree_render(x->tree, child, &x->buf, NULL);
		x->st = err != PT_OK ? cli_fail(err, "%s: cannot render", shown(path))
				     : write_file(x, path, &x->buf);
		break;
	}
	return x->st == CLI_EXIT_OK;
}

/* Fills the (existing, writable) directory PATH with DIR's children, then seals it. */
static int export_dir(struct exporter *x, const struct pt_tnode *dir, const char *path)
{
	const char *outer = x->dir;
	uint64_t cookie = 0;
	pt_err err;

	x->dir = path;
	/*
	 * A call may end early (a huge va/ lists a bounded number of entries
	 * per call, as one FUSE readdir does): go on from the last cookie until
	 * a call lists nothing.
	 */
	do {
		x->listed = 0;
		err = pt_tree_list(x->tree, dir, cookie, export_child, x, NULL);
		cookie = x->next;
	} while (err == PT_OK && x->st == CLI_EXIT_OK && x->listed > 0);
	x->dir = outer;
	if (x->st != CLI_EXIT_OK)
		return x->st;
	if (err != PT_OK)
		return cli_fail(err, "%s: cannot list", shown(path));
	return seal_dir(path);
}

int cli_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{"all-entries", no_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct exporter x = {0};
	struct outfile of;
	struct pt_tree *tree = NULL;
	struct pt_tnode root;
	struct pt_capture *cap;
	bool all_entries = false;
	const char *dir;
	pt_err err;
	int c, fd, st = CLI_EXIT_OK;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ha", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(export_help, stdout);
			return CLI_EXIT_OK;
		case 'a':
			all_entries = true;
			break;
		default:
			return cli_opt_error("export", argv, c);
		}
	}
	if (argc - optind != 2)
		return cli_fail(PT_E_USAGE, "export: needs CAPTURE DIR (try 'ptfs-tool export --help')");
	outfile_init(&of, "export", argv[optind + 1], true, false);
	/* Check DIR before the (possibly long) load, write it after: a bad capture leaves nothing. */
	if ((st = outfile_check(&of)) != CLI_EXIT_OK)
		return st;
	if (!cli_load(argv[optind], &cap, false, &st))
		return st;
	if ((st = outfile_open(&of, &fd)) != CLI_EXIT_OK) {
		pt_capture_free(cap);
		return st;
	}
	dir = of.tmp;
	shown_tmp = of.tmp;
	shown_out = of.out;

	err = pt_tree_new(cap, all_entries || cli_all_entries(), &tree);
	if (err != PT_OK) {
		outfile_abort(&of);
		pt_capture_free(cap);
		return cli_fail(err, "export: %s", pt_strerror(err));
	}
	pt_buf_init(&x.buf);
	x.tree = tree;
	x.progress = isatty(STDERR_FILENO);
	pt_tree_root(&root);
	st = export_dir(&x, &root, dir);
	progress(&x, true);
	/* the tree becomes DIR whole, or nothing of it is left */
	if (st == CLI_EXIT_OK)
		st = outfile_commit(&of);
	else
		outfile_abort(&of);
	pt_buf_free(&x.buf);
	pt_tree_free(tree);
	pt_capture_free(cap);
	return st;
}
