/* u64map: linear-probing hash map with backward-shift deletion (u64map.h). */
#include <errno.h>
#include <stdlib.h>

#include "ioriot/u64map.h"

static inline size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (size_t)k;
}

int u64map_init(struct u64map *m)
{
	m->mask = 63;
	m->count = 0;
	m->slots = calloc(m->mask + 1, sizeof(*m->slots));
	return m->slots ? 0 : -ENOMEM;
}

void *u64map_get(const struct u64map *m, uint64_t key)
{
	for (size_t i = hash64(key) & m->mask;; i = (i + 1) & m->mask) {
		if (!m->slots[i].value)
			return NULL;
		if (m->slots[i].key == key)
			return m->slots[i].value;
	}
}

static int grow(struct u64map *m)
{
	struct u64map_slot *old = m->slots;
	size_t old_cap = m->mask + 1;
	size_t cap = old_cap * 2;

	m->slots = calloc(cap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -ENOMEM;
	}
	m->mask = cap - 1;
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].value)
			continue;
		size_t j = hash64(old[i].key) & m->mask;
		while (m->slots[j].value)
			j = (j + 1) & m->mask;
		m->slots[j] = old[i];
	}
	free(old);
	return 0;
}

int u64map_put(struct u64map *m, uint64_t key, void *value)
{
	if ((m->count + 1) * 4 > (m->mask + 1) * 3) {
		int err = grow(m);
		if (err)
			return err;
	}
	size_t i = hash64(key) & m->mask;
	while (m->slots[i].value && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	if (!m->slots[i].value)
		m->count++;
	m->slots[i].key = key;
	m->slots[i].value = value;
	return 0;
}

bool u64map_replace(struct u64map *m, uint64_t key, void *value)
{
	for (size_t i = hash64(key) & m->mask;; i = (i + 1) & m->mask) {
		if (!m->slots[i].value)
			return false;
		if (m->slots[i].key == key) {
			m->slots[i].value = value;
			return true;
		}
	}
}

void *u64map_del(struct u64map *m, uint64_t key)
{
	size_t i = hash64(key) & m->mask;

	while (m->slots[i].value && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	void *value = m->slots[i].value;
	if (!value)
		return NULL;
	/* Shift back later entries of the run that hashed at or before i. */
	for (size_t j = (i + 1) & m->mask; m->slots[j].value; j = (j + 1) & m->mask) {
		size_t home = hash64(m->slots[j].key) & m->mask;
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].value = NULL;
	m->count--;
	return value;
}

struct u64map_slot *u64map_next(const struct u64map *m, size_t *pos)
{
	while (m->slots && *pos <= m->mask) {
		struct u64map_slot *s = &m->slots[(*pos)++];
		if (s->value)
			return s;
	}
	return NULL;
}

void u64map_destroy(struct u64map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->count = 0;
}
