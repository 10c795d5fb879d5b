/*
 * damage.h - how every *_damage.c harness ends: once one invariant has been
 * damaged behind the allocator's back, whether mm_checkheap reported it.
 */
#ifndef VARIANTS_DAMAGE_H
#define VARIANTS_DAMAGE_H

#include <stdbool.h>
#include <stdio.h>

/* The harness's exit status: 0 when the checker reported the damage, 1 when not. */
static inline int damage_verdict(void)
{
    bool seen = !mm_checkheap(__LINE__);
    printf(seen ? "damage reported\n" : "damage not reported\n");
    return seen ? 0 : 1;
}

#endif
