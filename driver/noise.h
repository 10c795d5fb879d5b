/*
 * noise.h - the random bytes a timed run's heap starts with, and its tags' values.
 *
 * A timed run writes one tag byte into each new block and checks that realloc
 * moved it (measure.c).  On a zeroed heap the tag was the old block's one
 * non-zero byte: a realloc could scan for it and copy that byte alone (red
 * team).  So the clean start fills the heap below the kept mark with noise
 * (memlib.c's scrub) from a seed the parent draws for each run, and a tag is a
 * byte like any other there: both are odd, uniform over the 128 odd values.
 */
#ifndef DRIVER_NOISE_H
#define DRIVER_NOISE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Sets the low bit of each byte: a noise word's bytes are as a tag's value. */
static const uint64_t NOISE_ODD = 0x0101010101010101ull;

static inline uint64_t noise_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* A seed no process can predict (the clock and pid only if getrandom fails). */
static inline uint64_t noise_seed(void)
{
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = noise_mix64((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));
    return seed;
}

/* A tag's value from a random word: one byte as noise_fill writes them. */
static inline uint8_t noise_byte(uint64_t r) { return (uint8_t)(r >> 56) | 1; }

/* xorshift128+ in 8 lanes, which the compiler vectorizes. */
enum { NOISE_LANES = 8, NOISE_CHUNK = 4096 };

typedef struct {
    uint64_t s0[NOISE_LANES], s1[NOISE_LANES], out[NOISE_LANES];
} noise_t;

static inline void noise_step(noise_t *g)
{
    for (size_t l = 0; l < NOISE_LANES; l++) {
        uint64_t x = g->s0[l], y = g->s1[l];
        g->s0[l] = y;
        x ^= x << 23;
        g->s1[l] = x ^ y ^ (x >> 17) ^ (y >> 26);
        g->out[l] = (g->s1[l] + y) | NOISE_ODD;
    }
}

/* Fill [p, p + n) with noise from seed, about 5 GB/s here (memset: 40).  Made a
 * chunk at a time on the stack and stored by memcpy: stored by the loop itself,
 * the noise left the caches so that segregated-realloc's next timed run took
 * 4-14% longer than after memset (AMD EPYC VM: lab64-ngram, classic-binary);
 * so, 0-4% (the most on the shortest traces).  Non-temporal stores: twice. */
static inline void noise_fill(char *p, size_t n, uint64_t seed)
{
    noise_t g;
    char chunk[NOISE_CHUNK];
    for (size_t l = 0; l < NOISE_LANES; l++) {
        g.s0[l] = noise_mix64(seed + 2 * l);
        g.s1[l] = noise_mix64(seed + 2 * l + 1);
    }
    for (size_t at = 0; at < n; at += sizeof chunk) {
        for (size_t c = 0; c < sizeof chunk; c += sizeof g.out) {
            noise_step(&g);
            memcpy(chunk + c, g.out, sizeof g.out);
        }
        memcpy(p + at, chunk, n - at < sizeof chunk ? n - at : sizeof chunk);
    }
}

#endif
