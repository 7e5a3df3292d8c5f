/* SPDX-License-Identifier: MIT */
/*
 * pt_src_qmp.h — a running QEMU guest as a capture source (issue #33): the
 * QMP client (a UNIX socket, bounded in time and bytes), a small JSON
 * reader for its replies, and the parsers of the HMP text it asks for
 * (`info mtree -f`, `info registers -a`).  Internal to core/.
 *
 * Every wait on the socket is bounded by a deadline (poll), every reply by
 * PT_QMP_MAX_REPLY bytes, every JSON value by PT_JSON_MAX_DEPTH: a socket
 * that never answers, or answers forever, is one clear line, never a hang.
 * The parsers are pure (text in, facts out) so that the unit tests and the
 * fuzzer reach them without a socket.
 */
#ifndef PT_SRC_QMP_H
#define PT_SRC_QMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"

/* How long one QMP command may take, connect and greeting included (ms). */
#define PT_QMP_TIMEOUT_MS 3000
/* The largest QMP message read (`info mtree -f` of a large machine is ~100 KiB). */
#define PT_QMP_MAX_REPLY (8u << 20)
/* Nesting depth of a JSON value (QMP replies nest 4 deep). */
#define PT_JSON_MAX_DEPTH 32
/* At most this many vCPUs (QEMU's x86 maximum is 1024 in 7.2, hw/i386/pc.c) */
#define PT_QMP_MAX_CPUS 4096
/* At most this many RAM ranges of the backend in the flat view */
#define PT_QMP_MAX_RANGES 4096

/* Monotonic milliseconds; waits for EV (poll) on FD until DEADLINE: false on timeout or error. */
int64_t pt_sock_now_ms(void);
bool pt_sock_wait(int fd, short ev, int64_t deadline);
/* A non-blocking connection to the UNIX socket PATH in *FD (-1 and one line in ERR when it fails). */
pt_err pt_sock_connect(const char *path, int *fd, char *err, size_t errlen);

enum pt_json_type { PT_JSON_NULL, PT_JSON_BOOL, PT_JSON_NUM, PT_JSON_STR, PT_JSON_ARR, PT_JSON_OBJ };

/* A parsed JSON value: strings unescaped (NUL-terminated; a \u0000 ends them), numbers as text. */
struct pt_json {
	enum pt_json_type type;
	bool b;
	char *s;                /* STR, NUM */
	size_t n;               /* ARR, OBJ: children */
	struct pt_json *kid;
	char **key;             /* OBJ: the children's keys */
	size_t kidcap, keycap;  /* their allocations (pt_vec_reserve()) */
};

/* Parses LEN bytes of TEXT as one JSON value (whitespace around it allowed); NULL if malformed or too deep. */
struct pt_json *pt_json_parse(const char *text, size_t len);
void pt_json_free(struct pt_json *j);
/* OBJ's member KEY, or NULL. */
const struct pt_json *pt_json_get(const struct pt_json *obj, const char *key);
/* A NUM that is a non-negative integer below 2^64 into *V. */
bool pt_json_u64(const struct pt_json *j, uint64_t *v);

/* One QMP connection. */
struct pt_qmp {
	int fd;
	char *buf;              /* bytes read past the last message */
	size_t len, cap;
	unsigned timeout_ms;
	bool gone;              /* the peer closed the socket (QEMU exited) */
	bool answered_error;    /* the last command's failure is QEMU's "error" answer, not the connection's */
	uint64_t seq;           /* the id of the last command sent ("ptfs-SEQ") */
	uint64_t dropped;       /* answers dropped: their id was another command's (late, or a second copy) */
	char version[32];       /* QEMU's "MAJOR.MINOR.MICRO" from the greeting */
};

/*
 * Connects to the UNIX socket PATH, reads the QMP greeting and enters
 * command mode (qmp_capabilities), within TIMEOUT_MS each.  A socket that
 * does not answer, or answers anything but a QMP greeting, is PT_E_CAPTURE
 * with one line in ERR.
 */
pt_err pt_qmp_open(struct pt_qmp *q, const char *path, unsigned timeout_ms, char *err, size_t errlen);
void pt_qmp_close(struct pt_qmp *q);
/*
 * Sends the command JSON (an object "{...}"), tagged with a new "id", and
 * waits for the answer carrying that id: events, and answers carrying
 * another id (one that came after its command timed out, or a second
 * copy), are skipped; an answer without an id is PT_E_CAPTURE.  *MSG the
 * whole message (free it), *RET its "return" member.  An "error" answer is
 * PT_E_CAPTURE with its class and desc in ERR, and sets Q->answered_error.
 */
pt_err pt_qmp_cmd(struct pt_qmp *q, const char *json, struct pt_json **msg, const struct pt_json **ret,
		  char *err, size_t errlen);
/* The text an HMP command prints (human-monitor-command), malloc'd. */
pt_err pt_qmp_hmp(struct pt_qmp *q, const char *cmdline, char **text, char *err, size_t errlen);
/*
 * Without waiting: true once the peer has closed the socket.  Whole
 * messages queued (events, late answers: no command waits between
 * commands) are read and dropped; a part of one stays for the next read.
 */
bool pt_qmp_gone(struct pt_qmp *q);

/* One range of guest-physical RAM in the backend: LEN bytes at BASE are the backend's from OFF. */
struct pt_qmp_range {
	uint64_t base, len, off;
	unsigned line;          /* its line in the `info mtree -f` text */
};

/*
 * The ranges of memory region MR (the backend's id) in the flat view of
 * address space "memory" of `info mtree -f` TEXT (QEMU system/memory.c
 * mtree_print_flatview: "START-END (prio P, TYPE): NAME [@OFFSET]"), sorted
 * by base.  PT_E_CAPTURE with ERR naming the line when a line is malformed.
 */
pt_err pt_qmp_mtree(const char *text, const char *mr, struct pt_qmp_range **out, size_t *n,
		    char *err, size_t errlen);

/*
 * The MMIO window NAME (an i/o region: an IOMMU's registers, e.g. QEMU's
 * "intel_iommu" or "amdvi-mmio") in the flat view of address space
 * "memory" of `info mtree -f` TEXT: *FOUND and its base and length in *AT.
 * Absent is not an error; two windows of that name are PT_E_UNSUPPORTED.
 */
pt_err pt_qmp_mmio(const char *text, const char *name, bool *found, struct pt_qmp_range *at, char *err,
		   size_t errlen);

/*
 * The value HMP `xp /1gx ADDR` (or /1wx) printed in TEXT (QEMU
 * memory_dump, monitor/misc.c in 7.2: "ADDR: 0xVALUE", ADDR in 16 hex digits
 * on x86_64): PT_E_CAPTURE when TEXT is anything else.
 */
pt_err pt_qmp_xp(const char *text, uint64_t addr, uint64_t *v, char *err, size_t errlen);

/* One vCPU's paging registers from `info registers -a`. */
struct pt_qmp_cpu {
	unsigned index;         /* N of "CPU#N" */
	uint64_t cr0, cr3, cr4, efer;
	unsigned seen;          /* PT_QMP_R_* found */
};
#define PT_QMP_R_CR0 1u
#define PT_QMP_R_CR3 2u
#define PT_QMP_R_CR4 4u
#define PT_QMP_R_EFER 8u
#define PT_QMP_R_ALL 15u

/*
 * The vCPUs of x86 `info registers -a` TEXT (QEMU target/i386/cpu-dump.c:
 * "CPU#N" then "CR0=... CR2=... CR3=... CR4=..." and "EFER=..."), in
 * order.  A register value that is not hex of at most 16 digits is
 * PT_E_CAPTURE with ERR naming the CPU and the register.
 */
pt_err pt_qmp_regs(const char *text, struct pt_qmp_cpu **out, size_t *n, char *err, size_t errlen);

#endif
