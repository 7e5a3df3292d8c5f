/* SPDX-License-Identifier: MIT */
/*
 * linux_guest.h — the synthetic Linux guest (linux_util.h) loaded as a
 * capture for the linux layer's tests (test_linux, test_linux_whose): load
 * it with or without the step after the load, look at what it made.
 */
#ifndef LINUX_GUEST_H
#define LINUX_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux_util.h"
#include "pt_capture.h"

struct guest {
	char *dir;
	struct pt_capture *c;
	pt_err rc;
};

/*
 * The guest O describes, loaded with the step when EXPAND, with the load
 * options LO (may be NULL) and MAP (LEN bytes) as its System.map when not NULL.
 */
struct guest lg_load_full(const struct lu_opts *o, bool expand, const struct pt_load_opts *lo,
			  const void *map, size_t maplen);
struct guest lg_load_map(const struct lu_opts *o, bool expand, const void *map, size_t maplen);
struct guest lg_load_task(const struct lu_opts *o, bool expand, const struct pt_load_opts *lo);
struct guest lg_load(const struct lu_opts *o, bool expand);
void lg_unload(struct guest *g);
/* Context C's x- annotation KEY, or NULL. */
const char *lg_ann(const struct pt_context *c, const char *key);
/* Whether a warning of C holds WHAT; how many do. */
bool lg_warned(const struct pt_capture *c, const char *what);
size_t lg_nwarned(const struct pt_capture *c, const char *what);
/* CTX walks VA to PA. */
void lg_walks_to(const struct pt_context *ctx, uint64_t va, uint64_t pa);
/* The processes of the guest, as every route must find them. */
void lg_has_processes(const struct pt_capture *c);

#endif
