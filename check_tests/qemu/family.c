/* ptfs-family: processes that share pages, for the QEMU agreement test's
 * task check (check_tests/qemu/README.md, "Processes"; issue #40 item 7).
 *
 * The parent maps 4 pages MAP_SHARED|MAP_ANONYMOUS and 8 pages
 * MAP_PRIVATE|MAP_ANONYMOUS, writes every one, starts two threads (so the
 * process has three: ptfs-tool tasks counts them through
 * signal->thread_head) and forks.  After fork(2) the child sees the same
 * frames: the shared pages stay shared whatever either side writes, and
 * the private ones are shared copy-on-write until one side writes
 * (mm/memory.c do_wp_page()).  The child writes its first private page,
 * which breaks that one page into a copy of its own, and only reads the
 * others.  Both then wait, so that at the dump:
 *   - each shared page and each private page but the first is one frame
 *     that both processes map (ptfs-tool pa names both pids);
 *   - the first private page is two frames, one in each.
 * ptfs-procs (procs.c) samples the pages through /proc/PID/pagemap like any
 * other process's; tasks_agree.py checks the rest.  The one line it prints
 * (`PTFS-FAMILY PARENT CHILD SHARED-VA PRIVATE-VA`) tells the check which
 * processes these are.
 *
 * Built static at test time.  Usage: ptfs-family
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL
#define NSHARED 4
#define NPRIVATE 8

static void *wait_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(void)
{
	char *sh = mmap(NULL, NSHARED * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *pv = mmap(NULL, NPRIVATE * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile char sink = 0;
	pthread_t t;
	pid_t child;
	int done[2];
	char c = 0;

	if (sh == MAP_FAILED || pv == MAP_FAILED) {
		perror("ptfs-family: mmap");
		return 1;
	}
	/* distinct bytes in every page, so no page is the zero page or merged */
	for (unsigned i = 0; i < NSHARED; i++)
		memset(sh + i * PAGE, 0x50 + i, PAGE);
	for (unsigned i = 0; i < NPRIVATE; i++)
		memset(pv + i * PAGE, 0x70 + i, PAGE);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t, NULL, wait_forever, NULL) != 0) {
			fputs("ptfs-family: pthread_create failed\n", stderr);
			return 1;
		}
	if (pipe(done) != 0) {
		perror("ptfs-family: pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("ptfs-family: fork");
		return 1;
	}
	if (child == 0) {
		pv[0] = 0x7f;   /* the copy-on-write break of the first private page */
		sh[0] = 0x5f;   /* a shared page stays one frame when written */
		for (unsigned i = 1; i < NPRIVATE; i++)
			sink += pv[i * PAGE];
		(void)sink;
		if (write(done[1], "", 1) != 1)   /* the parent speaks once the child's pages are what the check expects */
			return 1;
		wait_forever(NULL);
	}
	if (read(done[0], &c, 1) != 1) {
		fputs("ptfs-family: the child did not report\n", stderr);
		return 1;
	}
	printf("PTFS-FAMILY %ld %ld 0x%lx 0x%lx\n", (long)getpid(), (long)child,
	       (unsigned long)(uintptr_t)sh, (unsigned long)(uintptr_t)pv);
	fflush(stdout);
	wait_forever(NULL);
	return 0;
}
