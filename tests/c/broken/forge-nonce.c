/* forge-nonce.c - honest (bump.h) until a request of TRIGGER or TRIGGER + 1 bytes;
 * then it takes the nonce out of the one pipe it can read, writes a made-up report
 * carrying it into the pipe it can write (besides stdout and stderr), after the
 * byte that says the first checked run is over, and ends the process cleanly.  The nonce cannot stop this (see README, "What the driver can
 * and cannot guarantee"); the report's values must still be ones a run can have.
 * TRIGGER: timings that claim more CPU time than the process used.
 * TRIGGER + 1: more samples than a timing pass takes.
 * TRIGGER + 2: a heap high-water mark below the trace's peak payload.
 * TRIGGER + 3: timed replays faster than any allocator's (a picosecond). */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bump.h"
#include "driver/child.h"

static int pipe_fd(int mode)
{
    for (int fd = 3; fd < 1024; fd++) {
        struct stat st;
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0 && (fl & O_ACCMODE) == mode && !fstat(fd, &st) && S_ISFIFO(st.st_mode))
            return fd;
    }
    return -1;
}

static void forge(size_t size)
{
    static child_report_t f;
    if (read(pipe_fd(O_RDONLY), f.nonce, sizeof f.nonce) != sizeof f.nonce)
        return;
    f.verdict.outcome = OUTCOME_OK;
    f.verdict.op_index = -1;
    f.mm_time.n = f.libc_time.n = 3;
    for (int i = 0; i < 3; i++) {
        f.mm_time.samples[i] = 1e-7;
        f.libc_time.samples[i] = 10;
    }
    if (size == TRIGGER + 1)
        f.libc_time.n = 1000000;
    if (size == TRIGGER + 2) {
        f.has_util = true;
        f.util = (util_result_t){.util = 1, .ideal = 1, .peak_payload = 1, .peak_aligned = 1, .heap_high_water = 1};
        f.libc_time.samples[0] = f.libc_time.samples[1] = f.libc_time.samples[2] = 1e-4;
    }
    for (int i = 0; size == TRIGGER + 3 && i < 3; i++) {
        f.mm_time.samples[i] = 1e-12;
        f.libc_time.samples[i] = 1e-6;
    }
    int fd = pipe_fd(O_WRONLY);
    if (write(fd, "S", 1) == 1 && write(fd, &f, sizeof f) == sizeof f)
        _exit(0);
}

int mm_init(void) { return 0; }

void *mm_malloc(size_t size)
{
    if (size >= TRIGGER && size <= TRIGGER + 3)
        forge(size);
    return bump(size);
}

void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
