/* SPDX-License-Identifier: MIT */
/*
 * qmp_live.h — what the live QEMU source's two files share: a connected
 * guest's state (struct pt_qmp_live, made by qmp.c's load and owned by the
 * capture from there) and the live hooks of qmp_live.c.
 */
#ifndef PT_QMP_LIVE_H
#define PT_QMP_LIVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_source.h"
#include "pt_src_qmp.h"

/* CR0.PG (bit 31) and EFER.LMA (bit 10): the vCPU walks 64-bit tables (Intel SDM vol. 3A 4.1.1). */
#define CR0_PG (1ull << 31)
#define EFER_LMA (1ull << 10)

struct pt_qmp_live {
	struct pt_qmp q;
	pthread_mutex_t lock;
	bool dead;
	bool arm64;             /* an aarch64 target: vCPUs from the gdbstub */
	/*
	 * ptfs stopped a running guest (-o pause, the gdbstub) and has not
	 * seen it run since: a stop or cont answered late or not at all.
	 * Until query-status says it runs, each hook asks and continues it.
	 */
	bool owe_cont;
	int64_t owe_asked;      /* when live_check() last asked (ms): at most once a second */
	/* x86: each context cpuN's vCPU index and the CR3 it was last given (live_regs()) */
	struct live_cpu {
		unsigned index;
		uint64_t cr3;
	} *cpu;
	size_t ncpu;
	char label[128];
};

/* The hooks (check, pause, resume, regs, free) whose user data is a struct pt_qmp_live. */
extern const struct pt_live_ops pt_qmp_live_ops;
/* Whether the guest runs (query-status), into *RUN (the caller holds the connection). */
pt_err pt_qmp_live_running(struct pt_qmp_live *l, bool *run, char *e, size_t elen);
/*
 * cont, the caller holding the connection; one that fails leaves ptfs
 * owing one, asked again by every later hook.
 */
pt_err pt_qmp_live_resume(struct pt_qmp_live *l, char *err, size_t errlen);

#endif
