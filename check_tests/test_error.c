/* test_error: every error code has a distinct name and a description. */
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

static Suite *suite(void)
{
	Suite *s = suite_create("error");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, names_distinct);
	tcase_add_test(tc, names_exact);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
