/* SPDX-License-Identifier: MIT */
/*
 * pt_vec.h — the one growable array of ptfs.  Arrays stay plain
 * (pointer, count, capacity) in their owners; only the growing is shared,
 * so the overflow checks are written once.
 */
#ifndef PT_VEC_H
#define PT_VEC_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Makes the array *PP (a pointer to any element pointer) of *CAP elements
 * of ELEM bytes hold at least N elements, doubling (from 8) so appends
 * stay amortised O(1).  False, with *PP and *CAP unchanged, when out of
 * memory or when N * ELEM would not fit in a size_t.
 */
bool pt_vec_reserve(void *pp, size_t *cap, size_t n, size_t elem);

/*
 * Makes the array *PP hold exactly N elements of ELEM bytes (N > 0): for
 * the owners that size to what they hold (a buffer of one length, a list
 * grown once by a known count).  False, with *PP unchanged, when out of
 * memory or when N * ELEM would not fit in a size_t.
 */
bool pt_vec_resize(void *pp, size_t n, size_t elem);

#endif
