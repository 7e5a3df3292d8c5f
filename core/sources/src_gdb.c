/* SPDX-License-Identifier: MIT */
/*
 * src_gdb.c — the gdbstub client of the live source (pt_src_gdb.h): GDB
 * remote serial protocol packets, target description XML, and the
 * conversation that reads an aarch64 guest's translation registers.  No
 * code from GDB or QEMU: the protocol as the GDB manual states it, and
 * QEMU's choices (the register names, thread = CPU index + 1, a stop on
 * connect) as target/arm/gdbstub.c and gdbstub/gdbstub.c make them.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pt_buf.h"
#include "pt_capture.h"
#include "pt_num.h"
#include "pt_src_gdb.h"
#include "pt_src_qmp.h"
#include "pt_vec.h"

/* ---- packets ---- */

static int hex2(const char *p)
{
	int a = pt_hex_digit(p[0]), b = a < 0 ? -1 : pt_hex_digit(p[1]);

	return b < 0 ? -1 : a << 4 | b;
}

pt_err pt_gdb_unframe(const char *raw, size_t n, char **out, size_t *outlen, size_t *used, char *err,
		      size_t errlen)
{
	const char *d, *hash;
	size_t i = 0, len, o = 0, cap;
	unsigned sum = 0;
	char *b;
	int cs;

	*out = NULL;
	*outlen = 0;
	*used = 0;
	while (i < n && raw[i] != '$') {
		if (raw[i] == '-')
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "the gdbstub asked for a resend ('-'): the "
					  "connection is not clean");
		i++;   /* '+' acknowledgements */
	}
	if (i == n) {
		*used = n;
		return PT_OK;
	}
	d = raw + i + 1;
	hash = memchr(d, '#', n - i - 1);
	if (!hash || (size_t)(hash - raw) + 3 > n) {
		if (n - i > PT_GDB_MAX_REPLY)
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a gdbstub packet longer than %u bytes",
					  PT_GDB_MAX_REPLY);
		*used = i;   /* not whole yet */
		return PT_OK;
	}
	len = (size_t)(hash - d);
	for (size_t k = 0; k < len; k++)
		sum += (unsigned char)d[k];
	cs = hex2(hash + 1);
	if (cs < 0)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a gdbstub packet whose checksum is not two hex "
				  "digits");
	if ((unsigned)cs != (sum & 0xff))
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a gdbstub packet with a bad checksum (#%02x, the "
				  "bytes sum to %02x)", (unsigned)cs, sum & 0xff);
	cap = len + 1;
	b = malloc(cap);
	if (!b)
		return pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
	for (size_t k = 0; k < len; k++) {
		char c = d[k];

		if (c == '}') {
			if (++k == len)
				goto bad;
			c = (char)(d[k] ^ 0x20);
		} else if (c == '*') {
			/* a run: N - 29 more copies of the byte before (the manual: N printable, not '#' or '$') */
			int rep;

			if (!o || ++k == len || d[k] < 29 + 3 || d[k] > 126)
				goto bad;
			rep = d[k] - 29;
			if (o + (size_t)rep + (len - k) >= PT_GDB_MAX_REPLY) {
				free(b);
				return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a gdbstub reply longer than %u bytes",
						  PT_GDB_MAX_REPLY);
			}
			if (!pt_vec_resize(&b, cap += (size_t)rep, 1)) {
				free(b);
				return pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
			}
			memset(b + o, b[o - 1], (size_t)rep);
			o += (size_t)rep;
			continue;
		}
		b[o++] = c;
	}
	b[o] = 0;
	*out = b;
	*outlen = o;
	*used = (size_t)(hash - raw) + 3;
	return PT_OK;
bad:
	free(b);
	return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a gdbstub packet with a malformed escape or run");
}

/* ---- target descriptions ---- */

/* The value of attribute NAME in the element [P, E) (no entities: QEMU writes none), or NULL. */
static const char *attr(const char *p, const char *e, const char *name, size_t *len)
{
	size_t nl = strlen(name);

	for (const char *q = p; q + nl + 2 < e; q++) {
		if ((q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n') && !strncmp(q, name, nl) && q[nl] == '=' &&
		    (q[nl + 1] == '"' || q[nl + 1] == '\'')) {
			const char *v = q + nl + 2, *end = memchr(v, q[nl + 1], (size_t)(e - v));

			if (!end)
				return NULL;
			*len = (size_t)(end - v);
			return v;
		}
	}
	return NULL;
}

static bool attr_uint(const char *p, const char *e, const char *name, unsigned *v, bool *bad)
{
	size_t len;
	const char *a = attr(p, e, name, &len);
	char num[16];
	uint64_t x;

	if (!a)
		return false;
	if (!len || len >= sizeof num) {
		*bad = true;
		return false;
	}
	memcpy(num, a, len);
	num[len] = 0;
	for (size_t i = 0; i < len; i++)
		if (num[i] < '0' || num[i] > '9')
			*bad = true;
	x = strtoull(num, NULL, 10);
	if (*bad || x > 1u << 20) {
		*bad = true;
		return false;
	}
	*v = (unsigned)x;
	return true;
}

pt_err pt_gdb_xml_reg(const char *xml, unsigned *next, const char *name, bool *found, unsigned *regnum,
		      unsigned *bits, char *err, size_t errlen)
{
	for (const char *p = strstr(xml, "<reg"); p; p = strstr(p + 4, "<reg")) {
		const char *e = strchr(p, '>'), *nm;
		size_t nlen;
		unsigned num = *next, b = 0;
		bool bad = false;

		if (p[4] != ' ' && p[4] != '\t' && p[4] != '\n')
			continue;   /* <register...>, not a register element */
		if (!e)
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "target description: a <reg> element without '>'");
		nm = attr(p + 4, e, "name", &nlen);
		attr_uint(p + 4, e, "regnum", &num, &bad);
		if (!attr_uint(p + 4, e, "bitsize", &b, &bad) || !nm || bad || !b || b > 4096)
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "target description: a <reg> element without a "
					  "name, or with a bitsize or regnum that is not a number");
		*next = num + 1;
		if (nlen == strlen(name) && !strncmp(nm, name, nlen)) {
			*found = true;
			*regnum = num;
			*bits = b;
		}
	}
	return PT_OK;
}

pt_err pt_gdb_xml_includes(const char *xml, char **href, size_t max, size_t *n, char *err, size_t errlen)
{
	*n = 0;
	for (const char *p = strstr(xml, "<xi:include"); p; p = strstr(p + 11, "<xi:include")) {
		const char *e = strchr(p, '>'), *h;
		size_t len;

		if (!e || !(h = attr(p + 11, e, "href", &len)) || !len || len > 128 || memchr(h, '/', len))
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "target description: an <xi:include> without a "
					  "plain file name in href");
		if (*n == max)
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "target description: more than %zu included "
					  "files", max);
		href[*n] = strndup(h, len);
		if (!href[*n])
			return pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
		(*n)++;
	}
	return PT_OK;
}

pt_err pt_gdb_reg_value(const char *reply, unsigned bits, uint64_t *v, char *err, size_t errlen)
{
	size_t len = strlen(reply), nbytes = bits / 8;

	*v = 0;
	if (!len)
		return pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "the gdbstub does not read this register (an empty "
				  "reply)");
	if (reply[0] == 'E' && len == 3 && hex2(reply + 1) >= 0)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "the gdbstub answered error %s", reply + 1);
	if (bits % 8 || nbytes > 8 || !nbytes || len != nbytes * 2)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a register reply of %zu hex digits for %u bits", len,
				  bits);
	for (size_t i = 0; i < nbytes; i++) {
		int b = hex2(reply + 2 * i);

		if (b < 0)
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a register reply that is not hex");
		*v |= (uint64_t)b << (8 * i);
	}
	return PT_OK;
}

pt_err pt_gdb_threads(const char *reply, unsigned *pid, unsigned *tid, size_t *n, bool *more, char *err,
		      size_t errlen)
{
	const char *p = reply + 1;

	*more = false;
	if (!strcmp(reply, "l"))
		return PT_OK;
	if (reply[0] != 'm' || !reply[1])
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a thread list reply that is neither 'm...' nor 'l'");
	for (;;) {
		uint64_t a, b;
		const char *s;

		if (*n == PT_GDB_MAX_THREADS)
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "more than %u threads", PT_GDB_MAX_THREADS);
		if (*p++ != 'p')
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a thread id without 'p' (multiprocess ids)");
		for (a = 0, s = p; pt_hex_digit(*p) >= 0 && p - s < 8; p++)
			a = a << 4 | (uint64_t)pt_hex_digit(*p);
		if (p == s || *p++ != '.')
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a thread id that is not pPID.TID");
		for (b = 0, s = p; pt_hex_digit(*p) >= 0 && p - s < 8; p++)
			b = b << 4 | (uint64_t)pt_hex_digit(*p);
		if (p == s || !b || (*p && *p != ','))
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a thread id that is not pPID.TID");
		pid[*n] = (unsigned)a;
		tid[*n] = (unsigned)b;
		(*n)++;
		if (!*p)
			break;
		p++;
	}
	*more = true;
	return PT_OK;
}

/* ---- the conversation ---- */

struct gdb {
	int fd;
	char *buf;
	size_t len, cap;
	int64_t deadline;
	unsigned timeout_ms;
};

static pt_err gdb_send(struct gdb *g, const char *cmd, char *err, size_t errlen)
{
	char frame[256];
	unsigned sum = 0;
	int n;

	for (const char *c = cmd; *c; c++)
		sum += (unsigned char)*c;
	n = snprintf(frame, sizeof frame, "$%s#%02x", cmd, sum & 0xff);
	for (int off = 0; off < n;) {
		ssize_t w;

		if (!pt_sock_wait(g->fd, POLLOUT, g->deadline))
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "the gdbstub took no command within %u ms",
					  g->timeout_ms);
		w = send(g->fd, frame + off, (size_t)(n - off), MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0 && errno != EINTR && errno != EAGAIN)
			return pt_err_fmt(err, errlen, PT_E_IO, "gdbstub: send: %s", strerror(errno));
		if (w > 0)
			off += (int)w;
	}
	return PT_OK;
}

/* The reply to CMD; stop replies QEMU sends unasked ("T05thread:01;" on connect) are skipped. */
static pt_err gdb_cmd(struct gdb *g, const char *cmd, char **reply, char *err, size_t errlen)
{
	pt_err rc;

	*reply = NULL;
	g->deadline = pt_sock_now_ms() + g->timeout_ms;
	if ((rc = gdb_send(g, cmd, err, errlen)))
		return rc;
	for (;;) {
		size_t used, olen;
		char *out;
		ssize_t r;

		if ((rc = pt_gdb_unframe(g->buf, g->len, &out, &olen, &used, err, errlen)))
			return rc;
		if (used) {
			memmove(g->buf, g->buf + used, g->len - used);
			g->len -= used;
		}
		if (out) {
			if (send(g->fd, "+", 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1) {
				free(out);
				return pt_err_fmt(err, errlen, PT_E_IO, "gdbstub: the acknowledgement was not sent");
			}
			if ((out[0] == 'T' || out[0] == 'S') && hex2(out + 1) >= 0) {
				free(out);
				continue;
			}
			*reply = out;
			return PT_OK;
		}
		if (g->cap - g->len < 4096) {
			if (g->cap >= PT_GDB_MAX_REPLY + 8192)
				return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a gdbstub packet longer than %u bytes",
						  PT_GDB_MAX_REPLY);
			if (!pt_vec_reserve(&g->buf, &g->cap, g->cap ? g->cap * 2 : 8192, 1))
				return pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
		}
		if (!pt_sock_wait(g->fd, POLLIN, g->deadline))
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "gdbstub: no answer to '%.24s' within %u ms",
					  cmd, g->timeout_ms);
		r = recv(g->fd, g->buf + g->len, g->cap - g->len, MSG_DONTWAIT);
		if (r == 0)
			return pt_err_fmt(err, errlen, PT_E_IO, "the gdbstub closed the connection");
		if (r < 0 && errno != EINTR && errno != EAGAIN)
			return pt_err_fmt(err, errlen, PT_E_IO, "gdbstub: recv: %s", strerror(errno));
		if (r > 0)
			g->len += (size_t)r;
	}
}

/* A whole target description file ("qXfer:features:read:NAME:OFF,LEN", 'm' more, 'l' last). */
static pt_err read_xml(struct gdb *g, const char *name, char **xml, char *err, size_t errlen)
{
	struct pt_buf b;
	pt_err rc = PT_OK;

	pt_buf_init(&b);
	for (;;) {
		char cmd[192], *r;

		snprintf(cmd, sizeof cmd, "qXfer:features:read:%s:%zx,ffb", name, b.len);
		if ((rc = gdb_cmd(g, cmd, &r, err, errlen)))
			break;
		if ((r[0] != 'm' && r[0] != 'l') || b.len + strlen(r) > PT_GDB_MAX_XML) {
			rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "gdbstub: %s: not a target description (%.8s)",
					name, r);
			free(r);
			break;
		}
		pt_buf_puts(&b, r + 1);
		if (r[0] == 'l' || !r[1]) {
			free(r);
			break;
		}
		free(r);
	}
	if (!rc && (b.oom || !b.len))
		rc = pt_err_fmt(err, errlen, b.oom ? PT_E_NOMEM : PT_E_CAPTURE, b.oom ? "out of memory" :
				"gdbstub: %s is empty", name);
	if (rc) {
		pt_buf_free(&b);
		return rc;
	}
	*xml = b.data;   /* taken */
	return PT_OK;
}

/*
 * The registers read per vCPU, by their names in QEMU's target description;
 * the first NREQ are needed, SP_EL0 (the running task at EL1) may be absent.
 */
static const char *const reg_names[] = {"cpsr", "SCTLR", "TCR_EL1", "TTBR0_EL1", "TTBR1_EL1", "SP_EL0"};
#define NREGS (sizeof reg_names / sizeof reg_names[0])
#define NREQ 5u
#define NO_REG UINT32_MAX

/* Each of reg_names[]'s number and size from target.xml and the files it includes. */
static pt_err find_regs(struct gdb *g, unsigned *num, unsigned *bits, char *err, size_t errlen)
{
	char *xml = NULL, *href[16];
	size_t nh = 0;
	bool found[NREGS] = {false};
	unsigned next = 0;
	pt_err rc = read_xml(g, "target.xml", &xml, err, errlen);

	if (!rc)
		rc = pt_gdb_xml_includes(xml, href, 16, &nh, err, errlen);
	/* registers are numbered in document order: QEMU's target.xml has none of its own, only includes */
	if (!rc && strstr(xml, "<reg "))
		rc = pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "gdbstub: target.xml has registers of its own: not "
				"QEMU's layout");
	free(xml);
	for (size_t i = 0; i < nh; i++) {
		unsigned start = next;

		xml = NULL;
		if (!rc)
			rc = read_xml(g, href[i], &xml, err, errlen);
		for (size_t r = 0; !rc && r < NREGS; r++) {
			next = start;
			rc = pt_gdb_xml_reg(xml, &next, reg_names[r], &found[r], &num[r], &bits[r], err, errlen);
		}
		free(xml);
		free(href[i]);
	}
	for (size_t r = NREQ; r < NREGS; r++)
		if (!found[r] || bits[r] > 64)
			num[r] = NO_REG;
	for (size_t r = 0; !rc && r < NREQ; r++)
		if (!found[r] || bits[r] > 64)
			rc = pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "gdbstub: no 64-bit register %s in the target "
					"description (QEMU serves TTBR0_EL1, TTBR1_EL1 and TCR_EL1 as system registers "
					"from 5.0)", reg_names[r]);
	return rc;
}

static pt_err cpu_regs(struct gdb *g, unsigned pid, unsigned tid, const unsigned *num, const unsigned *bits,
		       uint64_t *v, char *err, size_t errlen)
{
	char cmd[48], *r;
	pt_err rc;

	snprintf(cmd, sizeof cmd, "Hgp%x.%x", pid, tid);
	if ((rc = gdb_cmd(g, cmd, &r, err, errlen)))
		return rc;
	if (strcmp(r, "OK"))
		rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "gdbstub: thread p%x.%x not selected (%.8s)", pid, tid, r);
	free(r);
	for (size_t i = 0; !rc && i < NREGS; i++) {
		char e[200];

		v[i] = 0;
		if (num[i] == NO_REG)
			continue;
		snprintf(cmd, sizeof cmd, "p%x", num[i]);
		if ((rc = gdb_cmd(g, cmd, &r, err, errlen)))
			break;
		if ((rc = pt_gdb_reg_value(r, bits[i], &v[i], e, sizeof e)))
			pt_err_fmt(err, errlen, rc, "gdbstub: thread p%x.%x %s: %s", pid, tid, reg_names[i], e);
		free(r);
	}
	return rc;
}

/* Every thread's ids (qfThreadInfo, then qsThreadInfo until 'l'). */
static pt_err threads(struct gdb *g, unsigned *pid, unsigned *tid, size_t *n, char *err, size_t errlen)
{
	bool more = true;
	pt_err rc = PT_OK;

	*n = 0;
	for (const char *cmd = "qfThreadInfo"; !rc && more; cmd = "qsThreadInfo") {
		char *r;

		if ((rc = gdb_cmd(g, cmd, &r, err, errlen)))
			break;
		rc = pt_gdb_threads(r, pid, tid, n, &more, err, errlen);
		free(r);
	}
	if (!rc && !*n)
		rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "gdbstub: no threads (vCPUs)");
	return rc;
}

pt_err pt_gdb_arm64_cpus(const char *path, unsigned timeout_ms, struct pt_gdb_cpu **cpus, size_t *n,
			 char *err, size_t errlen)
{
	struct gdb g = {.fd = -1, .timeout_ms = timeout_ms};
	unsigned num[NREGS], bits[NREGS], *pid = NULL, *tid = NULL;
	size_t nt = 0;
	char *r = NULL;
	pt_err rc = pt_sock_connect(path, &g.fd, err, errlen);

	*cpus = NULL;
	*n = 0;
	/* multiprocess ids, as QEMU 7.2 gives them; xmlRegisters names the architecture */
	if (!rc)
		rc = gdb_cmd(&g, "qSupported:multiprocess+;xmlRegisters=aarch64", &r, err, errlen);
	if (!rc && (!strstr(r, "qXfer:features:read+") || !strstr(r, "multiprocess+")))
		rc = pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "gdbstub: no target descriptions or multiprocess "
				"thread ids (qSupported: %.60s)", r);
	free(r);
	if (!rc)
		rc = find_regs(&g, num, bits, err, errlen);
	if (!rc && (!(pid = calloc(PT_GDB_MAX_THREADS, sizeof *pid)) ||
		    !(tid = calloc(PT_GDB_MAX_THREADS, sizeof *tid))))
		rc = pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
	if (!rc)
		rc = threads(&g, pid, tid, &nt, err, errlen);
	if (!rc && !(*cpus = calloc(nt, sizeof **cpus)))
		rc = pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
	for (size_t i = 0; !rc && i < nt; i++) {
		uint64_t v[NREGS];
		struct pt_gdb_cpu *c = &(*cpus)[i];

		if ((rc = cpu_regs(&g, pid[i], tid[i], num, bits, v, err, errlen)))
			break;
		/* QEMU's thread id is the CPU index + 1 (gdbstub.c gdb_get_cpu_index) */
		c->index = tid[i] - 1;
		c->cpsr = v[0];
		c->sctlr = v[1];
		c->tcr = v[2];
		c->ttbr0 = v[3];
		c->ttbr1 = v[4];
		c->sp_el0 = v[5];
		c->has_sp_el0 = num[5] != NO_REG;
	}
	if (rc) {
		free(*cpus);
		*cpus = NULL;
	} else {
		*n = nt;
	}
	free(pid);
	free(tid);
	free(g.buf);
	if (g.fd >= 0)
		close(g.fd);
	return rc;
}
