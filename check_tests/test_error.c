/* test_error: every error code has a distinct name and a description; file:line details. */
#include <stdarg.h>
#include <string.h>

#include "pt_error.h"
#include "testutil.h"

START_TEST(names_distinct)
{
	for (int i = 0; i < PT_E__COUNT; i++) {
		ck_assert_ptr_nonnull(pt_errname(i));
		ck_assert_ptr_nonnull(pt_strerror(i));
		ck_assert_int_gt(strlen(pt_strerror(i)), 0);
		if (i > 0)
			ck_assert_msg(strncmp(pt_errname(i), "E_", 2) == 0, "%s", pt_errname(i));
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(pt_errname(i), pt_errname(j));
	}
}
END_TEST

START_TEST(names_exact)
{
	ck_assert_str_eq(pt_errname(PT_E_UNSUPPORTED), "E_UNSUPPORTED");
	ck_assert_str_eq(pt_errname(PT_E_TRUNCATED), "E_TRUNCATED");
	ck_assert_str_eq(pt_errname(PT_E_VALUE), "E_VALUE");
	ck_assert_str_eq(pt_errname(PT_E_USAGE), "E_USAGE");
	ck_assert_str_eq(pt_errname(PT_E_CAPTURE), "E_CAPTURE");
	ck_assert_str_eq(pt_errname(PT_E_SYNTAX), "E_SYNTAX");
	ck_assert_str_eq(pt_errname(PT_E_ARCHIVE), "E_ARCHIVE");
	ck_assert_str_eq(pt_errname(PT_E_IO), "E_IO");
	ck_assert_str_eq(pt_errname(PT_E_NOMEM), "E_NOMEM");
	ck_assert_str_eq(pt_errname(PT_E_NOTFOUND), "E_NOTFOUND");
	ck_assert_str_eq(pt_errname(PT_E__COUNT), "E_UNKNOWN");
	ck_assert_str_eq(pt_errname((pt_err)-1), "E_UNKNOWN");
	ck_assert_str_eq(pt_strerror(PT_E__COUNT), "unknown error");
}
END_TEST

/* pt_error_at: "FILE:LINE: message", control bytes masked, cut to fit, nothing without a buffer. */
START_TEST(detail_at_line)
{
	char err[64];

	pt_error_at(err, sizeof err, "run.log", 12, "unknown record %s", "FOO");
	ck_assert_str_eq(err, "run.log:12: unknown record FOO");
	pt_error_at(err, sizeof err, "a\nb\x1b.log", 3, "value \"%s\"", "x\ty\x7f");
	ck_assert_str_eq(err, "a?b?.log:3: value \"x?y?\"");
	pt_error_at(err, 12, "run.log", 12345, "a long message");
	ck_assert_str_eq(err, "run.log:123");
	pt_error_at(err, 20, "run.log", 7, "%s", "abcdefghijklmnop");
	ck_assert_str_eq(err, "run.log:7: abcdefgh");
	memset(err, 'Z', sizeof err);
	pt_error_at(err, 0, "run.log", 1, "x");
	ck_assert_int_eq(err[0], 'Z');
	pt_error_at(NULL, 10, "run.log", 1, "x");
}
END_TEST

/* A variadic front for pt_error_esc_vat (the test calls it as a caller would). */
static void esc_at(char *err, size_t len, const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void esc_at(char *err, size_t len, const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pt_error_esc_vat(err, len, file, line, fmt, ap);
	va_end(ap);
}

/*
 * pt_error_esc_vat (capture.ini's messages, util since issue #41 item 3 so
 * that the formats' key messages need nothing above util): control
 * characters spelled \xNN, C1 as its two UTF-8 bytes, cut to fit whole.
 */
START_TEST(detail_escaped)
{
	char err[64];

	esc_at(err, sizeof err, "capture.ini", 4, "unknown key '%s' in %s", "a\x1b[2Jb", "[gart g]");
	ck_assert_str_eq(err, "capture.ini:4: unknown key 'a\\x1b[2Jb' in [gart g]");
	esc_at(err, sizeof err, "capture.ini", 5, "%s", "x\xc2\x85y\x7f");
	ck_assert_str_eq(err, "capture.ini:5: x\\xc2\\x85y\\x7f");
	esc_at(err, 20, "capture.ini", 6, "%s", "ab\ncd");
	ck_assert_str_eq(err, "capture.ini:6: ab");
	memset(err, 'Z', sizeof err);
	esc_at(err, 0, "capture.ini", 1, "x");
	ck_assert_int_eq(err[0], 'Z');
	esc_at(NULL, 10, "capture.ini", 1, "x");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("error");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, names_distinct);
	tcase_add_test(tc, names_exact);
	suite_add_tcase(s, tc);
	tc = tcase_create("detail");
	tcase_add_test(tc, detail_at_line);
	tcase_add_test(tc, detail_escaped);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
