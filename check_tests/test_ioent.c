/* SPDX-License-Identifier: MIT */
/*
 * test_ioent: the IOMMU table entries as named fields (core/formats/ioent.c).
 * Each entry type's expected field list is restated here from the
 * specifications (Intel VT-d spec §9.1-9.6, AMD
 * IOMMU spec §2.2.2.1 Table 7, IHI 0070 §5.1, §5.2, §5.4): the decoder must
 * have exactly these fields, in this order, and a vector built field by
 * field (a different value in each) decodes back to every value.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pt_ioent.h"
#include "testutil.h"

struct xf {
	const char *name;
	unsigned word, hi, lo;
};

static const struct xf x_root[] = {{"p", 0, 0, 0}, {"ctp", 0, 63, 12}, {NULL, 0, 0, 0}};
static const struct xf x_smroot[] = {{"lp", 0, 0, 0}, {"lctp", 0, 63, 12}, {"up", 1, 0, 0},
				     {"uctp", 1, 63, 12}, {NULL, 0, 0, 0}};
static const struct xf x_ctx[] = {{"p", 0, 0, 0}, {"fpd", 0, 1, 1}, {"tt", 0, 3, 2},
				  {"slptptr", 0, 63, 12}, {"aw", 1, 2, 0}, {"avail", 1, 6, 3},
				  {"did", 1, 23, 8}, {NULL, 0, 0, 0}};
static const struct xf x_smctx[] = {{"p", 0, 0, 0}, {"fpd", 0, 1, 1}, {"dte", 0, 2, 2},
				    {"paside", 0, 3, 3}, {"pre", 0, 4, 4}, {"pdts", 0, 11, 9},
				    {"pasiddirptr", 0, 63, 12}, {"rid_pasid", 1, 19, 0},
				    {"rid_priv", 1, 20, 20}, {NULL, 0, 0, 0}};
static const struct xf x_pdir[] = {{"p", 0, 0, 0}, {"fpd", 0, 1, 1}, {"smptblptr", 0, 63, 12},
				   {NULL, 0, 0, 0}};
static const struct xf x_pasid[] = {
	{"p", 0, 0, 0}, {"fpd", 0, 1, 1}, {"aw", 0, 4, 2}, {"pgtt", 0, 8, 6}, {"slade", 0, 9, 9},
	{"slptptr", 0, 63, 12}, {"did", 1, 15, 0}, {"pwsnp", 1, 23, 23}, {"pgsnp", 1, 24, 24},
	{"cd", 1, 25, 25}, {"emte", 1, 26, 26}, {"emt", 1, 29, 27}, {"pwt", 1, 30, 30},
	{"pcd", 1, 31, 31}, {"pat", 1, 63, 32}, {"sre", 2, 0, 0}, {"flpm", 2, 3, 2},
	{"wpe", 2, 4, 4}, {"eafe", 2, 7, 7}, {"flptr", 2, 63, 12}, {NULL, 0, 0, 0}};
static const struct xf x_dte[] = {
	{"v", 0, 0, 0}, {"tv", 0, 1, 1}, {"had", 0, 8, 7}, {"mode", 0, 11, 9},
	{"host_pt_root", 0, 51, 12}, {"ppr", 0, 52, 52}, {"gprp", 0, 53, 53}, {"giov", 0, 54, 54},
	{"gv", 0, 55, 55}, {"glx", 0, 57, 56}, {"gcr3_trp_14_12", 0, 60, 58}, {"ir", 0, 61, 61},
	{"iw", 0, 62, 62}, {"domain_id", 1, 15, 0}, {"gcr3_trp_30_15", 1, 31, 16}, {"i", 1, 32, 32},
	{"se", 1, 33, 33}, {"sa", 1, 34, 34}, {"ioctl", 1, 36, 35}, {"cache", 1, 37, 37},
	{"sd", 1, 38, 38}, {"ex", 1, 39, 39}, {"sys_mgt", 1, 41, 40}, {"gcr3_trp_51_31", 1, 63, 43},
	{"iv", 2, 0, 0}, {"int_tab_len", 2, 4, 1}, {"ig", 2, 5, 5}, {"int_table_root_ptr", 2, 51, 6},
	{"init_pass", 2, 56, 56}, {"eint_pass", 2, 57, 57}, {"nmi_pass", 2, 58, 58},
	{"int_ctl", 2, 61, 60}, {"lint0_pass", 2, 62, 62}, {"lint1_pass", 2, 63, 63},
	{NULL, 0, 0, 0}};
static const struct xf x_l1std[] = {{"span", 0, 4, 0}, {"l2ptr", 0, 51, 6}, {NULL, 0, 0, 0}};
static const struct xf x_ste[] = {
	{"v", 0, 0, 0}, {"config", 0, 3, 1}, {"s1fmt", 0, 5, 4}, {"s1contextptr", 0, 51, 6},
	{"s1cdmax", 0, 63, 59}, {"s1dss", 1, 1, 0}, {"s1cir", 1, 3, 2}, {"s1cor", 1, 5, 4},
	{"s1csh", 1, 7, 6}, {"s1stalld", 1, 27, 27}, {"eats", 1, 29, 28}, {"strw", 1, 31, 30},
	{"shcfg", 1, 45, 44}, {"s2vmid", 2, 15, 0}, {"s2t0sz", 2, 37, 32}, {"s2sl0", 2, 39, 38},
	{"s2ir0", 2, 41, 40}, {"s2or0", 2, 43, 42}, {"s2sh0", 2, 45, 44}, {"s2tg", 2, 47, 46},
	{"s2ps", 2, 50, 48}, {"s2aa64", 2, 51, 51}, {"s2endi", 2, 52, 52}, {"s2affd", 2, 53, 53},
	{"s2ptw", 2, 54, 54}, {"s2hd", 2, 55, 55}, {"s2ha", 2, 56, 56}, {"s2s", 2, 57, 57},
	{"s2r", 2, 58, 58}, {"s2ttb", 3, 51, 4}, {NULL, 0, 0, 0}};
static const struct xf x_cd[] = {
	{"t0sz", 0, 5, 0}, {"tg0", 0, 7, 6}, {"irgn0", 0, 9, 8}, {"orgn0", 0, 11, 10},
	{"sh0", 0, 13, 12}, {"epd0", 0, 14, 14}, {"endi", 0, 15, 15}, {"t1sz", 0, 21, 16},
	{"tg1", 0, 23, 22}, {"irgn1", 0, 25, 24}, {"orgn1", 0, 27, 26}, {"sh1", 0, 29, 28},
	{"epd1", 0, 30, 30}, {"v", 0, 31, 31}, {"ips", 0, 34, 32}, {"affd", 0, 35, 35},
	{"wxn", 0, 36, 36}, {"uwxn", 0, 37, 37}, {"tbi", 0, 39, 38}, {"pan", 0, 40, 40},
	{"aa64", 0, 41, 41}, {"hd", 0, 42, 42}, {"ha", 0, 43, 43}, {"s", 0, 44, 44},
	{"r", 0, 45, 45}, {"a", 0, 46, 46}, {"aset", 0, 47, 47}, {"asid", 0, 63, 48},
	{"nscfg0", 1, 0, 0}, {"had0", 1, 1, 1}, {"ttb0", 1, 51, 4}, {"nscfg1", 2, 0, 0},
	{"had1", 2, 1, 1}, {"ttb1", 2, 51, 4}, {"mair0", 3, 31, 0}, {"mair1", 3, 63, 32},
	{NULL, 0, 0, 0}};

static const struct {
	enum pt_ioent_type t;
	unsigned words;
	const struct xf *f;
} expect[PT_IOENT__COUNT] = {
	{PT_IOENT_VTD_ROOT, 2, x_root}, {PT_IOENT_VTD_SMROOT, 2, x_smroot},
	{PT_IOENT_VTD_CTX, 2, x_ctx}, {PT_IOENT_VTD_SMCTX, 4, x_smctx},
	{PT_IOENT_VTD_PASIDDIR, 1, x_pdir}, {PT_IOENT_VTD_PASID, 8, x_pasid},
	{PT_IOENT_AMD_DTE, 4, x_dte}, {PT_IOENT_SMMU_L1STD, 1, x_l1std},
	{PT_IOENT_SMMU_STE, 8, x_ste}, {PT_IOENT_SMMU_CD, 8, x_cd},
};

static uint64_t width_mask(unsigned hi, unsigned lo)
{
	return hi - lo == 63 ? ~0ull : (1ull << (hi - lo + 1)) - 1;
}

/* Every type: the decoder's list is the expected one; a field-by-field vector decodes back. */
START_TEST(field_by_field)
{
	for (unsigned k = 0; k < PT_IOENT__COUNT; k++) {
		enum pt_ioent_type t = expect[k].t;
		const struct xf *x = expect[k].f;
		size_t n, nx = 0;
		const struct pt_iofield *f = pt_ioent_fields(t, &n);
		uint64_t w[PT_IOENT_MAX_WORDS] = {0}, val[64];

		ck_assert_uint_eq(pt_ioent_words(t), expect[k].words);
		while (x[nx].name)
			nx++;
		ck_assert_msg(n == nx, "%s: %zu fields, %zu expected", pt_ioent_name(t), n, nx);
		for (size_t i = 0; i < n; i++) {
			ck_assert_str_eq(f[i].name, x[i].name);
			ck_assert_uint_eq(f[i].word, x[i].word);
			ck_assert_uint_eq(f[i].hi, x[i].hi);
			ck_assert_uint_eq(f[i].lo, x[i].lo);
			/* a value of its own for each field, never 0 */
			val[i] = ((0x9e3779b97f4a7c15ull * (i + 1)) >> 7 | 1) & width_mask(x[i].hi, x[i].lo);
			ck_assert_uint_eq(w[x[i].word] & width_mask(x[i].hi, x[i].lo) << x[i].lo, 0);
			w[x[i].word] |= val[i] << x[i].lo;
		}
		for (size_t i = 0; i < n; i++) {
			ck_assert_msg(pt_ioent_get(w, &f[i]) == val[i], "%s %s", pt_ioent_name(t),
				      x[i].name);
			ck_assert_uint_eq(pt_ioent_field(t, w, x[i].name), val[i]);
		}
		ck_assert_uint_eq(pt_ioent_field(t, w, "nosuch"), UINT64_MAX);
	}
}
END_TEST

static void render_has(enum pt_ioent_type t, const uint64_t *w, const char *want)
{
	struct pt_buf b;

	pt_buf_init(&b);
	pt_ioent_render(&b, t, w);
	pt_buf_put(&b, "", 1);
	ck_assert_msg(strstr(b.data, want) != NULL, "%s: no '%s' in\n%s", pt_ioent_name(t), want,
		      b.data);
	pt_buf_free(&b);
}

/* What a present entry does to a DMA request, and the file's lines. */
START_TEST(translation_and_lines)
{
	uint64_t w[PT_IOENT_MAX_WORDS] = {0};

	w[0] = 0x103000 | 2 << 2 | 1;   /* context entry, TT 10 */
	w[1] = 5 << 8 | 2;
	ck_assert_str_eq(pt_ioent_translation(PT_IOENT_VTD_CTX, w), "pass-through");
	render_has(PT_IOENT_VTD_CTX, w, "word0: 0x0000000000103009\nword1: 0x0000000000000502\n"
		   "present: 1\np: 0x1\nfpd: 0x0\ntt: 0x2\nslptptr: 0x103000\naw: 0x2\navail: 0x0\n"
		   "did: 0x5\nreserved: none\ntranslation: pass-through\n");
	w[0] &= ~(3ull << 2);
	ck_assert_str_eq(pt_ioent_translation(PT_IOENT_VTD_CTX, w), "second-level");
	w[0] |= 1 << 5;   /* reserved 11:4 */
	render_has(PT_IOENT_VTD_CTX, w, "reserved: word0 0x20\n");
	memset(w, 0, sizeof w);
	for (unsigned pgtt = 1; pgtt <= 4; pgtt++) {
		static const char *const want[] = {"", "first-level", "second-level", "nested",
						   "pass-through"};

		w[0] = pgtt << 6 | 1;
		ck_assert_str_eq(pt_ioent_translation(PT_IOENT_VTD_PASID, w), want[pgtt]);
	}
	w[0] = 3;   /* DTE V, TV, Mode 0, IR = IW = 0: every request refused (Linux's unused DTEs) */
	ck_assert_str_eq(pt_ioent_translation(PT_IOENT_AMD_DTE, w), "blocked");
	w[0] |= 3ull << 61;   /* IR, IW: Mode 0 passes requests through untranslated */
	ck_assert_str_eq(pt_ioent_translation(PT_IOENT_AMD_DTE, w), "pass-through");
	w[0] = 3;
	w[0] |= 4 << 9;
	ck_assert_str_eq(pt_ioent_translation(PT_IOENT_AMD_DTE, w), "host");
	w[0] |= 1ull << 55;
	ck_assert_str_eq(pt_ioent_translation(PT_IOENT_AMD_DTE, w), "nested");
	w[0] = 1;
	ck_assert_str_eq(pt_ioent_translation(PT_IOENT_AMD_DTE, w), "no-translation-info");
	for (unsigned cfg = 0; cfg < 8; cfg++) {
		static const char *const want[] = {"abort", "reserved", "reserved", "reserved",
						   "bypass", "stage1", "stage2", "nested"};

		w[0] = cfg << 1 | 1;
		ck_assert_str_eq(pt_ioent_translation(PT_IOENT_SMMU_STE, w), want[cfg]);
	}
	/* presence: LP or UP; Span; CD V 31 */
	memset(w, 0, sizeof w);
	w[1] = 1;
	ck_assert(pt_ioent_present(PT_IOENT_VTD_SMROOT, w));
	ck_assert(!pt_ioent_present(PT_IOENT_VTD_ROOT, w));
	w[0] = 0x200000 | 9;
	ck_assert(pt_ioent_present(PT_IOENT_SMMU_L1STD, w));
	w[0] = 1;
	ck_assert(!pt_ioent_present(PT_IOENT_SMMU_CD, w));
	w[0] = 1ull << 31;
	ck_assert(pt_ioent_present(PT_IOENT_SMMU_CD, w));
	ck_assert_ptr_null(pt_ioent_translation(PT_IOENT_VTD_ROOT, w));
	/* the root entry's upper word is all reserved (§9.1) */
	w[0] = 0x101001;
	w[1] = 4;
	render_has(PT_IOENT_VTD_ROOT, w, "ctp: 0x101000\nreserved: word1 0x4\n");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ioent");
	TCase *tc = tcase_create("fields");

	tcase_add_test(tc, field_by_field);
	suite_add_tcase(s, tc);
	tc = tcase_create("render");
	tcase_add_test(tc, translation_and_lines);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
