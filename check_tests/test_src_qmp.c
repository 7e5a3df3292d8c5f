/*
 * test_src_qmp: the live source's parsers and client (core/sources/pt_src_qmp.h,
 * issue #33): the JSON reader, `info mtree -f` and `info registers -a` as
 * QEMU 7.2 prints them (system/memory.c mtree_print_flatview,
 * target/i386/cpu-dump.c x86_cpu_dump_state), the socket's time bound, and
 * answers out of turn (issue #39 item 2): late, twice, out of order, never,
 * without an id — each command takes its own answer, matched by its "id".
 * The whole source against a fake server is check_tests/test_live.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pt_src_qmp.h"
#include "testutil.h"

START_TEST(json_values)
{
	static const char t[] = " {\"return\": {\"a\": [1, \"x\\u0041\\n\", true, null], \"n\": 5368709120}} ";
	struct pt_json *j = pt_json_parse(t, sizeof t - 1);
	const struct pt_json *r, *a;
	uint64_t v;

	ck_assert_ptr_nonnull(j);
	r = pt_json_get(j, "return");
	a = pt_json_get(r, "a");
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->type, PT_JSON_ARR);
	ck_assert_uint_eq(a->n, 4);
	ck_assert_str_eq(a->kid[1].s, "xA\n");
	ck_assert(a->kid[2].type == PT_JSON_BOOL && a->kid[2].b);
	ck_assert_int_eq(a->kid[3].type, PT_JSON_NULL);
	ck_assert(pt_json_u64(pt_json_get(r, "n"), &v) && v == 5368709120ull);
	ck_assert(!pt_json_u64(&a->kid[1], &v));
	ck_assert_ptr_null(pt_json_get(r, "missing"));
	pt_json_free(j);
	/* malformed: cut, trailing bytes, a control character in a string, too deep */
	ck_assert_ptr_null(pt_json_parse("{\"a\": [1, 2", 11));
	ck_assert_ptr_null(pt_json_parse("{} x", 4));
	ck_assert_ptr_null(pt_json_parse("\"a\nb\"", 5));
	{
		char deep[PT_JSON_MAX_DEPTH + 2];

		memset(deep, '[', sizeof deep);
		ck_assert_ptr_null(pt_json_parse(deep, sizeof deep));
	}
	/* 2^64 is no u64 */
	j = pt_json_parse("18446744073709551616", 20);
	ck_assert(j && !pt_json_u64(j, &v));
	pt_json_free(j);
}
END_TEST

/* q35 with 5 GiB, as QEMU 7.2 printed it: RAM below 2 GiB and from 4 GiB at offset 2 GiB */
static const char mtree[] =
	"FlatView #0\r\n AS \"I/O\", root: io\r\n Root memory region: io\r\n"
	"  0000000000000000-0000000000000007 (prio 0, i/o): dma-chan\r\n\r\n"
	"FlatView #1\r\n AS \"cpu-smm-0\", root: memory\r\n Root memory region: memory\r\n"
	"  0000000000000000-000000000009ffff (prio 0, ram): ram\r\n\r\n"
	"FlatView #3\r\n AS \"memory\", root: system\r\n AS \"cpu-memory-0\", root: system\r\n"
	" Root memory region: system\r\n"
	"  0000000000000000-000000000009ffff (prio 0, ram): ram\r\n"
	"  00000000000a0000-00000000000bffff (prio 1, i/o): vga-lowmem\r\n"
	"  00000000000c0000-00000000000dffff (prio 1, rom): pc.rom\r\n"
	"  0000000000100000-000000007fffffff (prio 0, ram): ram @0000000000100000\r\n"
	"  00000000fffc0000-00000000ffffffff (prio 0, rom): pc.bios\r\n"
	"  0000000100000000-00000001bfffffff (prio 0, ram): ram @0000000080000000 KVM\r\n";

START_TEST(mtree_q35)
{
	struct pt_qmp_range *r;
	size_t n;
	char err[256];

	ck_assert_int_eq(pt_qmp_mtree(mtree, "ram", &r, &n, err, sizeof err), PT_OK);
	ck_assert_uint_eq(n, 3);
	ck_assert(r[0].base == 0 && r[0].len == 0xa0000 && r[0].off == 0);
	ck_assert(r[1].base == 0x100000 && r[1].len == 0x7ff00000 && r[1].off == 0x100000);
	ck_assert(r[2].base == 0x100000000ull && r[2].len == 0xc0000000ull && r[2].off == 0x80000000ull);
	free(r);
	/* another backend's name: no RAM of it */
	ck_assert_int_eq(pt_qmp_mtree(mtree, "ram1", &r, &n, err, sizeof err), PT_E_CAPTURE);
	ck_assert_str_eq(err, "info mtree -f: address space \"memory\" maps no RAM of backend 'ram1'");
	ck_assert_int_eq(pt_qmp_mtree("FlatView #0\n AS \"I/O\", root: io\n", "ram", &r, &n, err, sizeof err),
			 PT_E_CAPTURE);
	ck_assert_str_eq(err, "info mtree -f shows no flat view of address space \"memory\"");
	/* a 17-digit address is a malformed line, named */
	ck_assert_int_eq(pt_qmp_mtree("FlatView #0\n AS \"memory\", root: system\n"
				      "  10000000000000000-10000000000000fff (prio 0, ram): ram\n", "ram", &r, &n, err,
				      sizeof err), PT_E_CAPTURE);
	ck_assert_str_eq(err, "info mtree -f:3: not a range line 'START-END (prio P, TYPE): NAME [@OFFSET]'");
}
END_TEST

START_TEST(mmio_windows)
{
	static const char two[] =
		"FlatView #0\n AS \"memory\", root: system\n"
		"  00000000fed90000-00000000fed9022f (prio 0, i/o): intel_iommu\n"
		"  00000000fea90000-00000000fea9022f (prio 0, i/o): intel_iommu\n";
	struct pt_qmp_range w;
	bool found;
	char err[256];

	/* q35 with amd-iommu (QEMU 7.2's own text, trimmed): the window in "memory" only */
	ck_assert_int_eq(pt_qmp_mmio("FlatView #0\n AS \"memory\", root: system\n"
				     "  00000000fed80000-00000000fed83fff (prio 0, i/o): amdvi-mmio\n"
				     "FlatView #1\n AS \"amd_iommu_devfn_0\", root: amdvi_root\n"
				     "  0000000000000000-00000000fedfffff (prio 1, i/o): amdvi-mmio\n",
				     "amdvi-mmio", &found, &w, err, sizeof err), PT_OK);
	ck_assert(found && w.base == 0xfed80000 && w.len == 0x4000 && w.line == 3);
	/* RAM of that name is no MMIO window, and absent is no error */
	ck_assert_int_eq(pt_qmp_mmio(mtree, "ram", &found, &w, err, sizeof err), PT_OK);
	ck_assert(!found);
	ck_assert_int_eq(pt_qmp_mmio(mtree, "vga-lowmem", &found, &w, err, sizeof err), PT_OK);
	ck_assert(found && w.base == 0xa0000 && w.len == 0x20000);
	ck_assert_int_eq(pt_qmp_mmio(two, "intel_iommu", &found, &w, err, sizeof err), PT_E_UNSUPPORTED);
	ck_assert_str_eq(err, "info mtree -f:3 and :4: two MMIO windows 'intel_iommu' in address space "
			 "\"memory\": one such IOMMU is read live");
}
END_TEST

START_TEST(xp_answers)
{
	uint64_t v = 0;
	char err[256];

	ck_assert_int_eq(pt_qmp_xp("00000000fed90020: 0x0000000000010400\r\n", 0xfed90020, &v, err, sizeof err),
			 PT_OK);
	ck_assert(v == 0x10400);
	ck_assert_int_eq(pt_qmp_xp("00000000fed9001c: 0xc0000000\r\n", 0xfed9001c, &v, err, sizeof err), PT_OK);
	ck_assert(v == 0xc0000000u);
	/* another address, no value, trailing words: refused, named */
	ck_assert_int_eq(pt_qmp_xp("00000000fed90028: 0x1\r\n", 0xfed90020, &v, err, sizeof err), PT_E_CAPTURE);
	ck_assert_str_eq(err, "xp of 0xfed90020 answered '00000000fed90028: 0x1', not "
			 "'00000000fed90020: 0xVALUE'");
	ck_assert_int_eq(pt_qmp_xp("00000000fed90020: 0x\r\n", 0xfed90020, &v, err, sizeof err), PT_E_CAPTURE);
	ck_assert_int_eq(pt_qmp_xp("00000000fed90020: 0x1 0x2\r\n", 0xfed90020, &v, err, sizeof err),
			 PT_E_CAPTURE);
	ck_assert_int_eq(pt_qmp_xp("00000000fed90020: 0x11112222333344445\r\n", 0xfed90020, &v, err, sizeof err),
			 PT_E_CAPTURE);
}
END_TEST

START_TEST(regs_x86)
{
	static const char t[] =
		"CPU#0\r\nRAX=0000000000000000 RBX=0000000000000000\r\n"
		"CR0=80050033 CR2=00007f0000001000 CR3=0000000002e1c000 CR4=00350ef0\r\n"
		"DR6=00000000ffff0ff0 DR7=0000000000000400\r\nEFER=0000000000000d01\r\n"
		"XMM00=0000000000000000 0000000000000000\r\n"
		"CPU#1\r\nCR0=60000010 CR2=00000000 CR3=00000000 CR4=00000000\r\nEFER=0000000000000000\r\n";
	struct pt_qmp_cpu *c;
	size_t n;
	char err[256];

	ck_assert_int_eq(pt_qmp_regs(t, &c, &n, err, sizeof err), PT_OK);
	ck_assert_uint_eq(n, 2);
	ck_assert(c[0].index == 0 && c[0].seen == PT_QMP_R_ALL);
	ck_assert(c[0].cr0 == 0x80050033 && c[0].cr3 == 0x2e1c000 && c[0].cr4 == 0x350ef0 && c[0].efer == 0xd01);
	ck_assert(c[1].index == 1 && c[1].cr0 == 0x60000010 && c[1].efer == 0);
	free(c);
	ck_assert_int_eq(pt_qmp_regs("CPU#3\nCR0=80050033 CR3=11112222333344445 CR4=0\n", &c, &n, err, sizeof err),
			 PT_E_CAPTURE);
	ck_assert_str_eq(err, "info registers -a: CPU#3 CR3 is not a hex value of at most 16 digits");
	ck_assert_int_eq(pt_qmp_regs(" PC=0000000040000000 X00=0\n", &c, &n, err, sizeof err), PT_E_CAPTURE);
	ck_assert_str_eq(err, "info registers -a shows no CPU#N (not an x86 guest?)");
}
END_TEST

/* A socket that accepts and never greets: the open gives up at the bound, with one line. */
START_TEST(silent_socket_bounded)
{
	char *dir = tu_mkdtemp(), path[200], err[512];
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct timespec a, b;
	struct pt_qmp q;

	snprintf(path, sizeof path, "%s/q.sock", dir);
	ck_assert_uint_lt(strlen(path), sizeof sa.sun_path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
	ck_assert_int_eq(listen(s, 1), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	ck_assert_int_eq(pt_qmp_open(&q, path, 300, err, sizeof err), PT_E_CAPTURE);
	clock_gettime(CLOCK_MONOTONIC, &b);
	pt_qmp_close(&q);
	ck_assert_msg(strstr(err, "no QMP greeting within 300 ms"), "%s", err);
	ck_assert_int_lt((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000, 2000);
	close(s);
	unlink(path);
	rmdir(dir);
	free(dir);
}
END_TEST

/* ---- answers out of turn: a scripted server on a socketpair ---- */

/* How the server answers one command: its answer echoes the command line as a string. */
enum how { ON_TIME, LATE, TWICE, STALE_FIRST, NEVER, NO_ID, EVENT_ONLY };

static void srv_write(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			_exit(3);
		s += w;
		n -= (size_t)w;
	}
}

/* The child: reads one command line per step and answers it as HOW[i] says; exits at the end. */
static void srv_run(int fd, const enum how *how, size_t n)
{
	char line[512], ans[1200], id[64];

	for (size_t i = 0; i < n; i++) {
		size_t len = 0, o = 0;
		const char *p;

		while (len < sizeof line - 1 && read(fd, line + len, 1) == 1 && line[len] != '\n')
			len++;
		line[len] = 0;
		p = strstr(line, "\"id\": \"");
		snprintf(id, sizeof id, "%.*s", p ? (int)strcspn(p + 7, "\"") : 0, p ? p + 7 : "");
		o += (size_t)snprintf(ans + o, sizeof ans - o, "{\"return\": \"");
		for (const char *c = line; *c && o < sizeof ans - 64; c++)
			o += (size_t)snprintf(ans + o, sizeof ans - o, *c == '"' ? "\\\"" : "%c", *c);
		if (how[i] == NO_ID)
			snprintf(ans + o, sizeof ans - o, "\"}\r\n");
		else
			snprintf(ans + o, sizeof ans - o, "\", \"id\": \"%s\"}\r\n", id);
		if (how[i] == EVENT_ONLY)
			srv_write(fd, "{\"event\": \"STOP\", \"timestamp\": {\"seconds\": 1, \"microseconds\": 0}}\r\n");
		if (how[i] == NEVER || how[i] == EVENT_ONLY)
			continue;
		if (how[i] == LATE)
			usleep(400 * 1000);
		if (how[i] == STALE_FIRST) {
			/* an event and an answer to some earlier command, before this one's */
			srv_write(fd, "{\"event\": \"STOP\", \"timestamp\": {\"seconds\": 1, \"microseconds\": 0}}\r\n");
			srv_write(fd, "{\"return\": {}, \"id\": \"ptfs-0\"}\r\n");
		}
		srv_write(fd, ans);
		if (how[i] == TWICE)
			srv_write(fd, ans);
	}
	usleep(100 * 1000);
	_exit(0);
}

/* A client connection (200 ms per command) to a child serving HOW; its pid in *PID. */
static void srv_start(struct pt_qmp *q, const enum how *how, size_t n, pid_t *pid)
{
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
	*pid = fork();
	ck_assert_int_ge(*pid, 0);
	if (*pid == 0) {
		close(sv[0]);
		/* the child reads blocking; the client's end stays non-blocking, as pt_sock_connect makes it */
		fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) & ~O_NONBLOCK);
		srv_run(sv[1], how, n);
	}
	close(sv[1]);
	memset(q, 0, sizeof *q);
	q->fd = sv[0];
	q->timeout_ms = 200;
}

/* Sends {"execute": "NAME"}: the answer's text (the command as the server read it) into GOT. */
static pt_err cmd(struct pt_qmp *q, const char *name, char *got, size_t len, char *err, size_t errlen)
{
	char json[64];
	struct pt_json *msg = NULL;
	const struct pt_json *ret;
	pt_err rc;

	snprintf(json, sizeof json, "{\"execute\": \"%s\"}", name);
	got[0] = 0;
	rc = pt_qmp_cmd(q, json, &msg, &ret, err, errlen);
	if (!rc && ret->type == PT_JSON_STR)
		snprintf(got, len, "%s", ret->s);
	pt_json_free(msg);
	return rc;
}

static void srv_end(struct pt_qmp *q, pid_t pid)
{
	int st;

	pt_qmp_close(q);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
}

START_TEST(answers_matched_by_id)
{
	static const enum how how[] = {ON_TIME, LATE, ON_TIME, TWICE, ON_TIME, STALE_FIRST};
	struct pt_qmp q;
	char got[512], err[256];
	pid_t pid;

	srv_start(&q, how, 6, &pid);
	/*
	 * A command answered in time gets a bound no loaded machine reaches
	 * (the server answers the next command only after its late one, 400 ms
	 * in: with 200 ms each, c's wait raced the rest of b's sleep); the late
	 * one keeps 200 ms.
	 */
	q.timeout_ms = 5000;
	ck_assert_int_eq(cmd(&q, "a", got, sizeof got, err, sizeof err), PT_OK);
	/* the command goes out with its id first, the rest of the object as given */
	ck_assert_str_eq(got, "{\"id\": \"ptfs-1\", \"execute\": \"a\"}");
	/* late: the command gives up at its bound ... */
	q.timeout_ms = 200;
	ck_assert_int_eq(cmd(&q, "b", got, sizeof got, err, sizeof err), PT_E_CAPTURE);
	ck_assert_str_eq(err, "no answer within 200 ms");
	q.timeout_ms = 5000;
	/* ... and its answer, when it comes, is not taken for the next command's */
	ck_assert_int_eq(cmd(&q, "c", got, sizeof got, err, sizeof err), PT_OK);
	ck_assert_str_eq(got, "{\"id\": \"ptfs-3\", \"execute\": \"c\"}");
	ck_assert_uint_eq(q.dropped, 1);
	/* twice: the second copy is dropped when the next command reads */
	ck_assert_int_eq(cmd(&q, "d", got, sizeof got, err, sizeof err), PT_OK);
	ck_assert_str_eq(got, "{\"id\": \"ptfs-4\", \"execute\": \"d\"}");
	ck_assert_int_eq(cmd(&q, "e", got, sizeof got, err, sizeof err), PT_OK);
	ck_assert_str_eq(got, "{\"id\": \"ptfs-5\", \"execute\": \"e\"}");
	ck_assert_uint_eq(q.dropped, 2);
	/* an event and an earlier command's answer come first: both passed over */
	ck_assert_int_eq(cmd(&q, "f", got, sizeof got, err, sizeof err), PT_OK);
	ck_assert_str_eq(got, "{\"id\": \"ptfs-6\", \"execute\": \"f\"}");
	ck_assert_uint_eq(q.dropped, 3);
	srv_end(&q, pid);
}
END_TEST

START_TEST(late_answer_between_commands)
{
	static const enum how how[] = {LATE, ON_TIME};
	struct pt_qmp q;
	char got[512], err[256];
	pid_t pid;

	srv_start(&q, how, 2, &pid);
	ck_assert_int_eq(cmd(&q, "stop", got, sizeof got, err, sizeof err), PT_E_CAPTURE);
	/* the late answer arrives while no command waits: the check between commands drops it */
	usleep(1000 * 1000);
	ck_assert(!pt_qmp_gone(&q));
	ck_assert_uint_eq(q.len, 0);
	q.timeout_ms = 5000;   /* answered at once: no race with a loaded machine */
	ck_assert_int_eq(cmd(&q, "query-status", got, sizeof got, err, sizeof err), PT_OK);
	ck_assert_str_eq(got, "{\"id\": \"ptfs-2\", \"execute\": \"query-status\"}");
	srv_end(&q, pid);
}
END_TEST

START_TEST(never_and_no_id)
{
	static const enum how how[] = {EVENT_ONLY, NEVER, NO_ID};
	struct pt_qmp q;
	char got[512], err[256];
	struct timespec a, b;
	pid_t pid;

	srv_start(&q, how, 3, &pid);
	/* an event, then nothing: the time-out leaves no message to free (cmd() frees what it is given) */
	ck_assert_int_eq(cmd(&q, "stop", got, sizeof got, err, sizeof err), PT_E_CAPTURE);
	ck_assert_str_eq(err, "no answer within 200 ms");
	clock_gettime(CLOCK_MONOTONIC, &a);
	ck_assert_int_eq(cmd(&q, "stop", got, sizeof got, err, sizeof err), PT_E_CAPTURE);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ck_assert_str_eq(err, "no answer within 200 ms");
	ck_assert_int_lt((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000, 1000);
	q.timeout_ms = 5000;   /* answered at once: no race with a loaded machine */
	ck_assert_int_eq(cmd(&q, "cont", got, sizeof got, err, sizeof err), PT_E_CAPTURE);
	ck_assert_msg(!strncmp(err, "a QMP answer without the command's \"id\": '{\"return\": ", 52), "%s", err);
	/* the server is gone: one line, no wait */
	usleep(200 * 1000);
	ck_assert(pt_qmp_gone(&q));
	ck_assert_int_eq(cmd(&q, "cont", got, sizeof got, err, sizeof err), PT_E_IO);
	srv_end(&q, pid);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("src_qmp");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, json_values);
	tcase_add_test(tc, mtree_q35);
	tcase_add_test(tc, regs_x86);
	tcase_add_test(tc, mmio_windows);
	tcase_add_test(tc, xp_answers);
	suite_add_tcase(s, tc);
	tc = tcase_create("socket");
	tcase_add_test(tc, silent_socket_bounded);
	tcase_add_test(tc, answers_matched_by_id);
	tcase_add_test(tc, late_answer_between_commands);
	tcase_add_test(tc, never_and_no_id);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
