/* SPDX-License-Identifier: MIT */
/*
 * src_umr_keys.c — MMIO@ records folded by address and comment name
 * (src_umr_keys.h): two open-addressed hash tables, one of the keys, one
 * interning the comment names (a log has few distinct names).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pt_vec.h"
#include "src_umr_keys.h"

static uint64_t mix64(uint64_t x)
{
	/* a 64-bit finaliser (splitmix64's constants): every bit of the key reaches every bit */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static uint64_t key_hash(uint64_t addr, uint32_t name)
{
	return mix64(addr ^ ((uint64_t)name << 40) ^ name);
}

static uint64_t entry_hash(const struct umr_keys *k, bool names, uint32_t e)
{
	return names ? hash_str(k->names + e) : key_hash(k->v[e].addr, k->v[e].name);
}

/* Room for one more of N entries in table *SLOT (load at most 1/2); rehashes as it grows. */
static bool table_room(const struct umr_keys *k, bool names, uint32_t **slot, size_t *nslot, size_t n)
{
	uint32_t *t;
	size_t ns;

	if (*nslot && (n + 1) * 2 <= *nslot)
		return true;
	ns = *nslot ? *nslot * 2 : 64;
	t = calloc(ns, sizeof *t);
	if (!t)
		return false;
	for (size_t i = 0; i < *nslot; i++) {
		size_t j;

		if (!(*slot)[i])
			continue;
		for (j = entry_hash(k, names, (*slot)[i] - 1) & (ns - 1); t[j]; j = (j + 1) & (ns - 1))
			;
		t[j] = (*slot)[i];
	}
	free(*slot);
	*slot = t;
	*nslot = ns;
	return true;
}

/* The offset of NAME in the name pool, added if new; UINT32_MAX: out of memory. */
static uint32_t intern_name(struct umr_keys *k, const char *name)
{
	size_t n = strlen(name) + 1, j;
	uint32_t off;

	if (!k->nnames) {
		if (!pt_vec_reserve(&k->names, &k->cnames, 1, 1))
			return UINT32_MAX;
		k->names[k->nnames++] = 0;
	}
	if (!name[0])
		return 0;
	if (!table_room(k, true, &k->nslotv, &k->nnslot, k->nname))
		return UINT32_MAX;
	for (j = hash_str(name) & (k->nnslot - 1); k->nslotv[j]; j = (j + 1) & (k->nnslot - 1))
		if (!strcmp(k->names + k->nslotv[j] - 1, name))
			return k->nslotv[j] - 1;
	if (!pt_vec_reserve(&k->names, &k->cnames, k->nnames + n, 1))
		return UINT32_MAX;
	off = (uint32_t)k->nnames;
	memcpy(k->names + off, name, n);
	k->nnames += n;
	k->nslotv[j] = off + 1;
	k->nname++;
	return off;
}

pt_err umr_keys_fold(struct umr_keys *k, uint64_t addr, const char *name, unsigned line,
		     const uint32_t *v, size_t n)
{
	uint32_t nid = intern_name(k, name);
	struct rec_mmio *r = NULL;
	size_t j;

	if (nid == UINT32_MAX || !table_room(k, false, &k->slot, &k->nslot, k->n))
		return PT_E_NOMEM;
	k->nrecords++;
	for (j = key_hash(addr, nid) & (k->nslot - 1); k->slot[j]; j = (j + 1) & (k->nslot - 1))
		if (k->v[k->slot[j] - 1].addr == addr && k->v[k->slot[j] - 1].name == nid) {
			r = &k->v[k->slot[j] - 1];
			break;
		}
	if (!r) {
		if (!pt_vec_reserve(&k->v, &k->cap, k->n + 1, sizeof *k->v))
			return PT_E_NOMEM;
		r = &k->v[k->n];
		*r = (struct rec_mmio){.addr = addr, .name = nid, .line = line, .v0 = v[0]};
		k->slot[j] = (uint32_t)++k->n;
	}
	r->count++;
	for (size_t i = 0; i < n && !r->line1; i++)
		if (v[i] != r->v0) {
			r->v1 = v[i];
			r->line1 = line;
		}
	return PT_OK;
}

void umr_keys_free(struct umr_keys *k)
{
	free(k->v);
	free(k->names);
	free(k->slot);
	free(k->nslotv);
	*k = (struct umr_keys){0};
}
