/*
 * contracts.c - the malloc family's contracts, checked in a process whose
 * malloc is the shim (run with LD_PRELOAD=build/libmm-NAME.so).
 *
 *   contracts [big_bytes]
 *
 * Prints one line per failed check ("FAIL line N: what") and exits 1 if any
 * failed, else prints "ok N checks".  big_bytes (default 0 = skip) is a request
 * the caller knows exceeds the shim's region limit, to exercise the mmap fallback.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int checks, failures;
/* Sizes read through volatiles, so the compiler neither warns about nor folds
 * the impossible requests below. */
static volatile size_t half_max = SIZE_MAX / 2, quarter_max = SIZE_MAX / 4, huge = (size_t)1 << 33,
                       nearly_max = SIZE_MAX - 8;

static void expect(int ok, int line, const char *what)
{
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL line %d: %s\n", line, what);
    }
}
#define EXPECT(cond) expect((cond), __LINE__, #cond)

static int aligned_to(const void *p, size_t a) { return ((uintptr_t)p & (a - 1)) == 0; }

static void fill_check(unsigned char *p, size_t n, unsigned char seed, int line)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed + i * 13);
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed + i * 13)) {
            expect(0, line, "block keeps what was written");
            return;
        }
}

static void basic(void)
{
    void *z = malloc(0), *z2 = malloc(0);
    EXPECT(z != NULL && z2 != NULL && z != z2);
    EXPECT(malloc_usable_size(z) == 0 || malloc_usable_size(z) > 0);
    free(z);
    free(z2);
    free(NULL);
    EXPECT(malloc_usable_size(NULL) == 0);
    for (size_t n = 1; n < 70000; n = n * 3 + 1) {
        unsigned char *p = malloc(n);
        EXPECT(p != NULL && aligned_to(p, 16));
        EXPECT(malloc_usable_size(p) >= n);
        fill_check(p, n, (unsigned char)n, __LINE__);
        free(p);
    }
}

static void calloc_contract(void)
{
    errno = 0;
    EXPECT(calloc(half_max, 3) == NULL && errno == ENOMEM);
    errno = 0;
    EXPECT(calloc(huge, huge) == NULL && errno == ENOMEM);
    errno = 0;
    EXPECT(reallocarray(NULL, quarter_max, 8) == NULL && errno == ENOMEM);
    /* calloc memory is zero even where a freed block left bytes behind */
    unsigned char *dirty = malloc(4000);
    memset(dirty, 0xAB, 4000);
    free(dirty);
    unsigned char *c = calloc(1000, 4);
    int zero = c != NULL;
    for (size_t i = 0; c && i < 4000; i++)
        zero &= c[i] == 0;
    EXPECT(zero);
    free(c);
    errno = 0;
    EXPECT(malloc(nearly_max) == NULL && errno == ENOMEM);
}

static void realloc_contract(void)
{
    unsigned char *p = realloc(NULL, 100);
    EXPECT(p != NULL);
    for (int i = 0; i < 100; i++)
        p[i] = (unsigned char)i;
    p = realloc(p, 100000);
    int same = p != NULL;
    for (int i = 0; p && i < 100; i++)
        same &= p[i] == (unsigned char)i;
    EXPECT(same && malloc_usable_size(p) >= 100000);
    p = realloc(p, 10);
    same = p != NULL;
    for (int i = 0; p && i < 10; i++)
        same &= p[i] == (unsigned char)i;
    EXPECT(same && malloc_usable_size(p) >= 10);
    errno = 0;
    EXPECT(realloc(p, 0) == NULL);   /* frees p, as glibc does */
}

static void alignment_contracts(void)
{
    long page = sysconf(_SC_PAGESIZE);
    for (size_t a = sizeof(void *); a <= ((size_t)1 << 20); a <<= 1) {
        void *p = (void *)1;
        EXPECT(posix_memalign(&p, a, 100) == 0 && aligned_to(p, a) && malloc_usable_size(p) >= 100);
        fill_check(p, 100, 7, __LINE__);
        p = realloc(p, 5000);      /* realloc and free accept the aligned pointer */
        EXPECT(p != NULL && malloc_usable_size(p) >= 5000);
        free(p);
        void *q = aligned_alloc(a, 3 * a);
        EXPECT(q != NULL && aligned_to(q, a) && malloc_usable_size(q) >= 3 * a);
        free(q);
        void *m = memalign(a, 77);
        EXPECT(m != NULL && aligned_to(m, a) && malloc_usable_size(m) >= 77);
        free(m);
    }
    void *p = (void *)1;
    EXPECT(posix_memalign(&p, 24, 8) == EINVAL && p == (void *)1);      /* not a power of two */
    EXPECT(posix_memalign(&p, 4, 8) == EINVAL && p == (void *)1);       /* below sizeof(void *) */
    EXPECT(posix_memalign(&p, 0, 8) == EINVAL && p == (void *)1);
    errno = 0;
    EXPECT(aligned_alloc(48, 96) == NULL && errno == EINVAL);
    errno = 0;
    EXPECT(memalign(half_max + 2, 8) == NULL && errno == EINVAL);
    void *r = memalign(48, 10);                                          /* rounded up to 64 */
    EXPECT(r != NULL && aligned_to(r, 64));
    free(r);
    void *v = valloc(10);
    EXPECT(v != NULL && aligned_to(v, (size_t)page) && malloc_usable_size(v) >= 10);
    free(v);
    void *pv = pvalloc(page + 1);
    EXPECT(pv != NULL && aligned_to(pv, (size_t)page) && malloc_usable_size(pv) >= 2 * (size_t)page);
    free(pv);
    void *pz = pvalloc(0);
    EXPECT(pz != NULL && aligned_to(pz, (size_t)page) && malloc_usable_size(pz) >= (size_t)page);
    free(pz);
}

static void big(size_t n)
{
    unsigned char *p = malloc(n);
    EXPECT(p != NULL && malloc_usable_size(p) >= n);
    if (!p)
        return;
    p[0] = 1, p[n / 2] = 2, p[n - 1] = 3;
    unsigned char *q = realloc(p, n + n / 2);          /* mremap path */
    EXPECT(q != NULL && q[0] == 1 && q[n / 2] == 2 && q[n - 1] == 3);
    q = realloc(q, 1000);                              /* back into the variant */
    EXPECT(q != NULL && q[0] == 1);
    free(q);
    void *a = NULL;
    EXPECT(posix_memalign(&a, 1 << 16, n) == 0 && aligned_to(a, 1 << 16));
    free(a);
    unsigned char *c = calloc(1, n);
    EXPECT(c != NULL && c[0] == 0 && c[n - 1] == 0);
    free(c);
}

int main(int argc, char **argv)
{
    basic();
    calloc_contract();
    realloc_contract();
    alignment_contracts();
    if (argc > 1 && strtoull(argv[1], NULL, 10) >= 4096)
        big((size_t)strtoull(argv[1], NULL, 10));
    if (failures)
        return 1;
    printf("ok %d checks\n", checks);
    return 0;
}
