/*
 * api.c - the malloc family a program sees, with glibc's argument rules.
 *
 *   malloc(0)                 a unique block (usable size 0)
 *   calloc(n, m)              n * m overflows -> NULL, errno ENOMEM
 *   realloc(p, 0)             frees p, returns NULL (glibc's choice)
 *   posix_memalign(&p, a, n)  a not a power of two or not a multiple of
 *                             sizeof(void *) -> returns EINVAL, *p untouched
 *   aligned_alloc(a, n)       a not a power of two -> NULL, errno EINVAL (C17, glibc 2.38)
 *   memalign(a, n)            a above SIZE_MAX/2 + 1 -> NULL, errno EINVAL; any other
 *                             a is rounded up to a power of two (glibc)
 *   valloc(n), pvalloc(n)     page-aligned; pvalloc rounds n up to whole pages
 *   malloc_usable_size(p)     the size asked for (>= every request); 0 for NULL
 * Any failure to find memory sets errno to ENOMEM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "block.h"
#include "shim.h"

static inline bool power_of_two(size_t a) { return a && !(a & (a - 1)); }

static inline void *checked(void *p)
{
    if (!p)
        errno = ENOMEM;
    return p;
}

static inline void *aligned(size_t alignment, size_t size)
{
    shim_tally(&shim_count.aligned);
    return checked(core_alloc(size, alignment < HDR ? HDR : alignment));
}

SHIM_API void *malloc(size_t size)
{
    shim_tally(&shim_count.mallocs);
    return checked(core_alloc(size, HDR));
}

SHIM_API void free(void *ptr)
{
    if (!ptr)
        return;
    shim_tally(&shim_count.frees);
    core_free(ptr);
}

SHIM_API void *calloc(size_t n, size_t size)
{
    size_t total;
    shim_tally(&shim_count.callocs);
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = checked(core_alloc(total, HDR));
    if (p && tag_of(hdr_of(p)) != TAG_MAP)      /* fresh mappings are already zero */
        memset(p, 0, total);
    return p;
}

SHIM_API void *realloc(void *ptr, size_t size)
{
    shim_tally(&shim_count.reallocs);
    if (!ptr)
        return checked(core_alloc(size, HDR));
    if (!size) {
        core_free(ptr);
        return NULL;
    }
    return checked(core_realloc(ptr, size));
}

SHIM_API void *reallocarray(void *ptr, size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(ptr, total);
}

SHIM_API int posix_memalign(void **out, size_t alignment, size_t size)
{
    if (!power_of_two(alignment) || alignment % sizeof(void *))
        return EINVAL;
    int saved = errno;
    void *p = aligned(alignment, size);
    errno = saved;
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

SHIM_API void *aligned_alloc(size_t alignment, size_t size)
{
    if (!power_of_two(alignment)) {
        errno = EINVAL;
        return NULL;
    }
    return aligned(alignment, size);
}

SHIM_API void *memalign(size_t alignment, size_t size)
{
    if (alignment > SIZE_MAX / 2 + 1) {
        errno = EINVAL;
        return NULL;
    }
    if (!power_of_two(alignment))
        alignment = alignment < 2 ? 1 : (size_t)1 << (64 - __builtin_clzl(alignment));
    return aligned(alignment, size);
}

SHIM_API void *valloc(size_t size)
{
    return aligned((size_t)sysconf(_SC_PAGESIZE), size);
}

SHIM_API void *pvalloc(size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (size > SIZE_MAX - page) {
        errno = ENOMEM;
        return NULL;
    }
    size_t whole = size ? (size + page - 1) & ~(page - 1) : page;
    return aligned(page, whole);
}

SHIM_API size_t malloc_usable_size(void *ptr)
{
    return ptr ? core_usable(ptr) : 0;
}
