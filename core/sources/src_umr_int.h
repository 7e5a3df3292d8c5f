/* SPDX-License-Identifier: MIT */
/*
 * src_umr_int.h — what the umr log parser's files share: the parser's
 * state (src_umr.c reads the records into it), its error line, and the
 * classification of its registers into contexts (src_umr_ctx.c).
 */
#ifndef PT_SRC_UMR_INT_H
#define PT_SRC_UMR_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"
#include "pt_src_umr.h"
#include "src_umr_keys.h"

#define MAX_NAME 96
#define MAX_WARN 32     /* warnings kept in a log; the rest counted */

/* Sizes fit 32 bits: a log is at most PT_UMR_MAX_SIZE bytes. */
struct rec_mem {
	uint64_t addr;
	uint32_t len;
	uint32_t off;            /* into the byte pool */
	uint32_t line;
	uint32_t region;
	uint8_t space;
};

struct pt_umr_parser {
	const char *s;
	size_t len, pos;
	unsigned line;
	const char *name;
	char *err;
	size_t errlen;
	struct umr_keys k;       /* the MMIO@ records, folded */
	struct rec_mem *mem;
	size_t nmem, cmem;
	uint8_t *pool;
	size_t npool, cpool;
};

/* The parse's error: "NAME:LINE: message" into p->err. */
static inline void pt_umr_seterr(struct pt_umr_parser *p, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void pt_umr_seterr(struct pt_umr_parser *p, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pt_error_vat(p->err, p->errlen, p->name, line, fmt, ap);
	va_end(ap);
}

/* The registers of P's records classified into LOG's contexts (gfx GFX, 0: from the names). */
pt_err pt_umr_classify(struct pt_umr_parser *p, unsigned gfx, struct pt_umr_log *log);

#endif
