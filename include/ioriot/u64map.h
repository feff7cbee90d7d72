/*
 * u64map: an open-addressing hash map from 64-bit keys to pointers, for the
 * generator's per-process and per-timeline state.  Linear probing with
 * backward-shift deletion: no tombstones, so long runs stay fast.
 */
#ifndef IORIOT_U64MAP_H
#define IORIOT_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u64map_slot {
	uint64_t key;
	void *value;		/* NULL marks an empty slot */
};

struct u64map {
	struct u64map_slot *slots;
	size_t mask;		/* capacity - 1; capacity is a power of two */
	size_t count;
};

/* Set up an empty map.  Returns 0 or -ENOMEM. */
int u64map_init(struct u64map *m);

/* The value for @key, or NULL. */
void *u64map_get(const struct u64map *m, uint64_t key);

/* Insert or replace; @value must not be NULL.  Returns 0 or -ENOMEM. */
int u64map_put(struct u64map *m, uint64_t key, void *value);

/* Replace the value of @key, which must be in the map, with @value (not
 * NULL); never allocates.  False if @key is absent. */
bool u64map_replace(struct u64map *m, uint64_t key, void *value);

/* Remove @key; returns its value or NULL if absent. */
void *u64map_del(struct u64map *m, uint64_t key);

/* Iterate: start with *pos = 0; returns the next slot or NULL at the end. */
struct u64map_slot *u64map_next(const struct u64map *m, size_t *pos);

/* Free the slot array (not the values).  Accepts a zeroed map. */
void u64map_destroy(struct u64map *m);

#endif
