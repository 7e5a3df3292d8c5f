/* SPDX-License-Identifier: MIT */
/*
 * capture.c — loading a capture (pt_capture.h): the capture object, the
 * dispatch to the capture sources (pt_source.h: the path is opened once,
 * every source bids on the same probe, the highest bid loads), binding
 * capture.ini to members, the public getters.  The loader API the sources
 * use is loader.c, leases capture_guard.c (capture_int.h lists what they
 * share); the sources themselves are core/sources/.
 *
 * Nothing depends on member order except which error wins, and even then
 * errors about capture.ini lines are reported in line order.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "capture_int.h"

struct pt_capture *pt_capture_new(void)
{
	return calloc(1, sizeof(struct pt_capture));
}

/* Frees everything a load built (not the error or the warnings). */
static void unload(struct pt_capture *cap)
{
	pt_mem_free(cap->mem);
	cap->mem = NULL;
	pt_live_free(cap);
	/* After the memory: its reader regions used these. */
	for (size_t i = 0; i < cap->nowned; i++)
		if (cap->owned[i].free_fn)
			cap->owned[i].free_fn(cap->owned[i].ud);
	free(cap->owned);
	cap->owned = NULL;
	cap->nowned = cap->ownedcap = 0;
	cap->pci = NULL;        /* freed with the owned list */
	for (size_t i = 0; i < cap->nmaps; i++) {
		munmap(cap->maps[i].p, cap->maps[i].len);
		if (cap->maps[i].fd >= 0)
			close(cap->maps[i].fd);
		free(cap->maps[i].used);
	}
	free(cap->maps);
	cap->maps = NULL;
	cap->nmaps = cap->mapcap = 0;
	free(cap->regions);
	cap->regions = NULL;
	cap->nregions = 0;
	free(cap->ctx);
	cap->ctx = NULL;
	free(cap->ctx_sorted);
	cap->ctx_sorted = NULL;
	free(cap->xlate);
	cap->xlate = NULL;
	free(cap->xsname);
	cap->xsname = NULL;
	for (size_t i = 0; cap->iopages && cap->man && i < cap->man->niommu; i++)
		free(cap->iopages[i].pg);
	free(cap->iopages);
	cap->iopages = NULL;
	cap->nctx = 0;
	pt_manifest_free(cap->man);
	cap->man = NULL;
	free(cap->pool);
	cap->pool = NULL;
	cap->npool = cap->poolcap = 0;
	free(cap->source);
	cap->source = NULL;
}

void pt_capture_free(struct pt_capture *cap)
{
	if (!cap)
		return;
	unload(cap);
	for (size_t i = 0; i < cap->nwarn; i++)
		free(cap->warn[i]);
	free(cap->warn);
	free(cap);
}

void pt_capture_set_progress(struct pt_capture *cap, pt_progress_fn fn, void *ud)
{
	if (!cap)
		return;
	cap->progress = fn;
	cap->progress_ud = ud;
}

/* Records mapping P of LEN bytes of the file open as FD (FD is duplicated, not taken). */
pt_err pt_capture_add_mapping(struct pt_capture *cap, void *p, size_t len, int fd)
{
	if (!pt_vec_reserve(&cap->maps, &cap->mapcap, cap->nmaps + 1, sizeof *cap->maps))
		return PT_E_NOMEM;
	memset(&cap->maps[cap->nmaps], 0, sizeof cap->maps[cap->nmaps]);
	cap->maps[cap->nmaps].p = p;
	cap->maps[cap->nmaps].len = len;
	cap->maps[cap->nmaps].used = NULL;
	cap->maps[cap->nmaps].nused = cap->maps[cap->nmaps].usedcap = 0;
	/* No descriptor left: pt_capture_guard() then copies the pages at once. */
	cap->maps[cap->nmaps].fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	cap->nmaps++;
	return PT_OK;
}

/* ---- binding capture.ini to members ---- */

/* Serials of loaded contexts (struct pt_context): from 1, shared by all threads. */
static _Atomic uint64_t context_serials;

uint64_t pt_capture_serial_next(void)
{
	return atomic_fetch_add(&context_serials, 1) + 1;
}

/*
 * The outcome of a format's set-up hook (ctx_setup, ctx_memory) for
 * context C with its message MSG: an error fails the load; a hook that
 * succeeds may leave a warning (a register masked to its field).
 */
static pt_err ctx_hook_report(struct pt_capture *cap, const struct pt_context *c, pt_err rc,
			      const char *msg)
{
	if (rc) {
		pt_capture_set_error(cap, "capture.ini:%u: [%s %s]: %s", c->ini_line,
				     c->fmt->ctx_section, c->name, msg[0] ? msg : pt_strerror(rc));
		return rc;
	}
	if (msg[0]) {
		if (cap->source_kind)
			pt_capture_warn(cap, "%s: %s", c->name, msg);
		else
			pt_capture_warn(cap, "capture.ini:%u: [%s %s]: %s", c->ini_line,
					c->fmt->ctx_section, c->name, msg);
	}
	return PT_OK;
}

static pt_err fill_contexts(struct pt_capture *cap)
{
	const struct pt_manifest *man = cap->man;
	char buf[512];
	pt_err rc;

	cap->ctx = calloc(man->nctx ? man->nctx : 1, sizeof *cap->ctx);
	cap->ctx_sorted = calloc(man->nctx ? man->nctx : 1, sizeof *cap->ctx_sorted);
	if (!cap->ctx || !cap->ctx_sorted) {
		pt_capture_set_error(cap, "%s: out of memory", cap->source);
		return PT_E_NOMEM;
	}
	for (size_t i = 0; i < man->nctx; i++) {
		const struct pt_manifest_ctx *mc = &man->ctx[i];
		struct pt_context *c = &cap->ctx[i];

		buf[0] = 0;
		c->name = mc->name;
		c->index = (unsigned)i;
		c->cap = cap;
		/* A source's contexts may be of several formats (a GART and GPUVM VMIDs). */
		c->fmt = mc->fmt ? mc->fmt : man->fmt;
		c->nannotations = mc->nann;
		c->annotations = mc->ann;
		c->ini_line = mc->line;
		/* The format's data from capture.ini: owned by the manifest, filled in by the set-up. */
		c->priv = mc->priv;
		c->serial = atomic_fetch_add(&context_serials, 1) + 1;
		rc = ctx_hook_report(cap, c, pt_context_setup(c, buf, sizeof buf), buf);
		if (rc)
			return rc;
		cap->ctx_sorted[i] = c;
	}
	cap->nctx = man->nctx;
	return PT_OK;
}

/* The set-up steps that read memory (ctx_memory), in capture.ini order, once memory is sealed. */
static pt_err memory_contexts(struct pt_capture *cap)
{
	char buf[512];

	for (size_t i = 0; i < cap->nctx; i++) {
		struct pt_context *c = &cap->ctx[i];
		pt_err rc;

		if (!c->fmt->ctx_memory)
			continue;
		buf[0] = 0;
		rc = ctx_hook_report(cap, c, pt_context_memory(c, buf, sizeof buf), buf);
		if (rc)
			return rc;
	}
	return PT_OK;
}

static int cmp_ctx(const void *a, const void *b)
{
	return strcmp((*(const struct pt_context *const *)a)->name,
		      (*(const struct pt_context *const *)b)->name);
}

/*
 * Moves member M's bytes into built region ID: the first section takes
 * the chunks themselves and later sections of the same member share them
 * (1000 sections naming one member hold its bytes once); the member's own
 * copy is freed after its last user.
 */
static pt_err copy_member(struct pt_capture *cap, struct member *m, unsigned id,
			  uint64_t woff, uint64_t wlen)
{
	bool last = --m->users == 0;
	bool whole = woff == 0 && wlen == m->size;

	for (size_t i = 0; i < m->nc; i++) {
		uint64_t off = m->c[i].idx << CHUNK_SHIFT;
		uint64_t n = m->c[i].len;
		pt_err rc;

		if (!whole && off < woff + wlen && off + n > woff) {
			/* A window ([memory] offset/length): its bytes are copied, chunks need not align. */
			uint64_t from = off > woff ? off : woff;
			uint64_t to = off + n < woff + wlen ? off + n : woff + wlen;

			rc = pt_mem_region_write(cap->mem, id, from - woff, m->c[i].data + (from - off),
						 (size_t)(to - from));
			if (rc)
				return rc;
		} else if (whole && off < m->size) {
			if (n > m->size - off)
				n = m->size - off;
			if (m->c[i].lent) {
				rc = pt_mem_region_share(cap->mem, id, off, m->c[i].data, m->c[i].len);
				if (rc)
					return rc;
				continue;
			}
			/* No second copy: the region takes the chunk, later sections share it. */
			if (pt_mem_region_adopt(cap->mem, id, off, m->c[i].data, m->c[i].len) == PT_OK) {
				m->c[i].lent = true;
				continue;
			}
			rc = pt_mem_region_write(cap->mem, id, off, m->c[i].data, (size_t)n);
			if (rc)
				return rc;
		}
		/* Free as we go, so a big member never exists twice in memory. */
		if (last && !m->c[i].lent) {
			free(m->c[i].data);
			m->c[i].data = NULL;
		}
	}
	if (last)
		pt_member_free_data(m);
	return PT_OK;
}

/*
 * The bytes of member M that section S serves (its offset/length window):
 * *LEN, or an error naming the key whose window runs past the member.
 */
static pt_err check_window(struct pt_capture *cap, const struct pt_manifest_mem *s,
			   const struct member *m, uint64_t *len)
{
	if (s->offset > m->size) {
		pt_capture_set_error(cap, "capture.ini:%u: offset 0x%llx in [memory %s] is past the end of "
			"file '%s' (0x%llx bytes)", s->offset_line, (unsigned long long)s->offset,
			s->name, s->file, (unsigned long long)m->size);
		return PT_E_CAPTURE;
	}
	if (s->has_length && s->length > m->size - s->offset) {
		pt_capture_set_error(cap, "capture.ini:%u: length 0x%llx from offset 0x%llx in [memory %s] "
			"runs past the end of file '%s' (0x%llx bytes)", s->length_line,
			(unsigned long long)s->length, (unsigned long long)s->offset, s->name, s->file,
			(unsigned long long)m->size);
		return PT_E_CAPTURE;
	}
	if (m->kind == MK_READER && s->offset) {
		pt_capture_set_error(cap, "capture.ini:%u: offset 0x%llx in [memory %s]: file '%s' is read on "
			"demand, in whole pages from its start; a window of it starts at 0", s->offset_line,
			(unsigned long long)s->offset, s->name, s->file);
		return PT_E_CAPTURE;
	}
	*len = s->has_length ? s->length : m->size - s->offset;
	return PT_OK;
}

/*
 * The member of [memory] section I and its window's length: a text
 * section's file, a window given as data (pt_loader_add_window(): checked
 * as a text section's window is), or none (bytes given as data).
 */
static pt_err section_member(struct pt_loader *ld, size_t i, size_t ntext, struct member **m,
			     uint64_t *wlen)
{
	const struct pt_manifest_mem *s = &ld->cap->man->mem[i];
	pt_err rc;

	if (i < ntext) {
		rc = pt_loader_resolve(ld, s, m);
		return rc ? rc : check_window(ld->cap, s, *m, wlen);
	}
	if (ld->dreg[i - ntext].member != SIZE_MAX) {
		*m = &ld->m[ld->dreg[i - ntext].member];
		return check_window(ld->cap, s, *m, wlen);
	}
	*wlen = s->length;
	return PT_OK;
}

/*
 * The shared end of a load: the manifest is in cap->man; bind its [memory]
 * sections through RESOLVE, seal the memory, fill the contexts.
 */
/* A reader member's region: the capture takes the reader's state (once, however many sections). */
static pt_err bind_reader(struct pt_capture *cap, struct member *m, const struct pt_manifest_mem *s,
			  uint64_t len, unsigned *id)
{
	pt_err rc;

	if (!m->ud_given) {
		if (!pt_vec_reserve(&cap->owned, &cap->ownedcap, cap->nowned + 1, sizeof *cap->owned))
			return PT_E_NOMEM;
		cap->owned[cap->nowned].ud = m->ud;
		cap->owned[cap->nowned].free_fn = m->free_fn;
		cap->nowned++;
		m->ud_given = true;
	}
	/* check_window() allows a reader member only windows from 0: its reads are whole pages of it */
	rc = pt_mem_add_reader(cap->mem, s->space, s->base, len, m->read, m->ud, id);
	if (rc == PT_OK && m->why)
		rc = pt_mem_reader_why(cap->mem, *id, m->why);
	return rc;
}

/*
 * Appends the sections given as data (pt_loader_add_region()) to
 * cap->man's [memory] sections; their strings are the capture's pool.
 */
static pt_err append_dregions(struct pt_loader *ld)
{
	struct pt_capture *cap = ld->cap;
	struct pt_manifest *man = cap->man;
	struct pt_manifest_mem *mem;

	if (!ld->ndreg)
		return PT_OK;
	if (!pt_vec_resize(&man->mem, man->nmem + ld->ndreg, sizeof *man->mem)) {
		pt_capture_set_error(cap, "%s: out of memory", ld->path);
		return PT_E_NOMEM;
	}
	mem = man->mem;
	for (size_t i = 0; i < ld->ndreg; i++) {
		const struct dregion *d = &ld->dreg[i];
		struct pt_manifest_mem *s = &mem[man->nmem];
		int sp = pt_manifest_space_find(man, cap->pool + d->space);

		if (sp < 0) {
			pt_capture_set_error(cap, "%s: space '%s' of [memory %s] is not a space of %s",
					     cap->pool + d->prov, cap->pool + d->space, cap->pool + d->name,
					     man->fmt->name);
			return PT_E_VALUE;
		}
		memset(s, 0, sizeof *s);
		s->name = s->file = cap->pool + d->name;
		if (d->member != SIZE_MAX) {
			s->file = cap->pool + d->file;
			s->offset = d->offset;
		}
		s->space = (unsigned)sp;
		s->base = d->base;
		s->length = d->len;
		s->has_length = true;
		man->nmem++;
	}
	return PT_OK;
}

/* Where [memory] section I is: "capture.ini:LINE", or the provenance of one given as data. */
static const char *sec_where(const struct pt_loader *ld, size_t i, size_t ntext, char *buf, size_t len)
{
	if (i >= ntext)
		return ld->cap->pool + ld->dreg[i - ntext].prov;
	snprintf(buf, len, "capture.ini:%u", ld->cap->man->mem[i].line);
	return buf;
}

/* Region *ID of section I, WLEN bytes of member M (NULL: a section given as data). */
static pt_err bind_region(struct pt_loader *ld, size_t i, size_t ntext, struct member *m, uint64_t wlen,
			  unsigned *id)
{
	struct pt_capture *cap = ld->cap;
	const struct pt_manifest_mem *s = &cap->man->mem[i];
	pt_err rc;

	if (!m) {
		rc = pt_mem_add_built(cap->mem, s->space, s->base, wlen, id);
		if (!rc)
			rc = pt_mem_region_write(cap->mem, *id, 0, ld->ddata + ld->dreg[i - ntext].data, (size_t)wlen);
	} else if (m->kind == MK_INPLACE) {
		rc = pt_mem_add_borrowed(cap->mem, s->space, s->base, m->ptr + s->offset, wlen, id);
		if (!rc)
			rc = pt_capture_map_use(cap, *id, m->ptr + s->offset, wlen);
	} else if (m->kind == MK_READER) {
		rc = bind_reader(cap, m, s, wlen, id);
	} else {
		rc = pt_mem_add_built(cap->mem, s->space, s->base, wlen, id);
		if (!rc)
			rc = copy_member(cap, m, *id, s->offset, wlen);
	}
	return rc;
}

/*
 * Blobs that are not whole entries, and capture.ini bases off a 4 KiB
 * page: one warning each, however many (a umr log of 10^6 one-byte reads
 * must not bury the others, issue #26.3).  A base off a page is legal (a
 * window of a table) but usually a hex number typed without 0x (issue
 * #34 item 7), which the number rule reads as decimal.
 */
static void warn_shapes(struct pt_capture *cap, size_t nshort, size_t short_first, uint64_t short_len,
			unsigned min_entry, size_t nmisaligned, size_t misaligned_first)
{
	const struct pt_manifest *man = cap->man;

	if (nshort == 1) {
		const struct pt_manifest_mem *s = &man->mem[short_first];

		pt_capture_warn(cap, "[memory %s] (%s): %llu bytes is not a multiple of the %u-byte "
		     "entry size; the last %llu bytes hold no whole entry", s->name, s->file,
		     (unsigned long long)short_len, min_entry,
		     (unsigned long long)(short_len % min_entry));
	} else if (nshort) {
		pt_capture_warn(cap, "%zu [memory] sections (the first [memory %s]) are not a multiple of "
		     "the %u-byte entry size; their last bytes hold no whole entry", nshort,
		     man->mem[short_first].name, min_entry);
	}
	if (nmisaligned) {
		const struct pt_manifest_mem *s = &man->mem[misaligned_first];

		pt_capture_warn(cap, "capture.ini:%u: [memory %s] base %llu (0x%llx) is not 4 KiB aligned"
		     "%s (a hex base needs 0x: 'base = 1000' is decimal 1000)", s->line, s->name,
		     (unsigned long long)s->base, (unsigned long long)s->base,
		     nmisaligned > 1 ? ", nor are other [memory] bases" : "");
	}
}

/* The seal's error: regions A and B overlap with different bytes. */
static void overlap_error(struct pt_loader *ld, unsigned a, unsigned b, size_t ntext)
{
	struct pt_capture *cap = ld->cap;
	const struct pt_region_info *x, *y;
	char wa[32], wb[32];
	const char *at;
	unsigned t = a;

	/* generated text (a dump beside capture.ini): a line of the text leads, the data names its file */
	if (ld->generated && a < ntext && b >= ntext)
		a = b, b = t;
	x = &cap->regions[a];
	y = &cap->regions[b];
	at = sec_where(ld, a, ntext, wa, sizeof wa);
	/* "line N" of the text, as before (its origin when generated); a section given as data names its provenance */
	if (a < ntext && ld->generated && cap->man->mem[a].line <= ld->nlines)
		at = ld->origin[cap->man->mem[a].line - 1];
	pt_capture_set_error(cap,
		"%s: [memory %s] (%s 0x%llx-0x%llx) overlaps [memory %s] (%s%s, 0x%llx-0x%llx) "
		"with different bytes",
		sec_where(ld, b, ntext, wb, sizeof wb), y->name, cap->man->spaces[y->space].name,
		(unsigned long long)y->base, (unsigned long long)(y->base + y->size - 1),
		x->name, a < ntext && !ld->generated ? "line " : "", a < ntext && !ld->generated ? at + 12 : at,
		(unsigned long long)x->base, (unsigned long long)(x->base + x->size - 1));
}

pt_err pt_loader_bind(struct pt_loader *ld)
{
	struct pt_capture *cap = ld->cap;
	const struct pt_manifest *man = cap->man;
	struct member **mm;
	uint64_t *wlen;
	unsigned a = 0, b = 0, min_entry = 16;
	size_t nshort = 0, short_first = 0, ntext = man->nmem, nmisaligned = 0, misaligned_first = 0;
	pt_err rc;

	/* A blob is a set of tables: its size should be whole entries of the smallest kind. */
	for (const struct pt_level *l = man->fmt->levels; l->name; l++)
		if (l->entry_size < min_entry)
			min_entry = l->entry_size;
	/* Context checks need only capture.ini: report them before member problems. */
	rc = fill_contexts(cap);
	if (!rc)
		rc = append_dregions(ld);
	if (!rc)
		rc = pt_capture_bind_spaces(cap);
	if (rc)
		return rc;
	cap->mem = pt_mem_new(man->nspaces);
	cap->regions = calloc(man->nmem ? man->nmem : 1, sizeof *cap->regions);
	mm = calloc(man->nmem ? man->nmem : 1, sizeof *mm);
	wlen = calloc(man->nmem ? man->nmem : 1, sizeof *wlen);
	/* A resolver may add one member per section: never let the array move under MM. */
	if (!cap->mem || !cap->regions || !mm || !wlen ||
	    !pt_vec_reserve(&ld->m, &ld->mcap, ld->nm + ntext + 1, sizeof *ld->m)) {
		free(mm);
		free(wlen);
		pt_capture_set_error(cap, "%s: out of memory", ld->path);
		return PT_E_NOMEM;
	}
	/* Every member first, in capture.ini order, so the first bad section is reported. */
	for (size_t i = 0; i < man->nmem; i++) {
		const struct pt_manifest_mem *s = &man->mem[i];
		char where[32];

		rc = section_member(ld, i, ntext, &mm[i], &wlen[i]);
		if (rc)
			goto out;
		if (wlen[i] && wlen[i] - 1 > UINT64_MAX - s->base) {
			pt_capture_set_error(cap, "%s: [memory %s] of 0x%llx bytes at 0x%llx ends past 2^64",
				sec_where(ld, i, ntext, where, sizeof where), s->name, (unsigned long long)wlen[i],
				(unsigned long long)s->base);
			rc = PT_E_VALUE;
			goto out;
		}
		if (mm[i])
			mm[i]->users++;
		if (wlen[i] % min_entry && !nshort++)
			short_first = i;
		if (i < ntext && !cap->source_kind && (s->base & 0xfff) && !nmisaligned++)
			misaligned_first = i;
	}
	warn_shapes(cap, nshort, short_first, wlen[short_first], min_entry, nmisaligned, misaligned_first);
	for (size_t i = 0; i < man->nmem; i++) {
		const struct pt_manifest_mem *s = &man->mem[i];
		struct member *m = mm[i];
		struct pt_region_info *ri = &cap->regions[i];
		unsigned id;

		ri->name = s->name;
		ri->file = s->file;
		ri->space = s->space;
		ri->base = s->base;
		ri->size = wlen[i];
		ri->in_place = m && m->kind == MK_INPLACE;
		rc = bind_region(ld, i, ntext, m, wlen[i], &id);
		if (rc) {
			pt_capture_set_error(cap, "%s: out of memory", ld->path);
			goto out;
		}
		cap->nregions++;
	}
	/* The bytes of sections given as data are in the regions now. */
	free(ld->ddata);
	ld->ddata = NULL;
	ld->nddata = ld->ddatacap = 0;
	rc = pt_mem_seal(cap->mem, &a, &b);
	if (rc == PT_E_CAPTURE) {
		overlap_error(ld, a, b, ntext);
		goto out;
	} else if (rc) {
		pt_capture_set_error(cap, "%s: out of memory", ld->path);
		goto out;
	}
	if (cap->nctx)
		qsort(cap->ctx_sorted, cap->nctx, sizeof *cap->ctx_sorted, cmp_ctx);
	for (size_t i = 0; i < cap->nctx; i++)
		cap->ctx[i].mem = cap->mem;
	rc = memory_contexts(cap);
	if (!rc)
		rc = pt_iommu_expand(cap, pt_loader_opts(ld));
out:
	free(mm);
	free(wlen);
	return rc;
}

/* ---- public ---- */

/*
 * Opens PATH for the probe: never blocking on a FIFO, and only a regular
 * file or a directory (docs/design.md §3: "only regular files are read"); its
 * first bytes into HEAD.  A symbolic link the user names on the command
 * line is followed, as every tool follows one (`ptfs latest.tar.gz mnt`);
 * what it names must still be a regular file or a directory.  Files a
 * capture names inside itself never follow links (the sources' opens).
 */
static pt_err probe_open(struct pt_capture *cap, const char *path, struct pt_probe *p,
			 struct stat *st, uint8_t *head)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	/* A UNIX socket cannot be opened (ENXIO): its path is held for the QMP source to connect (issue #33). */
	if (fd < 0 && errno == ENXIO)
		fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0 || fstat(fd, st)) {
		pt_capture_set_error(cap, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return PT_E_IO;
	}
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) && !S_ISSOCK(st->st_mode)) {
		pt_capture_set_error(cap, "%s: is a %s; ptfs reads a capture from a regular file or a directory "
				     "(or a QEMU QMP socket)",
				     path, pt_file_type_name(st->st_mode));
		close(fd);
		return PT_E_USAGE;
	}
	p->path = path;
	p->fd = fd;
	p->st = st;
	if (S_ISREG(st->st_mode)) {
		do
			n = pread(fd, head, PT_PROBE_HEAD, 0);
		while (n < 0 && errno == EINTR);
		p->head = head;
		p->head_len = n > 0 ? (size_t)n : 0;
	}
	return PT_OK;
}

pt_err pt_capture_load_from(struct pt_capture *cap, const char *path, const struct pt_load_opts *opts,
			    const struct pt_source *const *sources)
{
	static const struct pt_load_opts defaults;
	struct pt_loader ld = {.cap = cap, .path = path, .cur = SIZE_MAX, .opts = opts ? opts : &defaults,
			       .sources = sources};
	struct pt_probe probe = {.fd = -1};
	uint8_t head[PT_PROBE_HEAD];
	struct stat st;
	pt_err rc;

	if (!cap || !path || !sources)
		return PT_E_USAGE;
	if (cap->load_called) {
		pt_capture_set_error(cap, "%s: a capture is loaded only once", path);
		return PT_E_USAGE;
	}
	cap->load_called = true;
	cap->all_entries = ld.opts->all_entries;
	cap->err[0] = 0;
	cap->source = strdup(path);
	if (!cap->source) {
		pt_capture_set_error(cap, "%s: out of memory", path);
		return PT_E_NOMEM;
	}
	clock_gettime(CLOCK_MONOTONIC, &ld.last);
	rc = pt_loader_check_opts(&ld, sources);
	if (rc || (rc = probe_open(cap, path, &probe, &st, head))) {
		free(cap->source);
		cap->source = NULL;
		return rc;
	}
	/* The kind is recognised from the content, never from the name. */
	ld.src = pt_source_best(sources, &probe);
	if (!ld.src) {
		rc = pt_loader_fail(&ld, PT_E_ARCHIVE, "%s: not a capture ptfs reads", path);
	} else {
		cap->source_kind = ld.src->kind;
		rc = ld.src->load(&ld, &probe);
		if (!rc)
			rc = pt_loader_finish(&ld);
	}
	close(probe.fd);
	pt_loader_free(&ld);
	if (cap->nwarn_dropped) {
		size_t n = cap->nwarn_dropped;

		cap->nwarn_dropped = 0;
		cap->nwarn--;    /* make room: the summary replaces the last one kept */
		free(cap->warn[cap->nwarn]);
		pt_capture_warn(cap, "%zu more warnings not shown", n + 1);
	}
	if (rc) {
		/* Never half loaded: no memory, no contexts. */
		unload(cap);
		return rc;
	}
	return PT_OK;
}

const struct pt_format *pt_capture_format(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->fmt : NULL;
}

const char *pt_capture_source_kind(const struct pt_capture *cap)
{
	return cap && cap->source_kind ? cap->source_kind : "capture archive";
}

unsigned pt_capture_version(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->version : 0;
}

const char *pt_capture_source(const struct pt_capture *cap)
{
	return cap ? cap->source : NULL;
}

const char *pt_capture_gpu(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->gpu : NULL;
}

const char *pt_capture_description(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->description : NULL;
}

size_t pt_capture_annotation_count(const struct pt_capture *cap)
{
	return cap && cap->man ? cap->man->nann : 0;
}

const struct pt_kv *pt_capture_annotation(const struct pt_capture *cap, size_t i)
{
	return cap && cap->man && i < cap->man->nann ? &cap->man->ann[i] : NULL;
}

size_t pt_capture_region_count(const struct pt_capture *cap)
{
	return cap && cap->mem ? cap->nregions : 0;
}

const struct pt_region_info *pt_capture_region(const struct pt_capture *cap, size_t i)
{
	return cap && cap->mem && i < cap->nregions ? &cap->regions[i] : NULL;
}

const struct pt_mem *pt_capture_mem(const struct pt_capture *cap)
{
	return cap ? cap->mem : NULL;
}

size_t pt_capture_context_count(const struct pt_capture *cap)
{
	/* a live capture's grows (extend.c pt_capture_live_add_contexts) */
	return cap ? __atomic_load_n(&cap->nctx, __ATOMIC_ACQUIRE) : 0;
}

size_t pt_capture_context_room(const struct pt_capture *cap)
{
	size_t n = pt_capture_context_count(cap);

	return cap && cap->live && cap->ctx_room > n ? cap->ctx_room : n;
}

const struct pt_context *pt_capture_context(const struct pt_capture *cap, size_t i)
{
	return cap && i < pt_capture_context_count(cap) ? &cap->ctx[i] : NULL;
}

const struct pt_context *pt_capture_context_find(const struct pt_capture *cap, const char *name)
{
	/* the count first: the sorted array stored before it holds at least that many */
	size_t n = pt_capture_context_count(cap);
	const struct pt_context *const *sorted = cap ? __atomic_load_n(&cap->ctx_sorted, __ATOMIC_ACQUIRE) : NULL;
	const struct pt_context *c = cap && name ? pt_ctx_sorted_find(sorted, n, name) : NULL;

	/* a live process's context gone: its name is no longer its (a new process may take it) */
	return c && pt_context_gone(c) ? NULL : c;
}

