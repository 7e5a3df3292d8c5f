#include <check.h>
#include "testutil.h"
START_TEST(placeholder) {} END_TEST
int main(void)
{
	Suite *s = suite_create("dumpmem");
	TCase *tc = tcase_create("x");
	tcase_add_test(tc, placeholder);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
