/* SPDX-License-Identifier: MIT */
/*
 * pt_error.h — the one error enum of the ptfs core.
 *
 * Every core function that can fail returns a pt_err.  The library never
 * prints: a detailed message (file, line, what, why) is held by the object
 * that failed (see pt_capture_error()) and only programs write it to stderr.
 *
 * "Not mapped" and "not captured" are *results* (struct pt_walk, enum
 * pt_state), never errors.
 */
#ifndef PT_ERROR_H
#define PT_ERROR_H

#include <stdarg.h>
#include <stddef.h>

typedef enum pt_err {
	PT_OK = 0,        /* success */
	PT_E_USAGE,       /* E_USAGE: the caller passed a bad argument or option */
	PT_E_NOMEM,       /* E_NOMEM: an allocation failed */
	PT_E_IO,          /* E_IO: a system call on the capture failed (open, read, mmap) */
	PT_E_ARCHIVE,     /* E_ARCHIVE: the container is unreadable (not an archive, corrupt stream) */
	PT_E_CAPTURE,     /* E_CAPTURE: the capture's structure is unusable (capture.ini missing
	                   * or twice, a member missing, regions overlapping, ...) */
	PT_E_SYNTAX,      /* E_SYNTAX: a capture.ini line is not a section, key = value, comment or blank */
	PT_E_VALUE,       /* E_VALUE: a value is malformed or out of range (bad number, unknown key,
	                   * bad name, misaligned address) */
	PT_E_UNSUPPORTED, /* E_UNSUPPORTED: a real but unsupported value or encoding
	                   * (e.g. a page size the format refuses, a leaf at a level that
	                   * cannot hold one, a depth outside the format) */
	PT_E_TRUNCATED,   /* E_TRUNCATED: data shorter than its structure requires
	                   * (a blob not a multiple of the entry size, a short member) */
	PT_E_NOTFOUND,    /* E_NOTFOUND: a named context, key or path does not exist */
	PT_E__COUNT
} pt_err;

/* A short lowercase description, e.g. "value out of range".  Never NULL. */
const char *pt_strerror(pt_err err);
/* Writes one message line (printf FMT) into ERR of ERRLEN and returns RC: a parser's failure in one call. */
pt_err pt_err_fmt(char *err, size_t errlen, pt_err rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The code's stable name as printed by the programs, e.g. "E_VALUE".  Never NULL. */
const char *pt_errname(pt_err err);

/*
 * The detail of an error in a parsed file, into ERR (LEN bytes, cut to
 * fit): "FILE:LINE: " and the message FMT formats.  Control bytes become
 * '?': FILE and the quoted values come from the user's files, and the
 * programs print the text as one line.  Nothing when ERR is NULL or LEN 0.
 */
void pt_error_at(char *err, size_t len, const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void pt_error_vat(char *err, size_t len, const char *file, unsigned line, const char *fmt,
		  va_list ap) __attribute__((format(printf, 5, 0)));
/*
 * The same prefix "FILE:LINE: ", the message formatted (at most 1023
 * bytes) and then each control character (C0, DEL, and C1 written as UTF-8)
 * spelled \xNN: a message that quotes the user's text (a capture.ini key,
 * a section name) cannot move the cursor or fake a line, and still names
 * the bytes.  capture.ini's messages (pt_ctx_key_fail() and the manifest).
 */
void pt_error_esc_vat(char *err, size_t errlen, const char *file, unsigned line, const char *fmt,
		      va_list ap) __attribute__((format(printf, 5, 0)));

#endif
