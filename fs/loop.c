/* SPDX-License-Identifier: MIT */
/*
 * loop.c — the request loop: one reader at a time, more threads only for
 * long requests.
 *
 * libfuse's multi-threaded loop keeps a spare thread blocked in read() on
 * /dev/fuse, so that a slow request never holds up the others.  With one
 * reader process (find, grep -r, diff -r) that costs a thread hand-off per
 * request: the kernel wakes the thread that has waited longest, so two
 * threads take turns and every request starts on a cold thread, often on
 * the other CPU.  On the 2-CPU bench machine `-s` was 10-30% faster on first
 * listings and reads (bench/README.md), and squashfuse_ll, the anchor of
 * those rows, is single-threaded.
 *
 * Here the thread that answered a request reads the next one itself, as in
 * `-s`, as long as no other thread is reading.  Requests are short except
 * when the core works through many entries (a maps render, a huge listing,
 * a bounded walk); such work polls its cancel check (pt_cancel_poll()), and
 * that check calls ptfs_loop_busy() about every 4096 entries: if nobody is
 * reading then, a parked thread (or a new one, up to max_threads) starts
 * reading, so other readers and the INTERRUPT of the long request itself
 * are served while it runs.  A thread that finishes a request while another
 * one reads parks until it is needed again.
 *
 * Who owns what: the main thread starts the first worker and waits for the
 * end (a signal or an unmount, like libfuse's loop); workers block the exit
 * signals so that they reach the main thread.  At the end the main thread
 * cancels the worker blocked in read() (cancellation is enabled only there,
 * as in libfuse) and wakes the parked ones.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "ptfs.h"

struct worker {
	pthread_t tid;
	struct fuse_buf buf;       /* libfuse allocates it at the first read; freed at the end */
	struct ptfs_loop *l;
};

struct ptfs_loop {
	struct fuse_session *se;
	pthread_mutex_t lock;
	pthread_cond_t turn;
	struct worker *w;          /* max_threads slots */
	unsigned nthreads, max_threads;
	unsigned reading;          /* workers reading or granted a turn to read: 1, or 0 while all are busy */
	unsigned parked;           /* workers waiting for a turn */
	unsigned turns;            /* turns granted to parked workers, not taken yet */
	bool stop;
	int err;                   /* the first receive error (-errno), else 0 */
	sem_t done;                /* posted by the worker that sees the end */
};

/* The running loop, for ptfs_loop_busy() (one loop per process). */
static struct ptfs_loop *current;

static void *work(void *arg);

/* Starts one more worker, counted as reading; the caller holds the lock. */
static int start_worker(struct ptfs_loop *l)
{
	struct worker *w = &l->w[l->nthreads];
	sigset_t block, old;
	int err;

	memset(w, 0, sizeof(*w));
	w->l = l;
	/* the exit signals go to the main thread (see the top of the file) */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	err = pthread_create(&w->tid, NULL, work, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return err;
	l->nthreads++;
	l->reading++;
	return 0;
}

/* The end: every worker stops; the main thread is told.  Lock held. */
static void finish(struct ptfs_loop *l, int err)
{
	if (!l->stop) {
		l->stop = true;
		if (err < 0 && !l->err)
			l->err = err;
		pthread_cond_broadcast(&l->turn);
		sem_post(&l->done);
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct ptfs_loop *l = w->l;
	int res;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_mutex_lock(&l->lock);
	for (;;) {
		/* here this worker holds the lock and is counted in `reading` */
		if (l->stop)
			break;
		pthread_mutex_unlock(&l->lock);
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		res = fuse_session_receive_buf(l->se, &w->buf);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		pthread_mutex_lock(&l->lock);
		if (res == -EINTR || res == -EAGAIN)
			continue;
		l->reading--;
		if (res <= 0 || fuse_session_exited(l->se)) {
			finish(l, res);
			break;
		}
		pthread_mutex_unlock(&l->lock);
		fuse_session_process_buf(l->se, &w->buf);
		pthread_mutex_lock(&l->lock);
		if (l->stop)
			break;
		if (l->reading == 0) {
			l->reading++;   /* nobody reads: this worker goes on, hot */
			continue;
		}
		l->parked++;
		while (!l->stop && l->turns == 0)
			pthread_cond_wait(&l->turn, &l->lock);
		l->parked--;
		if (l->stop)
			break;
		l->turns--;   /* ptfs_loop_busy() counted this worker in `reading` */
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

void ptfs_loop_busy(void)
{
	struct ptfs_loop *l = current;

	if (!l)
		return;   /* -s, or libfuse's loop */
	pthread_mutex_lock(&l->lock);
	if (!l->stop && l->reading == 0) {
		if (l->parked > l->turns) {
			l->turns++;
			l->reading++;
			pthread_cond_signal(&l->turn);
		} else if (l->nthreads < l->max_threads) {
			(void)start_worker(l);   /* none started: the long request goes on alone */
		}
	}
	pthread_mutex_unlock(&l->lock);
}

int ptfs_loop_run(struct fuse_session *se, unsigned max_threads)
{
	struct ptfs_loop l;
	int err;

	memset(&l, 0, sizeof(l));
	l.se = se;
	l.max_threads = max_threads ? max_threads : 1;
	l.w = calloc(l.max_threads, sizeof(*l.w));
	if (!l.w)
		return -ENOMEM;
	if (sem_init(&l.done, 0, 0) != 0) {
		free(l.w);
		return -errno;
	}
	pthread_mutex_init(&l.lock, NULL);
	pthread_cond_init(&l.turn, NULL);
	current = &l;
	pthread_mutex_lock(&l.lock);
	err = start_worker(&l);
	pthread_mutex_unlock(&l.lock);
	if (err) {
		l.err = -err;
	} else {
		/* a signal (EINTR) ends the wait once its handler has ended the session */
		while (sem_wait(&l.done) != 0 && !fuse_session_exited(se))
			;
	}
	pthread_mutex_lock(&l.lock);
	finish(&l, 0);
	pthread_mutex_unlock(&l.lock);
	/* the reader may still block in read(): cancellation is enabled only there */
	for (unsigned i = 0; i < l.nthreads; i++)
		pthread_cancel(l.w[i].tid);
	for (unsigned i = 0; i < l.nthreads; i++) {
		pthread_join(l.w[i].tid, NULL);
		free(l.w[i].buf.mem);
	}
	current = NULL;
	pthread_cond_destroy(&l.turn);
	pthread_mutex_destroy(&l.lock);
	sem_destroy(&l.done);
	free(l.w);
	return l.err;
}
