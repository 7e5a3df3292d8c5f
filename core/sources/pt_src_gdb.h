/* SPDX-License-Identifier: MIT */
/*
 * pt_src_gdb.h — QEMU's gdbstub as the live source's way to an aarch64
 * vCPU's translation registers (issue #33 item 1: QEMU 7.2's HMP shows no
 * TTBR0_EL1, TTBR1_EL1 or TCR_EL1 of an aarch64 vCPU, target/arm/cpu.c
 * arm_cpu_dump_state; its gdbstub serves them as the system registers of
 * feature org.qemu.gdb.arm.sys.regs, target/arm/gdbstub.c).  Internal to
 * core/sources.
 *
 * The protocol is GDB's remote serial protocol (the GDB manual, "Remote
 * Protocol"): packets "$DATA#CS" (CS the two hex digits of the byte sum of
 * DATA), each acknowledged by '+'; binary replies escape '#', '$', '}' and
 * '*' as '}' then the byte XOR 0x20, and may run-length encode ("X*N": N
 * - 29 more copies of X).  Every wait is bounded by a deadline and every
 * reply by PT_GDB_MAX_REPLY bytes.  The parsers are pure, for the unit tests
 * and the fuzzer.
 */
#ifndef PT_SRC_GDB_H
#define PT_SRC_GDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"

/* The largest reply read (a target description file is ~11 KiB). */
#define PT_GDB_MAX_REPLY (1u << 20)
/* At most this many threads (vCPUs) and registers' description bytes. */
#define PT_GDB_MAX_THREADS 4096
#define PT_GDB_MAX_XML (4u << 20)

/*
 * One packet at the start of RAW (N bytes; '+' acknowledgements and other
 * bytes before its '$' are skipped): PT_OK with *USED the bytes it took and
 * its decoded payload in *OUT (malloc'd, NUL-terminated, *OUTLEN bytes), or
 * PT_OK with *OUT NULL when RAW holds no whole packet yet.  A bad checksum,
 * a '-' (the stub asks for a resend), a payload that decodes past
 * PT_GDB_MAX_REPLY or a malformed run are PT_E_CAPTURE.
 */
pt_err pt_gdb_unframe(const char *raw, size_t n, char **out, size_t *outlen, size_t *used, char *err,
		      size_t errlen);

/*
 * The <reg> elements of target description XML, in document order, numbered
 * as GDB numbers them (the manual, "Target Description Format": a register's
 * regnum attribute, else one more than the previous register's): *NEXT is
 * the number the next register without a regnum gets, carried from file to
 * file.  NAME's number and bit size into *REGNUM and *BITS with *FOUND set;
 * malformed elements are PT_E_CAPTURE.
 */
pt_err pt_gdb_xml_reg(const char *xml, unsigned *next, const char *name, bool *found, unsigned *regnum,
		      unsigned *bits, char *err, size_t errlen);

/* The href of each <xi:include> of XML, in order, into HREF[0..*N) (at most MAX; malloc'd). */
pt_err pt_gdb_xml_includes(const char *xml, char **href, size_t max, size_t *n, char *err, size_t errlen);

/* A 'p' reply: BITS/4 hex digits, the register's bytes in target order (little-endian). */
pt_err pt_gdb_reg_value(const char *reply, unsigned bits, uint64_t *v, char *err, size_t errlen);

/*
 * A qfThreadInfo / qsThreadInfo reply: "m" then thread ids "pPID.TID"
 * (multiprocess) separated by ',', or "l" (no more: *MORE false).  The
 * thread ids, hex, into PID/TID, appended at *N (at most PT_GDB_MAX_THREADS).
 */
pt_err pt_gdb_threads(const char *reply, unsigned *pid, unsigned *tid, size_t *n, bool *more, char *err,
		      size_t errlen);

/* One aarch64 vCPU's registers, as its gdbstub thread (QEMU: thread = CPU index + 1) gives them. */
struct pt_gdb_cpu {
	unsigned index;
	uint64_t cpsr, sctlr, tcr, ttbr0, ttbr1;
	uint64_t sp_el0;        /* at EL1 Linux's current task (arch/arm64/include/asm/current.h) */
	bool has_sp_el0;        /* the target description has SP_EL0 */
};

/*
 * Connects to QEMU's gdbstub at the UNIX socket PATH and reads every
 * vCPU's CPSR, SCTLR(_EL1), TCR_EL1, TTBR0_EL1, TTBR1_EL1 and, where the
 * target description has it, SP_EL0, each command
 * within TIMEOUT_MS.  QEMU stops the guest when a debugger connects
 * (gdbstub.c gdb_chr_event) and the connection is closed without a detach:
 * the guest stays stopped, and the caller continues it if it ran before.
 */
pt_err pt_gdb_arm64_cpus(const char *path, unsigned timeout_ms, struct pt_gdb_cpu **cpus, size_t *n,
			 char *err, size_t errlen);

#endif
