/* SPDX-License-Identifier: MIT */
/*
 * src_umr_regs.c — the VM registers of a umr log: their names, the byte
 * address tables of gfx9-gfx12, and umr's ASIC names (src_umr_regs.h).
 */
#include <stdio.h>
#include <string.h>

#include "pt_capture.h"
#include "pt_src_umr.h"
#include "src_umr_regs.h"

/* ---- register recognition ---- */

static const char *const creg_names[PT_UMR_CREG__COUNT] = {
	"CNTL",
	"PAGE_TABLE_BASE_ADDR_LO32", "PAGE_TABLE_BASE_ADDR_HI32",
	"PAGE_TABLE_START_ADDR_LO32", "PAGE_TABLE_START_ADDR_HI32",
	"PAGE_TABLE_END_ADDR_LO32", "PAGE_TABLE_END_ADDR_HI32",
};
static const char *const hreg_names[PT_UMR_HREG__COUNT] = {
	"MC_VM_FB_OFFSET", "MC_VM_FB_LOCATION_BASE", "MC_VM_FB_LOCATION_TOP",
	"MC_VM_AGP_TOP", "MC_VM_AGP_BOT", "MC_VM_AGP_BASE",
	"MC_VM_SYSTEM_APERTURE_LOW_ADDR", "MC_VM_SYSTEM_APERTURE_HIGH_ADDR",
};

const char *pt_umr_creg_name(unsigned r)
{
	return r < PT_UMR_CREG__COUNT ? creg_names[r] : "?";
}

const char *pt_umr_hreg_name(unsigned r)
{
	return r < PT_UMR_HREG__COUNT ? hreg_names[r] : "?";
}


/*
 * By name (§2.4: strip the "<ip>." prefix and the "mm"/"reg" prefix).
 * Returns 1 recognised, 0 a register name we do not use, -1 no name (the
 * comment is free text or absent: fall back to the address).
 */
int pt_umr_reg_by_name(const char *full, struct regid *id)
{
	const char *dot = strrchr(full, '.');
	const char *n = dot ? dot + 1 : full;
	bool mmhub_ip = dot && !strncmp(full, "mmhub", 5);
	unsigned hub, gen;

	if (!strncmp(n, "mm", 2))
		n += 2;
	else if (!strncmp(n, "reg", 3))
		n += 3;
	/* A register name is upper case with an underscore; anything else is prose. */
	if (!*n || !strchr(n, '_'))
		return -1;
	for (const char *c = n; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return -1;
	if (!strncmp(n, "GCVM_CONTEXT", 12) || !strncmp(n, "GCMC_VM_", 8)) {
		hub = PT_UMR_GFX;
		gen = 10;
		n += 2;
		id->hub_known = true;
	} else if (!strncmp(n, "MMVM_CONTEXT", 12) || !strncmp(n, "MMMC_VM_", 8)) {
		hub = PT_UMR_MMHUB;
		gen = 10;
		n += 2;
		id->hub_known = true;
	} else if (!strncmp(n, "VM_CONTEXT", 10) || !strncmp(n, "MC_VM_", 6)) {
		/* gfx9 names are the same on both hubs; the IP prefix tells which */
		hub = mmhub_ip ? PT_UMR_MMHUB : PT_UMR_GFX;
		gen = 9;
		id->hub_known = dot != NULL;
	} else {
		return 0;
	}
	id->hub = hub;
	id->gen = gen;
	if (!strncmp(n, "VM_CONTEXT", 10)) {
		const char *c = n + 10;
		unsigned v = 0, nd = 0;

		while (*c >= '0' && *c <= '9' && nd < 3) {
			v = v * 10 + (unsigned)(*c - '0');
			c++;
			nd++;
		}
		if (!nd || v > PT_UMR_MAX_VMID || *c != '_')
			return 0;
		for (unsigned r = 0; r < PT_UMR_CREG__COUNT; r++)
			if (!strcmp(c + 1, creg_names[r])) {
				id->is_ctx = true;
				id->vmid = v;
				id->reg = r;
				return 1;
			}
		return 0;
	}
	for (unsigned r = 0; r < PT_UMR_HREG__COUNT; r++)
		if (!strcmp(n, hreg_names[r])) {
			id->is_ctx = false;
			id->reg = r;
			return 1;
		}
	return 0;
}

/*
 * Register byte addresses per generation and hub, as umr computes them: the
 * IP's base address (umr database/ASIC.soc15, amdgpu's IP discovery / soc15
 * *_BASE) plus the register's dword offset (amdgpu's asic_reg
 * gc_*_offset.h / mmhub_*_offset.h, the same numbers as umr's
 * database/ip/IP.reg), times 4.  The VM_CONTEXTn registers repeat: CNTL
 * every dword, PAGE_TABLE_BASE/START/END_ADDR_LO32/HI32 every 2 dwords
 * with START 0x80 and END 0x100 bytes after BASE.
 *   gfx9:  gc_9_0_offset.h (GC base 0x2000), mmhub_1_0_offset.h (MMHUB 0x1A000)
 *   gfx10: gc_10_1_0_offset.h (GC base 0x1260), mmhub_2_0_0_offset.h (0x1A000)
 *   gfx11: gc_11_0_0_offset.h (GC base 0x1260), mmhub_3_0_0_offset.h (0x1A000)
 *   gfx12: gc_12_0_0_offset.h (GC base 0x1260), mmhub_4_1_0_offset.h (0x1A000)
 * GC 9.4.x and the other MMHUB revisions of a generation (e.g. Aldebaran's
 * MMHUB 1.7) are not distinguished: the GFX hub of each generation is.
 */
struct hub_addr {
	uint32_t cntl0;                  /* VM_CONTEXT0_CNTL */
	uint32_t base0;                  /* VM_CONTEXT0_PAGE_TABLE_BASE_ADDR_LO32 */
	uint32_t h[PT_UMR_HREG__COUNT];  /* pt_umr_hreg order */
};

static const struct hub_addr gen_addr[4][PT_UMR_HUB__COUNT] = {
	{ /* gfx9 */
		{0xA200, 0xA3AC, {0xA5AC, 0xA600, 0xA604, 0xA608, 0xA60C, 0xA610, 0xA614, 0xA618}},
		{0x69B00, 0x69CAC, {0x6A05C, 0x6A0B0, 0x6A0B4, 0x6A0B8, 0x6A0BC, 0x6A0C0, 0x6A0C4, 0x6A0C8}},
	},
	{ /* gfx10 */
		{0xA200, 0xA3AC, {0xA5AC, 0xA600, 0xA604, 0xA608, 0xA60C, 0xA610, 0xA614, 0xA618}},
		{0x69B00, 0x69CAC, {0x6A15C, 0x6A1B0, 0x6A1B4, 0x6A1B8, 0x6A1BC, 0x6A1C0, 0x6A1C4, 0x6A1C8}},
	},
	{ /* gfx11 */
		{0xA3A0, 0xA54C, {0xA01C, 0xA360, 0xA364, 0xA368, 0xA36C, 0xA370, 0xA374, 0xA378}},
		{0x69D00, 0x69EAC, {0x6A35C, 0x6A3B0, 0x6A3B4, 0x6A3B8, 0x6A3BC, 0x6A3C0, 0x6A3C4, 0x6A3C8}},
	},
	{ /* gfx12 */
		{0xA210, 0xA3BC, {0xA01C, 0xA1D0, 0xA1D4, 0xA1D8, 0xA1DC, 0xA1E0, 0xA1E4, 0xA1E8}},
		{0x69590, 0x6973C, {0x6931C, 0x69550, 0x69554, 0x69558, 0x6955C, 0x69560, 0x69564, 0x69568}},
	},
};

/* What byte address A is on gfx GEN (9..12); false: no VM register there. */
bool pt_umr_reg_by_addr(unsigned gen, uint64_t a, struct regid *id)
{
	if (gen < 9 || gen > 12 || (a & 3))
		return false;
	*id = (struct regid){.gen = 0};
	for (unsigned h = 0; h < PT_UMR_HUB__COUNT; h++) {
		const struct hub_addr *t = &gen_addr[gen - 9][h];

		id->hub = h;
		id->is_ctx = true;
		if (a >= t->cntl0 && a < t->cntl0 + 4 * (PT_UMR_MAX_VMID + 1)) {
			id->vmid = (unsigned)(a - t->cntl0) / 4;
			id->reg = PT_UMR_CNTL;
			return true;
		}
		if (a >= t->base0 && a < t->base0 + 3 * 0x80) {
			unsigned k = (unsigned)(a - t->base0) / 4;   /* 32 dwords each: BASE, START, END */

			id->vmid = (k % 32) / 2;
			id->reg = PT_UMR_BASE_LO + 2 * (k / 32) + (k & 1);
			return true;
		}
		id->is_ctx = false;
		for (unsigned r = 0; r < PT_UMR_HREG__COUNT; r++)
			if (t->h[r] == a) {
				id->reg = r;
				return true;
			}
	}
	return false;
}

/* Whether name N (gen 9 names carry no hub unless an IP prefix does) is register A. */
bool pt_umr_same_reg(const struct regid *n, bool hub_known, const struct regid *a)
{
	return n->is_ctx == a->is_ctx && n->reg == a->reg && (!n->is_ctx || n->vmid == a->vmid) &&
	       (!hub_known || n->hub == a->hub);
}

const char *pt_umr_reg_label(bool is_ctx, unsigned hub, unsigned vmid, unsigned reg, char *buf, size_t len)
{
	if (is_ctx)
		snprintf(buf, len, "%sVM_CONTEXT%u_%s", hub == PT_UMR_MMHUB ? "mmhub " : "", vmid,
			 pt_umr_creg_name(reg));
	else
		snprintf(buf, len, "%s%s", hub == PT_UMR_MMHUB ? "mmhub " : "", pt_umr_hreg_name(reg));
	return buf;
}


/*
 * umr's ASIC names and their GC generation (umr database/NAME.asic, the
 * gc_X_Y_Z.reg file each names), plus umr's IP-discovery form "gfxNNNN"
 * (its GC block names: gfx900, gfx1010, gfx1100, gfx1200).
 */
unsigned pt_umr_asic_gfx(const char *name)
{
	static const struct {
		const char *name;
		unsigned gfx;
	} asics[] = {
		{"vega10", 9}, {"vega12", 9}, {"vega20", 9}, {"raven1", 9}, {"raven2", 9}, {"picasso", 9},
		{"renoir", 9}, {"green_sardine", 9}, {"arcturus", 9}, {"aldebaran", 9},
		{"navi10", 10}, {"navi12", 10}, {"navi14", 10}, {"cyan_skillfish", 10},
		{"sienna_cichlid", 10}, {"navy_flounder", 10}, {"dimgrey_cavefish", 10},
		{"beige_goby", 10}, {"vangogh", 10}, {"yellow_carp", 10},
		{"gfx11_vm_test", 11},
		/* pre-gfx9 ASICs umr knows: their VM is not GPUVM gfx9+ */
		{"bonaire", 8}, {"carrizo", 8}, {"fiji", 8}, {"hainan", 8}, {"hawaii", 8}, {"kabini", 8},
		{"kaveri", 8}, {"mullins", 8}, {"oland", 8}, {"pitcairn", 8}, {"polaris10", 8},
		{"polaris11", 8}, {"polaris12", 8}, {"stoney", 8}, {"tahiti", 8}, {"tonga", 8},
		{"topaz", 8}, {"vegam", 8}, {"verde", 8},
	};
	size_t n;

	if (!name)
		return 0;
	for (size_t i = 0; i < sizeof asics / sizeof asics[0]; i++)
		if (!strcmp(name, asics[i].name))
			return asics[i].gfx;
	n = strlen(name);
	if (n >= 6 && n <= 7 && !strncmp(name, "gfx", 3)) {
		unsigned v = 0;

		for (size_t i = 3; i < n; i++) {
			if (name[i] < '0' || name[i] > '9')
				return 0;
			v = v * 10 + (unsigned)(name[i] - '0');
		}
		/* gfx9NN: 3 digits; gfx10NN..gfx12NN: 4 */
		if (n == 6 && v >= 900 && v <= 999)
			return 9;
		if (n == 7 && v >= 1000 && v <= 1299)
			return v / 100;
	}
	return 0;
}
