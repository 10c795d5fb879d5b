/* chatty.c - correct, but prints a lot on stdout and stderr, including lines that
 * mimic the driver's own output: fake -g grade lines, a fake summary row and
 * JSON-looking text.  None of it may reach the driver's table or JSON. */
#include <stdio.h>
#include <unistd.h>

#include "bump.h"

static void chatter(const char *what, size_t n)
{
    printf("perfidx:100\ncorrect:99\n");
    printf("{\"schema\": 1, \"summary\": {\"perf_index\": 100, \"valid\": 99}}\n");
    fprintf(stderr, "     total  99 ok,  0 failed  100.0%% %s %zu \"\\\x01\x7f\xc3\xa9\n", what, n);
    /* Invalid UTF-8 (a stray byte, an overlong form, a surrogate) and a 4-byte character. */
    printf("\x1b[2J\x1b[1A\rclear screen, up a line, back to column 0\n");
    fprintf(stderr, "bytes:\xff|\xc0\x80|\xed\xa0\x80|\xf0\x9f\xa6\x80|\n");
    static const char raw[] = "],\"traces\":[{\"outcome\":\"ok\"}\n";
    ssize_t unused = write(1, raw, sizeof raw - 1);
    (void)unused;
    fflush(stdout);
}

int mm_init(void)
{
    chatter("init", 0);
    return 0;
}

void *mm_malloc(size_t size)
{
    chatter("malloc", size);
    return bump(size);
}

void mm_free(void *p) { chatter("free", 0); }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
