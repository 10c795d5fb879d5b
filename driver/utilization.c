/* utilization.c - the live payload op by op, utilization and its peaks (see utilization.h). */
#include "driver/utilization.h"

#include <stdbool.h>
#include <string.h>

#include "config.h"
#include "driver/pages.h"

static inline size_t align_up(size_t n) { return (n + MM_ALIGNMENT - 1) & ~(size_t)(MM_ALIGNMENT - 1); }

/* The live payload op by op, as utilization counts it: each block its
 * requested size, a realloc its new one. */
typedef struct {
    size_t *size;  /* by id */
    uint64_t live, live_aligned;
} payload_walk_t;

static bool walk_start(payload_walk_t *w, const trace_t *t)
{
    *w = (payload_walk_t){.size = pages_alloc((t->num_ids ? t->num_ids : 1) * sizeof *w->size)};
    return w->size != NULL;
}

static inline void walk_step(payload_walk_t *w, const op_t *op)
{
    w->live -= w->size[op->id];
    w->live_aligned -= align_up(w->size[op->id]);
    w->size[op->id] = op->kind == OP_FREE ? 0 : op->size;
    w->live += w->size[op->id];
    w->live_aligned += align_up(w->size[op->id]);
}

void util_compute(const trace_t *t, size_t heap_high_water, util_result_t *u)
{
    memset(u, 0, sizeof *u);
    payload_walk_t w;
    bool walking = walk_start(&w, t);
    for (size_t i = 0; walking && i < t->num_ops; i++) {
        walk_step(&w, &t->ops[i]);
        if (w.live > u->peak_payload)
            u->peak_payload = w.live;
        if (w.live_aligned > u->peak_aligned)
            u->peak_aligned = w.live_aligned;
    }
    pages_free(w.size);
    u->heap_high_water = heap_high_water;
    u->util = heap_high_water ? (double)u->peak_payload / (double)heap_high_water : (u->peak_payload ? 0.0 : 1.0);
    u->ideal = u->peak_aligned ? (double)u->peak_payload / (double)u->peak_aligned : 1.0;
}

uint64_t payload_peak(const trace_t *t)
{
    payload_walk_t w;
    uint64_t peak = 0;
    if (!walk_start(&w, t))
        return UINT64_MAX;  /* unknown (no memory to walk in): the trace is counted */
    for (size_t i = 0; i < t->num_ops; i++) {
        walk_step(&w, &t->ops[i]);
        peak = w.live > peak ? w.live : peak;
    }
    pages_free(w.size);
    return peak;
}

size_t payload_peaks(const trace_t *t, size_t parts, size_t *at)
{
    payload_walk_t w;
    if (!parts || !t->num_ops || !walk_start(&w, t))
        return 0;
    size_t n = 0, part = 0;
    uint64_t best = 0;
    bool found = false;
    for (size_t i = 0; i < t->num_ops; i++) {
        size_t in = (size_t)((unsigned __int128)i * parts / t->num_ops);
        if (in != part) {  /* the next span: its own highest, from scratch */
            n += found;
            part = in, best = 0, found = false;
        }
        walk_step(&w, &t->ops[i]);
        if (w.live > best)
            best = w.live, at[n] = i, found = true;
    }
    pages_free(w.size);
    return n + found;
}
