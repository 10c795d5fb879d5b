/* report-scan.c - honest (bump.h) until timed.  From the fourth mm_init on (timed
 * runs) it looks through the program's writable data (writable.h: no system call)
 * for the child's report by its shape: no nonce yet, verdict OK at no op with an
 * empty message, utilization to come.  There it claims every timed run so far
 * took FORGED seconds, as the red team did; the parent's estimate is then FORGED.
 * The report must be out of the allocator's reach until it is sent. */
#include "bump.h"
#include "driver/child.h"
#include "writable.h"

static const double FORGED = 7.77e-8;
static int inits;

static bool looks_like_report(const child_report_t *r)
{
    static const uint8_t zero[CHILD_NONCE_BYTES];
    return !memcmp(r->nonce, zero, sizeof zero) && r->verdict.outcome == OUTCOME_OK && r->verdict.op_index == -1 &&
           !memcmp(r->verdict.message, zero, sizeof zero) && r->has_util;
}

static void forge(void)
{
    span_t s;
    for (int i = 0; writable_segment(i, &s); i++)
        for (uintptr_t p = (s.from + 7) & ~(uintptr_t)7; p + sizeof(child_report_t) <= s.to; p += 8) {
            child_report_t *r = (child_report_t *)p;
            if (!looks_like_report(r))
                continue;
            r->mm_time.n = inits - 3;
            for (int k = 0; k < r->mm_time.n; k++)
                r->mm_time.samples[k] = FORGED;
            return;
        }
}

int mm_init(void)
{
    if (++inits >= 4)
        forge();
    return 0;
}

void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
