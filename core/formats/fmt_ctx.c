/* SPDX-License-Identifier: MIT */
/*
 * fmt_ctx.c — helpers of the formats whose context chooses their geometry
 * (fmt_ctx.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fmt_ctx.h"
#include "pt_iommu_format.h"
#include "pt_num.h"

pt_err pt_fmt_space_key(const struct pt_ctx_key *k, const char *format, const char *const *spaces,
			unsigned *out)
{
	char list[128];
	size_t off = 0;

	for (unsigned i = 0; spaces[i]; i++)
		if (strcmp(k->value, spaces[i]) == 0) {
			*out = i;
			return PT_OK;
		}
	list[0] = 0;
	for (unsigned i = 0; spaces[i] && off < sizeof list; i++)
		off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "", spaces[i]);
	return pt_ctx_key_fail(k, PT_E_VALUE, "%s '%s' in %s is not a space of %s (%s)", k->key,
			       k->value, k->label, format, list);
}

pt_err pt_fmt_setup_fail(char *err, size_t errlen, pt_err rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

void pt_fmt_ctx_root(struct pt_context *ctx, unsigned space, uint64_t addr, uint64_t entries)
{
	ctx->root_space = space;
	ctx->root_addr = addr;
	ctx->root_entries = entries;
	ctx->root_page_shift = 0;
	ctx->va_base = 0;
	ctx->va_last = 0;
	ctx->perm_set = 0;
	ctx->space_used = 0;
	for (unsigned i = 0; i < PT_CONTEXT_SPACES; i++)
		ctx->space_bias[i] = 0;
}

void pt_fmt_levels_tail(struct pt_level *lv, const struct pt_level *all, unsigned ntotal,
			unsigned n)
{
	unsigned first = ntotal - n;

	for (unsigned i = 0; i < n; i++) {
		lv[i] = all[first + i];
		lv[i].depth = (uint8_t)i;
		lv[i].child[0] = (int8_t)(i + 1 < n ? (int)i + 1 : -1);
	}
	lv[n] = (struct pt_level){0};
}

static unsigned field(uint64_t v, unsigned hi, unsigned lo)
{
	return (unsigned)((v >> lo) & ((1ull << (hi - lo + 1)) - 1));
}

pt_err pt_fmt_pasid_key(const struct pt_ctx_key *k, struct pt_pasid *out)
{
	char buf[256], *save = NULL;

	memset(out, 0, sizeof *out);
	if (strlen(k->value) >= sizeof buf)
		return pt_ctx_key_fail(k, PT_E_VALUE, "pasid_entry in %s is too long", k->label);
	strcpy(buf, k->value);
	for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (out->nqw == 8)
			return pt_ctx_key_fail(k, PT_E_VALUE, "pasid_entry in %s has more than 8 words"
					       " (a PASID entry is 64 bytes)", k->label);
		if (!pt_num_parse(t, PT_NUM_INI, &out->qw[out->nqw]))
			return pt_ctx_key_fail(k, PT_E_VALUE, "bad word '%s' in pasid_entry in %s: the"
					       " entry's 64-bit words, QW0 first, each decimal or 0x hex",
					       t, k->label);
		out->nqw++;
	}
	if (out->nqw == 0)
		return pt_ctx_key_fail(k, PT_E_VALUE, "pasid_entry in %s is empty: the entry's 64-bit"
				       " words, QW0 first", k->label);
	pt_fmt_pasid_words(out->qw, out->nqw, out);
	return PT_OK;
}

void pt_fmt_pasid_words(const uint64_t *qw, unsigned n, struct pt_pasid *out)
{
	if (out->qw != qw) {
		memset(out, 0, sizeof *out);
		for (unsigned i = 0; i < n && i < 8; i++)
			out->qw[i] = qw[i];
		out->nqw = n < 8 ? n : 8;
	}
	out->p = field(out->qw[0], 0, 0);
	out->fpd = field(out->qw[0], 1, 1);
	out->aw = field(out->qw[0], 4, 2);
	out->pgtt = field(out->qw[0], 8, 6);
	out->slade = field(out->qw[0], 9, 9);
	out->slptptr = out->qw[0] & ~0xfffull;
	out->did = field(out->qw[1], 15, 0);
	out->pwsnp = field(out->qw[1], 23, 23);
	out->pgsnp = field(out->qw[1], 24, 24);
	out->sre = field(out->qw[2], 0, 0);
	out->flpm = field(out->qw[2], 3, 2);
	out->wpe = field(out->qw[2], 4, 4);
	out->eafe = field(out->qw[2], 7, 7);
	out->flptr = out->qw[2] & ~0xfffull;
}

pt_err pt_fmt_entry_spaces(const struct pt_ctx_entry *e, const char *format,
			   const char *const *spaces, unsigned *space, unsigned *output, char *err,
			   size_t errlen)
{
	struct pt_ctx_key k = {"space", e->space, e->line, e->label, err, errlen};
	pt_err rc;

	if (e->space && (rc = pt_fmt_space_key(&k, format, spaces, space)))
		return rc;
	k.key = "output_space";
	k.value = e->output_space;
	return e->output_space ? pt_fmt_space_key(&k, format, spaces, output) : PT_OK;
}

const char *pt_fmt_pgtt_name(unsigned pgtt)
{
	static const char *const n[8] = {
		"reserved", "first-level", "second-level", "nested", "pass-through",
		"reserved", "reserved", "reserved",
	};

	return n[pgtt & 7];
}
