/* SPDX-License-Identifier: MIT */
/*
 * umr.c — the umr source (docs/design.md §3.1): a umr test log or envdef, or an
 * archive holding one, read natively.  The parser is src_umr.c; this file
 * turns its neutral description into what a capture.ini would say —
 * [memory] sections naming members it adds, and context sections of
 * key = value lines of the amd-gart and amd-gpuvm formats — each line
 * with the log line it came from, so the formats' own checks, with their
 * words, name the log's file and line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pt_source.h"
#include "pt_src_umr.h"

/* The formats sources produce contexts of (docs/design.md §3.1). */
#define FMT_VMID0 "amd-gart"
#define FMT_VMIDN "amd-gpuvm"

/* ---- umr ---- */


static const char *const hub_prefix[PT_UMR_HUB__COUNT] = {"", "mmhub."};

/* The context name of HUB/VMID: vmidN (GFX hub), mmhub.vmidN (docs/design.md §3.1). */
static void ctx_name(char *out, size_t len, unsigned hub, unsigned vmid)
{
	snprintf(out, len, "%svmid%u", hub < PT_UMR_HUB__COUNT ? hub_prefix[hub] : "?", vmid);
}

/* V in BASE (10 or 16, lower case) at OUT, NUL-terminated. */
static void put_num(char *out, uint64_t v, unsigned base)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n)
		*out++ = tmp[--n];
	*out = 0;
}

static void umr_origin(char *out, size_t len, const char *label, unsigned line)
{
	snprintf(out, len, "%s:%u", label, line);
}

/* The VMID0 context of a umr log: the GART registers (fmt_gart.c's keys). */
static void umr_gart(struct pt_loader *ld, const struct pt_umr_log *log,
		     const struct pt_umr_ctx *c, const char *label, const struct pt_format *fmt)
{
	static const char *const ckey[] = {"VM_CONTEXT0_PAGE_TABLE_BASE_ADDR",
		"VM_CONTEXT0_PAGE_TABLE_START_ADDR", "VM_CONTEXT0_PAGE_TABLE_END_ADDR"};
	const struct pt_umr_reg64 *v[3] = {&c->base, &c->start, &c->end};
	const unsigned lo[3] = {PT_UMR_BASE_LO, PT_UMR_START_LO, PT_UMR_END_LO};
	char name[32], o[512];

	ctx_name(name, sizeof name, c->hub, c->vmid);
	umr_origin(o, sizeof o, label, c->reg[lo[0]].line ? c->reg[lo[0]].line : 1);
	pt_loader_emitf(ld, o, "[%s %s]", fmt->ctx_section, name);
	/* A later generation's GART holds that generation's PTEs (fmt_gart.c). */
	if (log->gfx > 9)
		pt_loader_emitf(ld, label, "gfx = %u", log->gfx);
	for (unsigned i = 0; i < 3; i++) {
		if (v[i]->has) {
			umr_origin(o, sizeof o, label, c->reg[lo[i]].line);
			pt_loader_emitf(ld, o, "%s = 0x%" PRIx64, ckey[i], v[i]->value);
			pt_loader_emitf(ld, o, "x-from-%s = %s:%u+%u", ckey[i], label, c->reg[lo[i]].line,
				 c->reg[lo[i] + 1].line);
		} else if (i == 2 && v[0]->has && v[1]->has) {
			/*
			 * Hand-made envdefs omit END (umr's own test0 does;
			 * capture-sources.md §2.5): the last page of the 48-bit
			 * VA, said in info and a warning, never silent.
			 */
			pt_loader_emitf(ld, label, "%s = 0xfffffffff", ckey[i]);
			pt_loader_emitf(ld, label, "x-from-%s = not in the log: the last 4 KiB page of the 48-bit VA",
				 ckey[i]);
			pt_loader_warn(ld, "%s: %s not in the log: the last 4 KiB page of the 48-bit VA",
					name, ckey[i]);
		}
	}
	for (unsigned r = 0; r < PT_UMR_HREG__COUNT; r++) {
		const struct pt_umr_reg *h = &log->hub[c->hub][r];

		if (!h->has)
			continue;
		umr_origin(o, sizeof o, label, h->line);
		pt_loader_emitf(ld, o, "%s = 0x%" PRIx32, pt_umr_hreg_name(r), h->value);
		pt_loader_emitf(ld, o, "x-from-%s = %s:%u", pt_umr_hreg_name(r), label, h->line);
	}
}

/* A VMID >= 1 context: the [vm] keys of the amd-gpuvm format. */
static void umr_gpuvm(struct pt_loader *ld, const struct pt_umr_log *log, const struct pt_umr_ctx *c,
		      const char *label, const struct pt_format *fmt)
{
	static const char *const ckey[] = {"page_table_base_addr", "page_table_start_addr",
		"page_table_end_addr"};
	const struct pt_umr_reg64 *v[3] = {&c->base, &c->start, &c->end};
	const unsigned lo[3] = {PT_UMR_BASE_LO, PT_UMR_START_LO, PT_UMR_END_LO};
	char name[32], o[512];
	const struct pt_umr_reg *fbo = &log->hub[c->hub][PT_UMR_FB_OFFSET];

	ctx_name(name, sizeof name, c->hub, c->vmid);
	umr_origin(o, sizeof o, label, c->reg[PT_UMR_CNTL].line ? c->reg[PT_UMR_CNTL].line : 1);
	pt_loader_emitf(ld, o, "[%s %s]", fmt->ctx_section, name);
	pt_loader_emitf(ld, label, "gfx = %u", log->gfx);
	if (c->reg[PT_UMR_CNTL].has) {
		pt_loader_emitf(ld, o, "cntl = 0x%" PRIx32, c->reg[PT_UMR_CNTL].value);
		pt_loader_emitf(ld, o, "x-from-cntl = %s:%u", label, c->reg[PT_UMR_CNTL].line);
	}
	for (unsigned i = 0; i < 3; i++) {
		if (!v[i]->has)
			continue;
		umr_origin(o, sizeof o, label, c->reg[lo[i]].line);
		pt_loader_emitf(ld, o, "%s = 0x%" PRIx64, ckey[i], v[i]->value);
		pt_loader_emitf(ld, o, "x-from-%s = %s:%u+%u", ckey[i], label, c->reg[lo[i]].line,
			 c->reg[lo[i] + 1].line);
	}
	if (fbo->has) {
		umr_origin(o, sizeof o, label, fbo->line);
		pt_loader_emitf(ld, o, "fb_offset = 0x%" PRIx32, fbo->value);
	}
}

/*
 * The log's text (malloc'd, *LEN bytes): the file, or in a re-bid the
 * archive's only member.
 */
static pt_err umr_text(struct pt_loader *ld, const struct pt_probe *p, char **text, size_t *len)
{
	uint64_t total = p->fd >= 0 ? (uint64_t)p->st->st_size : 0;
	ssize_t n;
	pt_err rc;

	if (p->fd < 0) {
		rc = pt_loader_member_bytes(ld, p->members[0], PT_UMR_MAX_SIZE, text, len);
		if (rc == PT_E_VALUE)
			total = (uint64_t)PT_UMR_MAX_SIZE + 1;
		else if (rc)
			return pt_loader_fail(ld, rc, "%s: %s", p->path, pt_strerror(rc));
	}
	if (total > PT_UMR_MAX_SIZE)
		return pt_loader_fail(ld, PT_E_CAPTURE, "larger than %u MiB: not a umr log ptfs reads",
				      PT_UMR_MAX_SIZE >> 20);
	if (p->fd < 0)
		return PT_OK;
	*len = 0;
	*text = malloc((size_t)total + 1);
	if (!*text)
		return pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", p->path);
	while (*len < total && (n = pread(p->fd, *text + *len, (size_t)total - *len, (off_t)*len)) > 0)
		*len += (size_t)n;
	return PT_OK;
}

/* The generation the caller gave: gfx, or its asic's (umr_check_opts() made them agree). */
static unsigned opts_gfx(const struct pt_load_opts *o)
{
	return o->gfx ? o->gfx : pt_umr_asic_gfx(o->asic);
}

/* -o gfx= / --gfx and -o asic= / --asic: known, gfx9 or later, and one generation. */
static pt_err umr_check_opts(const struct pt_load_opts *o, char *err, size_t len)
{
	unsigned g = pt_umr_asic_gfx(o->asic);
	char show[80];

	if (o->gfx && (o->gfx < 9 || o->gfx > 12))
		return pt_err_fmt(err, len, PT_E_USAGE, "gfx %u: the GFX generation is 9, 10, 11 or 12", o->gfx);
	if (!o->asic)
		return PT_OK;
	pt_text_escape(show, sizeof show, o->asic);
	if (g < 9)
		return pt_err_fmt(err, len, PT_E_USAGE, "asic %s: %s", show, g ? "a pre-gfx9 ASIC: no GPUVM ptfs "
				  "reads" : "not a umr ASIC name (navi10, vega10, aldebaran, gfx1100, ...)");
	if (o->gfx && o->gfx != g)
		return pt_err_fmt(err, len, PT_E_USAGE, "asic %s is gfx%u, but gfx %u was given", show, g,
				  o->gfx);
	return PT_OK;
}

static pt_err umr_load(struct pt_loader *ld, const struct pt_probe *p)
{
	const struct pt_format *f0 = pt_format_find(FMT_VMID0), *fn = pt_format_find(FMT_VMIDN);
	const char *label = pt_path_base(p->fd >= 0 ? p->path : p->members[0]);
	struct pt_umr_log *log = NULL;
	char *text = NULL, err[1024], why[256] = "", olabel[480], o[512];
	size_t len = 0;
	unsigned nctx = 0;
	pt_err rc;

	rc = umr_text(ld, p, &text, &len);
	if (rc)
		return rc;
	rc = pt_umr_parse(text, len, label, opts_gfx(pt_loader_opts(ld)), &log, err, sizeof err);
	free(text);
	if (rc)
		return pt_loader_fail(ld, rc, "%s", err);
	for (size_t i = 0; i < log->nwarn; i++)
		pt_loader_warn(ld, "%s", log->warn[i]);
	if (log->nwarn_more)
		pt_loader_warn(ld, "%s: %zu more comment names disagree with their addresses", label,
			       log->nwarn_more);
	pt_loader_emitf(ld, label, "[capture]");
	pt_loader_emitf(ld, label, "version = 1");
	pt_loader_emitf(ld, label, "format = %s", f0->name);
	snprintf(olabel, sizeof olabel, "%s:", label);
	for (size_t i = 0; i < log->nmem; i++) {
		const struct pt_umr_mem *m = &log->mem[i];
		const char *sp = m->space == PT_UMR_VRAM ? "vram" : "sysmem";
		char name[64];

		/* "vram-0x1000" and "LABEL:LINE" without printf: 10^6 regions are 10^6 of each */
		put_num(name + strlen(strcpy(name, m->space == PT_UMR_VRAM ? "vram-0x" : "sysmem-0x")), m->addr, 16);
		if (i == 0 || m->line != log->mem[i - 1].line)
			put_num(o + strlen(strcpy(o, olabel)), m->line, 10);
		/* As data, not text: a log of 10^6 one-byte reads is 10^6 sections (issue #26 item 3). */
		if (pt_loader_add_region(ld, o, name, sp, m->addr, m->data, m->len)) {
			rc = pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", p->path);
			goto out;
		}
	}
	for (size_t i = 0; i < log->nctx; i++) {
		const struct pt_umr_ctx *c = &log->ctx[i];
		char name[32];

		ctx_name(name, sizeof name, c->hub, c->vmid);
		if (c->vmid == 0) {
			if (!c->base.has || !c->start.has) {
				snprintf(why, sizeof why, "%s: page table %s registers not in the log",
					 name, c->base.has ? "START" : "BASE");
				pt_loader_warn(ld, "%s: no context", why);
				continue;
			}
			umr_gart(ld, log, c, label, f0);
			nctx++;
		} else if (!fn) {
			snprintf(why, sizeof why, "%s: %s contexts are not supported by this build",
				 name, FMT_VMIDN);
			pt_loader_warn(ld, "%s", why);
		} else if (!log->gfx) {
			rc = pt_loader_fail(ld, PT_E_USAGE, "MMIO names do not tell the GFX generation: "
					     "pass -o gfx=9|10|11|12 or -o asic=NAME (ptfs-tool: --gfx N, --asic NAME)");
			goto out;
		} else if (!c->base.has || !c->start.has || !c->end.has) {
			/* A VMID the log touched but did not read whole: reported, never guessed. */
			snprintf(why, sizeof why, "%s: page table %s registers not in the log", name,
				 !c->base.has ? "BASE" : !c->start.has ? "START" : "END");
			pt_loader_warn(ld, "%s: no context", why);
		} else {
			umr_gpuvm(ld, log, c, label, fn);
			nctx++;
		}
	}
	if (!nctx && !log->gfx && log->nmmio) {
		/* Unnamed registers are recognised by gfx9 address only once the generation is known. */
		rc = pt_loader_fail(ld, PT_E_USAGE, "MMIO names do not tell the GFX generation: "
				     "pass -o gfx=9|10|11|12 or -o asic=NAME (ptfs-tool: --gfx N, --asic NAME)");
		goto out;
	}
	if (!nctx) {
		rc = pt_loader_fail(ld, PT_E_CAPTURE, "no VM context this build can read (%zu MMIO records)%s%s",
				     log->nmmio, why[0] ? ": " : "", why);
		goto out;
	}
	rc = PT_OK;
out:
	pt_umr_free(log);
	return rc;
}

/*
 * A umr log: text whose first record head parses.  A NUL byte in the first
 * 4 KiB after such a head still bids, so that the parser's message says
 * what it found rather than libarchive's "Unrecognized archive format".
 */
static int umr_bid(const struct pt_probe *p)
{
	const char *h = (const char *)p->head;
	const char *z;

	if (!h || !p->head_len)
		return 0;
	if (p->fd < 0 && p->nmembers != 1)
		return 0;
	if (p->fd >= 0 && !S_ISREG(p->st->st_mode))
		return 0;
	z = memchr(h, 0, p->head_len);
	return pt_umr_detect(h, z ? (size_t)(z - h) : p->head_len) ? 20 : 0;
}

const struct pt_source pt_source_umr = {
	.name = "umr",
	.kind = "umr log",
	.bid = umr_bid,
	.load = umr_load,
	.check_opts = umr_check_opts,
};

