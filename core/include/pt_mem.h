/* SPDX-License-Identifier: MIT */
/*
 * pt_mem.h — captured physical memory, one address space per aperture.
 *
 * A pt_mem holds the regions of every space (the space ids are indices into
 * the format's space table, see pt_format.h).  Regions of one space may
 * overlap where their bytes agree (the seal merges them); adjacent regions
 * behave as one.  A read is either wholly inside
 * captured memory or "not captured" — a result, not an error.
 *
 * Two kinds of region backing:
 *  - borrowed: bytes that live elsewhere for the life of the pt_mem (an mmap
 *    of an uncompressed archive or of a file in a directory capture);
 *  - built: bytes streamed in with pt_mem_region_write(), stored in fixed
 *    chunks; a chunk that is all zero is never allocated, so zero memory
 *    costs no RAM;
 *  - read on demand: bytes a callback reads when they are first asked for
 *    (a compressed page store), a few pages kept per region.
 *
 * Thread safety: building is single-threaded; after pt_mem_seal() a pt_mem is
 * immutable and every const function may be called from any thread.
 */
#ifndef PT_MEM_H
#define PT_MEM_H

/* The include rule (HACKING.md, "Layers"): the load layer's, never included below it. */
#if defined(PT_LAYER_UTIL)
#error "pt_mem.h belongs to core/load: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"

struct pt_mem;

enum pt_cover {
	PT_COVER_NONE = 0,    /* no byte of the range is captured */
	PT_COVER_PARTIAL,     /* some bytes are, some are not */
	PT_COVER_FULL,        /* every byte is captured */
};

/* A new, empty memory of NSPACES spaces (ids 0..nspaces-1).  NULL on ENOMEM. */
struct pt_mem *pt_mem_new(unsigned nspaces);
/* Frees the memory and every built chunk; borrowed bytes are not touched. NULL is fine. */
void pt_mem_free(struct pt_mem *mem);

/*
 * Adds a region whose bytes are borrowed: DATA must stay valid and unchanged
 * until pt_mem_free().  Returns the region id in *ID.
 */
pt_err pt_mem_add_borrowed(struct pt_mem *mem, unsigned space, uint64_t base,
			   const void *data, uint64_t size, unsigned *id);

/*
 * Adds a built region of SIZE bytes at BASE, initially all zero; fill it with
 * pt_mem_region_write().  Bytes never written read as zero.
 */
pt_err pt_mem_add_built(struct pt_mem *mem, unsigned space, uint64_t base,
			uint64_t size, unsigned *id);

/*
 * Reads LEN bytes at OFF (inside the region's data) into BUF; anything but
 * PT_OK makes the read "not captured".
 */
typedef pt_err (*pt_read_fn)(void *ud, uint64_t off, void *buf, size_t len);

/*
 * Adds a region of SIZE bytes at BASE read through READ(UD, ...) in whole
 * 4 KiB pages (the last one short), the last pages read kept.  READ is
 * never called concurrently for one region (each region has its lock);
 * UD must stay valid until pt_mem_free(), which does not free it.
 */
pt_err pt_mem_add_reader(struct pt_mem *mem, unsigned space, uint64_t base, uint64_t size,
			 pt_read_fn read, void *ud, unsigned *id);

/*
 * Why a reader could not read the 4 KiB page at data offset OFF: true,
 * with one line in WHY (LEN bytes), when its source holds the page but
 * cannot read it (a kdump page whose descriptor or compressed bytes are
 * corrupt: docs/design.md §1, "unreadable" is neither "not captured"
 * nor "not mapped"); false when the source simply does not hold it (a
 * page the dump filtered out: not captured).  Called under the region's
 * lock, only after a read failed.
 */
typedef bool (*pt_why_fn)(void *ud, uint64_t off, char *why, size_t len);
/* Gives reader region ID its WHY callback (before the seal). */
pt_err pt_mem_reader_why(struct pt_mem *mem, unsigned id, pt_why_fn why);

/* Copies LEN bytes into built region ID at byte OFFSET; all-zero chunks stay unallocated. */
pt_err pt_mem_region_write(struct pt_mem *mem, unsigned id, uint64_t offset,
			   const void *data, size_t len);

/*
 * Hands a chunk the caller filled to built region ID: CHUNK (from malloc,
 * freed by pt_mem_free from now on) holds the region's bytes at OFFSET, a
 * multiple of the 4 KiB chunk size, and LEN >= the bytes the region has
 * there.  Lets a loader that already holds a member's bytes in chunks give
 * them over instead of copying them (no chunk may exist there yet).  On
 * error the caller keeps CHUNK.
 */
pt_err pt_mem_region_adopt(struct pt_mem *mem, unsigned id, uint64_t offset,
			   void *chunk, size_t len);

/*
 * Like pt_mem_region_adopt(), but CHUNK stays its owner's (a chunk another
 * region of MEM adopted: one member named by many [memory] sections is
 * held once, not once per section).  It must stay valid and unchanged
 * until pt_mem_free(), which does not free it; pt_mem_resident() counts it
 * once, in its owner; a later pt_mem_region_write() there copies it first.
 */
pt_err pt_mem_region_share(struct pt_mem *mem, unsigned id, uint64_t offset,
			   const void *chunk, size_t len);

/*
 * Declares LEN bytes at data OFFSET of borrowed region ID known to read as
 * zero (a hole of the mapped file), so that pt_mem_next_nonzero() passes
 * them without reading.  Holes are given in increasing order, apart.
 */
pt_err pt_mem_region_hole(struct pt_mem *mem, unsigned id, uint64_t offset, uint64_t len);

/*
 * Ends building: sorts the regions and merges overlapping regions of one
 * space whose bytes agree there (docs/design.md §3.1).  Where two disagree returns
 * PT_E_CAPTURE and the two region ids in *A and *B (either may be NULL).
 */
pt_err pt_mem_seal(struct pt_mem *mem, unsigned *a, unsigned *b);

/*
 * Reads LEN bytes at physical address PA of SPACE into OUT.  Returns true
 * when every byte is captured; false (OUT unspecified) otherwise, including
 * for a space id out of range or an address range that wraps.
 */
bool pt_mem_read(const struct pt_mem *mem, unsigned space, uint64_t pa,
		 void *out, size_t len);

/*
 * Mapped capture files can shrink under the process (a writer truncates a
 * blob after its lease was revoked or could not be honoured); touching
 * their lost pages raises SIGBUS.  pt_mem_read() copies borrowed bytes with
 * pt_mem_copy_mapped(): when the program has installed the handler with
 * pt_mem_fault_install() (programs own signals: the core never installs
 * it itself), such a read returns false, i.e. "not captured", instead of
 * killing the process.  A SIGBUS that no armed copy caused keeps its
 * default action.  Without the handler a lost page still kills.
 */
pt_err pt_mem_fault_install(void);
/* Copies LEN bytes from mapped SRC to DST; false when SRC faulted (DST partly written).  Async-signal-safe. */
bool pt_mem_copy_mapped(void *dst, const void *src, size_t len);

/*
 * Where [PA, PA+LEN) of SPACE lies inside one non-zero chunk of a region
 * the loader built on the heap: a pointer to those bytes, valid and
 * unchanged until pt_mem_free() (the memory is sealed).  NULL otherwise —
 * bytes of a borrowed mapping (read only through pt_mem_read(), armed
 * against SIGBUS), zero chunks, ranges across chunks or regions, anything
 * not captured — and the caller reads with pt_mem_read().  A table read
 * entry by entry resolves its address once instead of per entry.
 */
const uint8_t *pt_mem_direct(const struct pt_mem *mem, unsigned space, uint64_t pa, uint64_t len);

/*
 * Whether some byte of [PA, PA+LEN) of SPACE is in a region read on
 * demand whose source holds it but cannot read it (pt_why_fn): the first
 * such address in *BAD (may be NULL) and the source's reason in WHY.
 * False for everything else, captured or not.  Asks the source only
 * about pages that fail to read.
 */
bool pt_mem_unreadable(const struct pt_mem *mem, unsigned space, uint64_t pa, uint64_t len,
		       uint64_t *bad, char *why, size_t wlen);

/* How much of [PA, PA+LEN) is captured.  LEN 0 gives PT_COVER_NONE. */
enum pt_cover pt_mem_cover(const struct pt_mem *mem, unsigned space,
			   uint64_t pa, uint64_t len);

/*
 * The first captured address >= PA in SPACE, in *NEXT; false when nothing
 * at or above PA is captured.  Lets a listing jump over holes instead of
 * probing every entry of a huge, mostly uncaptured table.
 */
bool pt_mem_next(const struct pt_mem *mem, unsigned space, uint64_t pa, uint64_t *next);

/*
 * The first address >= PA in SPACE that is captured and not known to be
 * zero, in *NEXT; false when every captured byte at or above PA is known
 * to be zero (or nothing is captured there).  Built chunks never stored
 * (all-zero) are known zero; borrowed bytes are not inspected (they count
 * as possibly non-zero).  Lets a listing or scan that skips zero entries
 * anyway jump over terabytes of captured zeros in O(stored chunks).
 */
bool pt_mem_next_nonzero(const struct pt_mem *mem, unsigned space, uint64_t pa, uint64_t *next);

/* Bytes of RAM the built chunks hold (for info and the benchmarks). */
uint64_t pt_mem_resident(const struct pt_mem *mem);

#endif
