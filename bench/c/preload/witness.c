/*
 * witness.c - preloaded after the allocator under test: says which file serves malloc.
 *
 *   LD_PRELOAD="ALLOCATOR.so:witness.so" BENCH_WITNESS=FILE CMD
 *
 * Each process that loads it appends one line to FILE: "PID<tab>NAME<tab>PATH", PATH being
 * the object whose malloc the program calls (dlsym(RTLD_DEFAULT) searches in the program's
 * own order: the program, then the preloads, then libc).  Why: LD_PRELOAD is dropped without
 * a word for a static or setuid program, and a program with a malloc of its own wins over any
 * preload; a run counts as an allocator's only when its processes say that allocator served.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void witness(void)
{
    const char *path = getenv("BENCH_WITNESS");
    if (!path || !*path)
        return;
    int saved = errno;
    void *sym = dlsym(RTLD_DEFAULT, "malloc");
    Dl_info info;
    const char *file = "?";
    if (sym && dladdr(sym, &info) && info.dli_fname && *info.dli_fname)
        file = info.dli_fname;
    char line[8192];      /* on the stack: this runs inside the allocator under test */
    int n = snprintf(line, sizeof line, "%ld\t%s\t%s\n", (long)getpid(), program_invocation_short_name, file);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
        if (n > 0 && (size_t)n < sizeof line && write(fd, line, (size_t)n) < 0) {
            /* nothing to do: a missing line fails the run, which is the safe side */
        }
        close(fd);
    }
    errno = saved;
}
