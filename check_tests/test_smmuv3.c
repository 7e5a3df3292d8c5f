/* SPDX-License-Identifier: MIT */
/*
 * test_smmuv3.c — the arm-smmuv3 format (docs/design.md §2.7): every STE
 * and CD field composed bit by bit from Arm IHI 0070 §5.2 (STE) and §5.4
 * (CD) as Linux drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.h and QEMU
 * hw/arm/smmuv3-internal.h name them (STE word 0: V 0, Config 3:1, S1Fmt
 * 5:4, S1ContextPtr 51:6, S1CDMax 63:59; word 2: S2VMID 15:0, S2T0SZ
 * 37:32, S2SL0 39:38, S2IR0 41:40, S2OR0 43:42, S2SH0 45:44, S2TG 47:46,
 * S2PS 50:48, S2AA64 51, S2ENDI 52, S2AFFD 53, S2PTW 54, S2HD 55, S2HA 56,
 * S2S 57, S2R 58; word 3: S2TTB 51:4; CD word 0: T0SZ 5:0, TG0 7:6, IRGN0
 * 9:8, ORGN0 11:10, SH0 13:12, EPD0 14, ENDI 15, T1SZ 21:16, TG1 23:22,
 * EPD1 30, V 31, IPS 34:32, AFFD 35, TBI 39:38, AA64 41, HD 42, HA 43, S
 * 44, R 45, A 46, ASET 47, ASID 63:48; word 1: NSCFG0 0, HAD0 1, TTB0
 * 51:4; word 2: NSCFG1 0, HAD1 1, TTB1 51:4), every special encoding
 * (STE.V 0, a reserved Config, bypass, abort, nested, CD.V 0, AArch32, big
 * endian, reserved TG/IPS/S2TG/S2PS/S2SL0, TxSZ out of range, EPD, a base
 * above the output size, a base below its alignment), and a constructed
 * walk per granule and page size at stage 1 and stage 2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_buf.h"
#include "pt_capture.h"
#include "pt_walk.h"
#include "testutil.h"

#define BIT(n) ((uint64_t)1 << (n))
#define F(v, lo) ((uint64_t)(v) << (lo))

/* STE (IHI 0070 §5.2; arm-smmu-v3.h STRTAB_STE_*) */
#define STE_V          BIT(0)
#define STE_CFG(n)     F(n, 1)
#define STE_S1FMT(n)   F(n, 4)
#define STE_S1CDMAX(n) F(n, 59)
#define S2VMID(n)      F(n, 0)
#define S2T0SZ(n)      F(n, 32)
#define S2SL0(n)       F(n, 38)
#define S2IR0(n)       F(n, 40)
#define S2OR0(n)       F(n, 42)
#define S2SH0(n)       F(n, 44)
#define S2TG(n)        F(n, 46)
#define S2PS(n)        F(n, 48)
#define S2AA64         BIT(51)
#define S2ENDI         BIT(52)
/* CD (IHI 0070 §5.4; CTXDESC_CD_0_*) */
#define CD_T0SZ(n)  F(n, 0)
#define CD_TG0(n)   F(n, 6)
#define CD_IRGN0(n) F(n, 8)
#define CD_ORGN0(n) F(n, 10)
#define CD_SH0(n)   F(n, 12)
#define CD_EPD0     BIT(14)
#define CD_ENDI     BIT(15)
#define CD_T1SZ(n)  F(n, 16)
#define CD_TG1(n)   F(n, 22)
#define CD_EPD1     BIT(30)
#define CD_V        BIT(31)
#define CD_IPS(n)   F(n, 32)
#define CD_TBI(n)   F(n, 38)  /* TBI1:TBI0 */
#define CD_AA64     BIT(41)
#define CD_R        BIT(45)
#define CD_A        BIT(46)
#define CD_ASID(n)  F(n, 48)
#define CD_HAD      BIT(1)   /* word 1 / word 2 */

/* arm64 descriptors (Arm ARM D8.2; pgtable-hwdef.h) */
#define TABLE 3ull
#define PAGE  3ull
#define BLOCK 1ull
#define AF    BIT(10)
/* stage 2 leaf: MemAttr 0xF, S2AP 11, SH 11, AF (kvm_pgtable.h) */
#define S2RW  0x7FCull

#define MEMSZ 0x400000
static uint8_t mem[MEMSZ];

static void put(uint64_t pa, uint64_t v)
{
	tu_put64(mem, MEMSZ, pa, v);
}

#define cap tu_cap

/* A capture of MEM at 0 in SPACE (tu_cap_load's, but for a gpa image) and SECTIONS. */
static struct cap load_in(const char *space, const char *sections)
{
	struct cap k = {0};
	char ini[4096];

	k.dir = tu_mkdtemp();
	snprintf(ini, sizeof ini,
		 "[capture]\nversion = 1\nformat = arm-smmuv3\n"
		 "[memory m]\nspace = %s\nbase = 0\nfile = mem/sys.bin\n%s", space, sections);
	tu_write(k.dir, "capture.ini", ini, strlen(ini));
	tu_write(k.dir, "mem/sys.bin", mem, sizeof mem);
	k.c = pt_capture_new();
	k.rc = pt_capture_load(k.c, k.dir);
	return k;
}

static struct cap load(const char *sections)
{
	return tu_cap_load("arm-smmuv3", 0, mem, sizeof mem, sections);
}

static const struct pt_context *ctx_of(struct cap *k)
{
	ck_assert_msg(k->rc == PT_OK, "%s", pt_capture_error(k->c));
	return pt_capture_context(k->c, 0);
}

static void unload(struct cap *k)
{
	tu_cap_free(k);
}

/* A section of the words given (0 = left out, except ste0). */
static struct cap load_words(const char *extra, uint64_t ste0, uint64_t ste2, uint64_t ste3,
			     uint64_t cd0, uint64_t cd1, uint64_t cd2)
{
	char ini[1024];
	size_t n = (size_t)snprintf(ini, sizeof ini, "[smmu s]\nste0 = 0x%" PRIx64 "\n", ste0);

	if (ste2)
		n += (size_t)snprintf(ini + n, sizeof ini - n, "ste2 = 0x%" PRIx64 "\n", ste2);
	if (ste3)
		n += (size_t)snprintf(ini + n, sizeof ini - n, "ste3 = 0x%" PRIx64 "\n", ste3);
	if (cd0)
		n += (size_t)snprintf(ini + n, sizeof ini - n, "cd0 = 0x%" PRIx64 "\n", cd0);
	if (cd1)
		n += (size_t)snprintf(ini + n, sizeof ini - n, "cd1 = 0x%" PRIx64 "\n", cd1);
	if (cd2)
		n += (size_t)snprintf(ini + n, sizeof ini - n, "cd2 = 0x%" PRIx64 "\n", cd2);
	snprintf(ini + n, sizeof ini - n, "%s", extra);
	return load(ini);
}

/* The value of info line "KEY: V" (text), as a number. */
static uint64_t info_u(const struct pt_context *ctx, const char *key)
{
	struct pt_buf b;
	char pat[96];
	const char *p;
	uint64_t v;

	pt_buf_init(&b);
	ctx->fmt->info_text(ctx, &b);
	snprintf(pat, sizeof pat, "\n%s: ", key);
	p = strstr(b.data, pat);
	ck_assert_msg(p != NULL, "no info line %s in\n%s", key, b.data);
	v = strtoull(p + strlen(pat), NULL, 0);
	pt_buf_free(&b);
	return v;
}

static bool info_has(const struct pt_context *ctx, const char *line)
{
	struct pt_buf b;
	bool r;

	pt_buf_init(&b);
	ctx->fmt->info_text(ctx, &b);
	r = strstr(b.data, line) != NULL;
	pt_buf_free(&b);
	return r;
}

static void load_err(struct cap k, pt_err want, const char *msg)
{
	ck_assert_msg(k.rc == want, "rc %d, want %d (%s)", k.rc, want, pt_capture_error(k.c));
	ck_assert_msg(strstr(pt_capture_error(k.c), msg) != NULL, "'%s' not in '%s'", msg,
		      pt_capture_error(k.c));
	unload(&k);
}

static struct pt_walk walk_ok(const struct pt_context *ctx, uint64_t va, uint64_t pa,
			      uint64_t size, const char *leaf_level)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == PT_FAULT_NONE, "va 0x%" PRIx64 ": fault %s", va,
		      pt_fault_name(w.fault));
	ck_assert_uint_eq(w.pa, pa);
	ck_assert_uint_eq(w.page_size, size);
	ck_assert_str_eq(ctx->fmt->levels[w.steps[w.leaf_step].table.level].name, leaf_level);
	return w;
}

static void walk_fault(const struct pt_context *ctx, uint64_t va, enum pt_fault want)
{
	struct pt_walk w;

	ck_assert_int_eq(pt_walk_va(ctx, va, &w), PT_OK);
	ck_assert_msg(w.fault == want, "va 0x%" PRIx64 ": fault %s, want %s", va,
		      pt_fault_name(w.fault), pt_fault_name(want));
}

/* A valid stage-1 STE (C01) and CD (C06), and a stage-2 STE word 2 (C04). */
#define C01 (STE_V | STE_CFG(5) | 0x80001000ull)
#define C06 (CD_T0SZ(16) | CD_TG0(0) | CD_IRGN0(1) | CD_ORGN0(1) | CD_SH0(3) | CD_EPD1 | CD_V | \
	     CD_IPS(5) | CD_AA64 | CD_R | CD_A | CD_ASID(5))
#define C04 (S2VMID(1) | S2T0SZ(24) | S2SL0(1) | S2IR0(1) | S2OR0(1) | S2SH0(3) | S2TG(0) | \
	     S2PS(2) | S2AA64)

/* ---- STE and CD fields ------------------------------------------------------- */

START_TEST(vectors)
{
	/* the reference's §V.C words, composed from the fields */
	ck_assert_uint_eq(C01, 0x000000008000100Bull);
	ck_assert_uint_eq(STE_V | STE_CFG(6), 0x000000000000000Dull);         /* C02 */
	ck_assert_uint_eq(STE_V | STE_CFG(4), 0x0000000000000009ull);         /* C03 */
	ck_assert_uint_eq(STE_V | STE_CFG(0), 0x0000000000000001ull);
	ck_assert_uint_eq(STE_V | STE_CFG(7), 0x000000000000000Full);
	ck_assert_uint_eq(C04, 0x000A355800000001ull);
	ck_assert_uint_eq(C06, 0x00056205C0003510ull);
	ck_assert_uint_eq(CD_T0SZ(17) | CD_TG0(2) | CD_EPD1 | CD_V, 0x00000000C0000091ull); /* C07 */
}
END_TEST

/* One field of the STE/CD: its info name, word, bits, and a legal value to probe it with. */
struct fld {
	const char *name;
	unsigned word;     /* 0 ste0, 2 ste2, 3 ste3, 4 cd0, 5 cd1, 6 cd2 */
	unsigned hi, lo;
	uint64_t probe;    /* the field's value to set (in place for addresses) */
	bool addr;
};

static const struct fld s1_fields[] = {
	{"ste_v", 0, 0, 0, 1, false},
	{"ste_config", 0, 3, 1, 5, false},
	{"ste_s1fmt", 0, 5, 4, 2, false},
	{"ste_s1_context_ptr", 0, 51, 6, 0x000FEDCBA9876540ull, true},
	{"ste_s1cdmax", 0, 63, 59, 31, false},
	{"cd_t0sz", 4, 5, 0, 25, false},
	{"cd_tg0", 4, 7, 6, 2, false},
	{"cd_irgn0", 4, 9, 8, 3, false},
	{"cd_orgn0", 4, 11, 10, 2, false},
	{"cd_sh0", 4, 13, 12, 2, false},
	{"cd_t1sz", 4, 21, 16, 63, false},
	{"cd_tg1", 4, 23, 22, 3, false},
	{"cd_epd1", 4, 30, 30, 1, false},
	{"cd_v", 4, 31, 31, 1, false},
	{"cd_ips", 4, 34, 32, 6, false},
	{"cd_affd", 4, 35, 35, 1, false},
	{"cd_tbi", 4, 39, 38, 3, false},
	{"cd_aa64", 4, 41, 41, 1, false},
	{"cd_hd", 4, 42, 42, 1, false},
	{"cd_ha", 4, 43, 43, 1, false},
	{"cd_s", 4, 44, 44, 1, false},
	{"cd_r", 4, 45, 45, 1, false},
	{"cd_a", 4, 46, 46, 1, false},
	{"cd_aset", 4, 47, 47, 1, false},
	{"cd_asid", 4, 63, 48, 0xFFFF, false},
	{"cd_nscfg0", 5, 0, 0, 1, false},
	{"cd_had0", 5, 1, 1, 1, false},
	{"cd_ttb0", 5, 51, 4, 0x10000, true},
	{"cd_nscfg1", 6, 0, 0, 1, false},
	{"cd_had1", 6, 1, 1, 1, false},
	{"cd_ttb1", 6, 51, 4, 0x0000FFFFFFFFFFF0ull, true},
};

static const struct fld s2_fields[] = {
	{"ste_config", 0, 3, 1, 6, false},
	{"ste_s2vmid", 2, 15, 0, 0xFFFF, false},
	{"ste_s2t0sz", 2, 37, 32, 25, false},
	{"ste_s2sl0", 2, 39, 38, 1, false},
	{"ste_s2ir0", 2, 41, 40, 3, false},
	{"ste_s2or0", 2, 43, 42, 2, false},
	{"ste_s2sh0", 2, 45, 44, 2, false},
	{"ste_s2tg", 2, 47, 46, 0, false},
	{"ste_s2ps", 2, 50, 48, 5, false},
	{"ste_s2aa64", 2, 51, 51, 1, false},
	{"ste_s2affd", 2, 53, 53, 1, false},
	{"ste_s2ptw", 2, 54, 54, 1, false},
	{"ste_s2hd", 2, 55, 55, 1, false},
	{"ste_s2ha", 2, 56, 56, 1, false},
	{"ste_s2s", 2, 57, 57, 1, false},
	{"ste_s2r", 2, 58, 58, 1, false},
	{"ste_s2ttb", 3, 51, 4, 0x0000000000400000ull, true},
};

static uint64_t mask_of(const struct fld *f)
{
	return (f->hi == 63 ? ~0ull : BIT(f->hi + 1) - 1) & ~(BIT(f->lo) - 1);
}

/*
 * Each field alone: the word is a valid base with the field's bits cleared,
 * then the probe value set; the info line by the field's name gives the
 * probe back, and every other field of the table its base value.
 */
static void probe_fields(const struct fld *t, size_t n, const uint64_t base[7], const char *extra)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t w[7];
		struct cap k;
		const struct pt_context *ctx;

		memcpy(w, base, sizeof w);
		w[t[i].word] &= ~mask_of(&t[i]);
		w[t[i].word] |= t[i].addr ? t[i].probe : t[i].probe << t[i].lo;
		k = load_words(extra, w[0], w[2], w[3], w[4], w[5], w[6]);
		ctx = ctx_of(&k);
		ck_assert_msg(info_u(ctx, t[i].name) == t[i].probe, "%s: 0x%" PRIx64 ", want 0x%" PRIx64,
			      t[i].name, info_u(ctx, t[i].name), t[i].probe);
		for (size_t j = 0; j < n; j++) {
			uint64_t want = base[t[j].word] & mask_of(&t[j]);

			if (j == i || (t[j].word == t[i].word && (mask_of(&t[j]) & mask_of(&t[i]))))
				continue;
			want = t[j].addr ? want : want >> t[j].lo;
			ck_assert_msg(info_u(ctx, t[j].name) == want, "%s set: %s is 0x%" PRIx64, t[i].name,
				      t[j].name, info_u(ctx, t[j].name));
		}
		unload(&k);
	}
}

START_TEST(fields)
{
	/* stage 1 through TTB0 (ttb0 at 0x10000 in the memory), TTB1 valid too: half = lower */
	const uint64_t s1[7] = {C01, 0, 0, 0, C06 & ~CD_EPD1, 0x10000, 0x20000};
	const uint64_t s2[7] = {STE_V | STE_CFG(6), 0, C04, 0x200000, 0, 0, 0};

	memset(mem, 0, sizeof mem);
	probe_fields(s1_fields, sizeof s1_fields / sizeof s1_fields[0], s1, "half = lower\n");
	probe_fields(s2_fields, sizeof s2_fields / sizeof s2_fields[0], s2, "");
}
END_TEST

START_TEST(geometry)
{
	struct cap k;
	const struct pt_context *ctx;

	memset(mem, 0, sizeof mem);
	/* C06 + C08: 4K, 48-bit, IPS 48, ASID 5, TTB0 0x82000000; the STE's CD pointer shown */
	k = load_words("", C01, 0, 0, C06, 0x0000000082000000ull, 0);
	ctx = ctx_of(&k);
	ck_assert_uint_eq(ctx->root_addr, 0x82000000ull);
	ck_assert_uint_eq(ctx->root_entries, 512);
	ck_assert_str_eq(ctx->fmt->name, "arm-smmuv3");
	ck_assert_str_eq(ctx->fmt->levels[0].name, "l0");
	ck_assert_uint_eq(info_u(ctx, "cd_asid"), 5);
	ck_assert_uint_eq(info_u(ctx, "va_bits"), 48);
	ck_assert_uint_eq(info_u(ctx, "pa_bits"), 48);
	ck_assert_uint_eq(info_u(ctx, "granule"), 4096);
	ck_assert_uint_eq(info_u(ctx, "ste_s1_context_ptr"), 0x80001000ull);
	ck_assert(info_has(ctx, "half: lower (TTB0)"));
	ck_assert(info_has(ctx, "config: 5 (stage1)"));
	unload(&k);
	/* C07 + AA64, IPS 48: 16K, 47-bit → start level 1 with 11 index bits */
	k = load_words("", C01, 0, 0, 0x00000000C0000091ull | CD_AA64 | CD_IPS(5), 0x10000, 0);
	ctx = ctx_of(&k);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "l1");
	ck_assert_uint_eq(ctx->root_entries, 2048);
	ck_assert_uint_eq(info_u(ctx, "granule"), 16384);
	unload(&k);
	/* C04 + C05: 40-bit IPA, SL0 1 → level 1 of 1024 entries (two concatenated tables), VMID 1 */
	k = load_words("", STE_V | STE_CFG(6), C04, 0x0000000081240000ull, 0, 0, 0);
	ctx = ctx_of(&k);
	ck_assert_uint_eq(ctx->root_addr, 0x81240000ull);
	ck_assert_uint_eq(ctx->root_entries, 1024);
	ck_assert_str_eq(ctx->fmt->levels[0].name, "l1");
	ck_assert_uint_eq(ctx->fmt->va_bits, 40);
	ck_assert(!ctx->fmt->va_canonical);
	ck_assert_uint_eq(info_u(ctx, "ste_s2vmid"), 1);
	ck_assert_uint_eq(info_u(ctx, "vtcr"), 0x23558);       /* word 2 bits 50:32 */
	ck_assert(info_has(ctx, "concatenated tables"));
	unload(&k);
}
END_TEST

/* ---- special encodings -------------------------------------------------------- */

START_TEST(special)
{
	const uint64_t S2 = STE_V | STE_CFG(6);
	struct cap k;
	const struct pt_context *ctx;
	struct pt_walk w;

	memset(mem, 0, sizeof mem);
	/* STE.V 0 and the reserved Configs, on ste0's own line */
	load_err(load_words("", C01 & ~STE_V, 0, 0, C06, 0x1000, 0), PT_E_VALUE,
		 "capture.ini:9: ste0 0x8000100a in [smmu s]: STE.V (bit 0) is 0");
	for (unsigned cfg = 1; cfg <= 3; cfg++)
		load_err(load_words("", STE_V | STE_CFG(cfg), 0, 0, 0, 0, 0), PT_E_VALUE,
			 "STE.Config (bits 3:1)");
	/* the CD */
	load_err(load_words("", C01, 0, 0, 0, 0, 0), PT_E_VALUE, "cd0 and cd1 (or cd2) are missing");
	load_err(load_words("", C01, 0, 0, C06 & ~CD_V, 0x1000, 0), PT_E_VALUE,
		 "CD.V (bit 31) is 0");
	load_err(load_words("", C01, 0, 0, C06 & ~CD_AA64, 0x1000, 0), PT_E_UNSUPPORTED,
		 "CD.AA64 (bit 41) is 0");
	load_err(load_words("", C01, 0, 0, C06 | CD_ENDI, 0x1000, 0), PT_E_UNSUPPORTED,
		 "CD.ENDI (bit 15) is 1");
	load_err(load_words("", C01, 0, 0, C06 | CD_IPS(7), 0x1000, 0), PT_E_VALUE,
		 "CD.IPS (bits 34:32) 7 is reserved");
	load_err(load_words("", C01, 0, 0, C06 | CD_TG0(3), 0x1000, 0), PT_E_VALUE,
		 "CD.TG0 3 is reserved");
	/* TG1 0 is reserved (TCR TG1 code); Linux's EPD1 CDs leave it 0, so only a walk of TTB1 sees it */
	load_err(load_words("", C01, 0, 0, (C06 & ~CD_EPD1) | CD_EPD0 | CD_T1SZ(16), 0, 0x1000),
		 PT_E_VALUE, "CD.TG1 0 is reserved");
	load_err(load_words("", C01, 0, 0, (C06 & ~CD_T0SZ(63)) | CD_T0SZ(15), 0x1000, 0), PT_E_VALUE,
		 "CD.T0SZ 15 is outside 16..39 for the 4 KiB granule");
	load_err(load_words("", C01, 0, 0, (C06 & ~CD_T0SZ(63)) | CD_T0SZ(40), 0x1000, 0), PT_E_VALUE,
		 "CD.T0SZ 40 is outside 16..39");
	load_err(load_words("", C01, 0, 0, C06 | CD_EPD0, 0x1000, 0), PT_E_UNSUPPORTED,
		 "CD.EPD0 (bit 14) is 1: walks from TTB0 are disabled");
	load_err(load_words("", C01, 0, 0, C06 & ~CD_EPD1, 0x1000, 0x2000), PT_E_VALUE,
		 "CD.EPD0 and CD.EPD1 are both 0");
	load_err(load_words("half = upper\n", C01, 0, 0, C06, 0x1000, 0), PT_E_UNSUPPORTED,
		 "CD.EPD1 (bit 30) is 1");
	load_err(load_words("", C01, 0, 0, C06, 0, 0x1000), PT_E_VALUE, "the walk from TTB0 needs cd1");
	/* a base above the IPS output size; one below its alignment is masked and warned */
	load_err(load_words("", C01, 0, 0, C06, BIT(48), 0), PT_E_VALUE,
		 "CD.TTB0 0x1000000000000 is above the 48-bit output size");
	k = load_words("", C01, 0, 0, C06, 0x1ff8 | CD_HAD, 0);
	ctx = ctx_of(&k);
	ck_assert_uint_eq(ctx->root_addr, 0x1000);
	ck_assert_uint_eq(info_u(ctx, "ttb_masked"), 0xff0);
	ck_assert_uint_eq(info_u(ctx, "cd_had0"), 1);
	ck_assert_uint_eq(pt_capture_warning_count(k.c), 1);
	ck_assert(strstr(pt_capture_warning(k.c, 0), "CD.TTB0 bits 0xff0 below the root table's"
			 " alignment are masked") != NULL);
	unload(&k);
	/* 64K: T0SZ 12 (52-bit, SMMU_IDR5.VAX) is allowed, 11 is not */
	k = load_words("", C01, 0, 0, (C06 & ~CD_T0SZ(63) & ~CD_IPS(7)) | CD_T0SZ(12) | CD_TG0(1) | CD_IPS(6),
		       0x10000, 0);
	ck_assert_str_eq(ctx_of(&k)->fmt->levels[0].name, "l1");
	ck_assert_uint_eq(ctx_of(&k)->root_entries, 1024);
	unload(&k);
	load_err(load_words("", C01, 0, 0, (C06 & ~CD_T0SZ(63)) | CD_T0SZ(11) | CD_TG0(1), 0x10000, 0),
		 PT_E_VALUE, "CD.T0SZ 11 is outside 12..39 for the 64 KiB granule");
	/* stage 2 */
	load_err(load_words("", S2, 0, 0, 0, 0, 0), PT_E_VALUE, "ste2 (the S2 fields) is missing");
	load_err(load_words("", S2, C04, 0, 0, 0, 0), PT_E_VALUE, "ste3 (S2TTB) is missing");
	load_err(load_words("", S2, C04 & ~S2AA64, 0x200000, 0, 0, 0), PT_E_UNSUPPORTED,
		 "STE.S2AA64 (bit 51) is 0");
	load_err(load_words("", S2, C04 | S2ENDI, 0x200000, 0, 0, 0), PT_E_UNSUPPORTED,
		 "STE.S2ENDI (bit 52) is 1");
	load_err(load_words("", S2, C04 | S2TG(3), 0x200000, 0, 0, 0), PT_E_VALUE,
		 "STE.S2TG (bits 47:46) 3 is reserved");
	load_err(load_words("", S2, C04 | S2PS(7), 0x200000, 0, 0, 0), PT_E_VALUE,
		 "STE.S2PS (bits 50:48) 7 is reserved");
	load_err(load_words("", S2, C04 | S2SL0(3), 0x200000, 0, 0, 0), PT_E_VALUE,
		 "STE.S2SL0 (bits 39:38) 3 is reserved");
	load_err(load_words("", S2, (C04 & ~S2T0SZ(63)) | S2T0SZ(40), 0x200000, 0, 0, 0), PT_E_VALUE,
		 "STE.S2T0SZ 40 is outside 16..39");
	/* SL0 0 (level 2) cannot start a 40-bit IPA: the arm64 set-up's rule (QEMU s2_pgtable_config_valid) */
	load_err(load_words("", S2, C04 & ~S2SL0(3), 0x200000, 0, 0, 0), PT_E_VALUE,
		 "does not start at level 2");
	load_err(load_words("", S2, C04, BIT(40), 0, 0, 0), PT_E_VALUE,
		 "STE.S2TTB 0x10000000000 is above the 40-bit output size");
	/* the stage key and Config */
	load_err(load_words("", STE_V | STE_CFG(7), C04, 0x200000, C06, 0x1000, 0), PT_E_VALUE,
		 "STE.Config 7 (nested): say stage = 1");
	load_err(load_words("stage = 2\n", C01, 0, 0, C06, 0x1000, 0), PT_E_VALUE,
		 "stage = 2, but STE.Config 5 (stage1) translates at the other stage only");
	load_err(load_words("half = lower\n", S2, C04, 0x200000, 0, 0, 0), PT_E_VALUE,
		 "half is a stage-1 key");
	load_err(load_words("stage = 3\n", S2, C04, 0x200000, 0, 0, 0), PT_E_VALUE,
		 "stage 3 in [smmu s] is not 1 or 2");
	load_err(load_words("half = top\n", C01, 0, 0, C06, 0x1000, 0), PT_E_VALUE,
		 "half 'top' in [smmu s] is not lower (TTB0) or upper (TTB1)");
	load_err(load_words("space = vram\n", C01, 0, 0, C06, 0x1000, 0), PT_E_VALUE,
		 "space 'vram' in [smmu s] is not a space of arm-smmuv3 (sysmem, hpa, gpa)");
	load_err(load_words("bogus = 1\n", C01, 0, 0, C06, 0x1000, 0), PT_E_VALUE, "unknown key 'bogus'");
	load_err(load("[smmu s]\ncd0 = 0x1\n"), PT_E_VALUE, "missing key 'ste0'");
	/* bypass: every address its own output; abort: every address faults */
	k = load_words("output_space = hpa\n", STE_V | STE_CFG(4), 0, 0, 0, 0, 0);
	ctx = ctx_of(&k);
	ck_assert_uint_eq(ctx->root_entries, 0);
	ck_assert_uint_eq(pt_capture_warning_count(k.c), 0);
	ck_assert_int_eq(pt_walk_va(ctx, 0x123456789ull, &w), PT_OK);
	ck_assert(pt_walk_aperture_hit(&w));
	ck_assert_str_eq(w.aperture.name, "bypass");
	ck_assert_uint_eq(w.aperture.pa, 0x123456789ull);
	ck_assert_uint_eq(w.aperture.space, 1);
	unload(&k);
	k = load_words("", STE_V | STE_CFG(0), 0, 0, 0, 0, 0);
	ctx = ctx_of(&k);
	ck_assert_int_eq(pt_walk_va(ctx, 0x1000, &w), PT_OK);
	ck_assert(!pt_walk_aperture_hit(&w));
	ck_assert_int_eq(w.fault, PT_FAULT_OUT_OF_RANGE);
	ck_assert_str_eq(w.aperture.name, "abort");
	unload(&k);
}
END_TEST

/* ---- walks: one per granule and page size, stage 1 and stage 2 ----------------- */

START_TEST(walk_s1)
{
	const uint64_t va4 = (1ull << 39) | (2ull << 30) | (3ull << 21) | (4ull << 12);
	struct cap k;
	const struct pt_context *ctx;
	struct pt_walk w;

	memset(mem, 0, sizeof mem);
	/* 4K, 48-bit: 0x1000 → 0x2000 → 0x3000 → 0x4000; C09 page, C10 no-exec page, 2M, 1G */
	put(0x1000 + 8 * 1, 0x2000 | TABLE);
	put(0x2000 + 8 * 2, 0x3000 | TABLE);
	put(0x2000 + 8 * 6, 0xC0000000ull | BLOCK | AF);
	put(0x3000 + 8 * 3, 0x4000 | TABLE);
	put(0x3000 + 8 * 5, 0x40200000ull | BLOCK | AF);
	put(0x4000 + 8 * 4, 0x0000000012345F47ull);
	put(0x4000 + 8 * 5, 0x0060000012345F47ull);
	k = load_words("", C01, 0, 0, C06, 0x1000, 0);
	ctx = ctx_of(&k);
	w = walk_ok(ctx, va4 | 0x678, 0x12345678ull, 4096, "l3");
	ck_assert_uint_eq(w.nsteps, 4);
	ck_assert_uint_eq(w.steps[3].entry_pa, 0x4000 + 8 * 4);
	ck_assert_uint_eq(w.perm, PT_PERM_PXN);              /* AP 01: EL0 RW, so not EL1-executable */
	ck_assert_uint_eq(w.steps[3].entry.kind, 1);
	w = walk_ok(ctx, va4 + 0x1000, 0x12345000ull, 4096, "l3");
	ck_assert_uint_eq(w.perm, PT_PERM_PXN | PT_PERM_UXN);
	walk_ok(ctx, (1ull << 39) | (2ull << 30) | (5ull << 21) | 0x1234, 0x40201234ull, 2u << 20, "l2");
	walk_ok(ctx, (1ull << 39) | (6ull << 30) | 0x123456, 0xC0123456ull, 1u << 30, "l1");
	walk_fault(ctx, va4 + 0x2000, PT_FAULT_UNMAPPED);
	walk_fault(ctx, 1ull << 48, PT_FAULT_NONCANONICAL);
	unload(&k);
	/* the same tables through TTB1 (EPD0, T1SZ 16, TG1 4K = 2): the upper half */
	k = load_words("", C01, 0, 0, (C06 & ~CD_EPD1) | CD_EPD0 | CD_T1SZ(16) | CD_TG1(2), 0, 0x1000);
	ctx = ctx_of(&k);
	ck_assert(info_has(ctx, "half: upper (TTB1)"));
	walk_ok(ctx, 0xFFFF000000000000ull | va4 | 0x678, 0x12345678ull, 4096, "l3");
	walk_fault(ctx, va4, PT_FAULT_OUT_OF_RANGE);
	unload(&k);
	/*
	 * CD.TBI 39:38 is TBI1:TBI0 (QEMU smmuv3.c decode_cd): with the walked
	 * half's bit the top byte is ignored (bit 55 copied up), without it a
	 * tagged VA is noncanonical; the other half's bit changes nothing.
	 */
	k = load_words("", C01, 0, 0, C06 | CD_TBI(1), 0x1000, 0);
	ctx = ctx_of(&k);
	w = walk_ok(ctx, 0xA500000000000000ull | va4 | 0x678, 0x12345678ull, 4096, "l3");
	ck_assert_uint_eq(w.page_va, va4);
	walk_fault(ctx, 0xA500000000000000ull | BIT(48) | va4, PT_FAULT_NONCANONICAL);
	walk_fault(ctx, 0xA5FF000000000000ull | va4, PT_FAULT_OUT_OF_RANGE);   /* bit 55: TTB1's */
	unload(&k);
	k = load_words("", C01, 0, 0, C06 | CD_TBI(2), 0x1000, 0);
	walk_fault(ctx_of(&k), 0xA500000000000000ull | va4, PT_FAULT_NONCANONICAL);
	unload(&k);
	k = load_words("", C01, 0, 0, (C06 & ~CD_EPD1) | CD_EPD0 | CD_T1SZ(16) | CD_TG1(2) | CD_TBI(2),
		       0, 0x1000);
	walk_ok(ctx_of(&k), 0x12FF000000000000ull | va4 | 0x678, 0x12345678ull, 4096, "l3");
	unload(&k);
	/* 64K tables in hpa, where the memory (sysmem's) has none */
	k = load_words("space = hpa\noutput_space = gpa\n", C01, 0, 0,
		       (C06 & ~CD_T0SZ(63)) | CD_T0SZ(22) | CD_TG0(1), 0x20000, 0);
	ctx = ctx_of(&k);
	ck_assert_uint_eq(ctx->root_space, 1);
	walk_fault(ctx, (1ull << 29) | (2ull << 16), PT_FAULT_NOT_CAPTURED);
	unload(&k);
}
END_TEST

/*
 * One walk per granule: the context (its extra keys and words; cd words 0
 * at stage 2), its tables (PUTS), the root level and entries it gets, a
 * page and a block walk (VA, PA, size, leaf level) and the space of both.
 */
struct gran_case {
	const char *what, *extra;
	uint64_t ste0, ste2, ste3, cd0, cd1;
	struct { uint64_t at, v; } puts[4];      /* an at of 0 ends them */
	const char *root_level;
	uint64_t root_entries;
	struct { uint64_t va, pa, size; const char *level; } walks[2];
	unsigned space;
};

#define S2CFG (STE_V | STE_CFG(6))
static const struct gran_case gran_cases[] = {
	/* 16K, 47-bit (T0SZ 17): L1 [1] → L2 [2] → L3 [3] a 16K page; L2 [4] a 32M block */
	{"s1 16K", "", C01, 0, 0, (C06 & ~CD_T0SZ(63)) | CD_T0SZ(17) | CD_TG0(2), 0x10000,
	 {{0x10000 + 8 * 1, 0x14000 | TABLE}, {0x14000 + 8 * 2, 0x18000 | TABLE},
	  {0x14000 + 8 * 4, 0x44000000ull | BLOCK | AF}, {0x18000 + 8 * 3, 0x42004000ull | PAGE | AF}},
	 "l1", 2048,
	 {{(1ull << 36) | (2ull << 25) | (3ull << 14) | 0x3ff, 0x420043ffull, 16384, "l3"},
	  {(1ull << 36) | (4ull << 25) | 0x12345, 0x44012345ull, 32u << 20, "l2"}}, 0},
	/* 64K, 42-bit (T0SZ 22): L2 [1] → L3 [2] a 64K page; L2 [3] a 512M block, pages in gpa */
	{"s1 64K", "output_space = gpa\n", C01, 0, 0, (C06 & ~CD_T0SZ(63)) | CD_T0SZ(22) | CD_TG0(1),
	 0x20000, {{0x20000 + 8 * 1, 0x30000 | TABLE}, {0x20000 + 8 * 3, 0x60000000ull | BLOCK | AF},
		   {0x30000 + 8 * 2, 0x50010000ull | PAGE | AF}}, "l2", 8192,
	 {{(1ull << 29) | (2ull << 16) | 0xabc, 0x50010abcull, 65536, "l3"},
	  {(3ull << 29) | 0x1234567, 0x61234567ull, 512u << 20, "l2"}}, 2},
	/* 16K, 36-bit IPA (S2T0SZ 28), SL0 1 → level 2 of 2048: a 16K page and a 32M block */
	{"s2 16K", "", S2CFG, S2T0SZ(28) | S2SL0(1) | S2TG(2) | S2PS(1) | S2AA64, 0x100000, 0, 0,
	 {{0x100000 + 8 * 1, 0x104000 | TABLE}, {0x100000 + 8 * 3, 0x06000000ull | S2RW | BLOCK},
	  {0x104000 + 8 * 2, 0x03008000ull | S2RW | PAGE}}, "l2", 2048,
	 {{(1ull << 25) | (2ull << 14) | 0x10, 0x03008010ull, 16384, "l3"},
	  {(3ull << 25) | 0x10, 0x06000010ull, 32u << 20, "l2"}}, 0},
	/* 64K, 42-bit IPA (S2T0SZ 22), SL0 1 → level 2 of 8192: a 64K page and a 512M block */
	{"s2 64K", "", S2CFG, S2T0SZ(22) | S2SL0(1) | S2TG(1) | S2PS(2) | S2AA64, 0x300000, 0, 0,
	 {{0x300000 + 8 * 1, 0x320000 | TABLE}, {0x300000 + 8 * 3, 0x80000000ull | S2RW | BLOCK},
	  {0x320000 + 8 * 2, 0x70020000ull | S2RW | PAGE}}, "l2", 8192,
	 {{(1ull << 29) | (2ull << 16) | 0x20, 0x70020020ull, 65536, "l3"},
	  {(3ull << 29) | 0x20, 0x80000020ull, 512u << 20, "l2"}}, 0},
};

START_TEST(walk_granules)
{
	memset(mem, 0, sizeof mem);
	for (size_t i = 0; i < sizeof gran_cases / sizeof gran_cases[0]; i++) {
		const struct gran_case *g = &gran_cases[i];
		struct cap k;
		const struct pt_context *ctx;

		for (unsigned j = 0; j < 4 && g->puts[j].at; j++)
			put(g->puts[j].at, g->puts[j].v);
		k = load_words(g->extra, g->ste0, g->ste2, g->ste3, g->cd0, g->cd1, 0);
		ctx = ctx_of(&k);
		ck_assert_msg(!strcmp(ctx->fmt->levels[0].name, g->root_level), "%s: root %s", g->what,
			      ctx->fmt->levels[0].name);
		ck_assert_uint_eq(ctx->root_entries, g->root_entries);
		for (unsigned j = 0; j < 2; j++) {
			struct pt_walk w = walk_ok(ctx, g->walks[j].va, g->walks[j].pa, g->walks[j].size,
						   g->walks[j].level);

			ck_assert_msg(w.space == g->space, "%s: space %u", g->what, w.space);
		}
		unload(&k);
	}
}
END_TEST

START_TEST(walk_s2)
{
	const uint64_t S2 = STE_V | STE_CFG(6);
	struct cap k;
	const struct pt_context *ctx;
	struct pt_walk w;

	memset(mem, 0, sizeof mem);
	/* 4K, C04: 40-bit IPA from two concatenated L1 tables at 0x200000 (the §V.B index example) */
	put(0x200000 + 0x1008, 0x210000 | TABLE);
	put(0x200000 + 8 * 1, 0x40000000ull | S2RW | BLOCK);
	put(0x210000 + 8 * 1, 0x211000 | TABLE);
	put(0x210000 + 8 * 2, 0x80200000ull | S2RW | BLOCK);
	put(0x211000 + 8 * 1, 0x00000000800007FFull);                 /* B03 */
	put(0x211000 + 8 * 2, 0x00000000123466D7ull);                 /* C11: MemAttr 5, SH 10 */
	k = load_words("", S2, C04, 0x200000, 0, 0, 0);
	ctx = ctx_of(&k);
	w = walk_ok(ctx, 0x8040201000ull, 0x80000000ull, 4096, "l3");
	ck_assert_uint_eq(w.steps[0].index, 0x201);
	ck_assert_uint_eq(w.steps[0].entry_pa, 0x201008);
	ck_assert_uint_eq(w.perm, 0);
	w = walk_ok(ctx, 0x8040202000ull, 0x12346000ull, 4096, "l3");
	ck_assert_int_eq(w.steps[2].entry.kind, 5);
	walk_ok(ctx, 0x8040400123ull, 0x80200123ull, 2u << 20, "l2");
	walk_ok(ctx, (1ull << 30) | 0x1234, 0x40001234ull, 1u << 30, "l1");
	walk_fault(ctx, 1ull << 40, PT_FAULT_OUT_OF_RANGE);
	unload(&k);
}
END_TEST

/* ---- CD tables: `ssid` (IHI 0070 §5.2 S1Fmt / S1CDMax, §5.3 L1CD) ------------ */

#define L1CD_V BIT(0)        /* CTXDESC_L1_DESC_V; L2Ptr 51:12 in place */
#define S1STE(fmt, ptr, max) (STE_V | STE_CFG(5) | STE_S1FMT(fmt) | (uint64_t)(ptr) | STE_S1CDMAX(max))

/* A CD at ADDR: C06 with ASID ASID, TTB0 at 0x1000 (the 4K tables cd_tables puts). */
static void put_cd(uint64_t addr, unsigned asid)
{
	put(addr, (C06 & ~CD_ASID(0xffff)) | CD_ASID(asid));
	put(addr + 8, 0x1000);
}

/* SSID's CD through STE0: its address and ASID in info, and the 2M block of the tables. */
static void ssid_ok(uint64_t ste0, const char *ssid, uint64_t cd_addr, unsigned asid)
{
	char extra[64];
	struct cap k;
	const struct pt_context *ctx;

	snprintf(extra, sizeof extra, "ssid = %s\n", ssid);
	k = load_words(extra, ste0, 0, 0, 0, 0, 0);
	ctx = ctx_of(&k);
	ck_assert_uint_eq(info_u(ctx, "cd_address"), cd_addr);
	ck_assert_uint_eq(info_u(ctx, "cd_asid"), asid);
	ck_assert_uint_eq(info_u(ctx, "ssid"), strtoull(ssid, NULL, 0));
	ck_assert_uint_eq(ctx->root_addr, 0x1000);
	walk_ok(ctx, (1ull << 39) | (2ull << 30) | (5ull << 21) | 0x1234, 0x40201234ull, 2u << 20, "l2");
	unload(&k);
}

START_TEST(cd_tables)
{
	struct cap k;

	memset(mem, 0, sizeof mem);
	put(0x1000 + 8 * 1, 0x2000 | TABLE);
	put(0x2000 + 8 * 2, 0x3000 | TABLE);
	put(0x3000 + 8 * 5, 0x40200000ull | BLOCK | AF);
	/* the vectors: S1Fmt 5:4, S1ContextPtr 51:6, S1CDMax 63:59; L1CD V 0, L2Ptr 51:12 */
	ck_assert_uint_eq(S1STE(0, 0x380000, 3), 0x180000000038000Bull);
	ck_assert_uint_eq(S1STE(2, 0x383000, 12), 0x600000000038302Bull);
	ck_assert_uint_eq(0x382000 | L1CD_V, 0x382001ull);
	/* linear (S1Fmt 00): CD[5] of 8 at S1ContextPtr + 5 * 64; CD[0..4] are zero */
	put_cd(0x380000 + 5 * 64, 11);
	ssid_ok(S1STE(0, 0x380000, 3), "5", 0x380140, 11);
	/* S1Fmt 11 is reserved and behaves as 00 (IHI 0070 §5.2) */
	ssid_ok(S1STE(3, 0x380000, 3), "5", 0x380140, 11);
	/* two-level, 4 KiB L2 (S1Fmt 01): SubstreamID 0x83 = L1CD[2], CD[3] of 64 */
	put(0x381000 + 8 * 2, 0x382000 | L1CD_V);
	put_cd(0x382000 + 3 * 64, 12);
	ssid_ok(S1STE(1, 0x381000, 8), "0x83", 0x3820c0, 12);
	/* two-level, 64 KiB L2 (S1Fmt 10, Linux's): 0x805 = L1CD[2], CD[5] of 1024 */
	put(0x383000 + 8 * 2, 0x390000 | L1CD_V);
	put_cd(0x390000 + 5 * 64, 13);
	ssid_ok(S1STE(2, 0x383000, 12), "0x805", 0x390140, 13);
	k = load_words("ssid = 0x805\n", S1STE(2, 0x383000, 12), 0, 0, 0, 0, 0);
	ck_assert_uint_eq(info_u(ctx_of(&k), "l1cd_address"), 0x383010);
	ck_assert_uint_eq(info_u(ctx_of(&k), "l1cd"), 0x390001);
	unload(&k);
	/* S1CDMax 0: S1ContextPtr is the one CD (substreams disabled), S1Fmt ignored */
	put_cd(0x384000, 14);
	ssid_ok(S1STE(2, 0x384000, 0), "0", 0x384000, 14);
	/* errors: SubstreamID at 2^S1CDMax, on one line naming the section's and the key's lines */
	load_err(load_words("ssid = 8\n", S1STE(0, 0x380000, 3), 0, 0, 0, 0, 0), PT_E_VALUE,
		 "capture.ini:8: [smmu s]: ssid 8 (line 10) is not below 2^STE.S1CDMax = 8");
	load_err(load_words("ssid = 1\n", S1STE(0, 0x384000, 0), 0, 0, 0, 0, 0), PT_E_VALUE,
		 "ssid 1 (line 10) is not below 2^STE.S1CDMax = 1");
	/* an L1CD with V 0, one with a RES0 bit (5), an invalid CD (the zero CD[4]) */
	load_err(load_words("ssid = 0x43\n", S1STE(1, 0x381000, 8), 0, 0, 0, 0, 0), PT_E_VALUE,
		 "ssid 67 (line 10): its L1CD 0x0 at sysmem 0x381008 has V (bit 0) 0");
	put(0x381000 + 8 * 3, 0x382000 | L1CD_V | BIT(5));
	load_err(load_words("ssid = 0xc3\n", S1STE(1, 0x381000, 8), 0, 0, 0, 0, 0), PT_E_VALUE,
		 "its L1CD 0x382021 at sysmem 0x381018 has RES0 bits set");
	load_err(load_words("ssid = 4\n", S1STE(0, 0x380000, 3), 0, 0, 0, 0, 0), PT_E_VALUE,
		 "cd0 0x0 (ssid 4's CD at sysmem 0x380100): CD.V (bit 31) is 0");
	/* not captured: the CD past the memory, the L1CD past it */
	load_err(load_words("ssid = 127\n", S1STE(0, 0x3ff000, 7), 0, 0, 0, 0, 0), PT_E_CAPTURE,
		 "ssid 127 (line 10): its CD at sysmem 0x400fc0 is not captured");
	load_err(load_words("ssid = 0x2000\n", S1STE(2, 0x3fffc0, 14), 0, 0, 0, 0, 0), PT_E_CAPTURE,
		 "its L1CD at sysmem 0x400000 (S1Fmt 2, S1ContextPtr 0x3fffc0) is not captured");
	/* ssid is stage 1's and replaces cd0..cd3 */
	load_err(load_words("ssid = 5\n", S1STE(0, 0x380000, 3), 0, 0, C06, 0x1000, 0), PT_E_VALUE,
		 "reads the CD from the CD table: no cd0..cd3 beside it");
	load_err(load_words("ssid = 1\n", STE_V | STE_CFG(6), C04, 0x200000, 0, 0, 0), PT_E_VALUE,
		 "ssid is a stage-1 key");
}
END_TEST

/*
 * The CD is read through the reader the load layer passes to ctx_memory
 * (struct pt_ctx_reader), not by the format calling the memory itself
 * (HACKING.md, "Layers"; issue #41 item 3): a reader serving another CD
 * is what the context then holds, and one that has nothing fails as
 * memory that is not captured.
 */
struct fake_rd {
	unsigned calls, space;
	uint64_t pa;
	bool captured;
};

static bool fake_read(const void *opaque, unsigned space, uint64_t pa, void *out, size_t len)
{
	struct fake_rd *f = (struct fake_rd *)opaque;
	uint8_t cd[32] = {0};

	f->calls++;
	f->space = space;
	f->pa = pa;
	if (!f->captured)
		return false;
	tu_put64(cd, sizeof cd, 0, (C06 & ~CD_ASID(0xffff)) | CD_ASID(99));
	tu_put64(cd, sizeof cd, 8, 0x1000);
	memcpy(out, cd, len < sizeof cd ? len : sizeof cd);
	return true;
}

START_TEST(cd_reader)
{
	struct fake_rd f = {.captured = true};
	struct pt_ctx_reader rd = {fake_read, &f};
	struct pt_context copy;
	struct cap k;
	char err[256] = "";

	memset(mem, 0, sizeof mem);
	put_cd(0x380000 + 5 * 64, 11);
	k = load_words("ssid = 5\n", S1STE(0, 0x380000, 3), 0, 0, 0, 0, 0);
	copy = *ctx_of(&k);
	ck_assert_uint_eq(info_u(&copy, "cd_asid"), 11);
	ck_assert_ptr_nonnull(copy.fmt->ctx_memory);
	ck_assert_int_eq(copy.fmt->ctx_memory(&copy, &rd, err, sizeof err), PT_OK);
	ck_assert_uint_eq(f.calls, 1);
	ck_assert_uint_eq(f.pa, 0x380140);
	ck_assert_uint_eq(f.space, pt_context_space(&copy, 0));
	ck_assert_uint_eq(info_u(&copy, "cd_asid"), 99);
	f = (struct fake_rd){.captured = false};
	ck_assert_int_eq(copy.fmt->ctx_memory(&copy, &rd, err, sizeof err), PT_E_CAPTURE);
	ck_assert_uint_eq(f.calls, 1);
	ck_assert_msg(strstr(err, "its CD at sysmem 0x380140 is not captured"), "%s", err);
	unload(&k);
}
END_TEST

/* A nested STE: stage 1 reads its tables in gpa (IPAs), stage 2 in sysmem. */
START_TEST(nested)
{
	const uint64_t N = STE_V | STE_CFG(7);
	struct cap k;
	const struct pt_context *ctx;
	struct pt_walk w;
	char ini[512];

	memset(mem, 0, sizeof mem);
	put(0x1000 + 8 * 1, 0x2000 | TABLE);
	put(0x2000 + 8 * 2, 0xC0000000ull | BLOCK | AF);
	snprintf(ini, sizeof ini, "[smmu s]\nste0 = 0x%" PRIx64 "\nste2 = 0x%" PRIx64 "\nste3 = 0x200000\n"
		 "cd0 = 0x%" PRIx64 "\ncd1 = 0x1000\nstage = 1\n", N, C04, C06);
	k = load_in("gpa", ini);
	ctx = ctx_of(&k);
	ck_assert_uint_eq(ctx->root_space, 2);
	w = walk_ok(ctx, (1ull << 39) | (2ull << 30) | 0x10, 0xC0000010ull, 1u << 30, "l1");
	ck_assert_uint_eq(w.space, 2);
	ck_assert(info_has(ctx, "config: 7 (nested)"));
	unload(&k);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("smmuv3");
	TCase *tc;

	tc = tcase_create("fields");
	tcase_add_test(tc, vectors);
	tcase_add_test(tc, fields);
	tcase_add_test(tc, geometry);
	suite_add_tcase(s, tc);

	tc = tcase_create("special");
	tcase_add_test(tc, special);
	suite_add_tcase(s, tc);

	tc = tcase_create("walk");
	tcase_add_test(tc, walk_s1);
	tcase_add_test(tc, walk_s2);
	tcase_add_test(tc, walk_granules);
	tcase_add_test(tc, nested);
	tcase_add_test(tc, cd_tables);
	tcase_add_test(tc, cd_reader);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
