/* SPDX-License-Identifier: MIT */
/*
 * src_qmp.c — the QMP client of the live source (pt_src_qmp.h): a JSON
 * reader, the socket conversation bounded in time and bytes, and the
 * parsers of the HMP text the source asks for.  The protocol is QEMU's
 * docs/interop/qmp-spec.rst: a greeting {"QMP": {...}}, then one JSON
 * object per line, each command answered by {"return": ...} or
 * {"error": {"class", "desc"}}, with {"event": ...} messages in between.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "pt_buf.h"
#include "pt_capture.h"
#include "pt_num.h"
#include "pt_src_qmp.h"

/* ---- JSON ---- */

struct jp {
	const char *p, *end;
	unsigned depth;
};

static void ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

static void put_utf8(struct pt_buf *b, unsigned c)
{
	char u[4];

	if (c < 0x80) {
		u[0] = (char)c;
		pt_buf_put(b, u, 1);
	} else if (c < 0x800) {
		u[0] = (char)(0xc0 | c >> 6);
		u[1] = (char)(0x80 | (c & 0x3f));
		pt_buf_put(b, u, 2);
	} else {
		u[0] = (char)(0xe0 | c >> 12);
		u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		pt_buf_put(b, u, 3);
	}
}

/* A string at J->p (the opening quote), unescaped into a malloc'd NUL-terminated copy. */
static char *jstring(struct jp *j)
{
	struct pt_buf b;

	pt_buf_init(&b);
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		const char *s = j->p;

		if ((unsigned char)*s < 0x20)
			goto bad;
		if (*s != '\\') {
			while (j->p < j->end && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20)
				j->p++;
			pt_buf_put(&b, s, (size_t)(j->p - s));
			continue;
		}
		if (j->end - s < 2)
			goto bad;
		j->p += 2;
		switch (s[1]) {
		case '"': case '\\': case '/':
			pt_buf_put(&b, s + 1, 1);
			break;
		case 'b': pt_buf_put(&b, "\b", 1); break;
		case 'f': pt_buf_put(&b, "\f", 1); break;
		case 'n': pt_buf_put(&b, "\n", 1); break;
		case 'r': pt_buf_put(&b, "\r", 1); break;
		case 't': pt_buf_put(&b, "\t", 1); break;
		case 'u': {
			unsigned c = 0;

			if (j->end - j->p < 4)
				goto bad;
			for (int i = 0; i < 4; i++) {
				int d = pt_hex_digit(j->p[i]);

				if (d < 0)
					goto bad;
				c = c << 4 | (unsigned)d;
			}
			j->p += 4;
			/* surrogates stand for themselves: nothing here reads characters outside ASCII */
			put_utf8(&b, c ? c : '?');
			break;
		}
		default:
			goto bad;
		}
	}
	if (j->p >= j->end)
		goto bad;
	j->p++;
	pt_buf_put(&b, "", 1);
	if (b.oom)
		goto bad;
	return b.data;
bad:
	pt_buf_free(&b);
	return NULL;
}

static bool jvalue(struct jp *j, struct pt_json *v);

static bool jadd(struct pt_json *v, char *key, struct jp *j)
{
	struct pt_json *nk;
	char **nkey = NULL;

	nk = realloc(v->kid, (v->n + 1) * sizeof *nk);
	if (!nk)
		return false;
	v->kid = nk;
	if (v->type == PT_JSON_OBJ) {
		nkey = realloc(v->key, (v->n + 1) * sizeof *nkey);
		if (!nkey)
			return false;
		v->key = nkey;
		v->key[v->n] = key;
	}
	memset(&v->kid[v->n], 0, sizeof v->kid[v->n]);
	v->n++;
	return jvalue(j, &v->kid[v->n - 1]);
}

static bool jcontainer(struct jp *j, struct pt_json *v, char close)
{
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return true;
	}
	for (;;) {
		char *key = NULL;

		ws(j);
		if (close == '}') {
			if (j->p >= j->end || *j->p != '"' || !(key = jstring(j)))
				return false;
			ws(j);
			if (j->p >= j->end || *j->p != ':') {
				free(key);
				return false;
			}
			j->p++;
		}
		if (!jadd(v, key, j)) {
			if (key && (v->type != PT_JSON_OBJ || !v->n || v->key[v->n - 1] != key))
				free(key);
			return false;
		}
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return true;
		}
		return false;
	}
}

static bool jlit(struct jp *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return false;
	j->p += n;
	return true;
}

static bool jvalue(struct jp *j, struct pt_json *v)
{
	bool ok;

	ws(j);
	if (j->p >= j->end || j->depth >= PT_JSON_MAX_DEPTH)
		return false;
	switch (*j->p) {
	case '{':
	case '[':
		v->type = *j->p == '{' ? PT_JSON_OBJ : PT_JSON_ARR;
		j->depth++;
		ok = jcontainer(j, v, *j->p == '{' ? '}' : ']');
		j->depth--;
		return ok;
	case '"':
		v->type = PT_JSON_STR;
		v->s = jstring(j);
		return v->s != NULL;
	case 't':
		v->type = PT_JSON_BOOL;
		v->b = true;
		return jlit(j, "true");
	case 'f':
		v->type = PT_JSON_BOOL;
		return jlit(j, "false");
	case 'n':
		v->type = PT_JSON_NULL;
		return jlit(j, "null");
	default: {
		const char *s = j->p;

		while (j->p < j->end && strchr("+-0123456789.eE", *j->p))
			j->p++;
		if (j->p == s || j->p - s > 64)
			return false;
		v->type = PT_JSON_NUM;
		v->s = strndup(s, (size_t)(j->p - s));
		return v->s != NULL;
	}
	}
}

static void jfree_in(struct pt_json *v)
{
	for (size_t i = 0; i < v->n; i++) {
		jfree_in(&v->kid[i]);
		if (v->key)
			free(v->key[i]);
	}
	free(v->kid);
	free(v->key);
	free(v->s);
}

void pt_json_free(struct pt_json *j)
{
	if (!j)
		return;
	jfree_in(j);
	free(j);
}

struct pt_json *pt_json_parse(const char *text, size_t len)
{
	struct jp j = {.p = text, .end = text + len};
	struct pt_json *v = calloc(1, sizeof *v);

	if (!v)
		return NULL;
	if (!jvalue(&j, v)) {
		pt_json_free(v);
		return NULL;
	}
	ws(&j);
	if (j.p != j.end) {
		pt_json_free(v);
		return NULL;
	}
	return v;
}

const struct pt_json *pt_json_get(const struct pt_json *obj, const char *key)
{
	if (!obj || obj->type != PT_JSON_OBJ)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (!strcmp(obj->key[i], key))
			return &obj->kid[i];
	return NULL;
}

bool pt_json_u64(const struct pt_json *j, uint64_t *v)
{
	char *end;

	if (!j || j->type != PT_JSON_NUM || j->s[0] < '0' || j->s[0] > '9')
		return false;
	errno = 0;
	*v = strtoull(j->s, &end, 10);
	return !errno && !*end;
}

/* ---- the socket ---- */

int64_t pt_sock_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int64_t now_ms(void)
{
	return pt_sock_now_ms();
}

bool pt_sock_wait(int fd, short ev, int64_t deadline)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = ev};
		int64_t left = deadline - now_ms();
		int r;

		if (left <= 0)
			return false;
		r = poll(&p, 1, (int)left);
		if (r > 0)
			return true;
		if (r < 0 && errno != EINTR)
			return false;
	}
}

/* Waits for EV on Q's socket until DEADLINE (ms); false on timeout or error. */
static bool wait_fd(struct pt_qmp *q, short ev, int64_t deadline)
{
	return pt_sock_wait(q->fd, ev, deadline);
}

pt_err pt_sock_connect(const char *path, int *fd, char *err, size_t errlen)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	*fd = -1;
	if (strlen(path) >= sizeof sa.sun_path)
		return pt_err_fmt(err, errlen, PT_E_USAGE, "the socket path is longer than %zu bytes",
				  sizeof sa.sun_path - 1);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	*fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (*fd < 0)
		return pt_err_fmt(err, errlen, PT_E_IO, "socket: %s", strerror(errno));
	if (connect(*fd, (struct sockaddr *)&sa, sizeof sa) && errno != EINPROGRESS && errno != EAGAIN)
		return pt_err_fmt(err, errlen, PT_E_IO, "connect: %s", strerror(errno));
	return PT_OK;
}

/*
 * One message line (without its "\r\n") into *LINE (malloc'd), by DEADLINE.
 * Bytes past it stay in Q->buf for the next.
 */
static pt_err read_line(struct pt_qmp *q, int64_t deadline, char **line, size_t *len, char *err,
			size_t errlen)
{
	for (;;) {
		char *nl = q->len ? memchr(q->buf, '\n', q->len) : NULL;
		ssize_t r;

		if (nl) {
			size_t n = (size_t)(nl - q->buf);

			*line = malloc(n + 1);
			if (!*line)
				return pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
			memcpy(*line, q->buf, n);
			(*line)[n] = 0;
			*len = n && (*line)[n - 1] == '\r' ? n - 1 : n;
			memmove(q->buf, nl + 1, q->len - n - 1);
			q->len -= n + 1;
			return PT_OK;
		}
		if (q->len >= PT_QMP_MAX_REPLY)
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a QMP message longer than %u bytes",
					  PT_QMP_MAX_REPLY);
		if (q->cap - q->len < 65536) {
			size_t nc = q->cap ? q->cap * 2 : 65536;
			char *nb;

			if (nc > PT_QMP_MAX_REPLY + 65536)
				nc = PT_QMP_MAX_REPLY + 65536;
			nb = realloc(q->buf, nc);
			if (!nb)
				return pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
			q->buf = nb;
			q->cap = nc;
		}
		if (!wait_fd(q, POLLIN, deadline))
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "no answer within %u ms", q->timeout_ms);
		r = recv(q->fd, q->buf + q->len, q->cap - q->len, MSG_DONTWAIT);
		if (r == 0) {
			q->gone = true;
			return pt_err_fmt(err, errlen, PT_E_IO, "the socket was closed (QEMU exited?)");
		}
		if (r < 0 && errno != EINTR && errno != EAGAIN)
			return pt_err_fmt(err, errlen, PT_E_IO, "recv: %s", strerror(errno));
		if (r > 0)
			q->len += (size_t)r;
	}
}

static pt_err send_all(struct pt_qmp *q, const char *s, size_t n, int64_t deadline, char *err, size_t errlen)
{
	while (n) {
		ssize_t w;

		if (!wait_fd(q, POLLOUT, deadline))
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "the socket took no command within %u ms",
					  q->timeout_ms);
		w = send(q->fd, s, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (w < 0 && errno != EINTR && errno != EAGAIN) {
			if (errno == EPIPE || errno == ECONNRESET)
				q->gone = true;
			return pt_err_fmt(err, errlen, PT_E_IO, "send: %s", strerror(errno));
		}
		if (w > 0) {
			s += w;
			n -= (size_t)w;
		}
	}
	return PT_OK;
}

/* The next message that is not an event, parsed, by DEADLINE. */
static pt_err read_msg(struct pt_qmp *q, int64_t deadline, struct pt_json **msg, char *err, size_t errlen)
{
	for (;;) {
		char *line = NULL;
		size_t len = 0;
		pt_err rc = read_line(q, deadline, &line, &len, err, errlen);

		if (rc)
			return rc;
		*msg = pt_json_parse(line, len);
		if (!*msg || (*msg)->type != PT_JSON_OBJ) {
			char show[48];

			/* shown whole: a NUL would end the string, so it shows as \x01 does not: '?' */
			for (size_t i = 0; i < len && i < 40; i++)
				if (!line[i])
					line[i] = '?';
			line[len < 40 ? len : 40] = 0;
			pt_text_escape(show, sizeof show, line);
			free(line);
			pt_json_free(*msg);
			*msg = NULL;
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "not a QMP message (JSON object): '%s'", show);
		}
		free(line);
		if (!pt_json_get(*msg, "event"))
			return PT_OK;
		pt_json_free(*msg);
	}
}

pt_err pt_qmp_cmd(struct pt_qmp *q, const char *json, struct pt_json **msg, const struct pt_json **ret,
		  char *err, size_t errlen)
{
	int64_t deadline = now_ms() + q->timeout_ms;
	const struct pt_json *e;
	pt_err rc;

	*msg = NULL;
	if (q->gone)
		return pt_err_fmt(err, errlen, PT_E_IO, "the socket was closed (QEMU exited?)");
	rc = send_all(q, json, strlen(json), deadline, err, errlen);
	if (!rc)
		rc = send_all(q, "\n", 1, deadline, err, errlen);
	if (!rc)
		rc = read_msg(q, deadline, msg, err, errlen);
	if (rc)
		return rc;
	*ret = pt_json_get(*msg, "return");
	if (*ret)
		return PT_OK;
	e = pt_json_get(*msg, "error");
	if (e) {
		const struct pt_json *cl = pt_json_get(e, "class"), *d = pt_json_get(e, "desc");
		char show[200];

		pt_text_escape(show, sizeof show, d && d->type == PT_JSON_STR ? d->s : "?");
		rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "QEMU answered %s: %s",
				cl && cl->type == PT_JSON_STR ? cl->s : "an error", show);
	} else {
		rc = pt_err_fmt(err, errlen, PT_E_CAPTURE, "a QMP answer with neither \"return\" nor \"error\"");
	}
	pt_json_free(*msg);
	*msg = NULL;
	return rc;
}

pt_err pt_qmp_hmp(struct pt_qmp *q, const char *cmdline, char **text, char *err, size_t errlen)
{
	struct pt_buf b;
	struct pt_json *msg;
	const struct pt_json *ret;
	pt_err rc;

	pt_buf_init(&b);
	pt_buf_printf(&b, "{\"execute\": \"human-monitor-command\", \"arguments\": {\"command-line\": ");
	pt_json_escape(&b, cmdline);
	pt_buf_printf(&b, "}}");
	if (b.oom) {
		pt_buf_free(&b);
		return pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
	}
	rc = pt_qmp_cmd(q, b.data, &msg, &ret, err, errlen);
	pt_buf_free(&b);
	if (rc)
		return rc;
	if (ret->type != PT_JSON_STR) {
		pt_json_free(msg);
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "'%s' answered no text", cmdline);
	}
	*text = ret->s;
	((struct pt_json *)ret)->s = NULL;   /* taken */
	pt_json_free(msg);
	return PT_OK;
}

pt_err pt_qmp_open(struct pt_qmp *q, const char *path, unsigned timeout_ms, char *err, size_t errlen)
{
	int64_t deadline = now_ms() + timeout_ms;
	struct pt_json *msg = NULL;
	const struct pt_json *ret;
	pt_err rc;

	memset(q, 0, sizeof *q);
	q->timeout_ms = timeout_ms;
	if ((rc = pt_sock_connect(path, &q->fd, err, errlen)))
		return rc;
	/* The greeting; a QMP server that serves another client first says nothing (one client at a time). */
	rc = read_msg(q, deadline, &msg, err, errlen);
	if (rc == PT_E_CAPTURE && strstr(err, "no answer"))
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "no QMP greeting within %u ms (not a QMP socket, "
				  "or QEMU serves another client on it: give ptfs a -qmp socket of its own)",
				  timeout_ms);
	if (rc)
		return rc;
	if (!pt_json_get(msg, "QMP")) {
		pt_json_free(msg);
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "not a QMP greeting (no \"QMP\" member)");
	}
	{
		const struct pt_json *v = pt_json_get(pt_json_get(pt_json_get(msg, "QMP"), "version"), "qemu");
		uint64_t ma = 0, mi = 0, mc = 0;

		if (pt_json_u64(pt_json_get(v, "major"), &ma) && pt_json_u64(pt_json_get(v, "minor"), &mi) &&
		    pt_json_u64(pt_json_get(v, "micro"), &mc) && ma < 1000 && mi < 1000 && mc < 1000)
			snprintf(q->version, sizeof q->version, "%u.%u.%u", (unsigned)ma, (unsigned)mi, (unsigned)mc);
		else
			snprintf(q->version, sizeof q->version, "unknown");
	}
	pt_json_free(msg);
	rc = pt_qmp_cmd(q, "{\"execute\": \"qmp_capabilities\"}", &msg, &ret, err, errlen);
	pt_json_free(msg);
	return rc;
}

void pt_qmp_close(struct pt_qmp *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	free(q->buf);
	q->buf = NULL;
	q->len = q->cap = 0;
}

bool pt_qmp_gone(struct pt_qmp *q)
{
	char drop[4096];

	if (q->gone || q->fd < 0)
		return true;
	for (;;) {
		struct pollfd p = {.fd = q->fd, .events = POLLIN | POLLRDHUP};
		ssize_t r;

		if (poll(&p, 1, 0) <= 0)
			return false;
		if (p.revents & (POLLHUP | POLLERR | POLLRDHUP))
			break;
		/* events between commands (STOP, RESUME, ...): nobody waits for them */
		r = recv(q->fd, drop, sizeof drop, MSG_DONTWAIT);
		if (r == 0)
			break;
		if (r < 0)
			return errno != EAGAIN && errno != EINTR;
		/* an event cut here leaves a partial line for the next command: forget half lines */
		q->len = 0;
	}
	q->gone = true;
	return true;
}

/* ---- HMP text ---- */

/* A hex number of 1..16 digits at *P (no 0x), advancing *P; false if none or longer. */
static bool hex_at(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int d;

	while ((d = pt_hex_digit(**p)) >= 0) {
		if (*p - s >= 16)
			return false;
		x = x << 4 | (uint64_t)d;
		(*p)++;
	}
	*v = x;
	return *p > s;
}

static int cmp_range(const void *a, const void *b)
{
	const struct pt_qmp_range *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

/*
 * One range line "  START-END (prio P, TYPE): NAME[ @OFF][ ...]" of MR:
 * 1 taken, 0 not MR's (or not a range line), -1 malformed.  IO: MR is a
 * device's MMIO (TYPE i/o), else RAM (TYPE ram or rom).
 */
static int range_line(const char *l, size_t n, const char *mr, bool io, struct pt_qmp_range *r)
{
	const char *p = l, *e = l + n, *name, *colon;
	size_t ml = strlen(mr);
	uint64_t start, end;

	while (p < e && *p == ' ')
		p++;
	if (p >= e || pt_hex_digit(*p) < 0)
		return 0;   /* a header line of the view (" Root memory region: system") */
	if (!hex_at(&p, &start) || *p != '-')
		return -1;
	p++;
	if (!hex_at(&p, &end) || end < start || strncmp(p, " (prio ", 7))
		return -1;
	colon = memchr(p, ')', (size_t)(e - p));
	if (!colon || colon + 2 >= e || colon[1] != ':' || colon[2] != ' ')
		return -1;
	/* RAM and ROM regions only: an i/o region of the same name is no memory (and the reverse) */
	if (io ? !memmem(p, (size_t)(colon - p), "i/o", 3) :
		 !memmem(p, (size_t)(colon - p), "ram", 3) && !memmem(p, (size_t)(colon - p), "rom", 3))
		return 0;
	name = colon + 3;
	if ((size_t)(e - name) < ml || memcmp(name, mr, ml) || (name + ml < e && name[ml] != ' '))
		return 0;
	p = name + ml;
	r->off = 0;
	if (e - p > 2 && p[0] == ' ' && p[1] == '@') {
		p += 2;
		if (!hex_at(&p, &r->off))
			return -1;
	}
	if (end == UINT64_MAX && start == 0)
		return -1;   /* 2^64 bytes: no backend is that large */
	r->base = start;
	r->len = end - start + 1;
	return 1;
}

/* The ranges of MR (IO: as in range_line) in the view of "memory", unsorted; *SEEN: that view was there. */
static pt_err mtree_scan(const char *text, const char *mr, bool io, struct pt_qmp_range **out, size_t *n,
			 bool *seen_view, char *err, size_t errlen)
{
	struct pt_qmp_range *v = NULL;
	size_t nv = 0, cap = 0;
	unsigned line = 0;
	bool in_view = false, mine = false, seen = false;

	*out = NULL;
	*n = 0;
	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		struct pt_qmp_range r;
		int k;

		line++;
		if (len && l[len - 1] == '\r')
			len--;
		if (len >= 9 && !strncmp(l, "FlatView ", 9)) {
			in_view = true;
			mine = false;
		} else if (in_view && len > 5 && !strncmp(l, " AS \"", 5)) {
			/* the view of address space "memory" (QEMU's address_space_memory) */
			if (len >= 13 && !strncmp(l + 5, "memory\",", 8))
				mine = seen = true;
		} else if (mine && (k = range_line(l, len, mr, io, &r)) != 0) {
			if (k < 0) {
				free(v);
				return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info mtree -f:%u: not a range line "
						  "'START-END (prio P, TYPE): NAME [@OFFSET]'", line);
			}
			if (nv >= PT_QMP_MAX_RANGES) {
				free(v);
				return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info mtree -f: more than %u ranges of "
						  "'%s'", PT_QMP_MAX_RANGES, mr);
			}
			if (nv == cap) {
				struct pt_qmp_range *nb = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof *v);

				if (!nb) {
					free(v);
					return pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
				}
				v = nb;
			}
			r.line = line;
			v[nv++] = r;
		}
		l = e ? e + 1 : NULL;
	}
	*out = v;
	*n = nv;
	*seen_view = seen;
	return PT_OK;
}

pt_err pt_qmp_mtree(const char *text, const char *mr, struct pt_qmp_range **out, size_t *n,
		    char *err, size_t errlen)
{
	bool seen;
	pt_err rc = mtree_scan(text, mr, false, out, n, &seen, err, errlen);

	if (rc)
		return rc;
	if (!seen || !*n) {
		free(*out);
		*out = NULL;
		*n = 0;
		if (!seen)
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info mtree -f shows no flat view of address "
					  "space \"memory\"");
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info mtree -f: address space \"memory\" maps no "
				  "RAM of backend '%s'", mr);
	}
	qsort(*out, *n, sizeof **out, cmp_range);
	return PT_OK;
}

pt_err pt_qmp_mmio(const char *text, const char *name, bool *found, struct pt_qmp_range *at, char *err,
		   size_t errlen)
{
	struct pt_qmp_range *v;
	size_t n;
	bool seen;
	pt_err rc = mtree_scan(text, name, true, &v, &n, &seen, err, errlen);

	*found = false;
	if (rc)
		return rc;
	if (n > 1) {
		unsigned l1 = v[0].line, l2 = v[1].line;

		free(v);
		/* one device of a kind: two windows would need a name per IOMMU the user could not tell apart */
		return pt_err_fmt(err, errlen, PT_E_UNSUPPORTED, "info mtree -f:%u and :%u: two MMIO windows "
				  "'%s' in address space \"memory\": one such IOMMU is read live", l1, l2, name);
	}
	if (n) {
		*at = v[0];
		*found = true;
	}
	free(v);
	return PT_OK;
}

pt_err pt_qmp_xp(const char *text, uint64_t addr, uint64_t *v, char *err, size_t errlen)
{
	const char *p = text;
	char line[48], show[48];
	uint64_t at;

	if (hex_at(&p, &at) && at == addr && !strncmp(p, ": 0x", 4)) {
		p += 4;
		if (hex_at(&p, v)) {
			while (*p == '\r' || *p == '\n' || *p == ' ')
				p++;
			if (!*p)
				return PT_OK;
		}
	}
	/* its first line: HMP ends every line with CR LF */
	snprintf(line, sizeof line, "%.*s", (int)strcspn(text, "\r\n"), text);
	pt_text_escape(show, sizeof show, line);
	return pt_err_fmt(err, errlen, PT_E_CAPTURE, "xp of 0x%" PRIx64 " answered '%s', not "
			  "'%016" PRIx64 ": 0xVALUE'", addr, show, addr);
}

/* Register KEY's value in line L (tokens "KEY=HEX"): 1 found, 0 absent, -1 not a 64-bit hex value. */
static int reg_in(const char *l, size_t n, const char *key, uint64_t *v)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i + kl < n; i++) {
		const char *p;

		if ((i && l[i - 1] != ' ') || memcmp(l + i, key, kl) || l[i + kl] != '=')
			continue;
		p = l + i + kl + 1;
		if (!hex_at(&p, v) || (p < l + n && *p != ' '))
			return -1;
		return 1;
	}
	return 0;
}

pt_err pt_qmp_regs(const char *text, struct pt_qmp_cpu **out, size_t *n, char *err, size_t errlen)
{
	static const struct { const char *key; unsigned bit; size_t off; } regs[] = {
		{"CR0", PT_QMP_R_CR0, offsetof(struct pt_qmp_cpu, cr0)},
		{"CR3", PT_QMP_R_CR3, offsetof(struct pt_qmp_cpu, cr3)},
		{"CR4", PT_QMP_R_CR4, offsetof(struct pt_qmp_cpu, cr4)},
		{"EFER", PT_QMP_R_EFER, offsetof(struct pt_qmp_cpu, efer)},
	};
	struct pt_qmp_cpu *v = NULL, *c = NULL;
	size_t nv = 0;

	*out = NULL;
	*n = 0;
	for (const char *l = text; l && *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);

		if (len && l[len - 1] == '\r')
			len--;   /* the monitor ends its lines with CRLF */
		if (len > 4 && !strncmp(l, "CPU#", 4)) {
			char *end;
			unsigned long idx = strtoul(l + 4, &end, 10);
			struct pt_qmp_cpu *nb;

			if (nv >= PT_QMP_MAX_CPUS || idx >= PT_QMP_MAX_CPUS || end == l + 4) {
				char raw[24], show[100];

				snprintf(raw, sizeof raw, "%.*s", len > 20 ? 20 : (int)len, l);
				pt_text_escape(show, sizeof show, raw);
				free(v);
				return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info registers -a: '%s' is not CPU#N "
						  "with N below %u", show, PT_QMP_MAX_CPUS);
			}
			nb = realloc(v, (nv + 1) * sizeof *v);
			if (!nb) {
				free(v);
				return pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
			}
			v = nb;
			c = &v[nv++];
			memset(c, 0, sizeof *c);
			c->index = (unsigned)idx;
		} else if (c) {
			for (size_t i = 0; i < sizeof regs / sizeof regs[0]; i++) {
				uint64_t x;
				int k = reg_in(l, len, regs[i].key, &x);

				if (k < 0) {
					unsigned idx = c->index;

					free(v);
					return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info registers -a: CPU#%u %s is not "
							  "a hex value of at most 16 digits", idx, regs[i].key);
				}
				if (k > 0 && !(c->seen & regs[i].bit)) {
					memcpy((char *)c + regs[i].off, &x, sizeof x);
					c->seen |= regs[i].bit;
				}
			}
		}
		l = e ? e + 1 : NULL;
	}
	if (!nv)
		return pt_err_fmt(err, errlen, PT_E_CAPTURE, "info registers -a shows no CPU#N (not an x86 guest?)");
	*out = v;
	*n = nv;
	return PT_OK;
}
