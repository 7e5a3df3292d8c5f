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
 * Makes the array *PP hold exactly N elements of ELEM bytes (an array whose
 * owner keeps no capacity: it is sized once per batch of appends).  False,
 * with *PP unchanged, when out of memory or when N * ELEM would not fit.
 */
bool pt_vec_resize(void *pp, size_t n, size_t elem);

#endif
