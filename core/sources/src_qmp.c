/* SPDX-License-Identifier: MIT */
/*
 * src_qmp.c — the QMP client of the live source (pt_src_qmp.h): a JSON
 * reader and the socket conversation bounded in time and bytes (the
 * parsers of its HMP text are src_qmp_hmp.c).  The protocol is QEMU's
 * docs/interop/qmp-spec.rst: a greeting {"QMP": {...}}, then one JSON
 * object per line, each command answered by {"return": ...} or
 * {"error": {"class", "desc"}}, with {"event": ...} messages in between.
 * Every command carries an "id", which the spec has QEMU echo in its
 * answer: an answer that comes after its command gave up (a late one, a
 * second copy) is recognised by it and dropped, never taken for the
 * answer to the next command.
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
#include "pt_vec.h"

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
	if (!pt_vec_reserve(&v->kid, &v->kidcap, v->n + 1, sizeof *v->kid))
		return false;
	if (v->type == PT_JSON_OBJ) {
		if (!pt_vec_reserve(&v->key, &v->keycap, v->n + 1, sizeof *v->key))
			return false;
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
		/* below PT_QMP_MAX_REPLY + 64 KiB read, so at most twice that allocated */
		if (!pt_vec_reserve(&q->buf, &q->cap, q->len + 65536, 1))
			return pt_err_fmt(err, errlen, PT_E_NOMEM, "out of memory");
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

/* A message line, shown in an error: at most 40 bytes, escaped (a NUL shows as '?'). */
static void show_line(char *line, size_t len, char *show, size_t showlen)
{
	for (size_t i = 0; i < len && i < 40; i++)
		if (!line[i])
			line[i] = '?';
	line[len < 40 ? len : 40] = 0;
	pt_text_escape(show, showlen, line);
}

/*
 * The next message that is not an event, parsed, by DEADLINE: with ID
 * (NULL: the greeting, which has none), the answer whose "id" is ID;
 * answers with another id are dropped (counted in Q->dropped).
 */
static pt_err read_msg(struct pt_qmp *q, int64_t deadline, const char *id, struct pt_json **msg, char *err,
		       size_t errlen)
{
	for (;;) {
		char *line = NULL, show[48];
		size_t len = 0;
		const struct pt_json *mid;
		pt_err rc = read_line(q, deadline, &line, &len, err, errlen);

		if (rc)
			return rc;
		*msg = pt_json_parse(line, len);
		if (!*msg || (*msg)->type != PT_JSON_OBJ) {
			show_line(line, len, show, sizeof show);
			free(line);
			pt_json_free(*msg);
			*msg = NULL;
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "not a QMP message (JSON object): '%s'", show);
		}
		if (pt_json_get(*msg, "event")) {
			free(line);
			pt_json_free(*msg);
			*msg = NULL;   /* a time-out next leaves the caller nothing to free */
			continue;
		}
		mid = pt_json_get(*msg, "id");
		if (!id || (mid && mid->type == PT_JSON_STR && !strcmp(mid->s, id))) {
			free(line);
			return PT_OK;
		}
		if (!mid) {
			/* QEMU echoes the id of every command it parsed (qmp-spec.rst, "Commands Responses") */
			show_line(line, len, show, sizeof show);
			free(line);
			pt_json_free(*msg);
			*msg = NULL;
			return pt_err_fmt(err, errlen, PT_E_CAPTURE, "a QMP answer without the command's \"id\": "
					  "'%s'", show);
		}
		/* a command's that gave up waiting (a late answer), or a second copy: not this one's */
		q->dropped++;
		free(line);
		pt_json_free(*msg);
		*msg = NULL;
	}
}

pt_err pt_qmp_cmd(struct pt_qmp *q, const char *json, struct pt_json **msg, const struct pt_json **ret,
		  char *err, size_t errlen)
{
	int64_t deadline = now_ms() + q->timeout_ms;
	const struct pt_json *e;
	char id[32], tag[48];
	pt_err rc;

	*msg = NULL;
	q->answered_error = false;
	if (q->gone)
		return pt_err_fmt(err, errlen, PT_E_IO, "the socket was closed (QEMU exited?)");
	if (json[0] != '{')
		return pt_err_fmt(err, errlen, PT_E_USAGE, "a QMP command is a JSON object");
	snprintf(id, sizeof id, "ptfs-%" PRIu64, ++q->seq);
	snprintf(tag, sizeof tag, "{\"id\": \"%s\", ", id);
	/* "{" "id": "ptfs-N", REST-OF-OBJECT: the same object with its id first */
	rc = send_all(q, tag, strlen(tag), deadline, err, errlen);
	if (!rc)
		rc = send_all(q, json + 1, strlen(json + 1), deadline, err, errlen);
	if (!rc)
		rc = send_all(q, "\n", 1, deadline, err, errlen);
	if (!rc)
		rc = read_msg(q, deadline, id, msg, err, errlen);
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
		q->answered_error = true;
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
	rc = read_msg(q, deadline, NULL, &msg, err, errlen);
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
	if (q->gone || q->fd < 0)
		return true;
	for (;;) {
		struct pollfd p = {.fd = q->fd, .events = POLLIN | POLLRDHUP};
		char *nl;
		ssize_t r;

		if (poll(&p, 1, 0) <= 0)
			return false;
		if (p.revents & (POLLHUP | POLLERR | POLLRDHUP))
			break;
		if (q->len + 4096 > PT_QMP_MAX_REPLY + 65536 || !pt_vec_reserve(&q->buf, &q->cap, q->len + 4096, 1)) {
			q->len = 0;   /* a message larger than any answer: nobody waits for it */
			continue;
		}
		r = recv(q->fd, q->buf + q->len, q->cap - q->len, MSG_DONTWAIT);
		if (r == 0)
			break;
		if (r < 0)
			return errno != EAGAIN && errno != EINTR;
		q->len += (size_t)r;
		/*
		 * Between commands nobody waits: whole messages here are events
		 * (STOP, RESUME, ...) or late answers, dropped; a message cut
		 * here keeps its start, so that the next read sees it whole.
		 */
		nl = memrchr(q->buf, '\n', q->len);
		if (nl) {
			size_t used = (size_t)(nl + 1 - q->buf);

			memmove(q->buf, nl + 1, q->len - used);
			q->len -= used;
		}
	}
	q->gone = true;
	return true;
}
