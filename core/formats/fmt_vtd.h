/* SPDX-License-Identifier: MIT */
/*
 * fmt_vtd.h — what fmt_vtd.c (intel-vtd and intel-ept: levels, decoders,
 * contexts) takes from fmt_vtd_enc.c: the encoders and build keys of
 * ptfs-tool build (struct pt_format's encode and build_keys hooks).
 */
#ifndef PT_FMT_VTD_H
#define PT_FMT_VTD_H

#include <stddef.h>
#include <stdint.h>

#include "pt_format.h"

pt_err pt_vtd_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
		     size_t errlen);
pt_err pt_ept_encode(unsigned level, const struct pt_entry *e, uint8_t *raw, char *err,
		     size_t errlen);
void pt_vtd_build_keys(const struct pt_build_keys *k, struct pt_buf *ini);
void pt_ept_build_keys(const struct pt_build_keys *k, struct pt_buf *ini);

#endif
