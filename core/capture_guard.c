/* SPDX-License-Identifier: MIT */
/*
 * capture_guard.c — leases on the files a capture serves in place
 * (pt_capture_guard(), pt_capture.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture_int.h"

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
 * waits for the kernel's lease-break time; after that it may shrink the
 * file, and reads of the lost pages fail as not captured (pt_mem.h).
 */
static void privatize(struct mapping *m)
{
	void *copy;

	if (m->fd < 0)
		return;
	copy = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy == MAP_FAILED)
		return;
	/*
	 * The file may already be shorter than the mapping: the signal comes
	 * late when the process was stopped and the kernel revoked the lease
	 * meanwhile.  Then there is nothing left to save: the mapping stays
	 * (reads of the lost pages fail as not captured, pt_mem_copy_mapped)
	 * and the lease, which the kernel has taken anyway, is dropped.
	 */
	if (!pt_mem_copy_mapped(copy, m->p, m->len)) {
		munmap(copy, m->len);
		fcntl(m->fd, F_SETLEASE, F_UNLCK);
		close(m->fd);
		m->fd = -1;
		return;
	}
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

