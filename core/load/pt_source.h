/* SPDX-License-Identifier: MIT */
/*
 * pt_source.h — capture sources as data, and the loader API they use
 * (HACKING.md, "Adding a capture source").
 *
 * A capture source is one file under core/sources/ defining one
 * `const struct pt_source` and one line in the table of
 * core/sources/sources.c.  pt_capture_load() opens the path once, gives
 * every source the same probe, and the highest bid loads it.  A source
 * knows neither another source's internals nor a front end's flags: it
 * reads its bytes through the probe, hands memory to the opaque loader
 * (copied, mapped in place, or read on demand), emits the capture.ini text
 * that describes it, and fails or warns through the loader.  The loader
 * then checks that text against the schema (manifest.c: every key reaches
 * its format's ctx_key hook) and binds its [memory] sections to the
 * members the source added, exactly as for a capture archive.
 */
#ifndef PT_SOURCE_H
#define PT_SOURCE_H

/* The include rule (HACKING.md, "Layers"): internal to core/load and core/sources, and the tests. */
#if !defined(PT_LAYER_LOAD) && !defined(PT_LAYER_SOURCES) && !defined(PT_TESTING)
#error "pt_source.h is internal to core/load and core/sources (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ini.h"
#include "pt_capture.h"
#include "pt_error.h"

struct pt_loader;

/* Bytes of a file the probe holds: enough for any source's magic. */
#define PT_PROBE_HEAD 4096

/*
 * What a source bids on.  Either the path given to the load (FD >= 0), or,
 * when the archive source re-bids what it read (pt_loader_rebid()), the
 * archive's members (FD -1).
 */
struct pt_probe {
	const char *path;           /* as given to pt_capture_load() */
	/*
	 * The path opened O_RDONLY | O_NONBLOCK | O_NOFOLLOW, and its fstat:
	 * always a regular file or a directory (anything else is refused
	 * before any source sees it).  -1 and NULL in a re-bid.
	 */
	int fd;
	const struct stat *st;
	/* A regular file's first bytes (up to PT_PROBE_HEAD); a re-bid: the only member's */
	const uint8_t *head;
	size_t head_len;
	/* re-bid: the names of the archive's regular members, sorted, no repeats */
	const char *const *members;
	size_t nmembers;
	/* re-bid: the archive's only top-level directory ("dir"), NULL for none or several */
	const char *only_dir;
};

/* A capture source (core/sources/sources.c lists them). */
struct pt_source {
	const char *name;           /* "archive", "umr", ... (tests, messages) */
	/* What `capture` and info say it was ("umr log"); NULL: a capture archive. */
	const char *kind;
	/* How sure the source is that PROBE is its own: 0 = not mine; the highest bid wins. */
	int (*bid)(const struct pt_probe *probe);
	/*
	 * Loads PROBE into LD: members and capture.ini text.  Returns PT_OK,
	 * or what pt_loader_fail() returned.
	 */
	pt_err (*load)(struct pt_loader *ld, const struct pt_probe *probe);
	/*
	 * A memory dump (ELF core, kdump file): a capture.ini may name one as
	 * its memory ([memory NAME] dump = FILE, load/dumpmem.c); LOAD then
	 * runs on the same loader with pt_loader_as_memory() true.
	 */
	bool dump;
	/*
	 * The caller's options this source defines (umr: asic), checked
	 * before any capture is read, whatever its kind: PT_E_USAGE with one
	 * line in ERR when they are wrong.  NULL: the source defines none.
	 */
	pt_err (*check_opts)(const struct pt_load_opts *opts, char *err, size_t errlen);
};

/*
 * The source table, NULL-terminated: the sources layer's (sources.c),
 * which passes it down to pt_capture_load_from(); the load layer never
 * names it (HACKING.md, "Layers": a layer calls only those below it).
 */
extern const struct pt_source *const pt_sources[];

/*
 * pt_capture_load_opts() with the sources that bid on PATH (and on what
 * an archive or a capture.ini's dump holds) given: the load layer's
 * load, which the sources layer's pt_capture_load_opts() calls with its
 * table.  PT_E_USAGE for a NULL SOURCES.
 */
pt_err pt_capture_load_from(struct pt_capture *cap, const char *path, const struct pt_load_opts *opts,
			    const struct pt_source *const *sources);

/* ---- memory: members the [memory] sections name by file ---- */

/*
 * Copies LEN bytes of DATA to OFF of member NAME.  The call continues the
 * member last added when it has the same name and OFF is at or past its
 * size (streamed data, offsets increasing); otherwise it starts a new
 * member of that name (a name added twice is an error once a section
 * names it).  A member's size is the end of its last byte written, or OFF
 * of a call with LEN 0 if larger (a member ending in a hole).  All-zero
 * 4 KiB chunks cost no memory.
 */
pt_err pt_loader_add_copy(struct pt_loader *ld, const char *name, uint64_t off,
			  const void *data, size_t len);
/*
 * Member NAME is LEN bytes of the regular file open as FD from FILE_OFF,
 * served in place from an mmap of the file (one per file, however many
 * members; FD is duplicated, not taken), under pt_capture_guard()'s lease.
 * PT_E_IO (nothing set) when the file cannot be mapped: copy instead.
 */
pt_err pt_loader_add_mapped(struct pt_loader *ld, const char *name, int fd,
			    uint64_t file_off, uint64_t len);
/*
 * Member NAME is SIZE bytes read on demand through READ (compressed page
 * stores; pt_mem.h's pt_read_fn: LEN bytes at OFF inside the member into
 * BUF, anything but PT_OK making the read "not captured").  READ is called
 * after the load (and during it where sections overlap: the seal compares
 * their bytes), from any thread, but never concurrently for one [memory]
 * section (a member two sections name is read by both), in whole 4 KiB
 * pages (the last one short), the last few pages kept
 * (pt_loader_member_bytes() reads a member whole, in one call).
 * FREE_FN(UD), if not NULL, runs once when the capture is freed (or the
 * load fails); the loader owns UD from this call on, also when it fails.
 */
pt_err pt_loader_add_reader(struct pt_loader *ld, const char *name, uint64_t size,
			    pt_read_fn read, void *ud, void (*free_fn)(void *ud));
/*
 * Gives the reader member NAME, the one just added, a WHY callback
 * (pt_mem.h's pt_why_fn, with the same UD): a page that fails to read
 * and that WHY says the source holds is "unreadable" (walk, check,
 * info), not "not captured".
 */
pt_err pt_loader_reader_why(struct pt_loader *ld, const char *name, pt_why_fn why);
/*
 * A [memory NAME] section given as data rather than text: the same as
 * emitting "[memory NAME]", "space = SPACE", "base = BASE", "file = NAME"
 * from PROVENANCE and adding member NAME as LEN bytes of DATA (copied), at
 * a fraction of the cost, for sources whose sections come by the million
 * (a umr log of 10^6 reads, issue #26 item 3).  Such sections follow those
 * of the text, in the order added; the source makes their names unique,
 * also against its text.  A message about one names PROVENANCE.
 */
pt_err pt_loader_add_region(struct pt_loader *ld, const char *provenance, const char *name,
			    const char *space, uint64_t base, const void *data, size_t len);
/*
 * The same, for a section that is LEN bytes from OFFSET of member MEMBER
 * (one added by pt_loader_add_mapped(), served in place): a window, no
 * copy, no text — an ELF core's PT_LOAD segments, tens of thousands of
 * them (issue #34 item 9).  Checked against the member as a [memory]
 * section's offset and length are.
 */
pt_err pt_loader_add_window(struct pt_loader *ld, const char *provenance, const char *name,
			    const char *space, uint64_t base, const char *member, uint64_t offset,
			    uint64_t len);
/*
 * Member NAME is in the source but unusable: a section naming it fails
 * with "capture.ini:LINE: file '...' of [memory S] WHAT" (WHAT static,
 * e.g. "is a symbolic link in the capture (only regular files are read)").
 * Replaces the member last added when it has the same name (its data is
 * dropped).
 */
pt_err pt_loader_add_absent(struct pt_loader *ld, const char *name, const char *what);
/*
 * Forgets every member NAME that pt_loader_add_absent() made absent with
 * WHAT (the same pointer), so that a source reading its file a second time
 * adds it anew; returns how many there were.
 */
size_t pt_loader_forget_absent(struct pt_loader *ld, const char *name, const char *what);
/*
 * A copy of member NAME's bytes, NUL-terminated (malloc'd; *LEN bytes
 * without the NUL).  PT_E_NOTFOUND: no such usable member; PT_E_VALUE:
 * larger than MAX bytes; PT_E_NOMEM.  Sets no error message.
 */
pt_err pt_loader_member_bytes(struct pt_loader *ld, const char *name, size_t max,
			      char **out, size_t *len);

/* ---- a live source (a running guest, issue #33) ---- */

/*
 * Member NAME is the first LEN bytes of the regular file open as FD (FD is
 * not taken), mapped read-only and MAP_SHARED in place: every read sees
 * the file as it is at that moment (a running guest's RAM backend).  No
 * lease, no copy, no holes recorded (a hole now is RAM the guest may
 * write next).  PT_E_IO (nothing set) when it cannot be mapped.
 */
pt_err pt_loader_add_live(struct pt_loader *ld, const char *name, int fd, uint64_t len);
/* A register of a context that a live source read again (pt_live_ops.regs). */
struct pt_live_reg {
	char ctx[64];           /* the context's name: "cpu0" */
	const char *key;        /* its capture.ini key, static: "cr3" */
	uint64_t value;
};
/* What a live source does for the capture after the load (pt_capture_live_*, live.c). */
struct pt_live_ops {
	/* PT_OK while the source is there; PT_E_IO with one line in ERR once it is gone */
	pt_err (*check)(void *ud, char *err, size_t errlen);
	/* Stops the source (*STOPPED: it was running and is stopped now, resume must follow) */
	pt_err (*pause)(void *ud, bool *stopped, char *err, size_t errlen);
	pt_err (*resume)(void *ud, char *err, size_t errlen);
	/*
	 * Reads again the registers that choose a context's root, where the
	 * source can without disturbing the guest: into *REGS (malloc'd, *N)
	 * those that changed since the last call (NULL: none can be).
	 */
	pt_err (*regs)(void *ud, struct pt_live_reg **regs, size_t *n, char *err, size_t errlen);
	void (*free)(void *ud);
};
/* Makes the capture live with OPS over UD (the capture owns UD from this call on, also when the load fails). */
void pt_loader_set_live(struct pt_loader *ld, const struct pt_live_ops *ops, void *ud);

/* ---- capture.ini ---- */

/*
 * Appends LEN bytes of capture.ini TEXT (whole lines; a last line without
 * a newline gets one).  PROVENANCE names where the lines came from,
 * "FILE:LINE" or "FILE": a message about one of them names it instead of
 * "capture.ini:N".  NULL: TEXT is a capture.ini file itself (one format,
 * messages stay "capture.ini:N").  A source emits either kind, not both.
 */
pt_err pt_loader_emit_ini(struct pt_loader *ld, const char *text, size_t len,
			  const char *provenance);
/* pt_loader_emit_ini() of one line formatted from FMT. */
pt_err pt_loader_emitf(struct pt_loader *ld, const char *provenance, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The [memory] file names of the emitted capture.ini are relative to
 * PREFIX ("" or "dir/": an archive whose capture.ini is in its only
 * top-level directory).
 */
pt_err pt_loader_set_root(struct pt_loader *ld, const char *prefix);
/*
 * Called while binding, for each [memory] section in capture.ini order,
 * before its file is looked up among the members: a source that opens
 * files only once capture.ini names them (a directory) adds the member
 * here, or fails.
 */
typedef pt_err (*pt_resolve_fn)(struct pt_loader *ld, void *ud, const struct pt_manifest_mem *mm);
/* DONE(UD), if not NULL, runs when the load ends (the loader owns UD from this call on). */
void pt_loader_set_resolve(struct pt_loader *ld, pt_resolve_fn fn, void *ud, void (*done)(void *ud));
/*
 * How the source opens a file of its capture by path, as it opens its
 * members (NAME normalised, relative to the capture root; never following
 * a symbolic link, never blocking): a descriptor and its fstat, or -1
 * with errno (ELOOP or ENOTDIR: a link on the way; ENOENT: absent).  UD
 * is the resolver's (pt_loader_set_resolve()).  Only a source that sets
 * one can have a capture.ini naming a dump (load/dumpmem.c): a directory.
 */
typedef int (*pt_open_fn)(void *ud, const char *name, struct stat *st);
void pt_loader_set_open(struct pt_loader *ld, pt_open_fn fn);
/*
 * True while a dump source loads a dump that capture.ini names as its
 * memory: the dump may then give no context of its own (capture.ini has
 * them).
 */
bool pt_loader_as_memory(const struct pt_loader *ld);

/* ---- errors, warnings, options, progress ---- */

/* Sets the load's error (one line; sanitised for a terminal) and returns RC. */
pt_err pt_loader_fail(struct pt_loader *ld, pt_err rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* One more warning of the load (at most 100 kept, the rest counted). */
void pt_loader_warn(struct pt_loader *ld, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The caller's load options (never NULL). */
const struct pt_load_opts *pt_loader_opts(const struct pt_loader *ld);
/* DONE of TOTAL bytes of the source consumed (rate-limited unless FORCE). */
void pt_loader_progress(struct pt_loader *ld, uint64_t done, uint64_t total, bool force);

/* ---- files a source opens itself ---- */

/* "FIFO", "character device", "symbolic link", ... for a mode that is not a regular file. */
const char *pt_file_type_name(mode_t mode);
/*
 * Opens NAME under DIRFD as every file of a capture is opened: O_RDONLY |
 * O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, then fstat into *ST.  Anything but
 * a regular file is refused, never opened, with "LABEL: is a FIFO; ptfs
 * reads only regular files" (LABEL: the path a message names; NULL: no
 * message).  -1 with the error set and errno kept (EINVAL: not a regular
 * file; ENOENT: absent).
 */
int pt_loader_open_file(struct pt_loader *ld, int dirfd, const char *name, const char *label,
			struct stat *st);

/* ---- the archive source ---- */

/*
 * Offers the members added so far to the other sources (a probe with
 * MEMBERS and ONLY_DIR; HEAD when there is one member).  The best bid
 * loads them and becomes the capture's kind.  PT_E_NOTFOUND, nothing set,
 * when no source bids.
 */
pt_err pt_loader_rebid(struct pt_loader *ld, const char *only_dir);

#endif
