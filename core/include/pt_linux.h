/* SPDX-License-Identifier: MIT */
/*
 * pt_linux.h — a Linux guest's processes by name (docs/design.md §3.3): the
 * step after the load that makes every user address space a context
 * pidN, and the ps-like table of them (ptfs-tool tasks, mnt/tasks).
 */
#ifndef PT_LINUX_H
#define PT_LINUX_H

/* The include rule (HACKING.md, "Layers"): the linux layer's, never included below it. */
#if defined(PT_LAYER_UTIL) || defined(PT_LAYER_FORMATS) || defined(PT_LAYER_LOAD) || defined(PT_LAYER_SOURCES) || defined(PT_LAYER_WALK)
#error "pt_linux.h belongs to core/linux: a lower layer must not include it (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_buf.h"
#include "pt_capture.h"
#include "pt_error.h"

struct pt_readctl;

/*
 * pt_load_opts.after_load: when CAP is a dump of an x86-64 Linux guest, or
 * a live one (its RAM through QMP: VMCOREINFO found in it),
 * finds its BTF, its task list (kallsyms through VMCOREINFO, or the
 * per-CPU current task of the vCPU notes) and adds a context pidN per user
 * address space.  Where something is missing, one warning says what and
 * what would supply it, and the capture stays as it was.  PT_E_NOMEM only.
 */
pt_err pt_linux_expand(struct pt_capture *cap, const struct pt_load_opts *opts);

/*
 * The processes of CAP as a table (PID PPID COMM THREADS CPU ROOT PAGES,
 * one line each, by pid), or as JSON when JSON: PAGES counts the pages of
 * each context's user half (RC bounds the work, may be NULL).  False when
 * the capture has no pidN context.  pt_linux_has_tasks(): whether it has
 * one (the mount's `tasks` file is there).
 */
bool pt_linux_has_tasks(const struct pt_capture *cap);
/*
 * A live guest: the user processes its last refresh found on the task
 * list that have no context (started since the mount; a remount shows
 * them).  0 for a dump.
 */
size_t pt_linux_unseen(const struct pt_capture *cap);
bool pt_linux_tasks(const struct pt_capture *cap, bool json, struct pt_buf *out, struct pt_readctl *rc);

/*
 * The names pci.ids (through libpci) gives a PCI function, as lspci prints
 * them: CNAME its class ("Non-Volatile memory controller"; CLS is base
 * class << 8 | subclass), VDNAME its vendor and device ("Red Hat, Inc. QEMU
 * NVM Express Controller"; lspci's "Device 1234" for an unknown device).
 * False (both "") when libpci has no pci.ids.  Thread-safe.
 */
bool pt_linux_pci_names(uint16_t vendor, uint16_t device, uint16_t cls, char *cname, size_t clen,
			char *vdname, size_t vdlen);

/*
 * The guest's PCI functions as a table (BDF, class, vendor, device, names,
 * driver, and the IOMMU context that translates each or `-`), or JSON Lines
 * when JSON: ptfs-tool pci and mnt/pci.  False when the capture names no
 * PCI function (pt_capture_pci()).
 */
bool pt_linux_has_pci(const struct pt_capture *cap);
/* The function an IOMMU device context IO is for (by segment and BDF, or StreamID = RID); NULL: none known. */
const struct pt_pci_dev *pt_linux_pci_of(const struct pt_capture *cap, const struct pt_ctx_iommu *io);
/*
 * D's vendor, device, class, driver and names: appended to a devices line
 * (PT_LINUX_PCI_LINE: " vendor=0x1b36 device=0x0010 class=0x0108
 * driver=nvme name=\"...\""), or `pci_*: ` lines of a context's info
 * (PT_LINUX_PCI_INFO), or as keys of J when J is not NULL.
 */
enum pt_linux_pci_out { PT_LINUX_PCI_LINE, PT_LINUX_PCI_INFO };
void pt_linux_pci_fields(const struct pt_capture *cap, const struct pt_pci_dev *d, enum pt_linux_pci_out how,
			 struct pt_buf *b, struct pt_jobj *j);
bool pt_linux_pci(const struct pt_capture *cap, bool json, struct pt_buf *out);

#endif
