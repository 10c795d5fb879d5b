/* region_race.c - one thread moves the shim region's break while another asks
 * where it is, as a free from another thread does (region_contains): under
 * ThreadSanitizer, any read of the break that is not atomic is a reported race. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "memlib.h"

bool region_contains(const void *p);

enum { GROWTHS = 20000 };

static void *grower(void *arg)
{
    (void)arg;
    for (int i = 0; i < GROWTHS; i++)
        if (mem_sbrk(16) == (void *)-1)
            return "mem_sbrk failed";
    return NULL;
}

int main(void)
{
    mem_init();
    char *lo = mem_heap_lo();
    pthread_t t;
    pthread_create(&t, NULL, grower, NULL);
    size_t seen = 0;
    for (int i = 0; i < GROWTHS; i++)
        seen += region_contains(lo) + mem_heapsize() / 16 + (mem_heap_hi() >= (void *)lo);
    void *err;
    pthread_join(t, &err);
    if (err) {
        puts(err);
        return 1;
    }
    printf("ok %d\n", seen > 0);
    return 0;
}
