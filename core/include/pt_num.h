/* SPDX-License-Identifier: MIT */
/*
 * pt_num.h — the one number parser of ptfs (capture.ini values, VA names,
 * entry names, ptfs-tool options and legs files) and the one little-endian
 * load.  Every caller says which forms it allows; anything else, and any
 * value that does not fit, is refused rather than guessed at (docs/design.md §1).
 */
#ifndef PT_NUM_H
#define PT_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum {
	PT_NUM_DEC = 1u << 0,     /* decimal digits; no leading zero (octal to some readers) */
	PT_NUM_HEX = 1u << 1,     /* "0x"/"0X" and at least one hex digit */
	PT_NUM_SUFFIX = 1u << 2,  /* one trailing K, M or G (binary, either case) on a decimal number */
};
/*
 * The one rule for numbers (README "Numbers", issue #25 item 1): command
 * line arguments, mount names (walk/, va/, pa/SPACE/ADDR), legs and spec
 * files, capture.ini.  Decimal, or hex with 0x: "10001000" is decimal
 * everywhere, and "4198a00" is an error (pt_num_bare_hex()) rather than a
 * guess.
 */
#define PT_NUM_RULE (PT_NUM_DEC | PT_NUM_HEX)
/* Sizes: capture.ini values and ptfs-tool SIZE arguments (the rule, and a K/M/G on a decimal). */
#define PT_NUM_INI (PT_NUM_RULE | PT_NUM_SUFFIX)

/*
 * S (whole string, no sign, no blanks) as a number of the forms FLAGS
 * allows, at most 64 bits (after the suffix's multiplier); false otherwise.
 */
/* The value of hex digit C (either case), or -1. */
int pt_hex_digit(int c);
bool pt_num_parse(const char *s, unsigned flags, uint64_t *out);
/*
 * Like pt_num_parse, but hex may have up to 128 bits (a 16-byte entry);
 * decimal and suffixed values stop at 64 bits.
 */
bool pt_num_parse128(const char *s, unsigned flags, uint64_t *lo, uint64_t *hi);
/*
 * Whether S is hex digits without 0x holding at least one of a-f (either
 * case), "4198a00" or "deadbeef": a hex number missing its 0x.  A caller
 * whose parse failed says so, and to write 0x, in its message.
 */
bool pt_num_bare_hex(const char *s);
/*
 * The tail of the message for S that pt_num_parse(S, PT_NUM_INI) refused
 * (a capture.ini value): ": a hex number needs 0x (write 0xdeadbeef)" for
 * hex digits without 0x, the forms otherwise.  BUF (LEN bytes, 96 are
 * enough) may hold it.
 */
const char *pt_num_ini_why(const char *s, char *buf, size_t len);

/*
 * Little-endian 64-bit load, independent of the host's byte order.  On a
 * little-endian host it is one load (gcc 12 -O2 leaves the byte loop a
 * loop: ~60 instructions per entry of every table listing).
 */
static inline uint64_t pt_le64_load(const uint8_t *p)
{
	uint64_t v = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&v, p, sizeof v);
#else
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
#endif
	return v;
}

/* The N (at most 8) bytes at P as a little-endian number: a field of a guest's structure. */
static inline uint64_t pt_le_load(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* Little-endian 32-bit load (a header field of a dump or a BTF blob). */
static inline uint32_t pt_le32_load(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * Whether the LEN bytes at P are all zero: 64 bytes at a time, a word at a
 * time (most of a guest's pages and a capture's chunks are zero, and the
 * loader, the memory and the roots scan run this over all of them).
 */
static inline bool pt_bytes_zero(const uint8_t *p, size_t len)
{
	uint64_t acc = 0, w;
	size_t i = 0;

	for (; i + 64 <= len; i += 64) {
		for (unsigned k = 0; k < 64; k += 8) {
			memcpy(&w, p + i + k, 8);
			acc |= w;
		}
		if (acc)
			return false;
	}
	for (; i < len; i++)
		acc |= p[i];
	return !acc;
}

/* The inverse of pt_le64_load(): V little-endian at P (the formats' encoders). */
static inline void pt_le64_store(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * The decimal digits of V written backwards ending just before END (no
 * NUL); returns the first.  Listings and renders format millions of
 * numbers: by hand, not through printf (bench/README.md).
 */
static inline char *pt_dec_before(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* The same in lowercase hex, at least MIN digits (leading zeros); "0" for 0 when MIN is 0. */
static inline char *pt_hex_before(char *end, uint64_t v, unsigned min)
{
	static const char hex[] = "0123456789abcdef";
	unsigned k = 0;

	do {
		*--end = hex[v & 15];
		v >>= 4;
		k++;
	} while (v || k < min);
	return end;
}

#endif
