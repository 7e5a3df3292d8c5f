/* SPDX-License-Identifier: MIT */
/*
 * live.c — a mount of a running guest (issue #33; ptfs(1) LIVE GUESTS).
 * Every read of a live capture reads guest memory as it is then, so what
 * the daemon or the kernel keeps holds for -o refresh=SECONDS (default 1)
 * only: the cached renders (state.c) are made again once older, names and
 * attributes time out in the kernel after as long, and files are read
 * without the page cache (ops.c).  A capture of a file never changes and
 * keeps everything for ever, as before.  -o pause stops the guest (QMP
 * stop) while a whole-context file renders and continues it after, unless
 * the user had stopped it; without it, info, maps, map.svg and vs/ files
 * whose context's tables changed while they rendered say so in a last
 * `# changed while read` line.  When QEMU exits, every request fails with EIO
 * and the log says why once; the daemon stays until unmounted.  Before a
 * whole-context render, at most once per refresh time, the registers that
 * choose the roots are read again (an x86 vCPU's CR3: its context follows
 * the task it runs); info and maps of a context whose root page no longer
 * holds a page table (freed and reused) say so in a `# root` line.  The
 * same refresh, also asked by a name or listing at the top, reads a Linux
 * guest's task list again: a pidN gone is no longer named (ops.c
 * ptfs_node()).  What the kernel may keep, and the gate every request
 * that reads the guest passes, are the mount's policy (struct
 * ptfs_policy), picked here once.
 */
#include <errno.h>
#include <inttypes.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pt_num.h"
#include "ptfs.h"

#define NS 1000000000ull

static int fixed_gate(struct ptfs *fs)
{
	(void)fs;
	return 0;   /* a capture of a file is there until unmounted */
}

static int live_gate(struct ptfs *fs);

/* FS->pol for a capture of a file (it never changes) or a live guest (-o refresh). */
static void policy_pick(struct ptfs *fs)
{
	static const struct ptfs_policy fixed = {
		.timeout = DBL_MAX, .kernel_keeps = true, .direct_io = false, .copy_per_open = false,
		.expiry_ns = UINT64_MAX, .gate = fixed_gate,
	};

	fs->pol = fixed;
	if (!fs->live)
		return;
	fs->pol = (struct ptfs_policy){
		.timeout = (double)fs->refresh_ns / NS, .kernel_keeps = false, .direct_io = true,
		.copy_per_open = true, .expiry_ns = fs->refresh_ns, .gate = live_gate,
	};
}

bool ptfs_live_opts(struct ptfs *fs)
{
	uint64_t ms = 1000;

	if (fs->opts.refresh) {
		/* SECONDS, with up to three decimals: 0.25 */
		const char *s = fs->opts.refresh, *dot = strchr(s, '.');
		char whole[24];
		uint64_t w, frac = 0;
		size_t nd = dot ? strlen(dot + 1) : 0;

		if ((size_t)(dot ? dot - s : (ptrdiff_t)strlen(s)) >= sizeof whole || nd > 3)
			goto bad;
		snprintf(whole, sizeof whole, "%.*s", (int)(dot ? dot - s : (ptrdiff_t)strlen(s)), s);
		if (!whole[0] || !pt_num_parse(whole, PT_NUM_DEC, &w) || w > 86400)
			goto bad;
		for (size_t i = 0; i < 3; i++) {
			char c = i < nd ? dot[1 + i] : '0';

			if (c < '0' || c > '9')
				goto bad;
			frac = frac * 10 + (uint64_t)(c - '0');
		}
		ms = w * 1000 + frac;
	}
	fs->refresh_ns = ms * 1000000ull;
	return true;
bad:
	fprintf(stderr, "ptfs: E_USAGE: -o refresh=%s: not a number of seconds from 0 to 86400 (at most "
		"three decimals)\n", fs->opts.refresh);
	return false;
}

bool ptfs_live_setup(struct ptfs *fs)
{
	fs->live = pt_capture_is_live(fs->cap);
	policy_pick(fs);
	if (!fs->live && (fs->opts.refresh || fs->opts.pause)) {
		fprintf(stderr, "ptfs: E_USAGE: -o %s: %s is a capture of a file, which never changes (the "
			"option is for a live QEMU guest's QMP socket)\n", fs->opts.refresh ? "refresh" : "pause",
			fs->opts.capture);
		return false;
	}
	pthread_mutex_init(&fs->regs_lock, NULL);
	/* the registers were read at mount: read again one refresh time later */
	ptfs_live_now(&fs->regs_at);
	return true;
}

void ptfs_live_now(struct timespec *at)
{
	clock_gettime(CLOCK_MONOTONIC, at);
}

bool ptfs_live_expired(const struct ptfs *fs, const struct timespec *at)
{
	struct timespec now;
	uint64_t age;

	if (fs->pol.expiry_ns == UINT64_MAX)
		return false;
	ptfs_live_now(&now);
	age = (uint64_t)(now.tv_sec - at->tv_sec) * NS + (uint64_t)now.tv_nsec - (uint64_t)at->tv_nsec;
	return age >= fs->pol.expiry_ns;
}

/* 0, or EIO once the live guest is gone (said once in the log). */
static int live_gate(struct ptfs *fs)
{
	char msg[512];

	if (pt_capture_live_check(fs->cap, msg, sizeof msg) == PT_OK)
		return 0;
	if (!__atomic_exchange_n(&fs->gone_said, true, __ATOMIC_ACQ_REL))
		fprintf(stderr, "ptfs: %s: %s; every read fails with EIO until unmounted\n",
			pt_errname(PT_E_IO), msg);
	return EIO;
}

void ptfs_live_pause(struct ptfs *fs, bool *stopped)
{
	char msg[512];

	*stopped = false;
	if (fs->live && fs->opts.pause && pt_capture_live_pause(fs->cap, stopped, msg, sizeof msg))
		fprintf(stderr, "ptfs: warning: -o pause: %s: rendered without stopping the guest\n", msg);
}

void ptfs_live_resume(struct ptfs *fs, bool stopped)
{
	char msg[512];

	if (stopped && pt_capture_live_resume(fs->cap, true, msg, sizeof msg))
		fprintf(stderr, "ptfs: warning: -o pause: %s: the guest may still be stopped\n", msg);
}

/* The sum of the tables of the contexts render ID reads (its context, and a vs/ file's other). */
static uint64_t live_sum(struct ptfs *fs, const struct pt_tnode *id, struct pt_readctl *rc)
{
	uint64_t a = 0, b = 0;

	(void)pt_context_tables_sum(pt_capture_context(fs->cap, id->ctx), &a, rc);
	if (id->type == PT_TN_VSFILE)
		(void)pt_context_tables_sum(pt_capture_context(fs->cap, id->choice), &b, rc);
	return a ^ (b * 0x9e3779b97f4a7c15ull);
}

bool ptfs_live_watch(struct ptfs *fs, const struct pt_tnode *id, bool stopped, uint64_t *sum,
		     struct pt_readctl *rc)
{
	/* a stopped guest changes nothing; entries is streamed, rendered again by each read */
	if (!fs->live || stopped || (id->type != PT_TN_INFO && id->type != PT_TN_MAPS &&
				     id->type != PT_TN_SVG && id->type != PT_TN_VSFILE))
		return false;
	*sum = live_sum(fs, id, rc);
	return true;
}

void ptfs_live_told(struct ptfs *fs, const struct pt_tnode *id, uint64_t sum, struct pt_buf *b,
		    struct pt_readctl *rc)
{
	if (pt_readctl_cancelled(rc) || live_sum(fs, id, rc) == sum)
		return;
	/* map.svg stays XML: a comment after its root element */
	pt_buf_puts(b, id->type == PT_TN_SVG ? "<!-- # changed while read -->\n" : "# changed while read\n");
}

void ptfs_live_regs(struct ptfs *fs)
{
	char msg[512];
	size_t moved = 0;

	/* one thread reads them; the others render with the roots as they are */
	if (!fs->live || pthread_mutex_trylock(&fs->regs_lock))
		return;
	if (ptfs_live_expired(fs, &fs->regs_at)) {
		if (pt_capture_live_refresh(fs->cap, &moved, msg, sizeof msg) &&
		    !__atomic_exchange_n(&fs->regs_said, true, __ATOMIC_ACQ_REL))
			fprintf(stderr, "ptfs: warning: %s: the roots stay as they were (said once)\n", msg);
		/* the processes started since: their pidN once set up */
		ptfs_ino_grow(fs);
		ptfs_live_now(&fs->regs_at);
	}
	pthread_mutex_unlock(&fs->regs_lock);
}

/*
 * Whether CTX's root still holds a page table: false when entries are
 * valid (non-zero, decoded) but none points at captured memory or is a
 * leaf without reserved bits.  A live guest's RAM is all captured, so a
 * real table's pointers land in it; the page of a process that exited,
 * reused for data, decodes as pointers far outside it (issue #39 item 7:
 * 512 `not_captured` anomalies).  An empty table (a kernel thread's
 * reserved TTBR0 on arm64, Linux arch/arm64/mm/context.c) is a table.
 */
static bool root_holds_table(const struct pt_context *ctx)
{
	struct pt_table t;
	uint64_t valid = 0;

	pt_table_root(ctx, &t);
	if (t.cover == PT_COVER_NONE)
		return true;   /* not captured: info says so already (root_captured) */
	for (uint64_t i = 0; i < t.entries && i < 4096; i++) {
		struct pt_entry e;
		struct pt_table child;

		if (!pt_table_read(&t, i, &e) || e.state == PT_ST_UNMAPPED)
			continue;
		if (e.state == PT_ST_POINTER && !e.reserved_mask[0] && !e.reserved_mask[1] &&
		    pt_table_child(&t, i, &e, 0, &child) && child.cover != PT_COVER_NONE)
			return true;
		if (e.state == PT_ST_MAPPED && !e.reserved_mask[0] && !e.reserved_mask[1])
			return true;
		valid += e.state == PT_ST_POINTER || e.state == PT_ST_MAPPED;
	}
	return !valid;
}

void ptfs_live_root_note(struct ptfs *fs, const struct pt_tnode *id, struct pt_buf *b)
{
	const struct pt_context *ctx = pt_capture_context(fs->cap, id->ctx);

	if (!ctx || root_holds_table(ctx))
		return;
	pt_buf_printf(b, "# root 0x%" PRIx64 " no longer holds a page table: %s; remount or see tasks\n",
		      __atomic_load_n(&ctx->root_addr, __ATOMIC_ACQUIRE),
		      strncmp(ctx->name, "cpu", 3) ? "the table was freed and its page reused" :
		      "the process on this vCPU exited");
}
