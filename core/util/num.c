/* SPDX-License-Identifier: MIT */
/*
 * num.c — the one number parser (pt_num.h).  Four copies with four small
 * differences in what they accepted were the reason it exists: keep every
 * form a flag, so a caller's grammar is visible where it calls.
 */
#include <stdio.h>
#include <string.h>

#include "pt_num.h"

int pt_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* N bytes of S as hex digits into HI:LO; more than MAXBITS bits is an error. */
static bool parse_hex(const char *s, size_t n, unsigned maxbits, uint64_t *lo, uint64_t *hi)
{
	uint64_t l = 0, h = 0;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		int d = pt_hex_digit(s[i]);

		if (d < 0)
			return false;
		/* the top nibble must be free before shifting in another */
		if (maxbits > 64 ? (h >> 60) != 0 : (l >> 60) != 0)
			return false;
		h = h << 4 | l >> 60;
		l = l << 4 | (uint64_t)d;
	}
	*lo = l;
	*hi = h;
	return true;
}

static bool parse_dec(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (n == 0)
		return false;
	/* A leading zero could mean octal to some readers: refuse to guess. */
	if (n > 1 && s[0] == '0')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return true;
}

static bool parse(const char *s, unsigned flags, unsigned maxbits, uint64_t *lo, uint64_t *hi)
{
	size_t n = s ? strlen(s) : 0;
	unsigned shift = 0;
	uint64_t l = 0, h = 0;
	bool prefixed;

	if (n == 0)
		return false;
	if (flags & PT_NUM_SUFFIX) {
		switch (s[n - 1]) {
		case 'K': case 'k': shift = 10; break;
		case 'M': case 'm': shift = 20; break;
		case 'G': case 'g': shift = 30; break;
		}
		if (shift)
			n--;
		/* a suffixed value is a size: 64 bits at most */
		if (shift)
			maxbits = 64;
	}
	prefixed = n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	/*
	 * A size suffix goes on a decimal number only: "0x8000000g" could be a
	 * typo for a hex digit as well as a size (issue #20 item 5).
	 */
	if (shift && prefixed)
		return false;
	if (prefixed && (flags & PT_NUM_HEX)) {
		if (!parse_hex(s + 2, n - 2, maxbits, &l, &h))
			return false;
	} else if (flags & PT_NUM_DEC) {
		if (!parse_dec(s, n, &l))
			return false;
	} else {
		return false;
	}
	if (shift && l > (UINT64_MAX >> shift))
		return false;
	*lo = l << shift;
	*hi = h;
	return true;
}

bool pt_num_parse(const char *s, unsigned flags, uint64_t *out)
{
	uint64_t lo, hi;

	if (!parse(s, flags, 64, &lo, &hi))
		return false;
	*out = lo;
	return true;
}

bool pt_num_parse128(const char *s, unsigned flags, uint64_t *lo, uint64_t *hi)
{
	return parse(s, flags, 128, lo, hi);
}

bool pt_num_bare_hex(const char *s)
{
	bool letter = false;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		int d = pt_hex_digit((unsigned char)*s);

		if (d < 0)
			return false;
		letter |= d >= 10;
	}
	return letter;
}

const char *pt_num_ini_why(const char *s, char *buf, size_t len)
{
	if (!pt_num_bare_hex(s))
		return " (decimal with an optional K/M/G, or 0x hex, at most 64 bits)";
	/* one rule for numbers (PT_NUM_RULE): the same words as ptfs-tool's */
	snprintf(buf, len, ": a hex number needs 0x (write 0x%.64s)", s);
	return buf;
}
