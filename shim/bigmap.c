/*
 * bigmap.c - blocks straight from mmap, for requests the variant should not or
 * could not serve.  The mapping holds the shim header (block.h) at
 * `offset` bytes from its start; its length is recomputed from the header, so
 * no table is kept.  Fresh mappings are zero, so calloc skips the memset.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "block.h"
#include "shim.h"

static inline size_t page_up(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n + page - 1) & ~(page - 1);
}

static inline size_t map_length(const void *payload)
{
    const shim_hdr_t *h = hdr_of(payload);
    return page_up(offset_of(h) + HDR + h->size);
}

void *big_alloc(size_t size, size_t alignment)
{
    if (size > SIZE_MAX - alignment - 2 * HDR - (size_t)sysconf(_SC_PAGESIZE)) {
        errno = ENOMEM;
        return NULL;
    }
    size_t len = page_up(size + HDR + (alignment > HDR ? alignment : 0));
    void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        errno = ENOMEM;
        return NULL;
    }
    shim_tally(&shim_count.big_maps);
    void *payload = stamp(base, size, alignment, TAG_MAP);
    size_t keep = map_length(payload);      /* what big_free will unmap */
    if (keep < len)
        munmap((char *)base + keep, len - keep);
    return payload;
}

void big_free(void *payload)
{
    shim_tally(&shim_count.big_unmaps);
    munmap(base_of(payload), map_length(payload));
}

/* Unaligned mappings move with mremap; aligned ones are copied by the caller. */
void *big_realloc(void *payload, size_t size)
{
    shim_hdr_t *h = hdr_of(payload);
    if (offset_of(h) != 0 || size > SIZE_MAX - 2 * HDR - (size_t)sysconf(_SC_PAGESIZE))
        return NULL;
    void *base = mremap(base_of(payload), map_length(payload), page_up(size + HDR), MREMAP_MAYMOVE);
    if (base == MAP_FAILED)
        return NULL;
    return stamp(base, size, HDR, TAG_MAP);
}
