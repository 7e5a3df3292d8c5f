/* SPDX-License-Identifier: MIT */
/*
 * pt_src_gem5.h — gem5 GPUFS checkpoints (docs/design.md §3.1; facts:
 * docs/design.md §3.1-§3.2 and their sources (§7)).  Internal to core/: what m5.cpt says
 * (registers converted back to raw values, the memory stores by file name),
 * every fact with its line.  The .pmem images are not read here.  Never
 * prints: errors are one line "NAME:LINE: problem" in the caller's buffer.
 */
#ifndef PT_SRC_GEM5_H
#define PT_SRC_GEM5_H

/* The include rule (HACKING.md, "Layers"): internal to core/sources, and the tests. */
#if !defined(PT_LAYER_SOURCES) && !defined(PT_TESTING)
#error "pt_src_gem5.h is internal to core/sources (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"

#define PT_GEM5_MAX_SIZE (1u << 30)   /* bytes of m5.cpt (gartTable lines are long) */
#define PT_GEM5_VMIDS 16              /* AMDGPU_VM_COUNT */

/* Raw VMID0 registers, in the order of the capture.ini [gart] keys. */
enum pt_gem5_regid {
	PT_G5_PT_BASE = 0,   /* VM_CONTEXT0_PAGE_TABLE_BASE_ADDR = vm0PTBase (bit 0 clear: gem5) */
	PT_G5_PT_START,      /* VM_CONTEXT0_PAGE_TABLE_START_ADDR = vm0PTStart */
	PT_G5_PT_END,        /* VM_CONTEXT0_PAGE_TABLE_END_ADDR = vm0PTEnd */
	PT_G5_FB_BASE,       /* MC_VM_FB_LOCATION_BASE = fbBase >> 24 (or mmhubBase >> 24) */
	PT_G5_FB_TOP,        /* MC_VM_FB_LOCATION_TOP = fbTop >> 24 (or mmhubTop >> 24) */
	PT_G5_FB_OFFSET,     /* MC_VM_FB_OFFSET = fbOffset >> 24 */
	PT_G5_AGP_BASE,      /* MC_VM_AGP_BASE = agpBase >> 24 */
	PT_G5_AGP_BOT,       /* MC_VM_AGP_BOT = agpBot >> 24 */
	PT_G5_AGP_TOP,       /* MC_VM_AGP_TOP = agpTop >> 24 */
	PT_G5_SYS_LOW,       /* MC_VM_SYSTEM_APERTURE_LOW_ADDR = sysAddrL >> 18 */
	PT_G5_SYS_HIGH,      /* MC_VM_SYSTEM_APERTURE_HIGH_ADDR = sysAddrH >> 18 */
	PT_G5_REG__COUNT
};

struct pt_gem5_regval {
	bool has;
	uint64_t raw;
	unsigned line;       /* the m5.cpt key it came from */
	const char *key;     /* that key, e.g. "vmContext0.fbBase" or "mmhubBase" (static) */
};

struct pt_gem5_store {
	char *section;       /* e.g. "system.physmem.store1" */
	unsigned store_id;
	char *file;          /* filename= : a member beside m5.cpt */
	uint64_t size;       /* range_size= */
	uint64_t base;       /* vram: 0; sysmem: from config.ini, or see sys_by_convention */
	unsigned line;       /* the section header */
	unsigned config_line;/* sysmem: the config.ini range= line, 0 when by convention */
};

struct pt_gem5_cpt {
	char *device;                        /* the prefix before ".GPUVM" */
	unsigned gpuvm_line;
	struct pt_gem5_regval reg[PT_G5_REG__COUNT];
	bool fb_from_mmhub;                  /* fbBase = fbTop = 0: FB_LOCATION from mmhubBase/Top */
	bool has_pt_base;
	uint64_t pt_base[PT_GEM5_VMIDS];     /* per-VMID roots, [0] unused */
	unsigned pt_base_line;
	bool has_vram;
	struct pt_gem5_store vram;           /* <device>.deviceMem.store0, vram from 0 */
	struct pt_gem5_store *sys;           /* <x>.physmem.storeN in store_id order */
	size_t nsys;
	bool sys_by_convention;              /* bases from the x86 GPUFS layout (no config.ini) */
};

/* True if one of the N member names is m5.cpt at the root or in the only top-level directory. */
bool pt_gem5_detect_members(const char *const *names, size_t n);
/* True if TEXT (an m5.cpt) has a [...GPUVM] section. */
bool pt_gem5_detect_text(const char *text, size_t len);

/*
 * Parses LEN bytes of m5.cpt.  NAME labels messages ("cpt.1234/m5.cpt").
 * DEVICE selects the GPU (the prefix before ".GPUVM"); NULL takes the first.
 * CONFIG (CONFIG_LEN bytes, NULL if absent) is the run's config.ini: host
 * store addresses come from it (messages "config.ini:LINE: ..."), else from
 * the x86 GPUFS convention (store0 at 0, store1 at 4 GiB).
 * Failure: PT_E_SYNTAX / PT_E_VALUE / PT_E_UNSUPPORTED / PT_E_NOTFOUND /
 * PT_E_NOMEM with "NAME:LINE: ..." in ERR and *OUT NULL.
 */
pt_err pt_gem5_parse(const char *text, size_t len, const char *name, const char *device,
		     const char *config, size_t config_len, struct pt_gem5_cpt **out, char *err, size_t errlen);
void pt_gem5_free(struct pt_gem5_cpt *cpt);

/* The capture.ini key of register R, e.g. "MC_VM_FB_LOCATION_BASE". */
const char *pt_gem5_reg_name(unsigned r);

#endif
