/* SPDX-License-Identifier: MIT */
/*
 * wslot.c — walk/ names past the inode scheme's bits.
 *
 * A walk/ file's inode carries its VA (ino.c), in the 63 - C bits the
 * context field leaves: every VA below 2^(63-C), and for a canonical
 * format (x86-64, arm64) every VA whose magnitude is below 2^(62-C).
 * ptfs-tool walk takes any 64-bit VA (issue #34 item 5: walk/0x1000000000000000
 * on x86-64 was ENOENT where the CLI says fault=noncanonical, and a
 * non-canonical pointer such as Linux's LIST_POISON1 0xdead000000000100 is
 * exactly what one asks about), so a VA past those bits gets a slot:
 * a number handed out at LOOKUP and taken back when the kernel FORGETs
 * the inode, its lookups counted as the FUSE protocol defines
 * (fuse_lowlevel.h: every successful lookup reply adds one, forget(N)
 * takes N).  The same name gets the same slot while it is held, so a
 * second lookup of a cached name returns the same inode; a slot number is
 * only reused once the kernel has forgotten it, so a held inode never
 * names another VA.  Such a number is stable while the kernel holds it,
 * not across mounts (ptfs(1) says so).
 *
 * The table is a chained hash of (context, VA) over a growing slot array,
 * bounded by PTFS_WSLOT_MAX held names; past it such a lookup fails with
 * ENOSPC, never a wrong trace.  The names are the user's choice (any
 * 64-bit VA), and every lookup takes the table's one mutex, so the hash
 * mixes all 64 bits of the VA and the context with a seed of the table's
 * own (issue #39 item 12: the top 12 bits of va * K alone put chosen VAs
 * in one of 4096 chains), and the buckets grow with the slots so that a
 * chain stays short however many names are held.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "pt_vec.h"
#include "ptfs.h"

#define NO_SLOT UINT32_MAX

struct wslot {
	uint64_t va;
	uint64_t nlookup;   /* 0: free (on the free list) */
	uint32_t ctx;
	uint32_t next;      /* hash chain, or the free list */
};

struct ptfs_wslots {
	pthread_mutex_t lock;
	struct wslot *v;
	uint32_t n;           /* slots made */
	size_t cap;           /* slots allocated (pt_vec) */
	uint32_t *bucket;     /* nbucket chain heads */
	uint32_t nbucket;     /* a power of two, from PTFS_WSLOT_BUCKETS up to PTFS_WSLOT_MAX */
	uint32_t free;        /* free list head */
	uint64_t seed;        /* the hash's key: chains cannot be chosen from outside */
};

#define PTFS_WSLOT_BUCKETS 4096u

/* A key for this table: random where getrandom(2) gives one, else the clock and the address. */
static uint64_t seed_new(const void *t)
{
	uint64_t s = 0;
	struct timespec ts;

	if (getrandom(&s, sizeof s, GRND_NONBLOCK) == (ssize_t)sizeof s)
		return s;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)(uintptr_t)t;
}

struct ptfs_wslots *ptfs_wslots_new(void)
{
	struct ptfs_wslots *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->bucket = malloc(PTFS_WSLOT_BUCKETS * sizeof(*t->bucket));
	if (!t->bucket) {
		free(t);
		return NULL;
	}
	for (unsigned i = 0; i < PTFS_WSLOT_BUCKETS; i++)
		t->bucket[i] = NO_SLOT;
	t->nbucket = PTFS_WSLOT_BUCKETS;
	t->free = NO_SLOT;
	t->seed = seed_new(t);
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

void ptfs_wslots_free(struct ptfs_wslots *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t->v);
	free(t->bucket);
	free(t);
}

/*
 * Every bit of VA and CTX reaches every bit of the result: two rounds of
 * the xor-shift-multiply finalizer of MurmurHash3 (fmix64, public domain,
 * constants as published), VA and CTX keyed by the table's seed, the low
 * bits taken.
 */
static uint32_t hash_of(const struct ptfs_wslots *t, unsigned ctx, uint64_t va)
{
	uint64_t h = va ^ t->seed;

	for (unsigned r = 0; r < 2; r++) {
		h ^= h >> 33;
		h *= UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 33;
		h *= UINT64_C(0xc4ceb9fe1a85ec53);
		h ^= h >> 33;
		h ^= (uint64_t)ctx + (t->seed >> 32 | t->seed << 32);
	}
	return (uint32_t)h & (t->nbucket - 1);
}

/* Twice the buckets once the slots outgrow them, the held slots rehashed; kept as is on ENOMEM. */
static void buckets_grow(struct ptfs_wslots *t)
{
	uint32_t nb = t->nbucket * 2, *b;

	if (t->n < t->nbucket || nb > PTFS_WSLOT_MAX || !(b = malloc(nb * sizeof(*b))))
		return;
	free(t->bucket);
	t->bucket = b;
	t->nbucket = nb;
	for (uint32_t i = 0; i < nb; i++)
		b[i] = NO_SLOT;
	for (uint32_t s = 0; s < t->n; s++) {
		uint32_t h;

		if (!t->v[s].nlookup)
			continue;   /* free: on the free list, not in a chain */
		h = hash_of(t, t->v[s].ctx, t->v[s].va);
		t->v[s].next = b[h];
		b[h] = s;
	}
}

/* A slot off the free list or a new one; NO_SLOT when the table is full. */
static uint32_t slot_take(struct ptfs_wslots *t)
{
	uint32_t s = t->free;

	if (s != NO_SLOT) {
		t->free = t->v[s].next;
		return s;
	}
	if (t->n == PTFS_WSLOT_MAX)
		return NO_SLOT;
	/* doubling from 8: at most PTFS_WSLOT_MAX, a power of two, since n stays below it */
	if (!pt_vec_reserve(&t->v, &t->cap, (size_t)t->n + 1, sizeof(*t->v)))
		return NO_SLOT;
	buckets_grow(t);
	return t->n++;
}

int ptfs_wslot_hold(struct ptfs_wslots *t, unsigned ctx, uint64_t va, uint32_t *slot)
{
	uint32_t h, s;

	pthread_mutex_lock(&t->lock);
	h = hash_of(t, ctx, va);
	for (s = t->bucket[h]; s != NO_SLOT; s = t->v[s].next)
		if (t->v[s].ctx == ctx && t->v[s].va == va)
			break;
	if (s == NO_SLOT) {
		s = slot_take(t);
		if (s == NO_SLOT) {
			pthread_mutex_unlock(&t->lock);
			return ENOSPC;
		}
		h = hash_of(t, ctx, va);   /* the buckets may have grown */
		t->v[s] = (struct wslot){ .va = va, .ctx = ctx, .next = t->bucket[h] };
		t->bucket[h] = s;
	}
	t->v[s].nlookup++;
	*slot = s;
	pthread_mutex_unlock(&t->lock);
	return 0;
}

bool ptfs_wslot_get(struct ptfs_wslots *t, uint32_t slot, unsigned *ctx, uint64_t *va)
{
	bool held;

	pthread_mutex_lock(&t->lock);
	held = slot < t->n && t->v[slot].nlookup > 0;
	if (held) {
		*ctx = t->v[slot].ctx;
		*va = t->v[slot].va;
	}
	pthread_mutex_unlock(&t->lock);
	return held;
}

void ptfs_wslot_forget(struct ptfs_wslots *t, uint32_t slot, uint64_t nlookup)
{
	struct wslot *w;
	uint32_t *p;

	pthread_mutex_lock(&t->lock);
	if (slot >= t->n || t->v[slot].nlookup == 0)
		goto out;   /* not ours to count: never held */
	w = &t->v[slot];
	w->nlookup = nlookup >= w->nlookup ? 0 : w->nlookup - nlookup;
	if (w->nlookup)
		goto out;
	for (p = &t->bucket[hash_of(t, w->ctx, w->va)]; *p != slot; p = &t->v[*p].next)
		;
	*p = w->next;
	w->next = t->free;
	t->free = slot;
out:
	pthread_mutex_unlock(&t->lock);
}

unsigned ptfs_wslot_held(struct ptfs_wslots *t)
{
	unsigned held = 0;

	pthread_mutex_lock(&t->lock);
	for (uint32_t s = 0; s < t->n; s++)
		held += t->v[s].nlookup > 0;
	pthread_mutex_unlock(&t->lock);
	return held;
}

unsigned ptfs_wslot_chain_max(struct ptfs_wslots *t, unsigned *buckets)
{
	unsigned most = 0;

	pthread_mutex_lock(&t->lock);
	for (uint32_t b = 0; b < t->nbucket; b++) {
		unsigned len = 0;

		for (uint32_t s = t->bucket[b]; s != NO_SLOT; s = t->v[s].next)
			len++;
		most = len > most ? len : most;
	}
	if (buckets)
		*buckets = t->nbucket;
	pthread_mutex_unlock(&t->lock);
	return most;
}
