/*
 * ts_damage.c - each layer of ts-nolock's checker (variants/ts-nolock-check.h)
 * sees the damage that only it can see.
 *
 * Like tags_damage.c for the tags-core variants: this includes ts-nolock.c
 * whole to reach its arenas, and makes one kind of damage per case,
 * consistent everywhere but in the one invariant the case is about.
 *
 *   ts-damage CASE     exit 0 when mm_checkheap reports the damage
 *
 * The heap of every case, from one thread: blocks a, b, c, d, e of 200
 * bytes, b and d freed (one class, one list: d, b).
 */
#include "variants/ts-nolock.c"

#include <stdlib.h>

#include "driver/heap.h"

#include "damage.h"

static char *blk[5];
static arena_t *arena;

static void setup(void)
{
    mem_init();
    heap_restart(true);
    if (mm_init() != 0)
        exit(2);
    for (int i = 0; i < 5; i++)
        if (!(blk[i] = mm_malloc(200)))
            exit(2);
    mm_free(blk[1]);
    mm_free(blk[3]);
    arena = arena_at(0);
    if (!mm_checkheap(__LINE__) || g->narenas != 1 || arena->class_head[class_of(bsize(blk[1]))] != (void *)blk[3])
        exit(2);
}

/* A thread whose arena (id 1) has as many free blocks as setup left arena 0: a
 * second arena's chunk has room to spare, so one block freed and that free tail. */
static void *same_count_again(void *unused)
{
    char *mine[5];
    for (int i = 0; i < 5; i++)
        if (!(mine[i] = mm_malloc(200)))
            exit(2);
    mm_free(mine[1]);
    return unused;
}

/* A block's id (header and footer) changed to that of arena `id`. */
static void set_owner(void *bp, uint64_t id)
{
    uint64_t w = (*hdr(bp) & (((uint64_t)1 << ID_SHIFT) - 1)) | id << ID_SHIFT;
    *hdr(bp) = w;
    *ftr(bp) = w;
}

/* A free block's header, 8 bytes before `outside + 64`, as if in a heap. */
static _Alignas(16) unsigned char outside[512];

static void damage(const char *how)
{
    char *b = blk[1], *c = blk[2], *d = blk[3];
    int k = class_of(bsize(b));
    if (!strcmp(how, "footer")) {                 /* 1: a free block's footer alone */
        *ftr(b) ^= ALIGN;
    } else if (!strcmp(how, "alloc-footer")) {    /* 1: an allocated block's footer */
        *ftr(c) ^= ALIGN;
    } else if (!strcmp(how, "small")) {           /* 1: c cut into a block below the minimum and the rest */
        size_t size = bsize(c);
        set_block(arena, c, MIN_BLOCK / 2, true);
        set_block(arena, c + MIN_BLOCK / 2, size - MIN_BLOCK / 2, true);
    } else if (!strcmp(how, "owner")) {           /* 2: a block with another arena's id */
        set_owner(c, 1);
    } else if (!strcmp(how, "prologue")) {        /* 3: the chunk prologue's footer */
        ((uint64_t *)g->chunks)[2] ^= ALIGN;
    } else if (!strcmp(how, "epilogue")) {        /* 3: the chunk's epilogue free */
        char *bp = chunk_first(g->chunks);
        while (bsize(bp))
            bp = next_blk(bp);
        *hdr(bp) &= ~(uint64_t)1;
    } else if (!strcmp(how, "adjacent")) {        /* 3: c freed and listed, unmerged */
        set_block(arena, c, bsize(c), false);
        list_insert(arena, c);
    } else if (!strcmp(how, "bitmap")) {          /* 4: a non-empty class's bit cleared */
        mark(arena, k, false);
    } else if (!strcmp(how, "listed-alloc")) {    /* 4: allocated c listed where d was */
        links_t *l = (links_t *)c, *n = (links_t *)d;
        *l = *n;
        arena->class_head[k] = l;
        n->next->prev = l;
    } else if (!strcmp(how, "class")) {           /* 4: d on the list of the class above */
        list_remove(arena, d);
        links_t *l = (links_t *)d;
        l->prev = NULL, l->next = arena->class_head[k + 1];
        arena->class_head[k + 1] = l;
        mark(arena, k + 1, true);
    } else if (!strcmp(how, "prev-link")) {       /* 4: the second node's prev link */
        ((links_t *)b)->prev = (links_t *)b;
    } else if (!strcmp(how, "outside")) {         /* 4: a node outside the heap where d was */
        links_t *fake = (links_t *)(outside + 64), *n = (links_t *)d;
        *hdr(fake) = *hdr(d);
        *fake = *n;
        arena->class_head[k] = fake;
        n->next->prev = fake;
    } else if (!strcmp(how, "high-class")) {      /* 4: a prev link on a large class's list */
        links_t *big = mm_malloc(5000);
        if (!big || !mm_malloc(200))
            exit(2);
        mm_free(big);
        big->prev = big;
    } else if (!strcmp(how, "remote")) {          /* 5: a free block on the remote-free stack */
        ((links_t *)b)->next = NULL;
        atomic_store(&arena->remote, (links_t *)b);
    } else if (!strcmp(how, "borrowed")) {        /* 5: the kept blocks' byte count */
        arena->nborrowed += ALIGN;
    } else if (!strcmp(how, "slot")) {            /* 7: two arenas, each under the other's id */
        pthread_t tid;
        if (pthread_create(&tid, NULL, same_count_again, NULL) || pthread_join(tid, NULL) || g->narenas != 2
            || !mm_checkheap(__LINE__))
            exit(2);
        slot_t *page = atomic_load(&g->table[0]);
        arena_t *first = atomic_load(&page[0]);
        atomic_store(&page[0], atomic_load(&page[1]));
        atomic_store(&page[1], first);
    } else if (!strcmp(how, "unlisted")) {        /* 6: a free block off its list */
        list_remove(arena, d);
    } else if (!strcmp(how, "count")) {           /* 6: the free blocks mm_stats reports */
        arena->stats.free_blocks++;
    } else {
        exit(2);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    setup();
    damage(argv[1]);
    return damage_verdict();
}
