/*
 * harness.c - drive memlib.c directly and print what it did, one `key=value` per
 * line, for tests/test_memlib.py to judge.
 *
 *   harness contract [MAX]   the memlib.h contract, with heap_configure(MAX) first
 *   harness write-below      touch the byte below the heap (must fault)
 *   harness write-past-page  touch a byte a page past the break (must fault)
 *   harness write-slack      touch a byte between the break and its page's end
 *   harness fast             the timing pass's mode: the whole range writable
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/heap.h"
#include "memlib.h"

static void show(const char *key, uintptr_t value) { printf("%s=%#" PRIxPTR "\n", key, value); }

/* Try mem_sbrk(incr); print the result relative to the old break and errno. */
static void try_sbrk(const char *key, intptr_t incr)
{
    char *before = (char *)mem_heap_lo() + mem_heapsize();
    errno = 0;
    void *got = mem_sbrk(incr);
    printf("%s=%s errno=%s size=%zu\n", key,
           got == (void *)-1 ? "fail" : got == before ? "old-break" : "elsewhere",
           errno == ENOMEM ? "ENOMEM" : errno ? "other" : "0", mem_heapsize());
}

static int contract(size_t max)
{
    if (max)
        heap_configure(max);
    mem_init();
    uintptr_t lo = (uintptr_t)mem_heap_lo();
    show("lo", lo);
    show("hi_empty_plus_1", (uintptr_t)mem_heap_hi() + 1);
    printf("size_empty=%zu\n", mem_heapsize());
    try_sbrk("sbrk_100", 100);
    show("hi_after_100", (uintptr_t)mem_heap_hi());
    try_sbrk("sbrk_negative", -1);
    try_sbrk("sbrk_zero", 0);
    try_sbrk("sbrk_past_max", (intptr_t)(heap_max() - 100 + 1));
    try_sbrk("sbrk_to_max", (intptr_t)(heap_max() - 100));
    try_sbrk("sbrk_one_more", 1);
    ((char *)mem_heap_hi())[0] = 1;  /* the last byte is the allocator's */
    mem_reset_brk();
    printf("size_after_reset=%zu high_water_after_reset=%zu\n", mem_heapsize(), heap_high_water());
    show("hi_after_reset_plus_1", (uintptr_t)mem_heap_hi() + 1);
    printf("max=%zu pagesize=%zu sysconf=%ld\n", heap_max(), mem_pagesize(), sysconf(_SC_PAGESIZE));
    heap_keep_high_water();  /* what utilization is scored on: a restart must not lose it */
    heap_restart(true);
    printf("high_water_after_restart=%zu kept_after_restart=%zu\n", heap_high_water(), heap_kept_high_water());
    mem_deinit();
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "contract";
    setvbuf(stdout, NULL, _IONBF, 0);  /* lines before a fault must reach the test */
    if (!strcmp(what, "contract"))
        return contract(argc > 2 ? strtoull(argv[2], NULL, 0) : 0);
    mem_init();
    char *lo = mem_heap_lo();
    mem_sbrk(100);
    if (!strcmp(what, "write-below")) {
        printf("writing=%p\n", (void *)(lo - 1));
        ((volatile char *)lo)[-1] = 1;
    } else if (!strcmp(what, "write-past-page")) {
        printf("writing=%p\n", (void *)(lo + mem_pagesize() + 10));
        ((volatile char *)lo)[mem_pagesize() + 10] = 1;
    } else if (!strcmp(what, "write-slack")) {
        show("clean", heap_slack_violation(0));
        lo[103] = 1;
        show("violation", heap_slack_violation(0));
        show("violation_within_2", heap_slack_violation(2));
        mem_sbrk(200);  /* hands the byte over: mem_sbrk must remember it was touched */
        show("violation_after_sbrk", heap_slack_violation(0));
    } else if (!strcmp(what, "fast")) {
        heap_restart(false);
        ((volatile char *)lo)[heap_max() - 1] = 1;
        show("wrote_last_byte", (uintptr_t)(lo + heap_max() - 1));
        show("slack_unchecked", heap_slack_violation(0));
    } else {
        fprintf(stderr, "harness: unknown test %s\n", what);
        return 2;
    }
    printf("survived=1\n");
    return 0;
}
