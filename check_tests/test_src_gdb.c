/* SPDX-License-Identifier: MIT */
/*
 * test_src_gdb.c — the gdbstub client's parsers (core/sources/src_gdb.c):
 * packets as the GDB manual frames them (checksum, escapes, runs), target
 * description numbering, thread lists and register replies, from text
 * QEMU 7.2's gdbstub sent (check_tests/fake_qmp.py serves the same for
 * the conversation, test_live_arm64.sh), and a stub that misbehaves
 * (issue #39 item 2): a bad checksum, a packet past the bound, a trickle
 * that never ends one, silence — each one line within the time bound.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pt_src_gdb.h"
#include "testutil.h"

START_TEST(frames)
{
	char *out, err[256];
	size_t olen, used;
	/* QEMU's stop reply on connect, after an acknowledgement */
	const char *p = "+$T02thread:01;#04+$OK#9a";

	ck_assert_int_eq(pt_gdb_unframe(p, strlen(p), &out, &olen, &used, err, sizeof err), PT_OK);
	ck_assert_str_eq(out, "T02thread:01;");
	ck_assert_uint_eq(used, 18);
	free(out);
	ck_assert_int_eq(pt_gdb_unframe(p + used, strlen(p) - used, &out, &olen, &used, err, sizeof err), PT_OK);
	ck_assert_str_eq(out, "OK");
	free(out);
	/* not whole yet: nothing taken but the bytes before '$' */
	ck_assert_int_eq(pt_gdb_unframe("+$O", 3, &out, &olen, &used, err, sizeof err), PT_OK);
	ck_assert(!out && used == 1);
	ck_assert_int_eq(pt_gdb_unframe("$OK#9", 5, &out, &olen, &used, err, sizeof err), PT_OK);
	ck_assert(!out && used == 0);
	/* escapes: '}' then the byte XOR 0x20 ("}]" is '}', "}\x03" is '#') */
	ck_assert_int_eq(pt_gdb_unframe("$a}]b}\x03#1d", 10, &out, &olen, &used, err, sizeof err), PT_OK);
	ck_assert_str_eq(out, "a}b#");
	free(out);
	/* a run: "0* " is '0' and ' ' - 29 = 3 more: "0000" */
	ck_assert_int_eq(pt_gdb_unframe("$0* #7a", 7, &out, &olen, &used, err, sizeof err), PT_OK);
	ck_assert_str_eq(out, "0000");
	ck_assert_uint_eq(olen, 4);
	free(out);
}
END_TEST

START_TEST(bad_frames)
{
	char *out, err[256];
	size_t olen, used;

	ck_assert_int_eq(pt_gdb_unframe("$OK#00", 6, &out, &olen, &used, err, sizeof err), PT_E_CAPTURE);
	ck_assert_str_eq(err, "a gdbstub packet with a bad checksum (#00, the bytes sum to 9a)");
	ck_assert_int_eq(pt_gdb_unframe("-", 1, &out, &olen, &used, err, sizeof err), PT_E_CAPTURE);
	ck_assert_int_eq(pt_gdb_unframe("$*!#4b", 6, &out, &olen, &used, err, sizeof err), PT_E_CAPTURE);
	ck_assert_str_eq(err, "a gdbstub packet with a malformed escape or run");
	ck_assert_int_eq(pt_gdb_unframe("$a}#de", 6, &out, &olen, &used, err, sizeof err), PT_E_CAPTURE);
	ck_assert(!out);
}
END_TEST

START_TEST(xml_numbers)
{
	/* numbered in order, a regnum resets the count: cpsr is 33 in QEMU's aarch64-core.xml */
	static const char core[] =
		"<feature name=\"org.gnu.gdb.aarch64.core\"><reg name=\"x0\" bitsize=\"64\"/>"
		"<reg name=\"x1\" bitsize=\"64\"/><reg name=\"sp\" bitsize=\"64\" type=\"data_ptr\"/>"
		"<reg name=\"cpsr\" bitsize=\"32\"/></feature>";
	static const char sys[] =
		"<feature name=\"org.qemu.gdb.arm.sys.regs\"><reg name=\"SCTLR\" bitsize=\"64\" regnum=\"74\" "
		"group=\"cp_regs\"/><reg name=\"TTBR0_EL1\" bitsize=\"64\" regnum=\"146\"/>"
		"<reg name=\"TTBR0_EL1_X\" bitsize=\"64\"/></feature>";
	unsigned next = 0, num = 0, bits = 0;
	bool found = false;
	char err[256], *href[4];
	size_t n;

	ck_assert_int_eq(pt_gdb_xml_reg(core, &next, "cpsr", &found, &num, &bits, err, sizeof err), PT_OK);
	ck_assert(found && num == 3 && bits == 32 && next == 4);
	found = false;
	ck_assert_int_eq(pt_gdb_xml_reg(sys, &next, "TTBR0_EL1", &found, &num, &bits, err, sizeof err), PT_OK);
	ck_assert(found && num == 146 && bits == 64 && next == 148);
	found = false;
	ck_assert_int_eq(pt_gdb_xml_reg(sys, &next, "TCR_EL1", &found, &num, &bits, err, sizeof err), PT_OK);
	ck_assert(!found);
	ck_assert_int_eq(pt_gdb_xml_reg("<reg name=\"a\" bitsize=\"x\"/>", &next, "a", &found, &num, &bits, err,
					sizeof err), PT_E_CAPTURE);
	ck_assert_int_eq(pt_gdb_xml_includes("<target><xi:include href=\"aarch64-core.xml\"/>"
					     "<xi:include href=\"system-registers.xml\"/></target>", href, 4, &n,
					     err, sizeof err), PT_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(href[0], "aarch64-core.xml");
	ck_assert_str_eq(href[1], "system-registers.xml");
	free(href[0]);
	free(href[1]);
	/* a path in href is refused: the stub names files of its own */
	ck_assert_int_eq(pt_gdb_xml_includes("<xi:include href=\"../x.xml\"/>", href, 4, &n, err, sizeof err),
			 PT_E_CAPTURE);
}
END_TEST

START_TEST(threads_and_regs)
{
	unsigned pid[8], tid[8];
	size_t n = 0;
	bool more;
	uint64_t v;
	char err[256];

	ck_assert_int_eq(pt_gdb_threads("mp01.01", pid, tid, &n, &more, err, sizeof err), PT_OK);
	ck_assert(more && n == 1 && pid[0] == 1 && tid[0] == 1);
	ck_assert_int_eq(pt_gdb_threads("mp01.02,p01.0a", pid, tid, &n, &more, err, sizeof err), PT_OK);
	ck_assert(n == 3 && tid[1] == 2 && tid[2] == 10);
	ck_assert_int_eq(pt_gdb_threads("l", pid, tid, &n, &more, err, sizeof err), PT_OK);
	ck_assert(!more && n == 3);
	ck_assert_int_eq(pt_gdb_threads("m01", pid, tid, &n, &more, err, sizeof err), PT_E_CAPTURE);
	ck_assert_int_eq(pt_gdb_threads("mp01.00", pid, tid, &n, &more, err, sizeof err), PT_E_CAPTURE);
	/* little-endian bytes: QEMU's SCTLR of a booted vCPU */
	ck_assert_int_eq(pt_gdb_reg_value("9d19d03000000000", 64, &v, err, sizeof err), PT_OK);
	ck_assert(v == 0x30d0199dull);
	ck_assert_int_eq(pt_gdb_reg_value("c5030000", 32, &v, err, sizeof err), PT_OK);
	ck_assert(v == 0x3c5);
	ck_assert_int_eq(pt_gdb_reg_value("", 64, &v, err, sizeof err), PT_E_UNSUPPORTED);
	ck_assert_int_eq(pt_gdb_reg_value("E14", 64, &v, err, sizeof err), PT_E_CAPTURE);
	ck_assert_str_eq(err, "the gdbstub answered error 14");
	ck_assert_int_eq(pt_gdb_reg_value("c503", 32, &v, err, sizeof err), PT_E_CAPTURE);
	ck_assert_int_eq(pt_gdb_reg_value("zz030000", 32, &v, err, sizeof err), PT_E_CAPTURE);
}
END_TEST

/* ---- a stub that misbehaves: a forked server on a UNIX socket ---- */

enum stub { BAD_SUM, HUGE, TRICKLE, SILENT };

static void stub_send(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			_exit(0);
		s += w;
		n -= (size_t)w;
	}
}

/* The child: accepts one connection, reads the first command, answers as HOW says. */
static void stub_run(int ls, enum stub how)
{
	int fd = accept(ls, NULL, NULL);
	char c;

	if (fd < 0)
		_exit(1);
	/* the first packet: up to its '#' and two checksum digits */
	while (read(fd, &c, 1) == 1 && c != '#')
		;
	if (read(fd, &c, 1) != 1 || read(fd, &c, 1) != 1)
		_exit(1);
	stub_send(fd, "+", 1);
	if (how == BAD_SUM) {
		stub_send(fd, "$PacketSize=1000;qXfer:features:read+;multiprocess+#00", 54);
	} else if (how == HUGE) {
		static char big[65536];

		memset(big, 'a', sizeof big);
		stub_send(fd, "$", 1);
		for (int i = 0; i < 40; i++)   /* 2.5 MiB without an end: past PT_GDB_MAX_REPLY */
			stub_send(fd, big, sizeof big);
	} else if (how == TRICKLE) {
		stub_send(fd, "$", 1);
		for (;;) {   /* a byte every 20 ms: each wait is short, the whole never ends */
			stub_send(fd, "a", 1);
			usleep(20 * 1000);
		}
	}
	pause();
	_exit(0);
}

/* pt_gdb_arm64_cpus against a stub behaving as HOW (300 ms bound): its result, ERR, and the time taken. */
static pt_err stub_try(enum stub how, char *err, size_t errlen, long *ms)
{
	char *dir = tu_mkdtemp(), path[200];
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int ls = socket(AF_UNIX, SOCK_STREAM, 0), st;
	struct pt_gdb_cpu *cpus = NULL;
	struct timespec a, b;
	size_t n = 0;
	pid_t pid;
	pt_err rc;

	snprintf(path, sizeof path, "%s/g.sock", dir);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	ck_assert_int_eq(bind(ls, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(listen(ls, 1), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		stub_run(ls, how);
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = pt_gdb_arm64_cpus(path, 300, &cpus, &n, err, errlen);
	clock_gettime(CLOCK_MONOTONIC, &b);
	*ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	ck_assert_ptr_null(cpus);
	ck_assert_uint_eq(n, 0);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	close(ls);
	unlink(path);
	rmdir(dir);
	free(dir);
	return rc;
}

START_TEST(stub_misbehaves)
{
	char err[256];
	long ms;

	ck_assert_int_eq(stub_try(BAD_SUM, err, sizeof err, &ms), PT_E_CAPTURE);
	ck_assert_msg(!strncmp(err, "a gdbstub packet with a bad checksum (#00, the bytes sum to ", 59), "%s", err);
	ck_assert_int_eq(stub_try(HUGE, err, sizeof err, &ms), PT_E_CAPTURE);
	ck_assert_str_eq(err, "a gdbstub packet longer than 1048576 bytes");
	ck_assert_int_lt(ms, 2000);
	ck_assert_int_eq(stub_try(TRICKLE, err, sizeof err, &ms), PT_E_CAPTURE);
	ck_assert_str_eq(err, "gdbstub: no answer to 'qSupported:multiprocess+' within 300 ms");
	ck_assert_int_ge(ms, 280);
	ck_assert_int_lt(ms, 1500);
	ck_assert_int_eq(stub_try(SILENT, err, sizeof err, &ms), PT_E_CAPTURE);
	ck_assert_str_eq(err, "gdbstub: no answer to 'qSupported:multiprocess+' within 300 ms");
	ck_assert_int_lt(ms, 1500);
}
END_TEST


static Suite *suite(void)
{
	Suite *s = suite_create("src_gdb");
	TCase *tc = tcase_create("packets");

	tcase_add_test(tc, frames);
	tcase_add_test(tc, bad_frames);
	suite_add_tcase(s, tc);
	tc = tcase_create("replies");
	tcase_add_test(tc, xml_numbers);
	tcase_add_test(tc, threads_and_regs);
	suite_add_tcase(s, tc);
	tc = tcase_create("stub");
	tcase_add_test(tc, stub_misbehaves);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
