/*
 * ts-nolock-check.h - mm_checkheap for variants/ts-nolock.c, layer by layer:
 * one block, one chunk, one arena's lists and remote stack, the arena table,
 * then the counts (the invariants are listed in ts-nolock.c's card).
 *
 * Part of ts-nolock.c, kept apart to keep each file about one idea: it reads
 * that file's state and helpers and is included by it alone, at its end.
 */
#ifndef VARIANTS_TS_NOLOCK_CHECK_H
#define VARIANTS_TS_NOLOCK_CHECK_H

static bool complain(int line, const char *what, const void *bp)
{
    printf("ts-nolock checkheap (line %d): %s at %p\n", line, what, bp);
    return false;
}

static bool inside_heap(const void *p)
{
    return (const char *)p >= (const char *)mem_heap_lo() && (const char *)p <= (const char *)mem_heap_hi();
}

/* Layer 1: one block (invariants 1 and 2). */
static bool check_block(int line, void *bp, unsigned owner)
{
    if ((uintptr_t)bp % ALIGN)
        return complain(line, "misaligned payload", bp);
    if (bsize(bp) % ALIGN || bsize(bp) < MIN_BLOCK)
        return complain(line, "bad block size", bp);
    if (!inside_heap((char *)next_blk(bp) - 1))
        return complain(line, "block runs past the break", bp);
    if (*hdr(bp) != *ftr(bp))
        return complain(line, "header and footer differ", bp);
    if (owner_of(bp) != owner)
        return complain(line, "block carries another arena's id", bp);
    return true;
}

/* Layer 2: walk one chunk (invariant 3), counting its arena's free blocks. */
static bool check_chunk(int line, char *chunk)
{
    if (!inside_heap(chunk))
        return complain(line, "chunk outside the heap", chunk);
    uint64_t prologue = ((uint64_t *)chunk)[1];
    unsigned owner = (unsigned)(prologue >> ID_SHIFT);
    if (owner >= g->narenas || size_of_word(prologue) != 2 * WORD || !(prologue & 1)
        || prologue != ((uint64_t *)chunk)[2])
        return complain(line, "chunk prologue damaged", chunk);
    arena_t *a = arena_at(owner);
    bool prev_free = false;
    void *bp = chunk_first(chunk);
    for (; inside_heap(hdr(bp)) && bsize(bp) > 0; bp = next_blk(bp)) {
        if (!check_block(line, bp, owner))
            return false;
        if (!is_alloc(bp) && prev_free)
            return complain(line, "two adjacent free blocks", bp);
        prev_free = !is_alloc(bp);
        a->checked_free += prev_free;
    }
    if (!inside_heap(hdr(bp)) || *hdr(bp) != ((uint64_t)owner << ID_SHIFT | 1))
        return complain(line, "chunk epilogue missing", bp);
    return true;
}

/* Layer 3: one arena's lists and remote stack (invariants 4 and 5). */
static bool check_arena(int line, arena_t *a, size_t *nlisted)
{
    for (int c = 0; c < NCLASS; c++) {
        if ((a->nonempty[c / 64] >> (c % 64) & 1) != (a->class_head[c] != NULL))
            return complain(line, "class bitmap disagrees with its list", a->class_head[c]);
        for (links_t *l = a->class_head[c], *prev = NULL; l; prev = l, l = l->next) {
            if (!inside_heap(l))
                return complain(line, "free-list pointer outside the heap", l);
            if (is_alloc(l) || owner_of(l) != a->id)
                return complain(line, "listed block not free or not this arena's", l);
            if (class_of(bsize(l)) != c)
                return complain(line, "free block in the wrong class", l);
            if (l->prev != prev)
                return complain(line, "free-list prev link broken", l);
            (*nlisted)++;
        }
    }
    for (links_t *l = atomic_load(&a->remote); l; l = l->next)
        if (!inside_heap(l) || !is_alloc(l) || owner_of(l) != a->id)
            return complain(line, "bad block in a remote-free stack", l);
    size_t kept = 0;
    for (int c = 0; c < EXACT_LIMIT / ALIGN; c++)
        for (links_t *l = a->borrowed[c]; l; kept += bsize(l), l = l->next)
            if (!inside_heap(l) || !is_alloc(l) || owner_of(l) == a->id || class_of(bsize(l)) != c)
                return complain(line, "bad block among those kept from other arenas", l);
    if (kept != a->nborrowed)
        return complain(line, "byte count of kept blocks is wrong", a);
    return true;
}

/* Layer 0: the table (invariant 7), before anything looks an arena up in it;
 * zeroes each arena's count of free blocks for layer 2. */
static bool check_table(int line)
{
    for (unsigned i = 0; i < g->narenas; i++) {
        unsigned p = page_of(i);
        slot_t *page = atomic_load(&g->table[p]);
        if (!page || !inside_heap(page))
            return complain(line, "arena table page missing", page);
        arena_t *a = atomic_load(&page[i - page_base(p)]);
        if (!a || !inside_heap(a) || a->id != i)
            return complain(line, "arena table slot names the wrong arena", a);
        a->checked_free = 0;
    }
    return true;
}

bool mm_checkheap(int lineno)
{
    if (!g)
        return true;                    /* no heap yet: nothing to check */
    pthread_mutex_lock(&g->grow);
    bool ok = check_table(lineno);
    for (char *chunk = g->chunks; ok && chunk; chunk = *chunk_link(chunk))
        ok = check_chunk(lineno, chunk);
    for (unsigned i = 0; ok && i < g->narenas; i++) {
        arena_t *a = arena_at(i);
        size_t nlisted = 0;
        ok = check_arena(lineno, a, &nlisted);
        if (ok && nlisted != a->checked_free) {            /* layer 4: invariant 6 */
            printf("ts-nolock checkheap (line %d): arena %u has %zu free blocks in its chunks, %zu in its lists\n",
                   lineno, i, a->checked_free, nlisted);
            ok = false;
        }
        if (ok && MM_STATS && nlisted != a->stats.free_blocks) {    /* mm_stats' count */
            printf("ts-nolock checkheap (line %d): arena %u counts %llu free blocks, %zu in its lists\n",
                   lineno, i, (unsigned long long)a->stats.free_blocks, nlisted);
            ok = false;
        }
    }
    pthread_mutex_unlock(&g->grow);
    return ok;
}

#endif
