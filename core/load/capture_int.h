/* SPDX-License-Identifier: MIT */
/*
 * capture_int.h — what the load layer's files share (internal to core/load/):
 * the capture object, the loader behind pt_source.h, its members.
 *
 *   capture.c        the object, the load's driver (probe, bid, load, finish),
 *                    the public getters of what capture.ini says
 *   loader.c         the loader API of pt_source.h: members, capture.ini text
 *   loader_bind.c    the end of a load: parse, bind [memory] to members, seal
 *   dumpmem.c        a capture.ini whose memory is a dump ([memory] dump =)
 *   capture_guard.c  mappings of files served in place and their leases
 *   contexts.c       the manifest's contexts set up, then the IOMMU devices
 *   lookup.c         contexts and spaces by index or name, serials (a leaf)
 *   report.c         the load's error and warnings, held in the capture (a leaf)
 *
 * The load is a one-way chain (HACKING.md): each file calls only files
 * below it, and errors and warnings go into the capture object passed
 * down (report.c), never back up into the file that called.
 *
 * Sources (core/sources/) never include this file: they see pt_source.h.
 */
#ifndef PT_CAPTURE_INT_H
#define PT_CAPTURE_INT_H

/* The include rule (HACKING.md, "Layers"): internal to core/load, and the tests. */
#if !defined(PT_LAYER_LOAD) && !defined(PT_TESTING)
#error "capture_int.h is internal to core/load (HACKING.md, Layers)"
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "ini.h"
#include "pt_capture.h"
#include "pt_mem.h"
#include "pt_source.h"
#include "pt_vec.h"

/*
 * Members are kept in 4 KiB chunks, the unit of core/mem.c too: a table
 * page alone in a large, mostly zero dump costs 4 KiB, not a 64 KiB chunk
 * (16x its bytes; bench/README.md "Scale").
 */
#define CHUNK_SHIFT 12
#define CHUNK_SIZE ((uint64_t)1 << CHUNK_SHIFT)
#define MAX_WARNINGS 100        /* kept; the rest are counted in one last warning */
#define PROGRESS_NS 250000000L  /* at most four progress calls a second */

/* The non-zero chunks of a copied member, sorted by index. */
struct schunk {
	uint64_t idx;
	uint8_t *data;
	uint32_t len;       /* bytes allocated */
	bool lent;          /* DATA now belongs to the capture's memory (shared by its sections) */
};

enum mkind {
	MK_DATA,            /* copied, data in chunks */
	MK_INPLACE,         /* data at ptr (an mmap of a file) */
	MK_READER,          /* read on demand through read/ud */
	MK_ABSENT,          /* in the source but unusable: `what` says why */
};

struct member {
	char *name;         /* normalised */
	enum mkind kind;
	const char *what;   /* MK_ABSENT: "is a symbolic link in the capture ..." */
	uint64_t size;
	const uint8_t *ptr; /* MK_INPLACE */
	struct schunk *c;
	size_t nc, cap;
	pt_read_fn read;    /* MK_READER */
	pt_why_fn why;      /* MK_READER: NULL, or why a page cannot be read */
	void *ud;
	void (*free_fn)(void *ud);
	bool ud_given;      /* UD now belongs to the capture (freed with it) */
	unsigned count;     /* occurrences of the name in the source (after merge) */
	unsigned users;     /* [memory] sections still to bind it */
};

/*
 * An mmap of a file read in place (an uncompressed archive, a directory
 * capture's blob), with a read-only descriptor of the file kept open for
 * pt_capture_guard()'s lease.  `fd` is -1 once the mapping is private.
 */
struct mapping {
	void *p;
	size_t len;
	int fd;
	dev_t dev;          /* the file (pt_loader_add_mapped() maps each file once) */
	ino_t ino;
	/*
	 * Page-aligned byte ranges of the mapping that regions serve, sorted
	 * and merged by pt_capture_guard(): only these are copied when the
	 * lease breaks (the rest of a large archive is never read again).
	 */
	struct pt_span { size_t off, len; } *used;
	size_t nused, usedcap;
};

/* A reader's state the capture frees after its memory. */
struct owned_ud {
	void *ud;
	void (*free_fn)(void *ud);
};

struct pt_capture {
	char err[1024];
	char **warn;
	size_t nwarn, warncap;
	size_t nwarn_dropped;
	pt_progress_fn progress;
	void *progress_ud;
	bool load_called;

	/* valid after a successful load */
	char *source;
	struct pt_manifest *man;
	struct pt_mem *mem;
	struct pt_region_info *regions;
	size_t nregions;
	struct pt_context *ctx;
	/*
	 * A live capture adds contexts while other threads read it
	 * (extend.c pt_capture_live_add_contexts): into CTX_ROOM slots held
	 * at the load, so CTX and man->ctx never move; CTX_SORTED is made
	 * anew (the old one kept, owned) and stored before NCTX, both atomic.
	 */
	size_t nctx;
	const struct pt_context **ctx_sorted;
	size_t ctx_room;        /* slots of ctx and man->ctx; 0: exactly nctx */
	/* per capture space id: the context it is translated through (spaces.c); NULL: none is */
	const struct pt_context **xlate;
	/*
	 * The names of the translated spaces [iommu] sections made for nested
	 * entries (iommu.c), PT_CAPTURE_SPACES of them; non-NULL: xlate holds
	 * PT_CAPTURE_SPACES entries, and every context points at it.
	 */
	char (*xsname)[PT_INI_MAX_NAME + 1];
	/*
	 * per [iommu] section: the 4 KiB pages its tables were read from,
	 * sorted, what its walk read (iommu_seen.c), the device contexts it
	 * made and the blocked entries it found (iommu.c)
	 */
	struct pt_iommu_pages {
		uint64_t *pg;
		size_t n, cap;
		struct pt_iommu_counts counts;
		char detail[512];
		size_t contexts, blocked;
	} *iopages;
	bool all_entries;       /* pt_load_opts.all_entries: blocked devices are contexts too */
	struct mapping *maps;
	size_t nmaps, mapcap;
	struct owned_ud *owned;
	size_t nowned, ownedcap;
	bool guarded;           /* pt_capture_guard() was called */
	const struct pt_live_ops *live;  /* a live source's hooks (live.c); NULL: a capture never changes */
	void *live_ud;
	const char *source_kind;/* static: "umr log", "gem5 checkpoint"; NULL: a capture archive */
	/* the strings of sections given as data (pt_loader_add_region()): regions name them */
	char *pool;
	size_t npool, poolcap;
	/* what a dump source noted for the linux layer (extend.c; freed with the owned list) */
	struct pt_kernel_facts *kfacts;
	/* the guest's PCI functions (extend.c; freed with the owned list) */
	struct pt_pci_store *pci;
	/* a live capture: what the step after the load reads again at each refresh (extend.c) */
	pt_err (*refresh)(struct pt_capture *cap, void *ud, char *msg, size_t len);
	void *refresh_ud;
};

/*
 * Notes that region ID serves the LEN bytes at P (inside one of CAP's
 * mappings, or none): the pages to keep when the lease breaks, and the
 * file's holes there (pt_mem_region_hole()).
 */
/*
 * After the contexts' set-up: gives each context its capture space ids,
 * binds [space] translate = CTX and checks it (spaces.c).
 */
pt_err pt_capture_bind_spaces(struct pt_capture *cap);
/* The capture space ids of context CTX's format spaces (a part of pt_capture_bind_spaces()). */
pt_err pt_capture_bind_ctx_spaces(struct pt_capture *cap, struct pt_context *ctx);
/*
 * The phases of the one context factory (ctxmake.c), in their order, for
 * the manifest's sections (the load reaches them at different times) and
 * pt_context_make() (all at once):
 *  - F's private data *PRIV (allocated when NULL) from N keys K: ctx_key
 *    each, stopping at the first error (*FAILED its index when set; a
 *    key F does not take is PT_E_NOTFOUND).  The caller frees *PRIV;
 *  - ctx_setup; the spaces bound (a space the capture lacks: PT_E_VALUE
 *    and *MISSING its name, unless ANY_SPACE: UINT32_MAX); ctx_memory (none: PT_OK).
 */
pt_err pt_context_keys(const struct pt_format *f, void **priv, const struct pt_ctx_key *k,
			unsigned n, unsigned *failed);
pt_err pt_context_setup(struct pt_context *c, char *msg, size_t mlen);
pt_err pt_context_bind(const struct pt_capture *cap, struct pt_context *c, bool any_space,
		       const char **missing);
pt_err pt_context_memory(struct pt_context *c, char *msg, size_t mlen);
/* A new context serial (struct pt_context.serial; lookup.c). */
uint64_t pt_capture_serial_next(void);
/*
 * The manifest's contexts (contexts.c): set up from their sections before
 * the memory is bound, into cap->ctx (not yet sorted) ...
 */
pt_err pt_capture_fill_contexts(struct pt_capture *cap);
/*
 * ... and once the memory is sealed: sorted, given the memory, their
 * ctx_memory hooks run, then the [iommu] devices (pt_iommu_expand()).
 */
pt_err pt_capture_memory_contexts(struct pt_capture *cap, const struct pt_load_opts *opts);
/*
 * After the memory is sealed and every context set up: the device
 * contexts of the [iommu] sections, read from their tables (iommu.c),
 * appended to the capture's contexts, the sorted list remade.
 */
pt_err pt_iommu_expand(struct pt_capture *cap, const struct pt_load_opts *opts);

pt_err pt_capture_map_use(struct pt_capture *cap, unsigned id, const void *p, uint64_t len);

/*
 * A [memory] section a source gave as data (pt_loader_add_region()): its
 * strings are offsets into the capture's pool (cap->pool), its bytes into
 * the loader's (ld->ddata).
 */
struct dregion {
	size_t name, space, prov;
	uint64_t base;
	size_t data, len;
	/* pt_loader_add_window(): the index in ld->m of the member it is a window of; SIZE_MAX: DATA */
	size_t member;
	size_t file;            /* the member's name in the pool (the loader's members do not outlive it) */
	uint64_t offset;
};

/* The state of one load: what pt_source.h calls struct pt_loader. */
struct pt_loader {
	struct pt_capture *cap;
	const char *path;
	const struct pt_load_opts *opts;    /* never NULL during a load */
	const struct pt_source *src;        /* the source loading */
	/* the sources that bid (sources/sources.c's table, passed down by pt_capture_load_from()) */
	const struct pt_source *const *sources;
	struct member *m;
	size_t nm, mcap;
	size_t nsorted;     /* m[0, nsorted) sorted by name, repeats merged */
	size_t cur;         /* the member pt_loader_add_copy() continues, or SIZE_MAX */
	/* the capture.ini text the source emitted, with each line's provenance */
	char *text;
	size_t len, textcap;
	char **origin;      /* [line - 1]: "run.envdef:12"; only for generated text */
	size_t nlines, origincap;
	bool emitted, generated, nomem;
	char *root;         /* [memory] files are relative to it ("" or "dir/") */
	pt_resolve_fn resolve;
	void *resolve_ud;
	void (*resolve_done)(void *ud);
	pt_open_fn open;    /* the source's opener (pt_loader_set_open()), NULL: none */
	bool as_memory;     /* a dump source is loading capture.ini's dump (dumpmem.c) */
	/* dumpmem.c: [line - 1] true for a line of the dump's text (its [memory] files are the dump's members) */
	bool *dumpline;
	/* [memory] sections given as data */
	struct dregion *dreg;
	size_t ndreg, dregcap;
	uint8_t *ddata;
	size_t nddata, ddatacap;
	/* progress */
	struct timespec last;
};

/* The error of the load: one line, sanitised for a terminal (report.c). */
void pt_capture_set_error(struct pt_capture *cap, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pt_capture_vset_error(struct pt_capture *cap, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* One more warning (at most MAX_WARNINGS kept). */
void pt_capture_warn(struct pt_capture *cap, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pt_capture_vwarn(struct pt_capture *cap, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Records mapping P of LEN bytes of the file open as FD (FD is duplicated, not taken; capture_guard.c). */
pt_err pt_capture_add_mapping(struct pt_capture *cap, void *p, size_t len, int fd);
/* Frees a live source's hooks (live.c); nothing for a fixed capture. */
void pt_live_free(struct pt_capture *cap);
/*
 * The end of a load (loader_bind.c): the members sorted, the emitted text
 * parsed into cap->man, then bound (pt_loader_bind); a message about a
 * generated line names its provenance.
 */
pt_err pt_loader_finish(struct pt_loader *ld);
/* Binds cap->man's [memory] sections to members, seals the memory, fills the contexts (loader_bind.c). */
pt_err pt_loader_bind(struct pt_loader *ld);
/* The member [memory] section MM names (root + file) in *OUT, or the error set (loader_bind.c). */
pt_err pt_loader_resolve(struct pt_loader *ld, const struct pt_manifest_mem *mm, struct member **out);
/* The source of SOURCES (NULL-terminated) that bids highest on P (the first of equal bids), or NULL (loader.c). */
const struct pt_source *pt_source_best(const struct pt_source *const *sources, const struct pt_probe *p);
/* SOURCES' check_opts of LD's options, before the probe: PT_E_USAGE (the error set) when one refuses. */
pt_err pt_loader_check_opts(struct pt_loader *ld, const struct pt_source *const *sources);
/*
 * Capture.ini (parsed into cap->man, not generated) names a dump: loads
 * it through its source on LD and makes one generated text of the dump's
 * capture.ini and this one (each line keeping its origin), ready to parse
 * and bind (dumpmem.c).  Takes cap->man; the error set on failure.
 */
pt_err pt_dumpmem_load(struct pt_loader *ld);
/* Warnings FROM on that start "capture.ini:N:" (N a line of the merged text) name N's origin. */
void pt_dumpmem_warnings(struct pt_loader *ld, size_t from);
/* Frees what the loader holds (not the capture's). */
void pt_loader_free(struct pt_loader *ld);
/* Frees M's copied data. */
void pt_member_free_data(struct member *m);
/* Sorts the loader's members by name, repeats merged (loader.c). */
void pt_loader_members_merge(struct pt_loader *ld);
/* The member NAME after pt_loader_members_merge(), or NULL (loader.c). */
struct member *pt_loader_member_find(struct pt_loader *ld, const char *name);
/*
 * The context NAME among the first N of SORTED (cap->ctx_sorted, by name),
 * or NULL: pt_capture_context_find() over every context, and the step after
 * the load (extend.c) over those made before it while it adds its own.
 */
static inline const struct pt_context *pt_ctx_sorted_find(const struct pt_context *const *sorted,
							    size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(sorted[mid]->name, name);

		if (c == 0)
			return sorted[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * What a format's ctx_memory hook reads context C's memory through
 * (pt_format.h struct pt_ctx_reader): the load layer's pt_mem_read(),
 * passed down, so that core/formats/ calls nothing above it.
 */
static inline bool pt_ctx_mem_read(const void *mem, unsigned space, uint64_t pa, void *out, size_t len)
{
	return pt_mem_read(mem, space, pa, out, len);
}

static inline struct pt_ctx_reader pt_context_reader(const struct pt_context *c)
{
	return (struct pt_ctx_reader){pt_ctx_mem_read, c->mem};
}

#endif
