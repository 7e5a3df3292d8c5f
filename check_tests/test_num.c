/* test_num: the one number parser (core/num.c): every form, every overflow, the suffixes. */
#include <stdint.h>

#include "pt_num.h"
#include "pt_walk.h"
#include "testutil.h"

/* The command line's forms are the one rule (issue #25 item 1). */
#define CLI PT_NUM_RULE

static bool ok(const char *s, unsigned flags, uint64_t want)
{
	uint64_t v = 0xdeadbeef;

	return pt_num_parse(s, flags, &v) && v == want;
}

static bool bad(const char *s, unsigned flags)
{
	uint64_t v = 0xdeadbeef;

	return !pt_num_parse(s, flags, &v) && v == 0xdeadbeef;
}

START_TEST(decimal)
{
	ck_assert(ok("0", PT_NUM_DEC, 0));
	ck_assert(ok("42", PT_NUM_DEC, 42));
	ck_assert(ok("18446744073709551615", PT_NUM_DEC, UINT64_MAX));
	ck_assert(bad("18446744073709551616", PT_NUM_DEC));
	ck_assert(bad("99999999999999999999", PT_NUM_DEC));
	/* leading zero: octal to some readers, refused unless the caller pads */
	ck_assert(bad("00", PT_NUM_DEC));
	ck_assert(bad("010", PT_NUM_DEC));
	ck_assert(bad("0018446744073709551615", CLI));
	ck_assert(bad("", PT_NUM_DEC));
	ck_assert(bad(NULL, PT_NUM_DEC));
	ck_assert(bad("-1", PT_NUM_DEC));
	ck_assert(bad("+1", PT_NUM_DEC));
	ck_assert(bad(" 1", PT_NUM_DEC));
	ck_assert(bad("1 ", PT_NUM_DEC));
	ck_assert(bad("1a", PT_NUM_DEC));
	/* hex only where the caller allows it */
	ck_assert(bad("0x10", PT_NUM_DEC));
	ck_assert(bad("1K", PT_NUM_DEC));
}
END_TEST

START_TEST(hex)
{
	ck_assert(ok("0x0", PT_NUM_HEX, 0));
	ck_assert(ok("0X1f", PT_NUM_HEX, 0x1f));
	ck_assert(ok("0xAbCdEf", PT_NUM_HEX, 0xabcdef));
	ck_assert(ok("0xffffffffffffffff", PT_NUM_HEX, UINT64_MAX));
	ck_assert(ok("0x0000000000000000001", PT_NUM_HEX, 1));
	ck_assert(bad("0x10000000000000000", PT_NUM_HEX));
	ck_assert(bad("0x", PT_NUM_HEX));
	ck_assert(bad("0xg", PT_NUM_HEX));
	ck_assert(bad("0x-1", PT_NUM_HEX));
	ck_assert(bad("ff", PT_NUM_HEX));
	ck_assert(bad("10", PT_NUM_HEX));
	ck_assert(ok("10", PT_NUM_DEC | PT_NUM_HEX, 10));
	ck_assert(ok("0x10", PT_NUM_DEC | PT_NUM_HEX, 16));
}
END_TEST

/*
 * One rule for numbers everywhere (issue #25 item 1): command line, mount
 * names, legs files and capture.ini read "10001000" as decimal, and a hex
 * number without its 0x is refused, never read as hex.
 */
START_TEST(rule)
{
	uint64_t v = 7;

	ck_assert(ok("10001000", PT_NUM_RULE, 10001000));
	ck_assert(ok("0x10001000", PT_NUM_RULE, 0x10001000));
	ck_assert(ok("0X0000001000", PT_NUM_RULE, 0x1000));
	ck_assert(bad("4198a00", PT_NUM_RULE));
	ck_assert(bad("deadbeef", PT_NUM_RULE));
	ck_assert(bad("ffffffffffffffff", PT_NUM_RULE));
	ck_assert(bad("DEADBEEF", PT_NUM_INI));
	ck_assert(bad("007", PT_NUM_RULE));
	/* the messages' test: hex digits, no 0x, at least one letter */
	ck_assert(pt_num_bare_hex("4198a00"));
	ck_assert(pt_num_bare_hex("deadbeef"));
	ck_assert(pt_num_bare_hex("ABC"));
	ck_assert(!pt_num_bare_hex("4198400"));
	ck_assert(!pt_num_bare_hex("0x4198a00"));
	ck_assert(!pt_num_bare_hex("4K"));
	ck_assert(!pt_num_bare_hex("12g"));
	ck_assert(!pt_num_bare_hex("zz"));
	ck_assert(!pt_num_bare_hex(""));
	ck_assert(!pt_num_bare_hex(NULL));
	/* mount names (walk/, va/, pa/SPACE/) by the same rule */
	ck_assert(pt_va_parse("10001000", &v) && v == 10001000);
	ck_assert(pt_va_parse("0x10001000", &v) && v == 0x10001000);
	ck_assert(pt_va_parse("0X400ABC", &v) && v == 0x400abc);
	v = 7;
	ck_assert(!pt_va_parse("400abc", &v) && v == 7);
	ck_assert(!pt_va_parse("4198a00", &v) && v == 7);
	ck_assert(!pt_va_parse("0x", &v) && v == 7);
	ck_assert(!pt_va_parse("1K", &v) && v == 7);
}
END_TEST

/* The names the mount lists in va/ parse back to their VA under the rule. */
START_TEST(va_names_parse_back)
{
	static const uint64_t vas[] = {0, 0x1000, 0x400000, 0x4198a00, UINT64_C(0x1fffffffff000)};

	for (unsigned f = 0; pt_format_at(f); f++) {
		const struct pt_format *fmt = pt_format_at(f);

		for (unsigned i = 0; i < sizeof vas / sizeof vas[0]; i++) {
			char name[64];
			uint64_t back = 1;

			if (!pt_va_in_space(fmt, vas[i]))
				continue;
			pt_va_name(fmt, vas[i], name, sizeof name);
			ck_assert_msg(pt_va_parse(name, &back) && back == vas[i], "%s: va/ name %s", fmt->name, name);
		}
	}
}
END_TEST

START_TEST(suffix)
{
	ck_assert(ok("4K", PT_NUM_INI, 4096));
	ck_assert(ok("4k", PT_NUM_INI, 4096));
	ck_assert(ok("2M", PT_NUM_INI, 2u << 20));
	ck_assert(ok("2m", PT_NUM_INI, 2u << 20));
	ck_assert(ok("1G", PT_NUM_INI, UINT64_C(1) << 30));
	ck_assert(ok("1g", PT_NUM_INI, UINT64_C(1) << 30));
	/* A size suffix goes on a decimal number only (issue #20 item 5): "0x8000000g" is refused. */
	ck_assert(bad("0x10K", PT_NUM_INI));
	ck_assert(bad("0x8000000g", PT_NUM_INI));
	ck_assert(ok("0K", PT_NUM_INI, 0));
	ck_assert(ok("17179869183G", PT_NUM_INI, UINT64_C(17179869183) << 30));
	ck_assert(bad("17179869184G", PT_NUM_INI));
	ck_assert(bad("0x3fffffffffffffK", PT_NUM_INI));
	ck_assert(bad("0x40000000000000K", PT_NUM_INI));
	ck_assert(bad("18014398509481984K", PT_NUM_INI));
	ck_assert(bad("K", PT_NUM_INI));
	ck_assert(bad("0xK", PT_NUM_INI));
	ck_assert(bad("1KK", PT_NUM_INI));
	ck_assert(bad("1T", PT_NUM_INI));
	ck_assert(bad("1 K", PT_NUM_INI));
	ck_assert(bad("01K", PT_NUM_INI));
	ck_assert(bad("01K", CLI | PT_NUM_SUFFIX));
	/* no suffix unless the caller allows one */
	ck_assert(bad("1K", CLI));
}
END_TEST

START_TEST(wide)
{
	uint64_t lo = 0, hi = 0;

	ck_assert(pt_num_parse128("0x0123456789abcdeffedcba9876543210", CLI, &lo, &hi));
	ck_assert_uint_eq(hi, UINT64_C(0x0123456789abcdef));
	ck_assert_uint_eq(lo, UINT64_C(0xfedcba9876543210));
	ck_assert(pt_num_parse128("0xffffffffffffffffffffffffffffffff", CLI, &lo, &hi));
	ck_assert_uint_eq(hi, UINT64_MAX);
	ck_assert_uint_eq(lo, UINT64_MAX);
	ck_assert(!pt_num_parse128("0x100000000000000000000000000000000", CLI, &lo, &hi));
	/* decimal stops at 64 bits */
	ck_assert(pt_num_parse128("18446744073709551615", CLI, &lo, &hi));
	ck_assert_uint_eq(lo, UINT64_MAX);
	ck_assert_uint_eq(hi, 0);
	ck_assert(!pt_num_parse128("18446744073709551616", CLI, &lo, &hi));
	ck_assert(pt_num_parse128("0x1", CLI, &lo, &hi));
	ck_assert_uint_eq(lo, 1);
	ck_assert_uint_eq(hi, 0);
}
END_TEST

START_TEST(le64)
{
	static const uint8_t b[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88};

	ck_assert_uint_eq(pt_le64_load(b), UINT64_C(0x8807060504030201));
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("num");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, decimal);
	tcase_add_test(tc, hex);
	tcase_add_test(tc, rule);
	tcase_add_test(tc, va_names_parse_back);
	tcase_add_test(tc, suffix);
	tcase_add_test(tc, wide);
	suite_add_tcase(s, tc);
	tc = tcase_create("le64");
	tcase_add_test(tc, le64);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tu_run(suite());
}
