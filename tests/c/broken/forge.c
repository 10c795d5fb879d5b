/* forge.c - honest (bump.h) until a request of TRIGGER bytes, then it writes a
 * made-up perfect report into every pipe it can write to besides stdout and
 * stderr (the old driver read its child's verdict and figures from one; today
 * the only such pipe is the parent's doorbell, and nothing the child sends is
 * believed).  On TRIGGER bytes it then ends the process cleanly; on TRIGGER + 1
 * it carries on.  mm_init prints the fds it finds open, so a test can see them. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bump.h"

/* Only calls the child's sandbox allows: fstat to find pipes, write to try them. */
static void forge(void)
{
    static char report[4096];
    memset(report, 0xff, sizeof report);
    for (int fd = 3; fd < 1024; fd++) {
        struct stat st;
        if (!fstat(fd, &st) && S_ISFIFO(st.st_mode) && write(fd, report, sizeof report) < 0)
            continue;
    }
}

int mm_init(void)
{
    printf("fds:");
    for (int fd = 3; fd < 1024; fd++)
        if (!fstat(fd, &(struct stat){0}))
            printf(" %d", fd);
    printf("\n");
    fflush(stdout);
    return 0;
}

void *mm_malloc(size_t size)
{
    if (size == TRIGGER || size == TRIGGER + 1) {
        forge();
        if (size == TRIGGER)
            _exit(0);
    }
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
