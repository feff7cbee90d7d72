/*
 * hashing: a fast 64-bit hash of bytes, for the hash tables of paths and
 * names (the generator's namespace tree, the analysis' rows).  Not for
 * anything an attacker could aim at: no seed of its own beyond @h.
 */
#ifndef IORIOT_HASHING_H
#define IORIOT_HASHING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Mix @len bytes of @data into @h, eight at a time; the hash. */
static inline uint64_t hash_bytes(uint64_t h, const char *data, size_t len)
{
	const uint64_t mul = 0xff51afd7ed558ccdULL;

	for (; len >= 8; data += 8, len -= 8) {
		uint64_t w;
		memcpy(&w, data, 8);
		h = (h ^ w) * mul;
		h ^= h >> 29;
	}
	if (len) {
		uint64_t w = 0;
		for (size_t i = 0; i < len; i++)
			w |= (uint64_t)(unsigned char)data[i] << (8 * i);
		h = (h ^ w) * mul;
		h ^= h >> 29;
	}
	return h ^ h >> 32;
}

#endif
