/* SPDX-License-Identifier: MIT */
/*
 * manifest_memory.c — the [memory] sections of the capture.ini schema
 * (ini.h, man/ptfs-capture.5): a section's space, base, file and window,
 * or the dump (and its System.map) whose memory the capture is.  Paths
 * are checked never to leave the capture.  Called by manifest.c's
 * check_section(); it calls only ini.c and lookup.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_int.h"
#include "manifest_int.h"
#include "pt_vec.h"

/*
 * A path a [memory] section names (file =, dump =) normalised into *OUT:
 * relative to the capture root and never leaving it (no '/' first, no
 * '..'), so that a capture names only what is inside it.
 */
static pt_err member_path(struct build *b, const struct pt_ini_kv *kv, const char *label, char **out)
{
	if (kv->value[0] == 0) {
		pt_ini_set_error(b->err, b->errlen, kv->line, "empty value for '%s' in %s", kv->key, label);
		return PT_E_VALUE;
	}
	if (kv->value[0] == '/') {
		pt_ini_set_error(b->err, b->errlen, kv->line,
		       "%s '%s' in %s is absolute: %s", kv->key, kv->value, label,
		       kv->key[0] == 'f' ? "members are named from the capture root"
		       : "a dump is named from capture.ini's directory, and nothing outside it is read");
		return PT_E_CAPTURE;
	}
	free(*out);
	*out = strdup(kv->value);
	if (!*out)
		return PT_E_NOMEM;
	if (!pt_path_normalise(*out)) {
		pt_ini_set_error(b->err, b->errlen, kv->line,
		       !strstr(kv->value, "..") ? "%s '%s' in %s names no member"
		       : kv->key[0] == 'f' ? "%s '%s' in %s contains '..': such a member is never used"
		       : "%s '%s' in %s contains '..': nothing outside capture.ini's directory is read",
		       kv->key, kv->value, label);
		return PT_E_CAPTURE;
	}
	return PT_OK;
}

/*
 * [memory NAME] dump = FILE (KV; PATH normalised, taken): the capture's
 * one dump.  OTHER is a key that has no place beside it (the dump gives
 * its own spaces and bases), or NULL.
 */
static pt_err memory_dump(struct build *b, const struct pt_ini_section *s, const struct pt_ini_kv *kv,
			  char *path, const struct pt_ini_kv *other)
{
	char label[PT_INI_MAX_LINE + 8];

	sec_label(s, label, sizeof label);
	if (other) {
		free(path);
		pt_ini_set_error(b->err, b->errlen, other->line, "'%s' in %s: a section naming a dump takes "
		       "no other key but system_map (the dump gives its own spaces, bases and contexts)", other->key, label);
		return PT_E_VALUE;
	}
	if (b->m->dump) {
		free(path);
		pt_ini_set_error(b->err, b->errlen, kv->line, "a second dump '%s' in %s (the first, '%s', at "
		       "line %u): a capture's memory is one dump", kv->value, label, b->m->dump, b->m->dump_line);
		return PT_E_CAPTURE;
	}
	b->m->dump = kv->value;
	b->m->dump_path = path;
	b->m->dump_sec = s->name;
	b->m->dump_line = kv->line;
	return PT_OK;
}

/*
 * [memory NAME] system_map = FILE (KV): the System.map of the dump the
 * section names, under the rules of dump = (relative to capture.ini's
 * directory, never leaving it); a section without dump = has no kernel.
 */
static pt_err memory_system_map(struct build *b, const struct pt_ini_section *s, const struct pt_ini_kv *kv,
				const char *label)
{
	bool has_dump = false;

	for (size_t i = 0; i < s->nkv; i++)
		has_dump |= !strcmp(s->kv[i].key, "dump");
	if (!has_dump) {
		pt_ini_set_error(b->err, b->errlen, kv->line, "'system_map' in %s without 'dump': a System.map "
				 "names the symbols of a dump's kernel", label);
		return PT_E_VALUE;
	}
	if (kv->value[0] == 0 || kv->value[0] == '/') {
		pt_ini_set_error(b->err, b->errlen, kv->line, kv->value[0] ? "system_map '%s' in %s is absolute: it "
				 "is named from capture.ini's directory, and nothing outside it is read" :
				 "empty value for 'system_map'%.0s in %s", kv->value, label);
		return kv->value[0] ? PT_E_CAPTURE : PT_E_VALUE;
	}
	free(b->m->system_map_path);
	b->m->system_map_path = strdup(kv->value);
	if (!b->m->system_map_path)
		return PT_E_NOMEM;
	if (!pt_path_normalise(b->m->system_map_path)) {
		pt_ini_set_error(b->err, b->errlen, kv->line, strstr(kv->value, "..") ? "system_map '%s' in %s "
				 "contains '..': nothing outside capture.ini's directory is read" :
				 "system_map '%s' in %s names no file", kv->value, label);
		return PT_E_CAPTURE;
	}
	b->m->system_map = kv->value;
	b->m->system_map_line = kv->line;
	return PT_OK;
}

pt_err pt_manifest_check_memory(struct build *b, const struct pt_ini_section *s, const unsigned *dup,
				const struct pt_format *fmt)
{
	char label[PT_INI_MAX_LINE + 8], list[256];
	const struct pt_ini_kv *space = NULL, *base = NULL, *file = NULL, *dump = NULL;
	struct pt_manifest_mem mm = {0};
	char *dump_path = NULL;
	pt_err rc = PT_OK;

	sec_label(s, label, sizeof label);
	for (size_t i = 0; i < s->nkv && !rc; i++) {
		const struct pt_ini_kv *kv = &s->kv[i];

		if (dup[i]) {
			pt_ini_set_error(b->err, b->errlen, kv->line,
			       "duplicate key '%s' in %s (first at line %u)", kv->key, label, dup[i]);
			rc = PT_E_VALUE;
		} else if (!strcmp(kv->key, "space")) {
			int sp = fmt ? pt_manifest_space_find(b->m, kv->value) : 0;

			if (sp < 0) {
				space_list(b->m, list, sizeof list);
				pt_ini_set_error(b->err, b->errlen, kv->line,
				       "space '%s' in %s is not a space of %s (%s)",
				       kv->value, label, b->m->one_format ? fmt->name : "the capture", list);
				rc = PT_E_VALUE;
			}
			mm.space = sp < 0 ? 0 : (unsigned)sp;
			space = kv;
		} else if (!strcmp(kv->key, "base")) {
			rc = get_uint(b, kv, label, &mm.base);
			base = kv;
		} else if (!strcmp(kv->key, "file")) {
			rc = member_path(b, kv, label, &mm.path);
			file = kv;
		} else if (!strcmp(kv->key, "dump")) {
			rc = member_path(b, kv, label, &dump_path);
			dump = kv;
		} else if (!strcmp(kv->key, "system_map")) {
			rc = memory_system_map(b, s, kv, label);
		} else if (!strcmp(kv->key, "offset")) {
			rc = get_uint(b, kv, label, &mm.offset);
			mm.offset_line = kv->line;
		} else if (!strcmp(kv->key, "length")) {
			rc = get_uint(b, kv, label, &mm.length);
			mm.has_length = true;
			mm.length_line = kv->line;
		} else if (!is_x_key(kv->key)) {
			pt_ini_set_error(b->err, b->errlen, kv->line, "unknown key '%s' in %s", kv->key, label);
			rc = PT_E_VALUE;
		}
		/* x- keys of a [memory] section are accepted and not kept. */
	}
	if (!rc && dump) {
		const struct pt_ini_kv *other = NULL;

		/* the first key that has no place beside a dump */
		for (size_t i = 0; i < s->nkv && !other; i++)
			if (strcmp(s->kv[i].key, "dump") && strcmp(s->kv[i].key, "system_map") && !is_x_key(s->kv[i].key))
				other = &s->kv[i];
		free(mm.path);
		return memory_dump(b, s, dump, dump_path, other);
	}
	if (!rc && (!space || !base || !file))
		rc = missing(b, s, !space ? "space" : !base ? "base" : "file");
	if (!rc && !pt_vec_reserve(&b->m->mem, &b->memcap, b->m->nmem + 1, sizeof *b->m->mem))
		rc = PT_E_NOMEM;
	if (rc) {
		free(mm.path);
		free(dump_path);
		return rc;
	}
	mm.name = s->name;
	mm.line = s->line;
	mm.file = file->value;
	mm.file_line = file->line;
	b->m->mem[b->m->nmem++] = mm;
	return PT_OK;
}

