/* SPDX-License-Identifier: MIT */
/*
 * main.c — ptfs [options] CAPTURE MOUNTPOINT
 *
 * The canonical low-level order, unwound in reverse with goto:
 * parse options -> load and validate the whole capture -> session_new ->
 * signal handlers -> mount -> daemonize -> loop -> unmount.  The capture is
 * loaded BEFORE anything is mounted, so a bad capture exits 2 with one
 * `ptfs: E_XXX: ...` line and leaves no mount behind.  The mount point's
 * checks are mountpoint.c.
 */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/fuse.h>

#include <fuse_lowlevel.h>
#include <fuse_opt.h>

#include "ptfs.h"
#include "ptfs_config.h"
#include "pt_linux.h"
#include "pt_num.h"

#define EXIT_BAD 2      /* bad arguments or an unusable capture (docs/design.md §5) */
#define EXIT_RUNTIME 1  /* the mount or the session failed */

/*
 * The default budget of cached renders: one maps render is at most 64 MiB
 * (man/ptfs.1 Resources), and the daemon's memory goal is 2x the capture's
 * non-zero bytes + 64 MiB (bench/README.md), so the larger of 256 MiB (four
 * such renders) and that.
 */
#define CACHE_MAX_MIN ((uint64_t)256 << 20)
#define CACHE_MAX_OVER ((uint64_t)64 << 20)
/* allocations from this size up are their own mappings, unmapped when freed (glibc's default start) */
#define PTFS_MMAP_THRESHOLD (128 * 1024)

#define PTFS_OPT(t, p, v) { t, offsetof(struct ptfs_opts, p), v }

/*
 * Our options; everything else goes on to fuse_parse_cmdline() and
 * fuse_session_new().  fstab noise that mount(8)/mount.fuse3 may hand us is
 * discarded here so `fuse.ptfs` lines work: ro is kept (we add it anyway),
 * rw is dropped because ptfs is always read-only.
 */
static const struct fuse_opt ptfs_opt_table[] = {
	PTFS_OPT("all_entries", all_entries, 1),
	/* kept for fuse_session_new() too: init() must repeat it (ops.c) */
	PTFS_OPT("max_read=%u", max_read, 0),
	PTFS_OPT("gfx=%u", gfx, 0),
	PTFS_OPT("asic=%s", asic, 0),
	PTFS_OPT("tbi=%s", tbi, 0),
	PTFS_OPT("cache_max=%s", cache_max, 0),
	PTFS_OPT("max_contexts=%s", max_contexts, 0),
	PTFS_OPT("strict", strict, 1),
	PTFS_OPT("notasks", notasks, 1),
	PTFS_OPT("system_map=%s", system_map, 0),
	PTFS_OPT("task=%s", task, 0),
	PTFS_OPT("refresh=%s", refresh, 0),
	PTFS_OPT("pause", pause, 1),
	FUSE_OPT_KEY("max_read=", FUSE_OPT_KEY_KEEP),
	FUSE_OPT_KEY("defaults", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("auto", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("noauto", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("user", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("nouser", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("users", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("_netdev", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("nofail", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_KEY("rw", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_END
};

static void usage(FILE *out)
{
	fputs("usage: ptfs [options] CAPTURE MOUNTPOINT\n"
	      "\n"
	      "Mounts a capture archive of GPU page tables read-only (see ptfs(1)).\n"
	      "\n"
	      "ptfs options:\n"
	      "    -o all_entries         list zero (unmapped) entries in table directories too, and\n"
	      "                           make devices an IOMMU blocks or aborts contexts\n"
	      "    -o gfx=N               GFX generation (9-12) of a umr log\n"
	      "    -o asic=NAME           the same, by umr ASIC name (vega10, navi10, ...)\n"
	      "    -o tbi=0|1             TCR_EL1.TBI1 of an arm64 dump's kernel context (the\n"
	      "                           dump does not hold it; default: unknown)\n"
	      "    -o cache_max=SIZE      memory for the renders of capture, info, maps and\n"
	      "                           entries of every context together, least recently\n"
	      "                           used dropped first (default: the larger of 256M and\n"
	      "                           2 x the capture's non-zero bytes + 64M)\n"
	      "    -o max_contexts=N      device contexts the capture's [iommu] sections make\n"
	      "                           together at most (default 262144; each section's\n"
	      "                           own bound: its max_contexts key)\n"
	      "    -o strict              refuse (mount nothing) when a context's root table\n"
	      "                           is not captured; without it: a warning\n"
	      "    -o notasks             no directory pidN per process of a Linux dump (its\n"
	      "                           BTF and task list are not read)\n"
	      "    -o system_map=FILE     the dump's kernel's System.map: init_task when kallsyms\n"
	      "                           (VMCOREINFO) and the vCPUs' registers give no task list\n"
	      "    -o task=PID            of a Linux guest's processes, the context pidPID alone\n"
	      "    -o refresh=SECONDS     a live guest (CAPTURE a QEMU QMP socket): how long\n"
	      "                           renders and names hold before they are made again\n"
	      "                           (default 1)\n"
	      "    -o pause               a live guest: stop it while a whole-context file\n"
	      "                           (maps, entries, info, ...) renders\n"
	      "\n", out);
}

static int opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct ptfs_opts *o = data;

	switch (key) {
	case FUSE_OPT_KEY_NONOPT:
		if (!o->capture) {
			o->capture = strdup(arg);
			return o->capture ? 0 : -1;
		}
		if (!o->mountpoint) {
			o->mountpoint = strdup(arg);
			return o->mountpoint ? 1 : -1;   /* keep: fuse_parse_cmdline takes it */
		}
		o->extra_nonopt++;
		return 0;
	case FUSE_OPT_KEY_OPT:
		/* fstab annotations (x-systemd.*, comment=) are not mount options */
		if (strncmp(arg, "x-", 2) == 0 || strncmp(arg, "comment=", 8) == 0)
			return 0;
		return 1;
	default:
		return 1;
	}
}

static void die_usage(const char *what)
{
	fprintf(stderr, "ptfs: E_USAGE: %s\n", what);
	fputs("usage: ptfs [options] CAPTURE MOUNTPOINT (ptfs -h for help)\n", stderr);
}

/*
 * A load problem in ptfs-tool's form, `ptfs: E_XXX: CAPTURE: message`:
 * the capture named once, escaped, whether or not the core's line starts with it.
 */
static void load_fail(const struct ptfs *fs, pt_err err, const char *msg)
{
	char *path = ptfs_escaped(fs->opts.capture);
	const char *p = path ? path : "?";

	if (!msg || !*msg)
		msg = pt_strerror(err);
	if (strncmp(msg, p, strlen(p)) == 0)
		fprintf(stderr, "ptfs: %s: %s\n", pt_errname(err), msg);
	else
		fprintf(stderr, "ptfs: %s: %s: %s\n", pt_errname(err), p, msg);
	free(path);
}

struct progress {
	const char *path;
	bool shown;
};

static void on_progress(void *ud, uint64_t done, uint64_t total)
{
	struct progress *p = ud;
	char line[4 * PATH_MAX + 64]; /* the path arrives escaped: up to 4 bytes per byte */

	pt_progress_str(p->path, done, total, line, sizeof line);
	fprintf(stderr, "\rptfs: %s", line);
	p->shown = true;
}

/*
 * A context whose root table has no captured byte mounts an empty top
 * directory: say so before mounting, one line each (the core's wording,
 * ptfs-tool's too), and under -o strict refuse.  False when refused.
 */
static bool roots_said(const struct ptfs *fs, const char *path)
{
	bool refused = false;

	for (size_t i = 0; i < pt_capture_context_count(fs->cap); i++) {
		char msg[512];

		if (!pt_context_root_missing(pt_capture_context(fs->cap, i), msg, sizeof msg))
			continue;
		if (fs->opts.strict)
			fprintf(stderr, "ptfs: %s: %s: %s (-o strict)\n", pt_errname(PT_E_CAPTURE), path, msg);
		else
			fprintf(stderr, "ptfs: warning: %s: %s\n", path, msg);
		refused |= fs->opts.strict != 0;
	}
	return !refused;
}

/* -o max_contexts=N into *N (0: not given); false (the line printed) when it is no such number. */
static bool max_contexts(const struct ptfs *fs, uint64_t *n)
{
	char *e;

	*n = 0;
	if (!fs->opts.max_contexts || (pt_num_parse(fs->opts.max_contexts, PT_NUM_RULE, n) && *n &&
				       *n <= PT_MAX_CONTEXTS_LIMIT))
		return true;
	e = ptfs_escaped(fs->opts.max_contexts);
	fprintf(stderr, "ptfs: E_USAGE: -o max_contexts=%s: not a number of contexts from 1 to %u\n",
		e ? e : "?", PT_MAX_CONTEXTS_LIMIT);
	free(e);
	return false;
}

/* -o task=PID into *PID (0: not given); false (the line printed) when it is no process id. */
static bool task_opt(const struct ptfs *fs, uint64_t *pid)
{
	char *e;

	*pid = 0;
	/* PID_MAX_LIMIT is 2^22 (include/linux/threads.h) */
	if (!fs->opts.task || (pt_num_parse(fs->opts.task, PT_NUM_DEC, pid) && *pid <= (1u << 22)))
		return true;
	e = ptfs_escaped(fs->opts.task);
	fprintf(stderr, "ptfs: E_USAGE: -o task=%s: not a process id (a decimal number up to 4194304)\n",
		e ? e : "?");
	free(e);
	return false;
}

/* Loads and validates everything; on failure prints the one line and returns false. */
/* -o tbi= and -o system_map= as given: one line and false when either is unusable. */
static bool load_opts_ok(const struct ptfs *fs)
{
	if (fs->opts.tbi && strcmp(fs->opts.tbi, "0") && strcmp(fs->opts.tbi, "1")) {
		fprintf(stderr, "ptfs: E_USAGE: -o tbi=%s: TBI is 0 or 1\n", fs->opts.tbi);
		return false;
	}
	if (fs->opts.system_map && access(fs->opts.system_map, R_OK)) {
		fprintf(stderr, "ptfs: E_USAGE: -o system_map=%s: %s\n", fs->opts.system_map, strerror(errno));
		return false;
	}
	return true;
}

static bool load(struct ptfs *fs)
{
	char *shown = ptfs_escaped(fs->opts.capture);
	struct progress prog = { shown ? shown : "?", false };
	char why[256], warn[512];
	struct stat st;
	uint64_t maxctx, task;
	pt_err err;

	fs->cap = pt_capture_new();
	if (!fs->cap) {
		fprintf(stderr, "ptfs: %s: %s\n", pt_errname(PT_E_NOMEM), pt_strerror(PT_E_NOMEM));
		return false;
	}
	if (isatty(STDERR_FILENO))
		pt_capture_set_progress(fs->cap, on_progress, &prog);
	if (fs->opts.gfx && (fs->opts.gfx < 9 || fs->opts.gfx > 12)) {
		fprintf(stderr, "ptfs: E_USAGE: -o gfx=%u: the GFX generation is 9, 10, 11 or 12\n", fs->opts.gfx);
		free(shown);
		return false;
	}
	if (!load_opts_ok(fs)) {
		free(shown);
		return false;
	}
	if (!max_contexts(fs, &maxctx) || !task_opt(fs, &task) || !ptfs_live_opts(fs)) {
		free(shown);
		return false;
	}
	err = pt_capture_load_opts(fs->cap, fs->opts.capture,
				   &(struct pt_load_opts){.gfx = fs->opts.gfx,
							  .asic = fs->opts.asic,
							  .tbi = fs->opts.tbi ? 1u + (fs->opts.tbi[0] == '1') : 0,
							  .max_contexts = maxctx,
							  .all_entries = fs->opts.all_entries != 0,
							  .system_map = fs->opts.system_map,
							  .task_given = fs->opts.task != NULL,
							  .task = (uint32_t)task,
							  /* a Linux dump's processes as contexts pidN */
							  .after_load = fs->opts.notasks ? NULL : pt_linux_expand});
	if (prog.shown)
		fputs("\n", stderr);
	if (err != PT_OK) {
		load_fail(fs, err, pt_capture_error(fs->cap));
		free(shown);
		return false;
	}
	for (size_t i = 0; i < pt_capture_warning_count(fs->cap); i++)
		fprintf(stderr, "ptfs: warning: %s: %s\n", prog.path, pt_capture_warning(fs->cap, i));
	if (!ptfs_live_setup(fs) || !roots_said(fs, prog.path)) {
		free(shown);
		return false;
	}
	free(shown);

	/* a live guest's: room for the processes a refresh adds (fs/ino.c ptfs_ino_grow()) */
	fs->nctx = pt_capture_context_room(fs->cap);
	fs->nready = pt_capture_context_count(fs->cap);
	fs->ctx = calloc(fs->nctx ? fs->nctx : 1, sizeof(*fs->ctx));
	if (!fs->ctx) {
		fprintf(stderr, "ptfs: %s: %s\n", pt_errname(PT_E_NOMEM), pt_strerror(PT_E_NOMEM));
		return false;
	}
	for (size_t i = 0; i < fs->nctx; i++) {
		ptfs_cache_init(&fs->ctx[i].info);
		ptfs_cache_init(&fs->ctx[i].maps);
		ptfs_cache_init(&fs->ctx[i].entries);
		ptfs_cache_init(&fs->ctx[i].svg);
	}
	if (!fs->opts.cache_max) {
		uint64_t nz = pt_mem_resident(pt_capture_mem(fs->cap));

		fs->lru.max = nz < (UINT64_MAX >> 2) ? 2 * nz + CACHE_MAX_OVER : UINT64_MAX;
		if (fs->lru.max < CACHE_MAX_MIN)
			fs->lru.max = CACHE_MAX_MIN;
	}
	for (size_t i = 0; i < fs->nready; i++) {
		const struct pt_context *ctx = pt_capture_context(fs->cap, i);

		err = ptfs_ino_setup(&fs->ctx[i], ctx, (unsigned)i, why, sizeof(why));
		if (err != PT_OK) {
			load_fail(fs, err, why);
			return false;
		}
		/* the root holds the file `capture`: a context of that name could not be reached */
		if (strcmp(ctx->name, "capture") == 0) {
			snprintf(why, sizeof why, "capture.ini:%u: context name 'capture' is reserved "
				 "by the mount", ctx->ini_line);
			load_fail(fs, PT_E_VALUE, why);
			return false;
		}
	}
	err = pt_tree_new(fs->cap, fs->opts.all_entries != 0, &fs->tree);
	if (err != PT_OK) {
		fprintf(stderr, "ptfs: %s: %s\n", pt_errname(err), pt_strerror(err));
		return false;
	}
	err = ptfs_ino_check(fs, why, sizeof(why), warn, sizeof(warn));
	if (err != PT_OK) {
		load_fail(fs, err, why);
		return false;
	}
	if (warn[0]) {
		char *p = ptfs_escaped(fs->opts.capture);

		fprintf(stderr, "ptfs: warning: %s: %s\n", p ? p : "?", warn);
		free(p);
	}
	fs->uid = getuid();
	fs->gid = getgid();
	if (stat(fs->opts.capture, &st) == 0)
		fs->time = st.st_mtim;
	return true;
}

static void unload(struct ptfs *fs)
{
	if (fs->ctx) {
		for (size_t i = 0; i < fs->nctx; i++) {
			ptfs_cache_destroy(fs, &fs->ctx[i].info);
			ptfs_cache_destroy(fs, &fs->ctx[i].maps);
			ptfs_cache_destroy(fs, &fs->ctx[i].entries);
			ptfs_cache_destroy(fs, &fs->ctx[i].svg);
			ptfs_vs_destroy(fs, &fs->ctx[i]);
		}
		free(fs->ctx);
	}
	ptfs_cache_destroy(fs, &fs->capfile);
	ptfs_cache_destroy(fs, &fs->tasksfile);
	ptfs_lru_destroy(&fs->lru);
	pthread_mutex_destroy(&fs->vs_lock);
	pt_tree_free(fs->tree);
	pt_capture_free(fs->cap);
	ptfs_opens_free(fs);
	ptfs_wslots_free(fs->wslots);
	free(fs->opts.cache_max);
	free(fs->opts.max_contexts);
	free(fs->opts.task);
	free(fs->opts.capture);
	free(fs->opts.mountpoint);
	free(fs->opts.asic);
	free(fs->opts.tbi);
	free(fs->opts.system_map);
	free(fs->opts.refresh);
}

/* -o ro,default_permissions,fsname=CAPTURE: read-only, kernel-checked modes, named in mount(8). */
static int add_mount_opts(struct fuse_args *args, const char *capture)
{
	char *o = NULL;
	int ret = -1;

	if (fuse_opt_add_opt(&o, "ro") == -1 ||
	    fuse_opt_add_opt(&o, "default_permissions") == -1)
		goto out;
	{
		size_t n = strlen(capture) + sizeof("fsname=");
		char *fsname = malloc(n);

		if (!fsname)
			goto out;
		snprintf(fsname, n, "fsname=%s", capture);
		ret = fuse_opt_add_opt_escaped(&o, fsname);
		free(fsname);
		if (ret == -1)
			goto out;
	}
	ret = -1;
	if (fuse_opt_add_arg(args, "-o") == -1 || fuse_opt_add_arg(args, o) == -1)
		goto out;
	ret = 0;
out:
	free(o);
	return ret;
}

/*
 * The loop as -o max_threads / max_idle_threads asked.  libfuse 3.14 prints
 * "Ignoring invalid max threads value" for the "not given" idle value
 * (UINT_MAX), so it is passed on only when given; a value libfuse would
 * ignore is refused instead of guessed around.
 */
#define PTFS_MAX_THREADS 100000   /* libfuse's FUSE_LOOP_MT_MAX_THREADS */

static bool loop_opts_ok(const struct fuse_cmdline_opts *c)
{
	if (c->max_threads < 1 || c->max_threads > PTFS_MAX_THREADS) {
		fprintf(stderr, "ptfs: E_USAGE: max_threads=%u is outside 1-%u\n",
			c->max_threads, PTFS_MAX_THREADS);
		return false;
	}
	if (c->max_idle_threads != UINT_MAX && c->max_idle_threads > PTFS_MAX_THREADS) {
		fprintf(stderr, "ptfs: E_USAGE: max_idle_threads=%u is outside 0-%u\n",
			c->max_idle_threads, PTFS_MAX_THREADS);
		return false;
	}
	return true;
}

/*
 * In-place data (an uncompressed archive, a directory capture) stays safe
 * when someone rewrites the file while it is mounted: the core holds a read
 * lease per mapped file and this handler, run when the kernel breaks one,
 * has the core copy the pages before the writer may go on (pt_capture.h).
 */
static struct pt_capture *guarded;

static void on_lease_break(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)uc;
	pt_capture_guard_break(guarded, info->si_fd);
}

static void guard_capture(struct ptfs *fs)
{
	struct sigaction sa;
	int sig = SIGRTMIN + 1;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_lease_break;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	guarded = fs->cap;
	if (sigaction(sig, &sa, NULL) != 0)
		sig = 0;   /* no handler: pt_capture_guard() then copies at once */
	pt_capture_guard(fs->cap, sig);
}

/*
 * libfuse 3.14's do_init() turns FUSE_CAP_PARALLEL_DIROPS into nothing: its
 * list of want -> INIT reply flags has no line for it (later libfuse adds one),
 * so the kernel takes the directory's inode mutex around every LOOKUP and
 * READDIR in it, whatever op_init() asks.  The INIT reply is therefore given
 * the bit on its way to /dev/fuse, through libfuse's own custom-io hook, when
 * the kernel offered it.  Only INIT runs before this matters: the kernel sends
 * nothing else until INIT is answered, so one thread sees both calls.
 */
static uint64_t init_unique;      /* unique of the INIT request; 0: none pending */
static bool init_parallel_dirops; /* the kernel offered FUSE_PARALLEL_DIROPS */

static ssize_t io_read(int fd, void *buf, size_t len, void *ud)
{
	ssize_t n = read(fd, buf, len);
	const struct fuse_in_header *in = buf;

	(void)ud;
	if (n >= (ssize_t)(sizeof(*in) + offsetof(struct fuse_init_in, flags) + 4) &&
	    in->opcode == FUSE_INIT) {
		const struct fuse_init_in *arg = (const void *)(in + 1);

		init_unique = in->unique;
		init_parallel_dirops = (arg->flags & FUSE_PARALLEL_DIROPS) != 0;
	}
	return n;
}

static ssize_t io_writev(int fd, struct iovec *iov, int count, void *ud)
{
	(void)ud;
	if (init_unique && count == 2 && iov[0].iov_len == sizeof(struct fuse_out_header) &&
	    iov[1].iov_len >= offsetof(struct fuse_init_out, flags) + 4) {
		const struct fuse_out_header *out = iov[0].iov_base;
		struct fuse_init_out *arg = iov[1].iov_base;

		if (out->unique == init_unique) {
			if (out->error == 0 && init_parallel_dirops && arg->major == FUSE_KERNEL_VERSION)
				arg->flags |= FUSE_PARALLEL_DIROPS;
			init_unique = 0;
		}
	}
	return writev(fd, iov, count);
}

static const struct fuse_custom_io ptfs_io = { .writev = io_writev, .read = io_read };

/* Serves SE until unmounted or signalled: fuse_session_loop()'s results. */
static int serve(struct fuse_session *se, const struct fuse_cmdline_opts *copts)
{
	struct fuse_loop_config *cfg;
	int ret;

	if (copts->singlethread)
		return fuse_session_loop(se);
	cfg = fuse_loop_cfg_create();
	if (!cfg)
		return -ENOMEM;
	fuse_loop_cfg_set_clone_fd(cfg, copts->clone_fd);
	if (copts->max_idle_threads != UINT_MAX)
		fuse_loop_cfg_set_idle_threads(cfg, copts->max_idle_threads);
	fuse_loop_cfg_set_max_threads(cfg, copts->max_threads);
	ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return ret;
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts copts;
	struct fuse_session *se;
	struct ptfs fs;
	int ret = EXIT_BAD;

	/*
	 * Renders are large buffers made and dropped under the cache budget
	 * (state.c).  glibc raises its mmap threshold after the first large
	 * free, after which such buffers come from per-thread heaps that are
	 * never given back: 16 contexts read under an 8 MiB budget peaked at
	 * 43 MiB that way, 9 MiB with the threshold fixed (check_tests/test_cache.sh).
	 */
	mallopt(M_MMAP_THRESHOLD, PTFS_MMAP_THRESHOLD);
	memset(&fs, 0, sizeof(fs));
	memset(&copts, 0, sizeof(copts));
	ptfs_cache_init(&fs.capfile);
	ptfs_cache_init(&fs.tasksfile);
	ptfs_lru_init(&fs.lru, 0);
	pthread_mutex_init(&fs.vs_lock, NULL);
	ptfs_opens_init(&fs);
	fs.wslots = ptfs_wslots_new();
	if (!fs.wslots) {
		fprintf(stderr, "ptfs: E_NOMEM: out of memory\n");
		goto out_args;
	}
	if (fuse_opt_parse(&args, &fs.opts, ptfs_opt_table, opt_proc) == -1)
		goto out_args;
	if (fs.opts.cache_max && !pt_num_parse(fs.opts.cache_max, PT_NUM_INI, &fs.lru.max)) {
		char *e = ptfs_escaped(fs.opts.cache_max);

		fprintf(stderr, "ptfs: E_USAGE: -o cache_max=%s: not a size (a number of bytes, "
			"with K, M or G)\n", e ? e : "?");
		free(e);
		goto out_args;
	}
	if (fs.opts.extra_nonopt) {
		die_usage("too many arguments");
		goto out_args;
	}
	if (fs.opts.mountpoint && !ptfs_mountpoint_ok(fs.opts.mountpoint, fs.opts.capture))
		goto out_args;
	if (fuse_parse_cmdline(&args, &copts) != 0)
		goto out_args;
	if (copts.show_help) {
		usage(stdout);
		fuse_cmdline_help();
		fuse_lowlevel_help();
		ret = 0;
		goto out_args;
	}
	/* ptfs first; fuse_lowlevel_version() would run fusermount3, whose line came first */
	if (copts.show_version) {
		printf("ptfs version %s\nlibfuse version %s\n", PTFS_VERSION, fuse_pkgversion());
		ret = 0;
		goto out_args;
	}
	if (!fs.opts.capture || !copts.mountpoint) {
		die_usage(!fs.opts.capture ? "no CAPTURE given" : "no MOUNTPOINT given");
		goto out_args;
	}
	if (!copts.singlethread && !loop_opts_ok(&copts))
		goto out_args;
	if (add_mount_opts(&args, fs.opts.capture) != 0) {
		fprintf(stderr, "ptfs: %s: %s\n", pt_errname(PT_E_NOMEM), pt_strerror(PT_E_NOMEM));
		goto out_args;
	}
	/*
	 * The session only parses the remaining options and allocates; it is
	 * created before the (possibly long) load so that a mistyped option
	 * fails at once.  Nothing is mounted until fuse_session_mount().
	 */
	se = fuse_session_new(&args, &ptfs_ops, sizeof(ptfs_ops), &fs);
	if (!se) {
		fputs("ptfs: E_USAGE: unknown mount option (ptfs -h lists them)\n", stderr);
		goto out_args;   /* libfuse named the option on the line above */
	}
	fs.se = se;
	if (!load(&fs))
		goto out_session;
	ret = EXIT_RUNTIME;
	if (fuse_set_signal_handlers(se) != 0)
		goto out_session;
	if (fuse_session_mount(se, copts.mountpoint) != 0)
		goto out_signals;
	/* the same fd, through io_read/io_writev: see init_unique */
	if (fuse_session_custom_io(se, &ptfs_io, fuse_session_fd(se)) != 0) {
		/* only ENOMEM is possible here: fd and io are valid */
		fprintf(stderr, "ptfs: %s: %s\n", pt_errname(PT_E_NOMEM), pt_strerror(PT_E_NOMEM));
		goto out_unmount;
	}
	fuse_daemonize(copts.foreground);
	(void)pt_mem_fault_install();   /* a capture file that shrinks under us fails reads, not the daemon */
	/* After the fork: the lease-break signal goes to this process. */
	guard_capture(&fs);

	ret = serve(se, &copts);
	ptfs_thread_cleanup();
	/* 0: unmounted; > 0: the signal that ended the loop (a clean exit); < 0: -errno */
	ret = ret < 0 ? EXIT_RUNTIME : 0;
out_unmount:
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
out_args:
	free(copts.mountpoint);
	fuse_opt_free_args(&args);
	unload(&fs);
	return ret;
}
