/* SPDX-License-Identifier: MIT */
/*
 * loader_bind.c — the end of a load (pt_loader_finish()): the capture.ini
 * text the source emitted parsed into the manifest (a dump beside it
 * through dumpmem.c), its [memory] sections bound to the loader's members
 * (copied, served in place or read on demand), the memory sealed, the
 * spaces bound (spaces.c) and the contexts made (contexts.c).  The one
 * caller is capture.c's pt_capture_load_from(); every file it calls is
 * below it in the load chain (HACKING.md), none calls it back.
 *
 * Nothing depends on member order except which error wins, and even then
 * errors about capture.ini lines are reported in line order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_int.h"

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
	rc = pt_capture_fill_contexts(cap);
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
	rc = pt_capture_memory_contexts(cap, pt_loader_opts(ld));
out:
	free(mm);
	free(wlen);
	return rc;
}

pt_err pt_loader_resolve(struct pt_loader *ld, const struct pt_manifest_mem *mm, struct member **out)
{
	struct member *m;
	char *full;
	pt_err rc;

	/* a section of a dump's own text names the dump's member, never a file of the directory */
	if (ld->resolve && !(ld->dumpline && mm->line <= ld->nlines && ld->dumpline[mm->line - 1]) &&
	    (rc = ld->resolve(ld, ld->resolve_ud, mm)))
		return rc;
	if (asprintf(&full, "%s%s", ld->root ? ld->root : "", mm->path) < 0)
		return pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", ld->path);
	m = pt_loader_member_find(ld, full);
	free(full);
	if (!m && ld->generated)
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s: internal: member %s missing", ld->path, mm->path);
	if (!m)
		return pt_loader_fail(ld, PT_E_CAPTURE,
			"capture.ini:%u: file '%s' of [memory %s] is not in the capture",
			mm->file_line, mm->file, mm->name);
	if (m->count > 1)
		return pt_loader_fail(ld, PT_E_CAPTURE,
			"capture.ini:%u: file '%s' of [memory %s] appears %u times in the archive",
			mm->file_line, mm->file, mm->name, m->count);
	if (m->kind == MK_ABSENT)
		return pt_loader_fail(ld, PT_E_CAPTURE, "capture.ini:%u: file '%s' of [memory %s] %s",
			mm->file_line, mm->file, mm->name, m->what);
	*out = m;
	return PT_OK;
}

/*
 * Rewrites the load error "capture.ini:N: msg" (N a line of the generated
 * text) as "ORIGIN: msg".
 */
static void remap_error(struct pt_loader *ld)
{
	char *msg = ld->cap->err, *end;
	unsigned long line;
	char copy[sizeof ld->cap->err];

	if (strncmp(msg, "capture.ini:", 12))
		return;
	line = strtoul(msg + 12, &end, 10);
	if (end == msg + 12 || *end != ':' || line < 1 || line > ld->nlines)
		return;
	snprintf(copy, sizeof copy, "%s", end + 1);
	/* "(first at line M)" of a duplicate names M's origin too: a dump's line and capture.ini's meet */
	{
		char *first = strstr(copy, "(first at line ");
		unsigned long m = first ? strtoul(first + 15, &end, 10) : 0;

		if (first && *end == ')' && m >= 1 && m <= ld->nlines) {
			*first = 0;
			pt_capture_set_error(ld->cap, "%s:%s(first at %s%s", ld->origin[line - 1], copy,
					     ld->origin[m - 1], end);
			return;
		}
	}
	pt_capture_set_error(ld->cap, "%s:%s", ld->origin[line - 1], copy);
}

pt_err pt_loader_finish(struct pt_loader *ld)
{
	char err[sizeof ld->cap->err];
	size_t w0 = SIZE_MAX;
	bool memory_only = pt_loader_opts(ld)->memory_only;
	pt_err rc;

	if (ld->nomem)
		return pt_loader_fail(ld, PT_E_NOMEM, "%s: out of memory", ld->path);
	if (!ld->emitted)
		return pt_loader_fail(ld, PT_E_CAPTURE, "%s: internal: the %s source gave no capture.ini",
				      ld->path, ld->src ? ld->src->name : "?");
	pt_loader_members_merge(ld);
	rc = pt_manifest_parse_opts(ld->text, ld->len, ld->generated, memory_only, &ld->cap->man,
				    err, sizeof err);
	if (rc)
		pt_capture_set_error(ld->cap, "%s", err);
	/* capture.ini's memory is a dump: the dump's text and this one's, parsed as one */
	if (!rc && !ld->generated && ld->cap->man->dump) {
		rc = pt_dumpmem_load(ld);
		if (rc)
			return rc;
		w0 = ld->cap->nwarn;
		rc = pt_manifest_parse_opts(ld->text, ld->len, true, memory_only, &ld->cap->man,
					    err, sizeof err);
		if (rc)
			pt_capture_set_error(ld->cap, "%s", err);
	}
	if (!rc)
		rc = pt_loader_bind(ld);
	/* the set-up's warnings "capture.ini:N: ..." name the merged text's lines: name capture.ini's */
	if (w0 != SIZE_MAX)
		pt_dumpmem_warnings(ld, w0);
	if (rc && ld->generated)
		remap_error(ld);
	/*
	 * the steps above the load (core/linux: the kernel's tasks), once
	 * everything is loaded; for roots (memory_only) too, which names the
	 * processes whose tables it finds (root_of=pidN)
	 */
	if (!rc && ld->opts->after_load)
		rc = ld->opts->after_load(ld->cap, ld->opts);
	return rc;
}

