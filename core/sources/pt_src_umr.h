/* SPDX-License-Identifier: MIT */
/*
 * pt_src_umr.h — umr test logs and envdefs (docs/design.md §3.1; facts:
 * docs/design.md §3.1-§3.2 and their sources (§7)).  Internal to core/: a neutral
 * description of what the text holds, every fact with its line, for the
 * capture loader to turn into contexts and memory.  Never prints: errors
 * are one line "NAME:LINE: problem" in the caller's buffer.
 */
#ifndef PT_SRC_UMR_H
#define PT_SRC_UMR_H

/* The include rule (HACKING.md, "Layers"): internal to core/sources, and the tests. */
#if !defined(PT_LAYER_SOURCES) && !defined(PT_TESTING)
#error "pt_src_umr.h is internal to core/sources (HACKING.md, Layers)"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pt_error.h"

#define PT_UMR_MAX_SIZE (256u << 20)  /* bytes of a whole log */
#define PT_UMR_MAX_VMID 15

enum pt_umr_hub { PT_UMR_GFX = 0, PT_UMR_MMHUB, PT_UMR_HUB__COUNT };
enum pt_umr_space { PT_UMR_VRAM = 0, PT_UMR_SYSMEM };

/* Per-VMID registers (VM_CONTEXTn_*, GCVM_CONTEXTn_*, MMVM_CONTEXTn_*). */
enum pt_umr_creg {
	PT_UMR_CNTL = 0,
	PT_UMR_BASE_LO, PT_UMR_BASE_HI,     /* PAGE_TABLE_BASE_ADDR_LO32/HI32 */
	PT_UMR_START_LO, PT_UMR_START_HI,   /* PAGE_TABLE_START_ADDR_LO32/HI32 */
	PT_UMR_END_LO, PT_UMR_END_HI,       /* PAGE_TABLE_END_ADDR_LO32/HI32 */
	PT_UMR_CREG__COUNT
};

/* Per-hub registers (MC_VM_*, GCMC_VM_*, MMMC_VM_*), raw as read. */
enum pt_umr_hreg {
	PT_UMR_FB_OFFSET = 0, PT_UMR_FB_BASE, PT_UMR_FB_TOP,
	PT_UMR_AGP_TOP, PT_UMR_AGP_BOT, PT_UMR_AGP_BASE,
	PT_UMR_SYS_LOW, PT_UMR_SYS_HIGH,
	PT_UMR_HREG__COUNT
};

struct pt_umr_reg {
	bool has;
	uint32_t value;          /* the first value read */
	unsigned line;           /* its MMIO@ record */
	bool by_name;            /* recognised by the comment's name, else by gfx9 address */
};

/* A 64-bit register from LO32|HI32<<32: present only when both halves are. */
struct pt_umr_reg64 {
	bool has;
	uint64_t value;
};

struct pt_umr_ctx {
	unsigned hub;            /* enum pt_umr_hub */
	unsigned vmid;
	struct pt_umr_reg reg[PT_UMR_CREG__COUNT];
	struct pt_umr_reg64 base, start, end;
	unsigned depth;          /* CNTL PAGE_TABLE_DEPTH [2:1] (valid when reg[CNTL].has) */
	unsigned block_size;     /* CNTL PAGE_TABLE_BLOCK_SIZE [6:3] */
};

/* Captured bytes: overlapping and adjacent records of one space merged. */
struct pt_umr_mem {
	unsigned space;          /* enum pt_umr_space */
	uint64_t addr;           /* VRAM@: linear vram offset; SYSRAM@: bus address */
	size_t len;
	uint8_t *data;           /* into the log's BYTES */
	unsigned line;           /* first record of the region */
};

struct pt_umr_log {
	unsigned gfx;            /* generation 9..12: the caller's, else the one the names' addresses agree with; 0 unknown */
	unsigned gfx_names;      /* the names' style: 9, 10 (= "10 or later"), 0 none or mixed */
	struct pt_umr_reg hub[PT_UMR_HUB__COUNT][PT_UMR_HREG__COUNT];
	struct pt_umr_ctx *ctx;  /* hub then VMID order; only VMIDs with a register */
	size_t nctx;
	struct pt_umr_mem *mem;  /* space then address order */
	size_t nmem;
	uint8_t *bytes;          /* every region's data, in region order (their DATA point into it) */
	size_t nmmio;            /* MMIO@ records, recognised or not */
	/* "NAME:LINE: ..." for a comment name that disagrees with its address (at most 32 kept) */
	char **warn;
	size_t nwarn, nwarn_more;
};

/*
 * True if TEXT looks like a umr log: its first record (after blanks and ';'
 * comments) is a umr keyword such as MMIO@0x.. = {.  Cheap: reads at most
 * the first 4 KiB; never claims a capture.ini.
 */
bool pt_umr_detect(const char *text, size_t len);

/*
 * Parses LEN bytes of TEXT.  NAME labels messages ("run.envdef").  GFX is
 * the caller's generation (9..12, 0 = not given).  With a generation (given,
 * or the one whose address table the comment names agree with), registers
 * are read by MMIO byte address, as umr reads them; a comment name that
 * disagrees is a warning (log->warn).  Without one, by name.
 * On failure: PT_E_SYNTAX / PT_E_VALUE / PT_E_TRUNCATED / PT_E_USAGE /
 * PT_E_NOMEM with "NAME:LINE: ..." in ERR, *OUT NULL.
 */
pt_err pt_umr_parse(const char *text, size_t len, const char *name, unsigned gfx,
		    struct pt_umr_log **out, char *err, size_t errlen);
void pt_umr_free(struct pt_umr_log *log);

/* The context of HUB/VMID, or NULL. */
const struct pt_umr_ctx *pt_umr_ctx_find(const struct pt_umr_log *log, unsigned hub, unsigned vmid);

/* Register names for messages and info lines, e.g. "PAGE_TABLE_BASE_ADDR_LO32", "MC_VM_FB_OFFSET". */
const char *pt_umr_creg_name(unsigned r);
const char *pt_umr_hreg_name(unsigned r);
/* "VM_CONTEXT3_CNTL", "mmhub MC_VM_FB_OFFSET" into BUF (returned). */
const char *pt_umr_reg_label(bool is_ctx, unsigned hub, unsigned vmid, unsigned reg, char *buf, size_t len);


/*
 * The GFX generation (9..12) of a umr ASIC name ("navi10", "aldebaran",
 * "gfx1100"), for pt_load_opts.asic; 8 for a pre-gfx9 ASIC, 0 unknown.
 */
unsigned pt_umr_asic_gfx(const char *name);

#endif
