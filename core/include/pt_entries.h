/* SPDX-License-Identifier: MIT */
/*
 * pt_entries.h — CTX/entries (docs/design.md §4): every listed entry of a context on
 * one line, `PATH key=value ...`, in tree order.
 *
 * PATH is the entry file's path relative to the context directory
 * (`pde3/0/entry` for a pointer, `pde3/0/.../pte_small/5` for a leaf), so
 * `cat CTX/PATH` shows the same fields.  The fields are those of the entry
 * file, in its order, `key: value` written `key=value`, separated by single
 * spaces.  A value byte that is a control byte, a space, a backslash or not
 * ASCII is written \xNN (lowercase hex), so a line always splits on spaces
 * and `=`; no value the decoders produce today needs it.
 *
 * The file can be far larger than memory should hold (10^6 entries: ~200 MB),
 * so it is never kept: pt_entries_file_build() renders it once without
 * storing it, keeping its exact size and a checkpoint (the next entry) about
 * every PT_ENTRIES_CHECKPOINT bytes; pt_entries_file_read() renders forward
 * from the nearest checkpoint at or before the offset.  Memory: one
 * checkpoint per PT_ENTRIES_CHECKPOINT bytes of text.  A text of at most
 * KEEP_MAX bytes (the caller's budget) is kept from that first pass, and
 * reads then copy from it: the first pass renders it all anyway, and a
 * first `grep -r` spent more on re-rendering slices than on the pass.
 */
#ifndef PT_ENTRIES_H
#define PT_ENTRIES_H

/* The include rule (HACKING.md, "Layers"): the view layer's, never included below it. */
#if defined(PT_LAYER_UTIL) || defined(PT_LAYER_FORMATS) || defined(PT_LAYER_LOAD) || defined(PT_LAYER_SOURCES) || defined(PT_LAYER_WALK) || defined(PT_LAYER_LINUX)
#error "pt_entries.h belongs to core/view: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "pt_render.h"
#include "pt_tree.h"

/* Bytes of text between two checkpoints (at least; they sit at line starts). */
#define PT_ENTRIES_CHECKPOINT 65536

#define PT_ENTRIES_BATCH 16

/*
 * Walks the entry files of one context in tree order (depth-first, children
 * in listing order, as `ls -R` and export visit them; all_entries honoured)
 * through pt_tree_list(), so it lists exactly the tree's entry files.
 */
struct pt_entries_iter {
	const struct pt_tree *tree;
	struct pt_readctl *rc;   /* the caller's, for every listing (pt_tree_list()); may be NULL */
	unsigned depth;
	bool pointer;   /* the entry file last given is a pointer's (PATH/entry) */
	struct {
		struct pt_tnode dir;   /* a TABLEDIR or ENTRYDIR on the current path */
		uint64_t cookie;       /* resumes its listing after the last child queued */
		/* children listed but not visited yet: one listing (one resolve of
		 * the table) per PT_ENTRIES_BATCH children instead of per child */
		unsigned qn, qi;
		struct pt_tnode q[PT_ENTRIES_BATCH];
	} f[2 * PT_MAX_DEPTH + 2];
};

/* Starts at the first entry of context CTX; RC (may be NULL) bounds and cancels the listings. */
pt_err pt_entries_begin(struct pt_entries_iter *it, const struct pt_tree *tree, unsigned ctx,
			struct pt_readctl *rc);
/*
 * Starts at entry file AT (an ENTRYFILE node the iterator gave): the next
 * call of pt_entries_next() gives AT again.
 */
pt_err pt_entries_seek(struct pt_entries_iter *it, const struct pt_tree *tree,
		       const struct pt_tnode *at, struct pt_readctl *rc);
/* The next entry file in *OUT; PT_E_NOTFOUND at the end. */
pt_err pt_entries_next(struct pt_entries_iter *it, struct pt_tnode *out);
/*
 * Appends the line of entry file NODE ("PATH key=value ...\n") to B;
 * POINTER: NODE is a pointer's `entry` (the iterator says which).  On an
 * error B is left as it was.
 */
pt_err pt_entries_line(const struct pt_tree *tree, const struct pt_tnode *node, bool pointer,
		       struct pt_buf *b);
/*
 * At most this many entry lines, then one `# truncated` line: tables that
 * alias each other can describe ~10^13 entries in a few KiB (like
 * PT_MAPS_RUNS_MAX for maps); a real capture stays far below it.
 */
#define PT_ENTRIES_LINES_MAX (UINT64_C(1) << 25)

/*
 * The entries text of context CTX, LINES_MAX entry lines at most, handed to
 * SINK in pieces of about PT_ENTRIES_WRITE_CHUNK bytes, so that memory stays
 * bounded whatever the text's size (ptfs-tool export: ~14 GB from one
 * self-pointing table).  SINK false: stop, PT_E_IO.  RC (may be NULL) as
 * for pt_entries_begin(); so for the three below.
 */
#define PT_ENTRIES_WRITE_CHUNK ((size_t)1 << 20)
typedef bool (*pt_entries_sink)(void *ud, const char *data, size_t len);
pt_err pt_entries_write(const struct pt_tree *tree, unsigned ctx, uint64_t lines_max,
			pt_entries_sink sink, void *ud, struct pt_readctl *rc);
/* Appends the whole entries text of context CTX to B (tests, small contexts), LINES_MAX entry lines at most. */
pt_err pt_entries_render(const struct pt_tree *tree, unsigned ctx, uint64_t lines_max,
			 struct pt_buf *b, struct pt_readctl *rc);

/* The entries file of one context: its exact size and its checkpoints. */
struct pt_entries_file {
	unsigned ctx;
	uint64_t size;
	uint64_t lines_max;        /* entry lines before `# truncated` */
	size_t ncp, cpcap;
	struct pt_entries_cp {
		uint64_t off;          /* where the line of NEXT starts */
		uint64_t lines;        /* entry lines before it */
		struct pt_tnode next;
	} *cp;
	struct pt_buf text;        /* the whole text when it fit KEEP_MAX (len == size), else empty */
};

/*
 * The first pass: size and checkpoints of context CTX's entries, and the
 * text itself when it is at most KEEP_MAX bytes (F is filled, free it).
 */
pt_err pt_entries_file_build(const struct pt_tree *tree, unsigned ctx, uint64_t lines_max,
			     uint64_t keep_max, struct pt_entries_file *f, struct pt_readctl *rc);
/*
 * Appends to OUT the bytes [OFF, OFF + SIZE) of the file, cut at its end:
 * a copy from the kept text, or a render of at most PT_ENTRIES_CHECKPOINT
 * + SIZE + one line.
 */
pt_err pt_entries_file_read(const struct pt_tree *tree, const struct pt_entries_file *f,
			    uint64_t off, size_t size, struct pt_buf *out, struct pt_readctl *rc);
void pt_entries_file_free(struct pt_entries_file *f);

#endif
