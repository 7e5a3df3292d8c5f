/* SPDX-License-Identifier: MIT */
/*
 * pt_capture.h — a loaded capture archive: capture.ini, memory, contexts.
 *
 * Lifecycle (libarchive style): pt_capture_new(), optionally
 * pt_capture_set_progress(), pt_capture_load() once, then read-only use from
 * any number of threads, then pt_capture_free().  On failure
 * pt_capture_error() holds one line naming the file (and line) and the
 * problem, e.g. "capture.ini:12: unknown key 'adress' in [NAME ctx0]".
 *
 * Loading reads the archive in one streaming pass (libarchive) or a plain
 * directory, validates everything, and never leaves anything half loaded:
 * after an error the capture holds no contexts.
 */
#ifndef PT_CAPTURE_H
#define PT_CAPTURE_H

/* The include rule (HACKING.md, "Layers"): the load layer's, never included below it. */
#if defined(PT_LAYER_UTIL)
#error "pt_capture.h belongs to core/load: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pt_error.h"
#include "pt_format.h"
#include "pt_iommu_format.h"
#include "pt_mem.h"

struct pt_capture;

/* A `key = value` kept verbatim: the x- annotations. */
struct pt_kv {
	const char *key;
	const char *value;
};

/*
 * Where a context an [iommu NAME] section found comes from (docs/design.md
 * §2.7 "IOMMUs from the top"): the IOMMU, the device (PCI requester ID, or
 * SMMUv3 StreamID) and its PASID or SubstreamID, and where its entry is.
 */
struct pt_ctx_iommu {
	const char *iommu;                 /* the section's NAME */
	const char *type;                  /* intel-vtd, amd-vi, arm-smmuv3 */
	bool has_bdf, has_sid, has_pasid, has_ssid;
	unsigned segment, bdf;             /* bdf: bus 15:8, device 7:3, function 2:0 */
	uint64_t sid, pasid, ssid;
	const char *entry;                 /* static: what the entry is ("context entry", "DTE", "STE") */
	uint64_t entry_addr;               /* where it is, in the IOMMU's `space` */
};

/* Space ids a context can give a bias to (more than any format has spaces). */
#define PT_CONTEXT_SPACES 16
/* One context section of capture.ini: one address space. Immutable after load. */
struct pt_context {
	const char *name;                  /* section name = top-level directory */
	unsigned index;                    /* position in capture.ini order */
	const struct pt_capture *cap;      /* owner */
	const struct pt_format *fmt;
	const struct pt_mem *mem;          /* the capture's memory */
	unsigned root_space;               /* space id of the root table */
	uint64_t root_addr;                /* physical address of the root table */
	uint64_t root_entries;             /* entries in the root table (1 << levels[0].bits unless flat) */
	unsigned root_page_shift;          /* 0: the levels say; a flat table: its page shift */
	uint64_t va_base;                  /* VA of root entry 0 */
	/*
	 * Last VA the context translates, inclusive; 0 = wherever the root
	 * table's entries end.  A GART's END register can end the range inside
	 * the last entry's page (END is in 4 KiB units, the page may be larger):
	 * that page is mapped only up to here.
	 */
	uint64_t va_last;
	/*
	 * Per space id: pages in this space are written as bus addresses =
	 * offset + bias.  pt_table_read() subtracts it from a mapped leaf's pa
	 * (a leaf below it is `unsupported`).
	 */
	uint64_t space_bias[PT_CONTEXT_SPACES];
	/*
	 * The capture's space namespace: the name a format space index takes
	 * here, where the set-up renames it (a guest's x86-64 tables with
	 * `space = gpa`; NULL: the format's own name), and, after load, the
	 * capture space id of each format space index (pt_context_space()).
	 * A context built by hand leaves SPACE_MAPPED false: ids are the
	 * format's.
	 */
	const char *space_names[PT_CONTEXT_SPACES];
	/* Format space indices its tables and pages may be in (bit i; 0: all): for the cycle check. */
	uint32_t space_used;
	unsigned space_id[PT_CONTEXT_SPACES];
	bool space_mapped;
	/*
	 * Per capture space id: the context a translated space goes through
	 * ([space NAME] translate = CTX), NULL for captured memory; XLATE is
	 * NULL when the capture has no translated space (the walker's fast path).
	 */
	const struct pt_context *const *xlate;
	/*
	 * Rights the context's own registers deny: the PT_PERM_* bits of
	 * fmt->perm_or_down set here are set in every leaf, as a pointer's
	 * are below it (AMD-Vi's DTE IR/IW take part in the AND of rights).
	 */
	uint32_t perm_set;
	void *priv;                        /* fmt->ctx_size bytes the format's hooks own */
	size_t nannotations;
	const struct pt_kv *annotations;   /* x- keys of the section, in file order */
	unsigned ini_line;                 /* line of its section header */
	const struct pt_ctx_iommu *iommu;  /* found by an [iommu] section (ini_line is its), NULL: none */
	/*
	 * Unique for each context a capture load makes, never reused in the
	 * process: the walker caches resolved paths under it (a freed
	 * context's address may come back).  0: a context built by hand, not
	 * cached.
	 */
	uint64_t serial;
	/*
	 * A live guest's process whose address space is gone (it exited, or
	 * its pid now names another mm): set once, never cleared, read with
	 * pt_context_gone().  Its tables are then another owner's.
	 */
	bool gone;
};

/* The value of CTX's annotation KEY (an x- key: its section's, or one a later step added), or NULL. */
static inline const char *pt_context_annotation(const struct pt_context *ctx, const char *key)
{
	for (size_t i = 0; i < ctx->nannotations; i++)
		if (!strcmp(ctx->annotations[i].key, key))
			return ctx->annotations[i].value;
	return NULL;
}

/* The capture space id of CTX's format space index I. */
static inline unsigned pt_context_space(const struct pt_context *ctx, unsigned i)
{
	return ctx->space_mapped && i < PT_CONTEXT_SPACES ? ctx->space_id[i] : i;
}
/* The name of CTX's format space index I in its capture ("sysmem"). */
const char *pt_context_space_name(const struct pt_context *ctx, unsigned i);
/* The context capture space ID is translated through, or NULL. */
static inline const struct pt_context *pt_context_xlate(const struct pt_context *ctx, unsigned id)
{
	return ctx->xlate ? ctx->xlate[id] : NULL;
}

/* One [memory] section. */
struct pt_region_info {
	const char *name;       /* section name */
	const char *file;       /* member path as written */
	unsigned space;         /* space id */
	uint64_t base;          /* physical address of the first byte */
	uint64_t size;          /* bytes served: the member's, or its offset/length window's */
	bool in_place;          /* read through mmap, not copied */
};

typedef void (*pt_progress_fn)(void *ud, uint64_t done, uint64_t total);

struct pt_capture *pt_capture_new(void);
void pt_capture_free(struct pt_capture *cap);
/* Called at most a few times a second during pt_capture_load() with bytes of the source consumed. */
void pt_capture_set_progress(struct pt_capture *cap, pt_progress_fn fn, void *ud);

/* What a load is told beyond the path. */
struct pt_load_opts {
	/*
	 * GFX generation (9..12) of a umr log: it selects the register address
	 * table (docs/design.md §3.1); 0 = not given (the comment names may tell it).
	 */
	unsigned gfx;
	/*
	 * TCR_EL1.TBI1 of an arm64 dump's kernel context, which the dump does
	 * not hold (ptfs -o tbi=N, ptfs-tool --tbi N): 0 not given (the
	 * context says `tbi = unknown`), 1 clear, 2 set.
	 */
	unsigned tbi;
	/*
	 * The caller wants the captured memory, not contexts (ptfs-tool
	 * roots: finding the tables is its job): a capture with no context
	 * loads (a dump with no page-table root, a capture.ini of [memory]
	 * sections alone) instead of being refused.
	 */
	bool memory_only;
	/*
	 * Device contexts the capture's [iommu] sections make together at
	 * most (ptfs -o max_contexts=N, ptfs-tool --max-contexts N): 0 is
	 * PT_LOAD_MAX_CONTEXTS.  Each section has its own bound too, its
	 * max_contexts key (ptfs-capture(5) [iommu]).
	 */
	uint64_t max_contexts;
	/*
	 * A device its [iommu] section's tables block or abort (AMD-Vi: a
	 * valid DTE of Mode 0 with IR = IW = 0, as Linux writes every unused
	 * one; SMMUv3: an STE of Config 000) is a context too (ptfs -o
	 * all_entries, ptfs-tool --all-entries).  Without it such a device is
	 * shown in the IOMMU's tree and counted in its info, not a context
	 * (docs/design.md §2.7).
	 */
	bool all_entries;
	/*
	 * The step after the load (docs/design.md §6: "then tasks"), run once
	 * every context is set up: core/linux's pt_linux_expand (pt_linux.h),
	 * which adds a context per Linux process.  NULL: none.  It fails the
	 * load only when out of memory.
	 */
	pt_err (*after_load)(struct pt_capture *cap, const struct pt_load_opts *opts);
	/*
	 * A umr ASIC name (ptfs -o asic=NAME, ptfs-tool --asic NAME): its GFX
	 * generation, as gfx gives it; the umr source checks it (a name it
	 * does not know, or one that disagrees with gfx, fails the load with
	 * PT_E_USAGE before anything is read).  NULL: not given.
	 */
	const char *asic;
	/*
	 * One process only (ptfs -o task=PID, ptfs-tool --task PID): the step
	 * after the load makes the context pidPID alone.  TASK_GIVEN false:
	 * every process.
	 */
	bool task_given;
	uint32_t task;
	/*
	 * A System.map of the dump's kernel (ptfs -o system_map=FILE,
	 * ptfs-tool --system-map FILE): kept with the dump's kernel facts
	 * (pt_extend.h) for after_load's route (c) to the task list
	 * (docs/design.md §3.3).  NULL: none.
	 */
	const char *system_map;
};
/* The defaults of the two context bounds, and the most either may be. */
#define PT_LOAD_MAX_CONTEXTS (1u << 18)
#define PT_IOMMU_MAX_CONTEXTS (1u << 17)
#define PT_MAX_CONTEXTS_LIMIT (1u << 24)

/*
 * Loads PATH: an archive libarchive reads, or a directory, holding a
 * capture.ini; or, recognised by content, a umr test log / envdef or a gem5
 * checkpoint directory (docs/design.md §3.1).  OPTS may be NULL (all defaults).
 */
pt_err pt_capture_load_opts(struct pt_capture *cap, const char *path, const struct pt_load_opts *opts);
/* pt_capture_load_opts() with no options. */
pt_err pt_capture_load(struct pt_capture *cap, const char *path);
/* "umr log", "gem5 checkpoint", or "capture archive" (a capture.ini source). */
const char *pt_capture_source_kind(const struct pt_capture *cap);

/*
 * A live capture (a running QEMU guest, issue #33): its memory is read as
 * it is at each read, so renders made from it hold for a moment only.
 * False for every capture of a file, which never changes.
 */
bool pt_capture_is_live(const struct pt_capture *cap);
/*
 * Whether C is a live process's context whose address space is gone since
 * a refresh (pt_capture_live_refresh()): its name no longer finds it
 * (pt_capture_context_find()), and nothing may read it as that process.
 */
bool pt_context_gone(const struct pt_context *c);
/* PT_OK while a live capture's source is there; PT_E_IO with one line in MSG once it is gone. */
pt_err pt_capture_live_check(struct pt_capture *cap, char *msg, size_t len);
/*
 * Stops a live capture's guest for a consistent render (-o pause):
 * *STOPPED says whether it was running and now is stopped, to be given to
 * pt_capture_live_resume(), which continues it only then.  A guest the
 * user stopped stays stopped.
 */
pt_err pt_capture_live_pause(struct pt_capture *cap, bool *stopped, char *msg, size_t len);
pt_err pt_capture_live_resume(struct pt_capture *cap, bool stopped, char *msg, size_t len);
/*
 * Reads again the registers of a live capture's contexts that its source
 * can read without disturbing the guest (an x86 vCPU's CR3: QMP `info
 * registers -a`; an aarch64 vCPU's TTBRs come from the gdbstub, which
 * stops the guest, and stay as read at mount), and moves each context
 * whose root changed to its new root: *MOVED counts them.  A value the
 * format refuses leaves its context as it was, with one line in MSG.
 * Then the step after the load reads again what it made (core/linux: the
 * task list; a process gone is pt_context_gone()).
 * Not safe to call from two threads at once.
 */
pt_err pt_capture_live_refresh(struct pt_capture *cap, size_t *moved, char *msg, size_t len);

/* One line describing the last error ("" if none). */
const char *pt_capture_error(const struct pt_capture *cap);
/*
 * Copies S to OUT (LEN bytes, always terminated, cut short where it does not
 * fit) as the core shows untrusted names: control characters and bytes that
 * are not UTF-8 become \xNN.  Programs print paths this way too.
 */
void pt_text_escape(char *out, size_t len, const char *s);
/*
 * The last component of path P, as labels and messages name a capture:
 * "dir/f" -> "f", and "dir/" names its directory ("a/dir/" -> "dir/").
 */
static inline const char *pt_path_base(const char *p)
{
	const char *s = strrchr(p, '/');

	if (s && s[1] == 0) {
		while (s > p && s[-1] != '/')
			s--;
		return s;
	}
	return s ? s + 1 : p;
}
size_t pt_capture_warning_count(const struct pt_capture *cap);
const char *pt_capture_warning(const struct pt_capture *cap, size_t i);

const struct pt_format *pt_capture_format(const struct pt_capture *cap);
unsigned pt_capture_version(const struct pt_capture *cap);
const char *pt_capture_source(const struct pt_capture *cap);       /* path as given to load */
const char *pt_capture_gpu(const struct pt_capture *cap);          /* NULL if not given */
const char *pt_capture_description(const struct pt_capture *cap);  /* NULL if not given */
size_t pt_capture_annotation_count(const struct pt_capture *cap);  /* x- keys of [capture] */
const struct pt_kv *pt_capture_annotation(const struct pt_capture *cap, size_t i);
/*
 * The capture's spaces (docs/design.md §3): the union by name of its
 * formats' spaces and the names [space] sections and space keys give; ids
 * are what pt_mem, pt_region_info.space and pt_context_space() use.
 */
unsigned pt_capture_space_count(const struct pt_capture *cap);
const char *pt_capture_space_name(const struct pt_capture *cap, unsigned id);
/* The id of space NAME, or -1. */
int pt_capture_space_find(const struct pt_capture *cap, const char *name);
/* The context that translates space ID ([space NAME] translate = CTX), or NULL. */
const struct pt_context *pt_capture_space_translate(const struct pt_capture *cap, unsigned id);
size_t pt_capture_region_count(const struct pt_capture *cap);
const struct pt_region_info *pt_capture_region(const struct pt_capture *cap, size_t i);
const struct pt_mem *pt_capture_mem(const struct pt_capture *cap);
size_t pt_capture_context_count(const struct pt_capture *cap);
/*
 * The contexts CAP may come to have: its count, or for a live guest the
 * slots held at the load for processes started later (their pidN added
 * by pt_capture_live_refresh(), appended: an index never changes).
 */
size_t pt_capture_context_room(const struct pt_capture *cap);
const struct pt_context *pt_capture_context(const struct pt_capture *cap, size_t i);
const struct pt_context *pt_capture_context_find(const struct pt_capture *cap, const char *name);
/*
 * The device context another spelling of NAME names (core/load/ctxalias.c):
 * `IOMMU.0000:00:03.0` (segment 0 given), `IOMMU.00:03.00` (QEMU's
 * two-digit function), `IOMMU.sid=0x10` (a StreamID as a number), any
 * suffix kept; NULL when NAME is no such alias of an existing context.
 */
const struct pt_context *pt_capture_context_alias(const struct pt_capture *cap, const char *name);
struct pt_buf;
/*
 * Appends the capture.ini section that made CTX to OUT as text: its header
 * and every key = value as given, x- keys included (section.c; ptfs-tool
 * snapshot).  False when CTX has no section of its own (a device context
 * an [iommu] section found) or out of memory.
 */
bool pt_context_section(const struct pt_context *ctx, struct pt_buf *out);

/*
 * The one context factory (load/ctxmake.c): context C of format FMT from
 * the NKEYS pairs KEY = VAL, through the format's hooks in a section's
 * order (ctx_key, ctx_missing, ctx_setup, its spaces bound, ctx_memory),
 * or from ENTRY, an IOMMU device's decoded entry (ctx_entry, then the same
 * steps from ctx_setup).
 * The caller sets C's name, memory and translations first; the factory
 * sets cap, fmt and priv (free it with pt_context_unmake(), made or not).
 * Key messages read "capture.ini:LINE: ... in LABEL"; MSG holds the
 * problem when it fails, or what ctx_setup / ctx_memory noted.  ANY_SPACE:
 * a space the capture lacks holds nothing (a roots candidate), not an
 * error.
 */
struct pt_context_spec {
	const struct pt_format *fmt;
	const char *const *key, *const *val;
	unsigned nkeys;
	unsigned line;
	const char *label;
	bool any_space;
	/*
	 * An IOMMU's device (pt_format.h struct pt_ctx_entry): its decoded
	 * entry to the format's ctx_entry hook instead of keys.
	 */
	const struct pt_ctx_entry *entry;
};
pt_err pt_context_make(const struct pt_capture *cap, const struct pt_context_spec *s,
		       struct pt_context *c, char *msg, size_t mlen);
void pt_context_unmake(struct pt_context *c);

/*
 * The [iommu NAME] sections of a capture (docs/design.md §2.7), in file
 * order: what the IOMMU tree of the mount (pt_tree.h) reads its tables from.
 */
struct pt_iommu_info {
	const char *name;
	enum pt_iommu_kind kind;
	const struct pt_iommu_format *fam;   /* its IOMMU, of the family */
	const uint64_t *reg;       /* its register keys by PT_IK_* (0: not given) */
	const char *type;          /* intel-vtd, amd-vi, arm-smmuv3 */
	unsigned line;             /* its section header */
	unsigned space;            /* capture space id its tables are in */
	uint64_t rtaddr;           /* VT-d RTADDR_REG */
	uint64_t dev_table_base;   /* AMD-Vi device table base register */
	uint64_t strtab_base, strtab_base_cfg;   /* SMMUv3 STRTAB_BASE, STRTAB_BASE_CFG */
	size_t contexts;           /* the device contexts it made */
	/*
	 * Present entries that block or abort every request (pt_load_opts
	 * all_entries): contexts only when the load was told all_entries.
	 */
	size_t blocked;
	bool all_entries;          /* the load made them contexts */
};
size_t pt_capture_iommu_count(const struct pt_capture *cap);
/* Section I (below the count) into OUT. */
void pt_capture_iommu(const struct pt_capture *cap, size_t i, struct pt_iommu_info *out);
/*
 * The 4 KiB pages of section I's space (pt_iommu_info.space) its root,
 * context, PASID, device and stream tables were read from at load, sorted,
 * each once, into *PAGES (owned by CAP): what a copy of the IOMMU needs
 * beside its devices' page tables (ptfs-tool snapshot).
 */
size_t pt_capture_iommu_pages(const struct pt_capture *cap, size_t i, const uint64_t **pages);
/*
 * What the load read from section I's tables (docs/design.md §2.7):
 * entries looked at (every level: root, context, PASID directory and
 * table, DTE, GCR3, L1STD, STE, L1CD, CD), those present (P or V set),
 * those present and refused (reserved bits, a pointer back at the root
 * table, a device entry its format refuses), table pointers to memory
 * not captured, present device entries (context entries, DTEs, STEs),
 * device contexts made, table pointers that reach a table already read
 * (walked once), and whether a bound ended the walk.  ANOMALY (a name,
 * iommu_no_device or iommu_malformed) and DETAIL (one line): an IOMMU whose
 * tables yield no device, or whose present entries are mostly malformed:
 * its registers likely point at the wrong page; NULL when neither.
 */
struct pt_iommu_counts {
	uint64_t entries, present, malformed, uncaptured, devices, contexts, repeats;
	bool bounded;
	const char *anomaly, *detail;
};
void pt_capture_iommu_counts(const struct pt_capture *cap, size_t i, struct pt_iommu_counts *out);
/* Section I as capture.ini text, "[iommu NAME]" and its lines as written; false if out of memory. */
bool pt_capture_iommu_section(const struct pt_capture *cap, size_t i, struct pt_buf *out);

/*
 * The guest's PCI functions by name (docs/design.md §3.3): what the linux
 * layer walked from a dump's pci_root_buses, or what a live QEMU answered to
 * query-pci.  Sorted by segment, bus, devfn; one entry per function.
 */
struct pt_pci_dev {
	uint16_t segment;
	uint8_t bus, devfn;        /* slot devfn >> 3, function devfn & 7 */
	uint16_t vendor, device;
	uint16_t cls;              /* base class << 8 | subclass */
	uint8_t prog_if;
	bool has_prog_if;          /* query-pci gives none */
	char driver[32];           /* the bound driver's name; "": none or not known */
};
struct pt_pci_list {
	const struct pt_pci_dev *dev;
	size_t n;                  /* 0: the capture names no PCI device */
	const char *where;         /* "the kernel's pci_root_buses", "QMP query-pci" */
	bool drivers_known;        /* driver "" means none is bound (false: not known) */
};
void pt_capture_pci(const struct pt_capture *cap, struct pt_pci_list *out);

/*
 * Guarding data read in place.  An uncompressed archive or a directory
 * capture is served straight from an mmap of its files, so rewriting such a
 * file in place (cp over it, truncate) would change what is served or, when
 * the file shrinks, kill the process with SIGBUS.  A program that serves a
 * capture for long calls pt_capture_guard() once (after any fork): it takes
 * a read lease on every mapped file, with SIG (a realtime signal) as the
 * lease-break signal.  When a writer opens such a file, the kernel holds
 * the writer back and sends SIG with si_fd set; the handler calls
 * pt_capture_guard_break(cap, si_fd), which makes private copies of the
 * mapped pages and releases the lease.  A file whose lease cannot be taken
 * (another owner without CAP_LEASE, a network file system, a writer already
 * open) is copied at once, and so is every file when SIG is 0 (no handler).
 * Deleting or renaming over a file needs none of
 * this: the mapping keeps the old inode.
 */
pt_err pt_capture_guard(struct pt_capture *cap, int sig);
/* Async-signal-safe: privatizes the mapping of FD and drops its lease. */
void pt_capture_guard_break(struct pt_capture *cap, int fd);
/* Mappings still served from their file under a lease (for tests and info). */
size_t pt_capture_guard_pending(const struct pt_capture *cap);

#endif
