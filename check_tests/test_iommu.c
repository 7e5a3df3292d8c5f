/* SPDX-License-Identifier: MIT */
/*
 * test_iommu.c — [iommu NAME] (core/load/iommu.c, iommu_walk.c): the
 * section's keys, the device contexts read from a VT-d (legacy and
 * scalable), AMD-Vi and SMMUv3 IOMMU's tables, and hostile tables.  Every
 * table is written here from the layouts the specs give (VT-d spec §9.1,
 * §9.3-9.6, §11.4.5; AMD IOMMU spec §2.2.2, §3.3.1; Arm IHI 0070 §5.1-5.4,
 * §6.3.23/24), never by the code under test.  The bounds of a walk (tables
 * that fan out, max_contexts, registers at the wrong page): test_iommu_bound.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_buf.h"
#include "pt_capture.h"
#include "pt_format.h"
#include "pt_walk.h"
#include "testutil.h"

#define BASE 0x100000ull
#define MEMSZ 0x40000
static uint8_t mem[MEMSZ];

static void put(uint64_t pa, uint64_t v)
{
	tu_put64(mem, sizeof mem, pa - BASE, v);
}

static struct tu_cap load(const char *fmt, const char *sections)
{
	return tu_cap_load(fmt, BASE, mem, sizeof mem, sections);
}

/* A 3-level VT-d second-level table at 0x110000 (AW 39): 4 KiB page 0x87654000 at 0. */
static void sl_tables(void)
{
	put(0x110000, 0x111000 | 3);
	put(0x111000, 0x112000 | 3);
	put(0x112000, 0x87654000ull | 3);
}

static void walks_to(const struct pt_capture *c, const char *name, uint64_t va, uint64_t pa)
{
	const struct pt_context *ctx = pt_capture_context_find(c, name);
	struct pt_walk w;

	ck_assert_msg(ctx != NULL, "no context %s", name);
	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == PT_FAULT_NONE, "%s 0x%" PRIx64 ": %s", name, va,
		      pt_fault_name(w.fault));
	ck_assert_uint_eq(w.pa, pa);
}

static bool warned(const struct pt_capture *c, const char *what)
{
	for (size_t i = 0; i < pt_capture_warning_count(c); i++)
		if (strstr(pt_capture_warning(c, i), what))
			return true;
	return false;
}

START_TEST(keys)
{
	static const struct {
		const char *sec, *msg;
	} bad[] = {
		{"[iommu i]\nrtaddr = 0x1000\n", "missing key 'type' in [iommu i]"},
		{"[iommu i]\ntype = intel\n", "type 'intel' in [iommu i] is not intel-vtd"},
		{"[iommu i]\ntype = intel-vtd\n", "missing key 'rtaddr' in [iommu i]"},
		{"[iommu i]\ntype = amd-vi\nrtaddr = 0x1000\n", "'rtaddr' in [iommu i] is not a register"
		 " of an amd-vi IOMMU"},
		{"[iommu i]\ntype = intel-vtd\nrtaddr = 0x100800\n", "TTM (bits 11:10) 10 is reserved"},
		{"[iommu i]\ntype = intel-vtd\nrtaddr = 0x100001\n", "reserved bits 9:0"},
		{"[iommu i]\ntype = amd-vi\ndev_table_base = 0x100200\n", "reserved bits set (11:9"},
		{"[iommu i]\ntype = amd-vi\ndev_table_base = 0x100000\nsegment = 0x10000\n",
		 "not a PCI segment"},
		{"[iommu i]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n", "missing key 'strtab_base_cfg'"},
		{"[iommu i]\ntype = arm-smmuv3\nstrtab_base = 0x100000\nstrtab_base_cfg = 0x20000\n",
		 "FMT is reserved"},
		{"[iommu i]\ntype = arm-smmuv3\nstrtab_base = 0x100000\nstrtab_base_cfg = 0x101c8\n",
		 "SPLIT 7 is reserved"},
		{"[iommu i]\ntype = arm-smmuv3\nstrtab_base = 0x100000\nstrtab_base_cfg = 33\n",
		 "LOG2SIZE 33 is above 32"},
		{"[iommu i]\ntype = intel-vtd\nrtaddr = 0x100000\nspace = vram\n",
		 "space 'vram' in [iommu i] is not a space of an IOMMU"},
		{"[iommu i]\ntype = intel-vtd\nrtaddr = 0x100000\nbogus = 1\n", "unknown key 'bogus'"},
		{"[iommu i]\ntype = intel-vtd\nrtaddr = 100000a\n", "bad integer"},
		{"[iommu i]\ntype = intel-vtd\nrtaddr = 0x200000\n", "its root table at sysmem 0x200000"
		 " (rtaddr 0x200000) is not captured"},
	};

	memset(mem, 0, sizeof mem);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct tu_cap k = load("intel-vtd", bad[i].sec);

		ck_assert_msg(k.rc != PT_OK, "%s loaded", bad[i].sec);
		ck_assert_msg(strstr(pt_capture_error(k.c), bad[i].msg), "%s: '%s' lacks '%s'",
			      bad[i].sec, pt_capture_error(k.c), bad[i].msg);
		tu_cap_free(&k);
	}
}
END_TEST

/* Legacy mode: bus 0x3a's context table, a shared domain, pass-through, a bad entry. */
START_TEST(vtd_legacy)
{
	const struct pt_context *ctx;
	struct pt_walk w;
	struct tu_cap k;

	memset(mem, 0, sizeof mem);
	sl_tables();
	put(BASE + 16 * 0x3a, 0x101000 | 1);
	/* 3a:02.0, 3a:02.1: TT 00, AW 1, DIDs 7; 3a:1f.7 TT 10 AW 2; 3a:03.0 reserved bit 4 */
	put(0x101000 + 16 * 0x10, 0x110000 | 1);
	put(0x101000 + 16 * 0x10 + 8, 1 | 7 << 8);
	put(0x101000 + 16 * 0x11, 0x110000 | 1);
	put(0x101000 + 16 * 0x11 + 8, 1 | 7 << 8);
	put(0x101000 + 16 * 0xff, 2 << 2 | 1);
	put(0x101000 + 16 * 0xff + 8, 2);
	put(0x101000 + 16 * 0x18, 0x110000 | 1 << 4 | 1);
	put(0x101000 + 16 * 0x18 + 8, 1);
	k = load("intel-vtd", "[iommu dmar3]\ntype = intel-vtd\nrtaddr = 0x100000\nsegment = 2\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 3);
	walks_to(k.c, "dmar3.0002:3a:02.0", 0x123, 0x87654123ull);
	walks_to(k.c, "dmar3.0002:3a:02.1", 0x123, 0x87654123ull);
	ctx = pt_capture_context_find(k.c, "dmar3.0002:3a:1f.7");
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(pt_walk_va(ctx, 0x5000, &w), PT_OK);
	ck_assert(pt_walk_aperture_hit(&w));
	ck_assert_str_eq(w.aperture.name, "pass-through");
	ck_assert_ptr_nonnull(ctx->iommu);
	ck_assert_str_eq(ctx->iommu->iommu, "dmar3");
	ck_assert_uint_eq(ctx->iommu->bdf, 0x3aff);
	ck_assert_uint_eq(ctx->iommu->segment, 2);
	ck_assert_uint_eq(ctx->iommu->entry_addr, 0x101000 + 16 * 0xff);
	ck_assert(warned(k.c, "dmar3.0002:3a:03.0 context entry at sysmem 0x101180"));
	ck_assert(warned(k.c, "reserved bits"));
	tu_cap_free(&k);

	/* TTM 11: abort-DMA mode reads nothing and says so */
	k = load("intel-vtd", "[iommu dmar3]\ntype = intel-vtd\nrtaddr = 0x100c00\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 0);
	ck_assert(warned(k.c, "abort-DMA mode"));
	tu_cap_free(&k);
}
END_TEST

/* Scalable mode: RID_PASID 3 is the device context, PASID 0x41 second-level too. */
START_TEST(vtd_scalable)
{
	const struct pt_context *ctx;
	struct tu_cap k;

	memset(mem, 0, sizeof mem);
	sl_tables();
	put(BASE + 8, 0x101000 | 1);                    /* bus 0, upper half: devfn 128-255 */
	put(0x101000 + 32 * 5, 0x102000 | 1 << 9 | 1);  /* devfn 0x85: PDTS 1, 256 dir entries */
	put(0x101000 + 32 * 5 + 8, 3);                  /* RID_PASID 3 */
	put(0x102000, 0x103000 | 1);                    /* PASIDs 0-63 */
	put(0x102000 + 8, 0x104000 | 1);                /* PASIDs 64-127 */
	put(0x103000 + 64 * 3, 0x110000 | 2 << 6 | 1 << 2 | 1);
	put(0x104000 + 64 * 1, 0x110000 | 2 << 6 | 1 << 2 | 1);
	put(0x104000 + 64 * 2, 0x110000 | 3 << 6 | 1 << 2 | 1);   /* PGTT 011: nested */
	k = load("intel-vtd", "[iommu d]\ntype = intel-vtd\nrtaddr = 0x100400\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	walks_to(k.c, "d.00:10.5", 0x10, 0x87654010ull);
	walks_to(k.c, "d.00:10.5.pasid65", 0x10, 0x87654010ull);
	ck_assert(!warned(k.c, "nested"));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 4);
	walks_to(k.c, "d.00:10.5.pasid66.s2", 0x10, 0x87654010ull);
	ctx = pt_capture_context_find(k.c, "d.00:10.5");
	ck_assert(ctx->iommu->has_pasid);
	ck_assert_uint_eq(ctx->iommu->pasid, 3);
	tu_cap_free(&k);
}
END_TEST

/*
 * Nested (PGTT 011, VT-d spec §3.8, §9.6): the second level at 0x110000
 * (SLPTPTR, AW 1: 3 levels) maps IOVA-space pages 1-4 to 0x121000-0x124000
 * and page 9 to 0x87654000; page 8 is not mapped.  The first level (FLPTR
 * 0x1000, FLPM 0: 4 levels) is read through it: its PML4, PDPT, PD and PT
 * at 0x1000-0x4000 of that space.  VA 0 -> 0x9000 -> 0x87654000; VA 0x1000
 * -> 0x8000 (its page faults at stage 2); VA 0x2000 not mapped (stage 1);
 * VA 2M's PT is at 0x8000 (a table read faults at stage 2).
 */
static void guest_tables(void)
{
	put(0x121000, 0x2000 | 7);                      /* PML4[0] (P, R/W, U/S) */
	put(0x122000, 0x3000 | 7);                      /* PDPT[0] */
	put(0x123000, 0x4000 | 7);                      /* PD[0] */
	put(0x123000 + 8, 0x8000 | 7);                  /* PD[1]: its PT at 0x8000 */
	put(0x124000, 0x9000 | 7);                      /* PT[0] */
	put(0x124000 + 8, 0x8000 | 7);                  /* PT[1] */
}

static void nested_tables(void)
{
	memset(mem, 0, sizeof mem);
	put(0x110000, 0x111000 | 3);
	put(0x111000, 0x112000 | 3);
	for (unsigned i = 1; i <= 4; i++)
		put(0x112000 + 8 * i, (0x120000 + 0x1000ull * i) | 3);
	put(0x112000 + 8 * 9, 0x87654000ull | 3);
	guest_tables();
	put(BASE + 8, 0x101000 | 1);                    /* bus 0, devfn 128-255 */
	put(0x101000 + 32 * 5, 0x102000 | 1 << 9 | 1);  /* 00:10.5: PDTS 1 */
	put(0x101000 + 32 * 5 + 8, 3);                  /* RID_PASID 3 */
	put(0x102000, 0x103000 | 1);
	put(0x102000 + 8, 0x104000 | 1);
	/* QW0: SLPTPTR, PGTT 011, AW 1, P; QW2: FLPTR, FLPM 0 */
	put(0x103000 + 64 * 3, 0x110000 | 3 << 6 | 1 << 2 | 1);
	put(0x103000 + 64 * 3 + 16, 0x1000);
	put(0x104000 + 64 * 1, 0x110000 | 3 << 6 | 1 << 2 | 1);
	put(0x104000 + 64 * 1 + 16, 0x1000);
}

static struct pt_walk walk(const struct pt_capture *c, const char *name, uint64_t va)
{
	const struct pt_context *ctx = pt_capture_context_find(c, name);
	struct pt_walk w;

	ck_assert_msg(ctx != NULL, "no context %s", name);
	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	return w;
}

#define HAND_PE "0x00000000001100c5 0 0x0000000000001000"
START_TEST(vtd_nested)
{
	static const uint64_t vas[] = {0x10, 0x1010, 0x2000, 0x200000, 0x8000000000ull};
	struct pt_walk w, h;
	struct tu_cap k;
	int sp;

	nested_tables();
	/* the [iommu] expansion, and by hand: the stage 2, a space through it, the first level */
	k = load("intel-vtd", "[iommu d]\ntype = intel-vtd\nrtaddr = 0x100400\n"
		 "[vtd h.s2]\npasid_entry = " HAND_PE "\n[space hs2]\ntranslate = h.s2\n"
		 "[cpu h]\npasid_entry = " HAND_PE "\nspace = hs2\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 6);
	ck_assert_uint_eq(pt_capture_warning_count(k.c), 0);
	ck_assert_str_eq(pt_capture_context_find(k.c, "d.00:10.5")->fmt->name, "x86-64");
	ck_assert_str_eq(pt_capture_context_find(k.c, "d.00:10.5.s2")->fmt->name, "intel-vtd");
	ck_assert_uint_eq(pt_capture_context_find(k.c, "d.00:10.5.pasid65")->iommu->pasid, 65);
	sp = pt_capture_space_find(k.c, "d.00-10.5.s2");
	ck_assert_int_ge(sp, 0);
	ck_assert_str_eq(pt_capture_space_translate(k.c, (unsigned)sp)->name, "d.00:10.5.s2");
	sp = pt_capture_space_find(k.c, "d.00-10.5.pasid65.s2");
	ck_assert_int_ge(sp, 0);
	ck_assert_str_eq(pt_capture_space_translate(k.c, (unsigned)sp)->name,
			 "d.00:10.5.pasid65.s2");
	/* the stage 2 alone: an IOVA-space address to the system's */
	walks_to(k.c, "d.00:10.5.s2", 0x9010, 0x87654010ull);
	/* both stages: the intermediate address and the final one */
	w = walk(k.c, "d.00:10.5", 0x10);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.pa, 0x9010);
	ck_assert(w.translated);
	ck_assert_uint_eq(w.final_pa, 0x87654010ull);
	ck_assert_str_eq(pt_capture_space_name(k.c, w.final_space), "sysmem");
	w = walk(k.c, "d.00:10.5.pasid65", 0x10);
	ck_assert_uint_eq(w.final_pa, 0x87654010ull);
	/* the page faults at stage 2, in the device's own stage 2 */
	w = walk(k.c, "d.00:10.5", 0x1010);
	ck_assert_int_eq(w.fault, PT_FAULT_STAGE2);
	ck_assert_int_eq(w.s2.fault, PT_FAULT_UNMAPPED);
	ck_assert_str_eq(w.s2.ctx->name, "d.00:10.5.s2");
	ck_assert_int_eq(w.fault_step, w.leaf_step);
	/* stage 1 not mapped */
	w = walk(k.c, "d.00:10.5", 0x2000);
	ck_assert_int_eq(w.fault, PT_FAULT_UNMAPPED);
	/* a first-level table read faults at stage 2: the PT at 0x8000 */
	w = walk(k.c, "d.00:10.5", 0x200000);
	ck_assert_int_eq(w.fault, PT_FAULT_STAGE2);
	ck_assert_int_eq(w.s2.fault, PT_FAULT_UNMAPPED);
	ck_assert_uint_eq(w.s2.addr & ~0xfffull, 0x8000);
	ck_assert_int_eq(w.fault_step, 3);
	/* the hand-written sections walk the same */
	for (size_t i = 0; i < sizeof vas / sizeof vas[0]; i++) {
		w = walk(k.c, "d.00:10.5", vas[i]);
		h = walk(k.c, "h", vas[i]);
		ck_assert_int_eq(w.fault, h.fault);
		ck_assert_int_eq(w.fault_step, h.fault_step);
		ck_assert_uint_eq(w.nsteps, h.nsteps);
		ck_assert_uint_eq(w.pa, h.pa);
		ck_assert_uint_eq(w.final_pa, h.final_pa);
		ck_assert_int_eq(w.s2.fault, h.s2.fault);
		ck_assert_uint_eq(w.s2.addr, h.s2.addr);
	}
	tu_cap_free(&k);
	/* a first level the format refuses (FLPM 11 reserved): the stage 2 only, no space left behind */
	put(0x103000 + 64 * 3 + 16, 0x1000 | 3 << 2);
	k = load("intel-vtd", "[iommu d]\ntype = intel-vtd\nrtaddr = 0x100400\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 3);
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "d.00:10.5.s2"));
	ck_assert_ptr_null(pt_capture_context_find(k.c, "d.00:10.5"));
	ck_assert(warned(k.c, "FLPM 3 is reserved"));
	ck_assert_int_lt(pt_capture_space_find(k.c, "d.00-10.5.s2"), 0);
	ck_assert_int_ge(pt_capture_space_find(k.c, "d.00-10.5.pasid65.s2"), 0);
	tu_cap_free(&k);
	/* the second level's output (gpa) is translated twice already: no fourth stage */
	put(0x103000 + 64 * 3 + 16, 0x1000);
	k = load("intel-vtd", "[iommu d]\ntype = intel-vtd\nrtaddr = 0x100400\noutput_space = gpa\n"
		 "[vtd a]\nslptptr = 0x110000\naw = 39\nspace = hpa\noutput_space = hpa\n"
		 "[space gpa]\ntranslate = a\n[vtd b]\nslptptr = 0x110000\naw = 39\n"
		 "[space hpa]\ntranslate = b\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 4);
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "d.00:10.5.s2"));
	ck_assert(warned(k.c, "d.00:10.5.s2: its space gpa is translated twice already"));
	tu_cap_free(&k);
}
END_TEST

START_TEST(amdvi)
{
	struct tu_cap k;

	memset(mem, 0, sizeof mem);
	/* Mode 3 tables at 0x110000: the same layout reads as AMD-Vi PDEs with NL and PR */
	put(0x110000, 0x111000 | 2 << 9 | 1 | 3ull << 61);
	put(0x111000, 0x112000 | 1 << 9 | 1 | 3ull << 61);
	put(0x112000, 0x87654000ull | 1 | 3ull << 61);
	/* DTEs: 01:00.0 (DeviceID 0x100, page 2) Mode 3; 00:00.1 V without TV: no context */
	put(BASE + 32 * 0x100, 0x110000 | 3 << 9 | 3 | 3ull << 61);
	put(BASE + 32 * 1, 1);
	k = load("amd-vi", "[iommu v]\ntype = amd-vi\ndev_table_base = 0x100002\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 1);
	walks_to(k.c, "v.01:00.0", 0x10, 0x87654010ull);
	tu_cap_free(&k);
	/* Size 0: one page, DeviceIDs 0-127 only */
	k = load("amd-vi", "[iommu v]\ntype = amd-vi\ndev_table_base = 0x100000\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 0);
	tu_cap_free(&k);
}
END_TEST

/* A linear stream table past the capture: read up to there, one warning, bounded work. */
/*
 * AMD-Vi GV = 1: DTEs built field by field (AMD IOMMU spec §2.2.2; Linux
 * amd_iommu_types.h): qword 0 V 0, TV 1, Mode 11:9, GIoV 54, GV 55, GLX
 * 57:56, GCR3 root 14:12 at 60:58, IR 61, IW 62; qword 1 GCR3 root 30:15
 * at 31:16, 51:31 at 63:43; qword 2 guest paging level 55:54.  The host
 * (v1, Mode 3) tables at 0x110000 map what nested_tables()' second level
 * maps; the guest tables are guest_tables()'.
 */
static uint64_t dte0(uint64_t mode, bool giov, uint64_t glx, uint64_t root)
{
	return (mode ? 0x110000 : 0) | mode << 9 | 3 | (uint64_t)giov << 54 | 1ull << 55 |
	       glx << 56 | ((root >> 12) & 7) << 58 | 3ull << 61;
}

static uint64_t dte1(uint64_t root)
{
	return ((root >> 15) & 0xffff) << 16 | ((root >> 31) & 0x1fffff) << 43;
}

static void put_dte(unsigned devid, uint64_t q0, uint64_t q1, uint64_t q2)
{
	put(BASE + 32 * devid, q0);
	put(BASE + 32 * devid + 8, q1);
	put(BASE + 32 * devid + 16, q2);
}

#define AMD_PDE(a, nl) ((a) | (nl) << 9 | 1 | 3ull << 61)
START_TEST(amdvi_guest)
{
	static const uint64_t vas[] = {0x10, 0x1010, 0x2000, 0x200000};
	struct pt_walk w, h;
	struct tu_cap k;
	char ini[512];
	int sp;

	memset(mem, 0, sizeof mem);
	put(0x110000, AMD_PDE(0x111000ull, 2));
	put(0x111000, AMD_PDE(0x112000ull, 1));
	for (unsigned i = 1; i <= 4; i++)
		put(0x112000 + 8 * i, AMD_PDE(0x120000 + 0x1000ull * i, 0));
	put(0x112000 + 8 * 9, AMD_PDE(0x87654000ull, 0));
	guest_tables();
	/* v2 mode's guest tables, in system addresses: 0x125000 -> ... -> 0x87654000 */
	put(0x125000, 0x126000 | 7);
	put(0x126000, 0x127000 | 7);
	put(0x127000, 0x128000 | 7);
	put(0x128000, 0x87654000ull | 7);
	/* GCR3 tables: 0x135000 PASIDs 0 and 5; 0x136000 PASID 0 (v2); 0x137000 two levels */
	put(0x135000, 0x1000 | 1);
	put(0x135000 + 8 * 5, 0x1000 | 1);
	/* 0x101's own copy: a GCR3 table two DTEs share is read once (iommu_seen.c) */
	put(0x13a000, 0x1000 | 1);
	put(0x13a000 + 8 * 5, 0x1000 | 1);
	put(0x136000, 0x125000 | 1);
	put(0x137000, 0x138000 | 1);
	put(0x137000 + 8, 0x137000 | 1);                 /* PASIDs 512-1023: the table itself */
	put(0x137000 + 16, 0x139000 | 1);
	put(0x138000 + 8 * 3, 0x1000 | 1);               /* PASID 3 */
	put(0x139000 + 8 * 1, 0x1000 | 1);               /* PASID 1025 */
	put_dte(0x100, dte0(3, false, 0, 0x135000), dte1(0x135000), 0);
	put_dte(0x101, dte0(3, true, 0, 0x13a000), dte1(0x13a000), 0);
	put_dte(0x102, dte0(0, true, 0, 0x136000), dte1(0x136000), 0);
	put_dte(0x103, dte0(3, false, 1, 0x137000), dte1(0x137000), 0);
	put_dte(0x104, dte0(3, false, 2, 0x135000), dte1(0x135000), 0);      /* GLX 10 reserved */
	put_dte(0x105, dte0(3, false, 0, 0x80135000), dte1(0x80135000), 0);  /* root past memory */
	put_dte(0x106, dte0(3, false, 0, 0x135000), dte1(0x135000), 2ull << 54);
	snprintf(ini, sizeof ini, "[iommu v]\ntype = amd-vi\ndev_table_base = 0x100002\n"
		 "[amdvi h]\ndte = 0x%016" PRIx64 "\n[space hx]\ntranslate = h\n"
		 "[cpu hg]\ncr3 = 0x1000\nla57 = 0\nspace = hx\n", dte0(3, false, 0, 0x135000));
	k = load("amd-vi", ini);
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	/* 0x100: 3, 0x101: 3, 0x102: 1, 0x103: 3, 0x104-0x106: 1 each; by hand 2 */
	ck_assert_uint_eq(pt_capture_context_count(k.c), 15);
	ck_assert_uint_eq(pt_capture_warning_count(k.c), 4);
	ck_assert(!warned(k.c, "not read, only"));
	/* GIoV 0, Mode 3: the device is its host tables, every PASID a guest through them */
	walks_to(k.c, "v.01:00.0", 0x9010, 0x87654010ull);
	ck_assert_str_eq(pt_capture_context_find(k.c, "v.01:00.0.pasid0")->fmt->name, "x86-64");
	sp = pt_capture_space_find(k.c, "v.01-00.0");
	ck_assert_int_ge(sp, 0);
	ck_assert_str_eq(pt_capture_space_translate(k.c, (unsigned)sp)->name, "v.01:00.0");
	w = walk(k.c, "v.01:00.0.pasid5", 0x10);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert_uint_eq(w.pa, 0x9010);
	ck_assert(w.translated);
	ck_assert_uint_eq(w.final_pa, 0x87654010ull);
	ck_assert_uint_eq(pt_capture_context_find(k.c, "v.01:00.0.pasid5")->iommu->pasid, 5);
	w = walk(k.c, "v.01:00.0.pasid5", 0x1010);
	ck_assert_int_eq(w.fault, PT_FAULT_STAGE2);
	ck_assert_str_eq(w.s2.ctx->name, "v.01:00.0");
	w = walk(k.c, "v.01:00.0.pasid5", 0x2000);
	ck_assert_int_eq(w.fault, PT_FAULT_UNMAPPED);
	for (size_t i = 0; i < sizeof vas / sizeof vas[0]; i++) {
		w = walk(k.c, "v.01:00.0.pasid5", vas[i]);
		h = walk(k.c, "hg", vas[i]);
		ck_assert_int_eq(w.fault, h.fault);
		ck_assert_int_eq(w.fault_step, h.fault_step);
		ck_assert_uint_eq(w.pa, h.pa);
		ck_assert_uint_eq(w.final_pa, h.final_pa);
		ck_assert_int_eq(w.s2.fault, h.s2.fault);
		ck_assert_uint_eq(w.s2.addr, h.s2.addr);
	}
	/* GIoV 1: PASID 0 is the device context, the host tables alone .s2 */
	ck_assert_str_eq(pt_capture_context_find(k.c, "v.01:00.1")->fmt->name, "x86-64");
	walks_to(k.c, "v.01:00.1.s2", 0x9010, 0x87654010ull);
	w = walk(k.c, "v.01:00.1", 0x10);
	ck_assert_uint_eq(w.final_pa, 0x87654010ull);
	ck_assert_str_eq(walk(k.c, "v.01:00.1", 0x1010).s2.ctx->name, "v.01:00.1.s2");
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "v.01:00.1.pasid5"));
	ck_assert_int_ge(pt_capture_space_find(k.c, "v.01-00.1.s2"), 0);
	/* Mode 0, GIoV 1 (v2 mode): PASID 0's tables in system addresses, no second stage */
	w = walk(k.c, "v.01:00.2", 0x10);
	ck_assert_int_eq(w.fault, PT_FAULT_NONE);
	ck_assert(!w.translated);
	ck_assert_uint_eq(w.pa, 0x87654010ull);
	ck_assert_ptr_null(pt_capture_context_find(k.c, "v.01:00.2.s2"));
	/* two levels: PASIDs 3 and 1025; the entry pointing at its own table is one warning */
	walks_to(k.c, "v.01:00.3", 0x9010, 0x87654010ull);
	ck_assert_uint_eq(walk(k.c, "v.01:00.3.pasid3", 0x10).final_pa, 0x87654010ull);
	ck_assert_uint_eq(walk(k.c, "v.01:00.3.pasid1025", 0x10).final_pa, 0x87654010ull);
	ck_assert(warned(k.c, "DeviceID 0x0103: GCR3 entry 1 points at its own table at sysmem"
			 " 0x137000: not read"));
	/* reserved GLX, guest level; a root past the capture (its bits 51:31 read): host only */
	ck_assert(warned(k.c, "DeviceID 0x0104: its DTE at sysmem 0x102080 has GV = 1 with GLX 2"
			 " reserved"));
	ck_assert(warned(k.c, "guest paging level 2 reserved"));
	ck_assert(warned(k.c, "DeviceID 0x0105: its GCR3 table at sysmem 0x80135000 is not"
			 " captured"));
	for (unsigned d = 4; d <= 6; d++) {
		char n[32], x[32];

		snprintf(n, sizeof n, "v.01:00.%u", d);
		snprintf(x, sizeof x, "v.01-00.%u", d);
		walks_to(k.c, n, 0x9010, 0x87654010ull);
		ck_assert_int_lt(pt_capture_space_find(k.c, x), 0);
	}
	tu_cap_free(&k);
}
END_TEST

START_TEST(smmu_linear)
{
	struct tu_cap k;

	memset(mem, 0, sizeof mem);
	put(BASE + 64 * 7, 1 | 4 << 1);                 /* sid 7: bypass */
	k = load("arm-smmuv3", "[iommu s]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n"
		 "strtab_base_cfg = 32\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 1);
	ck_assert_ptr_nonnull(pt_capture_context_find(k.c, "s.sid7"));
	ck_assert_uint_eq(pt_capture_context_find(k.c, "s.sid7")->iommu->sid, 7);
	ck_assert(warned(k.c, "the STE of StreamID 4096 at sysmem 0x140000 is not captured"));
	tu_cap_free(&k);

	/*
	 * sid 9: stage 1, S1CDMax 1 (two CDs), S1DSS 10 (SSID0): CD 0 is the
	 * stream's own context, CD 1 its `.ssid1`; CD word 0 T0SZ 16, EPD1, V,
	 * IPS 5, AA64; word 1 TTB0; a 4 KiB page at 0x1000 (AF, AttrIndx 1)
	 */
	for (unsigned i = 0; i < 2; i++) {
		put(0x120000 + 64 * i, 16 | 1ull << 30 | 1ull << 31 | 5ull << 32 | 1ull << 41);
		put(0x120008 + 64 * i, 0x121000);
	}
	put(0x121000, 0x122000 | 3);
	put(0x122000, 0x123000 | 3);
	put(0x123000, 0x124000 | 3);
	put(0x124008, 0x12345000ull | 3 | 1 << 10 | 1 << 2);
	put(BASE + 64 * 9, 1 | 5 << 1 | 0x120000 | 1ull << 59);
	put(BASE + 64 * 9 + 8, 2);
	k = load("arm-smmuv3", "[iommu s]\ntype = arm-smmuv3\nstrtab_base = 0x100000\n"
		 "strtab_base_cfg = 4\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 3);
	walks_to(k.c, "s.sid9", 0x1234, 0x12345234ull);
	walks_to(k.c, "s.sid9.ssid1", 0x1234, 0x12345234ull);
	ck_assert_uint_eq(pt_capture_context_find(k.c, "s.sid9")->iommu->sid, 9);
	tu_cap_free(&k);
}
END_TEST

/* Hostile: every root entry's context table is the root table; a name taken by a section. */
START_TEST(hostile)
{
	struct tu_cap k;

	memset(mem, 0, sizeof mem);
	for (unsigned b = 0; b < 256; b++)
		put(BASE + 16 * b, BASE | 1);
	k = load("intel-vtd", "[iommu d]\ntype = intel-vtd\nrtaddr = 0x100000\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 0);
	ck_assert(warned(k.c, "bus 00: its context table is the root table"));
	tu_cap_free(&k);
	/* scalable: a directory of 2^14 entries, each pointing at the same PASID table of 64 */
	memset(mem, 0, sizeof mem);
	put(BASE, 0x101000 | 1);
	put(0x101000, 0x110000 | 7 << 9 | 1);
	for (unsigned i = 0; i < 1u << 14; i++)
		put(0x110000 + 8 * i, 0x130000 | 1);
	k = load("intel-vtd", "[iommu d]\ntype = intel-vtd\nrtaddr = 0x100400\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	ck_assert_uint_eq(pt_capture_context_count(k.c), 0);
	tu_cap_free(&k);
	/* a device context named as a section is an error */
	memset(mem, 0, sizeof mem);
	put(BASE + 64 * 7, 1 | 4 << 1);
	k = load("arm-smmuv3", "[smmu s.sid7]\nste0 = 0x9\n[iommu s]\ntype = arm-smmuv3\n"
		 "strtab_base = 0x100000\nstrtab_base_cfg = 4\n");
	ck_assert_int_eq(k.rc, PT_E_VALUE);
	ck_assert_msg(strstr(pt_capture_error(k.c), "capture.ini:10: [iommu s]: its device context"
			     " 's.sid7' has the name of [smmu s.sid7] (line 8)"), "%s",
		      pt_capture_error(k.c));
	tu_cap_free(&k);
}
END_TEST

void iommu_add_bound(Suite *s);  /* test_iommu_bound.c */

/*
 * The family (pt_iommu_format.h): the list by name and kind, each IOMMU's
 * register keys, and its decoders on entries written from the specs (VT-d
 * §9.4 PDTS 11:9 and RID_PASID; AMD-Vi §2.2.2 Mode, GV, GLX and the GCR3
 * root cut in three; IHI 0070 §5.2 Config, S1Fmt, S1CDMax, S1DSS).
 */
START_TEST(family)
{
	struct pt_vtd_smctx sc;
	struct pt_amd_dte d;
	struct pt_smmu_ste e;
	uint64_t q[4] = {0}, w[4] = {0};

	ck_assert_ptr_eq(pt_iommu_format_find("amd-vi"), &pt_iommu_amdvi_format);
	ck_assert_ptr_null(pt_iommu_format_find("x86-64"));
	for (unsigned i = 0; pt_iommu_format_list[i]; i++)
		ck_assert_ptr_eq(pt_iommu_format_of(pt_iommu_format_list[i]->kind), pt_iommu_format_list[i]);
	ck_assert_str_eq(pt_iommu_kind_name(PT_IOMMU_KIND_SMMUV3), "arm-smmuv3");
	ck_assert_str_eq(pt_iommu_kind_name(0), "?");
	ck_assert(pt_iommu_vtd_format.keys >> PT_IK_SEGMENT & 1);
	ck_assert(!(pt_iommu_smmuv3_format.keys >> PT_IK_SEGMENT & 1));
	ck_assert_uint_eq(pt_vtd_ttm(0x100400), PT_VTD_TTM_SCALABLE);
	ck_assert_uint_eq(pt_vtd_root_table(0xfff0000000100400ull), 0x100000);
	pt_vtd_smctx(0x123000 | 2 << 9 | 1, 0x1234, &sc);
	ck_assert_uint_eq(sc.dir, 0x123000);
	ck_assert_uint_eq(sc.ndir, 512);
	ck_assert_uint_eq(sc.rid_pasid, 0x1234);
	ck_assert_uint_eq(pt_vtd_pgtt(3 << 6 | 1), PT_VTD_PGTT_NESTED);
	q[0] = 3 | 4ull << 9 | 1ull << 55 | 1ull << 56 | 5ull << 58;
	q[1] = 0xabcdull << 16 | 0x12345ull << 43;
	q[2] = 1ull << 54;
	pt_amd_dte(q, &d);
	ck_assert(pt_amd_dte_device(q[0]) && d.gv && !d.giov);
	ck_assert_uint_eq(d.mode, 4);
	ck_assert_uint_eq(d.glx, 1);
	ck_assert_uint_eq(d.gpt, 1);
	ck_assert_uint_eq(d.gcr3, 5ull << 12 | 0xabcdull << 15 | 0x12345ull << 31);
	w[0] = 1 | 5 << 1 | 1 << 4 | 0x45640ull | 3ull << 59;
	w[1] = 2;
	pt_smmu_ste(w, &e);
	ck_assert(e.v);
	ck_assert_uint_eq(e.config, PT_SMMU_CFG_S1);
	ck_assert_uint_eq(e.s1fmt, 1);
	ck_assert_uint_eq(e.s1cdmax, 3);
	ck_assert_uint_eq(e.s1dss, PT_SMMU_S1DSS_SSID0);
	ck_assert_uint_eq(e.s1ctx, 0x45640);
	ck_assert_uint_eq(pt_smmu_cd_split(e.s1fmt), 6);
}
END_TEST

/*
 * Each layout fact once (issue #41 item 1): the helpers the walks, the
 * tree and the scan share — VT-d §9.1/9.3/9.4/9.5/9.6 entry sizes and
 * halves, AMD-Vi §3.3.1 DTE pages and §2.2.6 GCR3 entries, IHI 0070
 * §5.1-5.4 StreamID and SubstreamID splits — and the family's data the
 * tree and the loader read instead of a switch on the kind (item 3):
 * abort-DMA blocks every request, the widths of the ids.
 */
START_TEST(family_layout)
{
	uint64_t reg[PT_IK__COUNT] = {0};
	unsigned dev, sub;

	ck_assert_uint_eq(pt_vtd_ctx_count(false), 256);
	ck_assert_uint_eq(pt_vtd_ctx_count(true), 128);
	ck_assert_uint_eq(pt_vtd_ctx_entry(0x1000, 0x85, true), 0x1000 + 32 * 5);
	ck_assert_uint_eq(pt_vtd_ctx_entry(0x1000, 0x85, false), 0x1000 + 16 * 0x85);
	ck_assert_uint_eq(pt_vtd_ctx_half(0x85, true), 1);
	ck_assert_uint_eq(pt_vtd_ctx_half(0x85, false), 0);
	ck_assert_uint_eq(pt_vtd_pasiddir_entry(0x2000, 130), 0x2000 + 8 * 2);
	ck_assert_uint_eq(pt_vtd_pasid_entry(0x3000, 130), 0x3000 + 64 * 2);
	ck_assert_uint_eq(pt_vtd_root_entry(0x4400, 3), 0x4000 + 48);
	ck_assert_uint_eq(pt_amd_dte_addr(0x10001, 129), 0x10000 + 32 * 129);
	ck_assert_uint_eq(pt_amd_dte_count(0x10001), 256);
	ck_assert(pt_amd_dte_valid(1) && !pt_amd_dte_device(1));
	ck_assert_uint_eq(pt_amd_gcr3_entry(0x5000, 3), 0x5018);
	/* SMMUv3: LOG2SIZE 16, SPLIT 8, 2-level */
	reg[PT_IK_STRCFG] = 1ull << 16 | 8 << 6 | 16;
	ck_assert_uint_eq(pt_smmu_l1_index(reg[PT_IK_STRCFG], 0x1234), 0x12);
	ck_assert_uint_eq(pt_smmu_l2_index(reg[PT_IK_STRCFG], 0x1234), 0x34);
	ck_assert_uint_eq(pt_smmu_l1_first_sid(reg[PT_IK_STRCFG], 0x12), 0x1200);
	ck_assert_uint_eq(pt_smmu_linear_count(reg[PT_IK_STRCFG]), 65536);
	ck_assert_uint_eq(pt_smmu_linear_count(40), 1ull << 32);
	ck_assert(pt_smmu_cd_two_level(1) && pt_smmu_cd_two_level(2));
	ck_assert(!pt_smmu_cd_two_level(0) && !pt_smmu_cd_two_level(3));
	ck_assert_uint_eq(pt_smmu_cd_addr(0x6000, 70, 1), 0x6000 + 64 * 6);
	ck_assert_uint_eq(pt_smmu_cd_addr(0x6000, 70, 0), 0x6000 + 64 * 70);
	ck_assert_uint_eq(pt_smmu_l1cd_addr(0x7000, 2048, 2), 0x7000 + 16);
	ck_assert(pt_smmu_l1cd_reserved(0x3) && !pt_smmu_l1cd_reserved(0x8001));
	ck_assert(pt_smmu_ste_valid(1) && !pt_smmu_ste_valid(2));
	pt_iommu_smmuv3_format.id_bits(reg, &dev, &sub);
	ck_assert_uint_eq(dev, 16);
	ck_assert_uint_eq(sub, 20);
	ck_assert_ptr_null(pt_iommu_smmuv3_format.blocks_all);
	ck_assert_ptr_null(pt_iommu_amdvi_format.blocks_all);
	reg[PT_IK_RTADDR] = 0x1000 | 3 << 10;
	ck_assert(pt_iommu_vtd_format.blocks_all(reg));
	pt_iommu_vtd_format.id_bits(reg, &dev, &sub);
	ck_assert_uint_eq(sub, 0);
	reg[PT_IK_RTADDR] = 0x1000 | 1 << 10;
	ck_assert(!pt_iommu_vtd_format.blocks_all(reg));
	pt_iommu_vtd_format.id_bits(reg, &dev, &sub);
	ck_assert_uint_eq(dev, 16);
	ck_assert_uint_eq(sub, 20);
	pt_iommu_amdvi_format.id_bits(reg, &dev, &sub);
	ck_assert_uint_eq(dev, 16);
	ck_assert_uint_eq(sub, 0);
}
END_TEST

/*
 * The one context factory (load/ctxmake.c): a VT-d legacy context entry's
 * key made a context that walks, a missing or a bad key refused.
 */
START_TEST(factory)
{
	const char *key[] = {"context", "space"}, *val[] = {"0x00000000000007010000000000110001", "gpa"};
	struct pt_context_spec spec = {.fmt = pt_format_find("intel-vtd"), .key = key, .val = val,
				       .nkeys = 1, .line = 7, .label = "[test]"};
	struct pt_context c = {.name = "made"};
	struct pt_walk w;
	char msg[256] = "";
	struct tu_cap k;

	memset(mem, 0, sizeof mem);
	sl_tables();
	k = load("intel-vtd", "[vtd a]\ncontext = 0x00000000000007010000000000110001\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	c.mem = pt_capture_mem(k.c);
	ck_assert_int_eq(pt_context_make(k.c, &spec, &c, msg, sizeof msg), PT_OK);
	ck_assert(c.space_mapped);
	ck_assert_int_eq(pt_walk_va(&c, 0x123, &w), PT_OK);
	ck_assert_uint_eq(w.pa, 0x87654123ull);
	pt_context_unmake(&c);
	ck_assert_ptr_null(c.priv);
	/* with its space key too */
	spec.nkeys = 2;
	memset(&c, 0, sizeof c);
	ck_assert_int_eq(pt_context_make(k.c, &spec, &c, msg, sizeof msg), PT_OK);
	ck_assert(c.space_mapped);
	pt_context_unmake(&c);
	/* no key: the format's missing key named */
	spec.nkeys = 0;
	memset(&c, 0, sizeof c);
	ck_assert_int_eq(pt_context_make(k.c, &spec, &c, msg, sizeof msg), PT_E_VALUE);
	ck_assert_msg(!strncmp(msg, "missing ", 8), "%s", msg);
	pt_context_unmake(&c);
	/* a key the format refuses names the line and the label */
	val[0] = "0x1";
	spec.nkeys = 1;
	memset(&c, 0, sizeof c);
	ck_assert_int_ne(pt_context_make(k.c, &spec, &c, msg, sizeof msg), PT_OK);
	pt_context_unmake(&c);
	tu_cap_free(&k);
}
END_TEST

/* F's info text of context C (made or not) into OUT. */
static void info_of(const struct pt_context *c, char *out, size_t len)
{
	struct pt_buf b;

	pt_buf_init(&b);
	c->fmt->info_text(c, &b);
	snprintf(out, len, "%s", b.len ? b.data : "");
	pt_buf_free(&b);
}

/*
 * The factory's numeric path (pt_context_spec.entry, issue #41 item 2):
 * an IOMMU device's decoded entry makes the context its section's keys
 * make — the same walk and the same info text, no text between them;
 * a check the format keeps (AMD-Vi Mode 7, SMMUv3 Config 001) refuses it
 * with the message a key gets, without the "capture.ini:LINE:" prefix; a
 * format that makes no device context says so; a space name is the
 * caller's own string, kept by the context (x86-64 space = NAME).
 */
START_TEST(factory_entry)
{
	const char *key[] = {"context", "space"}, *val[] = {"0x00000000000007010000000000110001", "gpa"};
	struct pt_ctx_entry e = {.kind = PT_CE_VTD_CONTEXT, .w = {0x110001, 0x701}, .space = "gpa",
				 .line = 7, .label = "[test]"};
	struct pt_context_spec spec = {.fmt = pt_format_find("intel-vtd"), .key = key, .val = val,
				       .nkeys = 2, .line = 7, .label = "[test]"};
	struct pt_context a = {.name = "keys"}, c = {.name = "entry"};
	char msg[512] = "", ia[1024], ic[1024];
	static char gname[] = "gpa";
	struct pt_walk w;
	struct tu_cap k;

	memset(mem, 0, sizeof mem);
	sl_tables();
	k = load("intel-vtd", "[vtd a]\ncontext = 0x00000000000007010000000000110001\n");
	ck_assert_msg(k.rc == PT_OK, "%s", pt_capture_error(k.c));
	a.mem = c.mem = pt_capture_mem(k.c);
	ck_assert_int_eq(pt_context_make(k.c, &spec, &a, msg, sizeof msg), PT_OK);
	spec.nkeys = 0;
	spec.entry = &e;
	ck_assert_int_eq(pt_context_make(k.c, &spec, &c, msg, sizeof msg), PT_OK);
	info_of(&a, ia, sizeof ia);
	info_of(&c, ic, sizeof ic);
	ck_assert_str_eq(ic, ia);
	ck_assert_msg(strstr(ic, "context: 0x00000000000007010000000000110001\n"), "%s", ic);
	ck_assert_msg(strstr(ic, "space: gpa\n"), "%s", ic);
	pt_context_unmake(&a);
	pt_context_unmake(&c);
	/* in sysmem (no space named): it walks */
	e.space = NULL;
	memset(&c, 0, sizeof c);
	c.mem = pt_capture_mem(k.c);
	ck_assert_int_eq(pt_context_make(k.c, &spec, &c, msg, sizeof msg), PT_OK);
	ck_assert_int_eq(pt_walk_va(&c, 0x123, &w), PT_OK);
	ck_assert_uint_eq(w.pa, 0x87654123ull);
	pt_context_unmake(&c);
	/* AMD-Vi: Mode 7 is the format's check, with the `dte` key's words */
	e = (struct pt_ctx_entry){.kind = PT_CE_AMD_DTE, .w = {3 | 7ull << 9}, .line = 7,
				  .label = "[test]"};
	spec.fmt = pt_format_find("amd-vi");
	memset(&c, 0, sizeof c);
	ck_assert_int_eq(pt_context_make(k.c, &spec, &c, msg, sizeof msg), PT_E_UNSUPPORTED);
	ck_assert_str_eq(msg, "dte 0x0000000000000e03 has Mode 7, which is reserved");
	pt_context_unmake(&c);
	/* SMMUv3: a reserved Config, named as an ste0 key is (its line's prefix aside) */
	e = (struct pt_ctx_entry){.kind = PT_CE_SMMU_STE, .w = {1 | 1 << 1}, .line = 7,
				  .label = "[test]"};
	spec.fmt = pt_format_find("arm-smmuv3");
	memset(&c, 0, sizeof c);
	ck_assert_int_eq(pt_context_make(k.c, &spec, &c, msg, sizeof msg), PT_E_VALUE);
	ck_assert_str_eq(msg, "ste0 0x3 in [test]: STE.Config (bits 3:1) 1 is reserved (000 abort,"
			 " 100 bypass, 101 stage 1, 110 stage 2, 111 nested; IHI 0070 §5.2)");
	pt_context_unmake(&c);
	/* x86-64: a GCR3 entry's CR3 and la57 in space NAME, the caller's string kept */
	e = (struct pt_ctx_entry){.kind = PT_CE_GCR3, .cr3 = 0x100000, .la57 = 0, .space = gname,
				  .line = 7, .label = "[test]"};
	spec.fmt = pt_format_find("x86-64");
	spec.any_space = true;
	memset(&c, 0, sizeof c);
	ck_assert_int_eq(pt_context_make(k.c, &spec, &c, msg, sizeof msg), PT_OK);
	ck_assert_ptr_eq(c.space_names[0], gname);
	ck_assert_uint_eq(c.root_addr, 0x100000);
	ck_assert_uint_eq(pt_format_nlevels(c.fmt), 4);
	pt_context_unmake(&c);
	/* a format that makes no device context */
	spec.fmt = pt_format_find("amd-gart");
	memset(&c, 0, sizeof c);
	ck_assert_int_eq(pt_context_make(k.c, &spec, &c, msg, sizeof msg), PT_E_UNSUPPORTED);
	pt_context_unmake(&c);
	tu_cap_free(&k);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("iommu");
	TCase *tc;

	tc = tcase_create("keys");
	tcase_add_test(tc, keys);
	tcase_add_test(tc, family);
	tcase_add_test(tc, family_layout);
	tcase_add_test(tc, factory);
	tcase_add_test(tc, factory_entry);
	suite_add_tcase(s, tc);
	tc = tcase_create("vtd");
	tcase_add_test(tc, vtd_legacy);
	tcase_add_test(tc, vtd_scalable);
	tcase_add_test(tc, vtd_nested);
	suite_add_tcase(s, tc);
	tc = tcase_create("amdvi");
	tcase_add_test(tc, amdvi);
	tcase_add_test(tc, amdvi_guest);
	suite_add_tcase(s, tc);
	tc = tcase_create("smmuv3");
	tcase_add_test(tc, smmu_linear);
	suite_add_tcase(s, tc);
	tc = tcase_create("hostile");
	tcase_add_test(tc, hostile);
	suite_add_tcase(s, tc);
	iommu_add_bound(s);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
