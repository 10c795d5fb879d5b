/* sealed.c - records in read-only pages of their own (see sealed.h). */
#define _GNU_SOURCE
#include "driver/sealed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void sealed_seal(void *rec, bool seal)
{
    if (mprotect(rec, SEALED_BYTES, seal ? PROT_READ : PROT_READ | PROT_WRITE)) {
        perror("mdriver: mprotect");
        exit(3);
    }
}

void sealed_put(void *rec, void *dst, const void *src, size_t n)
{
    sealed_seal(rec, false);
    memmove(dst, src, n);
    sealed_seal(rec, true);
}
