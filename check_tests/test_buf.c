/* test_buf: the byte buffer, the one JSON emitter (escapes, sorted keys, nesting), the growable array. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_render.h"
#include "pt_vec.h"
#include "testutil.h"

static struct pt_buf b;

static void setup(void)
{
	pt_buf_init(&b);
}

static void teardown(void)
{
	pt_buf_free(&b);
}

static const char *esc(const char *s)
{
	pt_buf_reset(&b);
	pt_json_escape(&b, s);
	ck_assert_int_eq(pt_buf_status(&b), PT_OK);
	return b.data;
}

START_TEST(buf_fit)
{
	pt_buf_fit(&b);                 /* nothing held: nothing to give back */
	ck_assert_ptr_null(b.data);
	pt_buf_puts(&b, "maps");
	ck_assert_uint_gt(b.cap, 5);    /* grown by doubling */
	pt_buf_fit(&b);
	ck_assert_uint_eq(b.cap, 5);    /* the bytes and their NUL */
	ck_assert_str_eq(b.data, "maps");
	pt_buf_puts(&b, " more");       /* and it grows again */
	ck_assert_str_eq(b.data, "maps more");
}
END_TEST

START_TEST(escape_controls)
{
	/* every control byte as \u00XX, lower-case hex: the form golden walk --json holds */
	for (int c = 1; c < 0x20; c++) {
		char in[2] = {(char)c, 0}, want[16];

		snprintf(want, sizeof want, "\"\\u%04x\"", c);
		ck_assert_str_eq(esc(in), want);
	}
	ck_assert_str_eq(esc("a\nb"), "\"a\\u000ab\"");
	ck_assert_str_eq(esc("\t"), "\"\\u0009\"");
	ck_assert_str_eq(esc("\x1b[31m"), "\"\\u001b[31m\"");
}
END_TEST

START_TEST(escape_del_quote_backslash)
{
	ck_assert_str_eq(esc("\x7f"), "\"\\u007f\"");
	ck_assert_str_eq(esc("\""), "\"\\\"\"");
	ck_assert_str_eq(esc("\\"), "\"\\\\\"");
	ck_assert_str_eq(esc("/"), "\"/\"");
	ck_assert_str_eq(esc(""), "\"\"");
	ck_assert_str_eq(esc(" ~"), "\" ~\"");
}
END_TEST

START_TEST(escape_utf8)
{
	/* bytes >= 0x80 pass through: UTF-8 names stay readable */
	ck_assert_str_eq(esc("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80"),
			 "\"gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80\"");
	ck_assert_str_eq(esc("\x80\xff"), "\"\x80\xff\"");
}
END_TEST

START_TEST(jobj_sorted)
{
	struct pt_jobj o = {0};

	pt_jobj_u(&o, "zeta", 3);
	pt_jobj_hex(&o, "alpha", 0x1000);
	pt_jobj_str(&o, "mid", "a\"b");
	pt_jobj_str(&o, "nul", NULL);
	pt_jobj_bool(&o, "b", true);
	pt_jobj_bool(&o, "alpha", false);   /* repeated key: the first is kept */
	pt_jobj_finish(&o, &b);
	ck_assert_str_eq(b.data, "{\"alpha\": \"0x1000\", \"b\": true, \"mid\": \"a\\\"b\", "
			 "\"nul\": null, \"zeta\": 3}");
	ck_assert_ptr_null(o.m);
	pt_buf_reset(&b);
	pt_jobj_finish(&o, &b);
	ck_assert_str_eq(b.data, "{}");
}
END_TEST

START_TEST(jobj_nested)
{
	struct pt_jobj o = {0}, c = {0}, d = {0};

	pt_jobj_u(&d, "y", 2);
	pt_jobj_u(&d, "x", 1);
	pt_jobj_obj(&c, "inner", &d);
	pt_jobj_raw(&c, "list", "[1, 2]");
	pt_jobj_obj(&o, "child", &c);
	pt_jobj_str(&o, "a\nkey", "v");
	pt_jobj_finish(&o, &b);
	ck_assert_str_eq(b.data, "{\"a\\u000akey\": \"v\", \"child\": {\"inner\": {\"x\": 1, \"y\": 2}, "
			 "\"list\": [1, 2]}}");
}
END_TEST

START_TEST(jarr_items)
{
	struct pt_jobj o = {0}, item = {0};
	struct pt_jarr a = {0}, lines = {.sep = ",\n"}, empty = {0};

	pt_jarr_str(&a, "x\x7f");
	pt_jarr_str(&a, NULL);
	pt_jarr_raw(&a, "7");
	pt_jobj_u(&item, "k", 1);
	pt_jarr_obj(&a, &item);
	pt_jarr_raw(&lines, "1");
	pt_jarr_raw(&lines, "2");
	pt_jobj_arr(&o, "list", &a);
	pt_jobj_arr(&o, "lines", &lines);
	pt_jobj_arr(&o, "empty", &empty);
	ck_assert_uint_eq(a.n, 0);
	ck_assert_ptr_null(a.b.data);
	pt_jobj_finish(&o, &b);
	ck_assert_str_eq(b.data, "{\"empty\": [], \"lines\": [1,\n2], "
			 "\"list\": [\"x\\u007f\", null, 7, {\"k\": 1}]}");
}
END_TEST

START_TEST(buf_grow)
{
	char big[5000];

	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	pt_buf_puts(&b, "a");
	pt_buf_printf(&b, "%s", big);
	pt_buf_put(&b, "b", 1);
	ck_assert_uint_eq(b.len, 1 + 4999 + 1);
	ck_assert_int_eq(b.data[0], 'a');
	ck_assert_int_eq(b.data[5000], 'b');
	ck_assert_int_eq(b.data[5001], 0);
	ck_assert_int_eq(pt_buf_status(&b), PT_OK);
}
END_TEST

START_TEST(vec_reserve)
{
	uint32_t *v = NULL;
	size_t cap = 0;

	ck_assert(pt_vec_reserve(&v, &cap, 1, sizeof *v));
	ck_assert_uint_ge(cap, 1);
	for (uint32_t i = 0; i < 1000; i++) {
		ck_assert(pt_vec_reserve(&v, &cap, i + 1, sizeof *v));
		ck_assert_uint_ge(cap, i + 1);
		v[i] = i;
	}
	for (uint32_t i = 0; i < 1000; i++)
		ck_assert_uint_eq(v[i], i);
	/* a request already met changes nothing */
	{
		uint32_t *keep = v;
		size_t kc = cap;

		ck_assert(pt_vec_reserve(&v, &cap, 3, sizeof *v));
		ck_assert_ptr_eq(v, keep);
		ck_assert_uint_eq(cap, kc);
		/* overflow of n * elem: refused, array untouched */
		ck_assert(!pt_vec_reserve(&v, &cap, SIZE_MAX / 2, sizeof *v));
		ck_assert(!pt_vec_reserve(&v, &cap, SIZE_MAX, 1));
		ck_assert_ptr_eq(v, keep);
		ck_assert_uint_eq(cap, kc);
	}
	/* an exact size keeps the elements it covers; an overflowing size is refused, untouched */
	ck_assert(pt_vec_resize(&v, 5, sizeof *v));
	for (uint32_t i = 0; i < 5; i++)
		ck_assert_uint_eq(v[i], i);
	{
		uint32_t *keep = v;

		ck_assert(!pt_vec_resize(&v, SIZE_MAX / 2, sizeof *v));
		ck_assert_ptr_eq(v, keep);
	}
	free(v);
}
END_TEST

/* Exactly N elements: the contents kept, 0 and an overflowing N * ELEM refused with the array untouched. */
START_TEST(vec_resize)
{
	uint32_t *v = NULL, *keep;

	ck_assert(pt_vec_resize(&v, 3, sizeof *v));
	for (uint32_t i = 0; i < 3; i++)
		v[i] = i + 7;
	ck_assert(pt_vec_resize(&v, 5000, sizeof *v));
	v[4999] = 1;
	for (uint32_t i = 0; i < 3; i++)
		ck_assert_uint_eq(v[i], i + 7);
	ck_assert(pt_vec_resize(&v, 2, sizeof *v));
	ck_assert_uint_eq(v[1], 8);
	keep = v;
	ck_assert(!pt_vec_resize(&v, SIZE_MAX / 2, sizeof *v));
	ck_assert_ptr_eq(v, keep);
	ck_assert_uint_eq(v[0], 7);
	free(v);
}
END_TEST

/* One wording for both front ends' load progress; a percentage never passes 100. */
START_TEST(progress_str)
{
	char line[64];

	pt_progress_str("a.tar", 1, 3, line, sizeof line);
	ck_assert_str_eq(line, "loading a.tar:  33%");
	pt_progress_str("a.tar", 5, 3, line, sizeof line);
	ck_assert_str_eq(line, "loading a.tar: 100%");
	pt_progress_str("a.tar", UINT64_C(17) << 20 | 5, 0, line, sizeof line);
	ck_assert_str_eq(line, "loading a.tar: 17 MiB");
	pt_progress_str("a-very-long-path-name-indeed.tar.gz", 1, 2, line, 12);
	ck_assert_str_eq(line, "loading a-v");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("buf");
	TCase *tc = tcase_create("escape");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, buf_fit);
	tcase_add_test(tc, escape_controls);
	tcase_add_test(tc, escape_del_quote_backslash);
	tcase_add_test(tc, escape_utf8);
	suite_add_tcase(s, tc);
	tc = tcase_create("jobj");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, jobj_sorted);
	tcase_add_test(tc, jobj_nested);
	tcase_add_test(tc, jarr_items);
	suite_add_tcase(s, tc);
	tc = tcase_create("grow");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, buf_grow);
	tcase_add_test(tc, vec_reserve);
	tcase_add_test(tc, vec_resize);
	suite_add_tcase(s, tc);
	tc = tcase_create("progress");
	tcase_add_test(tc, progress_str);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
