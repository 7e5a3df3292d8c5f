/* SPDX-License-Identifier: MIT */
/*
 * pt_tree.h — the tree a capture is shown as (docs/design.md §4), once for both
 * front ends: the FUSE mount (fs/) and `ptfs-tool export` walk the same
 * names, listings, file contents and link targets from here.
 *
 *   /capture                       the capture summary
 *   /CTX/info, /CTX/maps           per context
 *   /CTX/entries                   every listed entry on one line (pt_entries.h)
 *   /CTX/ROOTLEVEL/                the root table
 *        N                         a listed entry that is not a pointer: its entry file
 *        N/entry                   a pointer entry: a directory with its entry file
 *        N/LEVEL/                  and one directory per target table whose cover is not NONE
 *   /CTX/va/NAME -> ../PATH        one relative symlink per resolved page
 *   /CTX/walk/VA                   lists nothing; any VA name is its walk trace
 *   /CTX/vs/OTHER                  lists nothing; another context's name: CTX against
 *                                  it, as ptfs-tool crosscheck (pt_xcheck.h)
 *   /pa/SPACE/ADDR                 one directory per space of the capture's format;
 *                                  lists nothing; ADDR: who maps that byte (pt_pa.h)
 *   /IOMMU/                        per [iommu IOMMU] section, its own tables
 *                                  (core/view/iotree.c, ptfs(1) "THE IOMMU TREE"):
 *        root/BUS/{entry,context/DEVFN}               VT-d legacy
 *        root/BUS/{entry,context/DEVFN/{entry,pasid/N}} VT-d scalable mode
 *        dte/DEVID                                    AMD-Vi
 *        ste/SID/{entry,cd/SSID}                      SMMUv3 linear stream table
 *        l1/N/{entry,ste/SID/{entry,cd/SSID}}         SMMUv3 2-level stream table
 *
 * A node (struct pt_tnode) is a value: its type plus where it is.  Nothing
 * is allocated per node and every call re-resolves the node in the
 * capture, which never changes, so all calls are pure and thread-safe.
 * Each subtree is a provider (core/view/tree_int.h, struct pt_tprov):
 * adding a kind of node is one enum value and its provider's cases;
 * adding a subtree is one provider and one line in tree.c's table
 * (HACKING.md, "Adding a subtree").
 */
#ifndef PT_TREE_H
#define PT_TREE_H

/* The include rule (HACKING.md, "Layers"): the view layer's, never included below it. */
#if defined(PT_LAYER_UTIL) || defined(PT_LAYER_FORMATS) || defined(PT_LAYER_LOAD) || defined(PT_LAYER_SOURCES) || defined(PT_LAYER_WALK) || defined(PT_LAYER_LINUX)
#error "pt_tree.h belongs to core/view: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_capture.h"
#include "pt_render.h"
#include "pt_walk.h"

/*
 * Node types.  The values of the per-context fixed nodes (CTXDIR .. WALKDIR)
 * are also their inode type codes (fs/ino.c): append new types, never
 * renumber.
 */
enum pt_tnode_type {
	PT_TN_ROOT = 0,     /* the mount's root */
	PT_TN_CTXDIR,       /* pdb0/ */
	PT_TN_INFO,         /* pdb0/info */
	PT_TN_MAPS,         /* pdb0/maps */
	PT_TN_VADIR,        /* pdb0/va/ */
	PT_TN_WALKDIR,      /* pdb0/walk/ */
	PT_TN_TABLEDIR,     /* a table: pdb0/pde3/, .../1/pde2/ */
	PT_TN_ENTRYDIR,     /* a pointer entry: .../pde3/1/ */
	PT_TN_ENTRYFILE,    /* a leaf entry .../pte_small/5, or a pointer's .../1/entry */
	PT_TN_VALINK,       /* pdb0/va/0x... */
	PT_TN_WALKFILE,     /* pdb0/walk/0x... */
	PT_TN_CAPTURE,      /* the root's `capture` file */
	PT_TN_ENTRIES,      /* pdb0/entries */
	PT_TN_PADIR,        /* pa/ */
	PT_TN_PASPACE,      /* pa/vidmem/ */
	PT_TN_PAFILE,       /* pa/vidmem/0x... */
	PT_TN_SVG,          /* pdb0/map.svg */
	PT_TN_VSDIR,        /* pdb0/vs/ */
	PT_TN_VSFILE,       /* pdb0/vs/cpu0 */
	PT_TN_IODIR,        /* an [iommu NAME]'s tree: dmar0/, dmar0/root/3/context/ (pt_io_kind) */
	PT_TN_IOFILE,       /* one of its entries: dmar0/root/3/context/16 */
	PT_TN_CTXALIAS,     /* lookup-only: dmar0.0000:00:03.0 -> dmar0.00:03.0 (pt_capture_context_alias()) */
	PT_TN_TASKS,        /* the root's `tasks` file: a Linux dump's processes (pt_linux.h) */
	PT_TN_PCI,          /* the root's `pci` file: the guest's PCI functions (pt_linux.h) */
	PT_TN__COUNT
};

/* A node of the tree. */
struct pt_tnode {
	enum pt_tnode_type type;
	unsigned ctx;            /* context index (per-context types) */
	/*
	 * TABLEDIR: the entry that points at the table (n == 0: the root
	 * table); ENTRYDIR, ENTRYFILE: the entry.  VALINK: the leaf's path
	 * when the tree filled it (lookup, list), so that its target needs no
	 * second walk; n == 0: found by walking VA.
	 */
	struct pt_node node;
	/*
	 * TABLEDIR with node.n > 0: which target of the entry; PASPACE, PAFILE:
	 * the space; VSFILE: the other context's index
	 */
	unsigned choice;
	/* VALINK: the page's first VA; WALKFILE: the VA; PAFILE: the physical address */
	uint64_t va;
};

/*
 * Where an IODIR or IOFILE is (core/view/iotree.c): CHOICE is the [iommu]
 * section's index, VA packs the kind (bits 63..58), C (a PASID or SSID, bits
 * 51..32) and A (bus, requester ID, DeviceID, StreamID or L1 index, bits
 * 31..0).  The kinds are also inode codes (fs/ino.c): append, never renumber.
 */
enum pt_io_kind {
	PT_IO_TOP,        /* NAME/ */
	PT_IO_VROOT,      /* root/ */
	PT_IO_VBUS,       /* root/BUS/ (A: bus) */
	PT_IO_VROOTENT,   /* root/BUS/entry */
	PT_IO_VCTXDIR,    /* root/BUS/context/ */
	PT_IO_VCTX,       /* legacy: root/BUS/context/DEVFN (A: bus << 8 | devfn) */
	PT_IO_VDEV,       /* scalable: root/BUS/context/DEVFN/ */
	PT_IO_VDEVENT,    /* .../DEVFN/entry */
	PT_IO_VPASIDDIR,  /* .../DEVFN/pasid/ */
	PT_IO_VPASID,     /* .../pasid/N (C: the PASID) */
	PT_IO_ADTEDIR,    /* dte/ */
	PT_IO_ADTE,       /* dte/DEVID (A) */
	PT_IO_SL1DIR,     /* l1/ */
	PT_IO_SL1,        /* l1/N/ (A: N) */
	PT_IO_SL1ENT,     /* l1/N/entry */
	PT_IO_SSTEDIR,    /* ste/ (linear: A 0) or l1/N/ste/ (A: N) */
	PT_IO_SSTE,       /* .../ste/SID/ (A: the StreamID) */
	PT_IO_SSTEENT,    /* .../ste/SID/entry */
	PT_IO_SCDDIR,     /* .../ste/SID/cd/ */
	PT_IO_SCD,        /* .../cd/SSID (C: the SubstreamID) */
	PT_IO_DEVICES,    /* NAME/devices: one line per device context (iodev.c) */
	PT_IO_INFO,       /* NAME/info: the registers, contexts made, blocked entries */
	PT_IO__COUNT
};
#define PT_IO_KIND_SHIFT 58
#define PT_IO_C_SHIFT 32
#define PT_IO_C_BITS 20
static inline uint64_t pt_io_pack(unsigned kind, uint64_t a, uint64_t c)
{
	return (uint64_t)kind << PT_IO_KIND_SHIFT | (c & ((1u << PT_IO_C_BITS) - 1)) << PT_IO_C_SHIFT |
	       (a & 0xffffffffu);
}
static inline unsigned pt_io_kind_of(const struct pt_tnode *n)
{
	return (unsigned)(n->va >> PT_IO_KIND_SHIFT);
}
static inline uint64_t pt_io_a(const struct pt_tnode *n)
{
	return n->va & 0xffffffffu;
}
static inline uint64_t pt_io_c(const struct pt_tnode *n)
{
	return n->va >> PT_IO_C_SHIFT & ((1u << PT_IO_C_BITS) - 1);
}

/* What a node is shown as. */
enum pt_tkind {
	PT_TK_DIR,
	PT_TK_FILE,
	PT_TK_LINK,
};

struct pt_tree;

/*
 * The tree of CAP (loaded; it must outlive the tree).  ALL_ENTRIES: list
 * zero entries of tables too (mount -o all_entries, export --all-entries).
 */
pt_err pt_tree_new(const struct pt_capture *cap, bool all_entries, struct pt_tree **out);
void pt_tree_free(struct pt_tree *tree);
/*
 * A live guest's contexts added since (pt_capture_context_room()): the
 * tree shows the first N of the capture's (never fewer than it did),
 * once the front end is ready to serve them.
 */
void pt_tree_show_contexts(struct pt_tree *tree, size_t n);

/* The number of [iommu] sections whose tree the root shows. */
size_t pt_tree_iommu_count(const struct pt_tree *tree);
/*
 * Inode numbers (fs/ino.c) of the subtrees that number their own nodes
 * (the IOMMU trees, core/view/iotree_prov.c): a front end gives them ROOM
 * bits and keeps the bits above to itself.  pt_tree_ino_pack(): PT_OK and
 * the node's number in *BITS (below 2^ROOM); PT_E_USAGE when NODE's
 * subtree numbers no nodes (the front end does; TREE may be NULL);
 * PT_E_NOTFOUND when the node has no number that fits.
 * pt_tree_ino_unpack(): the node numbered BITS (PT_E_NOTFOUND: none; every
 * node has one number, a forged one with stray bits has none).
 * pt_tree_ino_check(): PT_E_UNSUPPORTED (one line in WHY) when the tree
 * cannot be numbered in ROOM bits with NCTX contexts; a subtree that does
 * not fit is left out of the root, said in one line in WARN ("" when none).
 */
pt_err pt_tree_ino_pack(const struct pt_tree *tree, const struct pt_tnode *node, unsigned room,
			uint64_t *bits);
pt_err pt_tree_ino_unpack(const struct pt_tree *tree, uint64_t bits, unsigned room,
			  struct pt_tnode *node);
pt_err pt_tree_ino_check(struct pt_tree *tree, unsigned room, size_t nctx, char *why, size_t whylen,
			 char *warn, size_t warnlen);

/* The root node. */
void pt_tree_root(struct pt_tnode *out);
/* Directory, file or link; from the type alone. */
enum pt_tkind pt_tree_kind(const struct pt_tnode *node);
/*
 * Whether rendering file NODE scans a whole context or the capture
 * (capture, info, maps, entries, map.svg, vs/OTHER), rather than one entry or walk: such a file is
 * worth keeping once rendered, and its size is too dear to compute for a
 * listing.
 */
bool pt_tree_render_scans(const struct pt_tnode *node);
/*
 * IOMMU I's `devices` file (core/view/iodev.c): one line per device context
 * it made, `BDF|sid=N [pasid=N|ssid=N] context=NAME translation=MODE
 * [domain=N|asid=N|vmid=N] [levels=N pages=N root=SPACE:ADDR]`, ordered by
 * device, then PASID/SSID; PT_OUT_JSON: one object per line (JSON Lines).
 * Counting pages is bounded by RC.
 */
pt_err pt_tree_iommu_devices(const struct pt_tree *tree, size_t i, enum pt_out out,
			     struct pt_buf *b, struct pt_readctl *rc);
/* IOMMU I's `info` file: registers, contexts made, blocked entries, table pages. */
pt_err pt_tree_iommu_info(const struct pt_tree *tree, size_t i, enum pt_out out, struct pt_buf *b);
/* The index of the [iommu NAME] section, or -1. */
int pt_tree_iommu_find(const struct pt_tree *tree, const char *name);
/* The context of a per-context node (NULL for the root and `capture`). */
const struct pt_context *pt_tree_context(const struct pt_tree *tree, const struct pt_tnode *node);

/*
 * The child of directory PARENT named NAME.  PT_E_NOTFOUND: no such child
 * (or PARENT itself no longer resolves); PT_E_USAGE: PARENT is not a
 * directory.  Names of entries are decimal indices as listed; an entry
 * that is captured but not listed (zero, without all_entries) is still
 * found.  va/ accepts any VA inside a mapped page and answers with the
 * page's link; walk/ accepts any VA.  pa/SPACE/ accepts any address (the
 * syntax of walk/ names) that something maps, or that an incomplete reverse
 * index cannot rule out; PT_E_NOTFOUND for a byte nothing maps.
 */
pt_err pt_tree_lookup(const struct pt_tree *tree, const struct pt_tnode *parent,
		      const char *name, struct pt_tnode *child);

/*
 * Called per child in listing order with the cookie NEXT that resumes the
 * listing after it.  Returns false to stop (the child counts as not
 * listed: a resumed listing gives it again).
 */
typedef bool (*pt_tree_list_fn)(void *ud, const char *name, const struct pt_tnode *child,
				uint64_t next);
/*
 * Lists the children of directory DIR whose cookie is above COOKIE (0:
 * from the start).  Cookies are at least 3, leaving 1 and 2 to a caller's
 * "." and "..", and are stable: a fixed list's child k has cookie k + 3,
 * a table's entry i has i + 3, a va/ link the VA just past its page + 2,
 * so a huge table or va/ is resumed where it stopped without any list.
 * walk/ and pa/SPACE/ list nothing.  RC (may be NULL; pt_walk.h) bounds
 * and cancels the reads of a table or va/ listing: a listing it ended is
 * short.
 */
pt_err pt_tree_list(const struct pt_tree *tree, const struct pt_tnode *dir, uint64_t cookie,
		    pt_tree_list_fn fn, void *ud, struct pt_readctl *rc);

/* The directory holding NODE (the root for the root). */
pt_err pt_tree_parent(const struct pt_tree *tree, const struct pt_tnode *node,
		      struct pt_tnode *parent);
/*
 * st_nlink of NODE: 2 + subdirectories for a directory (1, "unknown", for a
 * table too big to count), 1 for a file or link.  Also proves a directory
 * still resolves (PT_E_NOTFOUND otherwise).  RC (may be NULL) as for
 * pt_tree_list(): a count it ended is low.
 */
pt_err pt_tree_nlink(const struct pt_tree *tree, const struct pt_tnode *node, uint64_t *nlink,
		     struct pt_readctl *rc);
/*
 * Appends the contents of file NODE to B (PT_E_NOMEM when B ran out of
 * memory).  RC (may be NULL) bounds and cancels the reads of info, maps and
 * entries: the caller asks it whether the text is whole.
 */
pt_err pt_tree_render(const struct pt_tree *tree, const struct pt_tnode *node, struct pt_buf *b,
		      struct pt_readctl *rc);
/*
 * The target of link NODE ("../pde3/0/.../pte_small/1") into BUF of LEN
 * bytes.  PT_E_NOTFOUND: the VA is no longer a page's first VA;
 * PT_E_TRUNCATED: BUF is too small.
 */
pt_err pt_tree_readlink(const struct pt_tree *tree, const struct pt_tnode *node,
			char *buf, size_t len);

#endif
