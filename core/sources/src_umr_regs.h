/* SPDX-License-Identifier: MIT */
/*
 * src_umr_regs.h — which VM register an MMIO record of a umr log is, by
 * comment name or by byte address (src_umr_regs.c).  Internal to the umr
 * parser (src_umr.c).
 */
#ifndef PT_SRC_UMR_REGS_H
#define PT_SRC_UMR_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "pt_src_umr.h"

/* What one MMIO record is. */
struct regid {
	bool is_ctx;
	unsigned hub, vmid, reg;
	unsigned gen;            /* what the name says: 9, 10 (= 10 or later), 0 by address */
	bool hub_known;          /* the name says which hub (GCVM_/MMVM_, or an IP prefix) */
};

/*
 * By name (strip the "<ip>." prefix and the "mm"/"reg" prefix).  Returns 1
 * recognised, 0 a register name we do not use, -1 no name (free text).
 */
int pt_umr_reg_by_name(const char *full, struct regid *id);
/* What byte address A is on gfx GEN (9..12); false: no VM register there. */
bool pt_umr_reg_by_addr(unsigned gen, uint64_t a, struct regid *id);
/* Whether name N (hub compared only when HUB_KNOWN) is register A. */
bool pt_umr_same_reg(const struct regid *n, bool hub_known, const struct regid *a);

#endif
