/* forge.c - honest (bump.h) until a request of TRIGGER bytes, then it writes a
 * made-up perfect report (child.h's layout) into every pipe it can write to
 * besides stdout and stderr: the driver's report channel wherever it sits, after
 * the byte with which the driver's child says its first checked run is over.
 * On TRIGGER bytes it then ends the process cleanly, so its report is the only
 * one; on TRIGGER + 1 it carries on, and the driver writes its own after it.
 * mm_init prints the fds it finds open, so a test can see where they sit. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bump.h"
#include "driver/child.h"

static void forge(void)
{
    static child_report_t f;
    f.verdict.outcome = OUTCOME_OK;
    f.verdict.op_index = -1;
    f.has_util = true;
    f.util = (util_result_t){.util = 1, .ideal = 1, .peak_payload = 100, .peak_aligned = 100, .heap_high_water = 100};
    f.mm_time.n = f.libc_time.n = 3;
    for (int i = 0; i < 3; i++) {
        f.mm_time.samples[i] = 1e-7;
        f.libc_time.samples[i] = 1e-4;
    }
    f.mm_time.seconds = 1e-7;
    f.libc_time.seconds = 1e-4;
    for (int fd = 3; fd < 1024; fd++) {
        struct stat st;
        if (fcntl(fd, F_GETFL) >= 0 && (fcntl(fd, F_GETFL) & O_ACCMODE) == O_WRONLY && !fstat(fd, &st) &&
            S_ISFIFO(st.st_mode) && (write(fd, "S", 1) < 0 || write(fd, &f, sizeof f) < 0))
            continue;
    }
}

int mm_init(void)
{
    printf("fds:");
    for (int fd = 3; fd < 1024; fd++)
        if (fcntl(fd, F_GETFD) >= 0)
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
