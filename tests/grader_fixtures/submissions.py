"""Purpose-built submissions for the grader's tests, each a whole mm.c.

Every one is the same honest bump allocator (BASE) with one thing changed, so a
test failing points at exactly that change.  `write_all(folder, names)` lays them
out the way a class hands in: one folder per student holding mm.c.
"""
from __future__ import annotations

from pathlib import Path

BASE = r"""
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include "memlib.h"
#include "mm.h"
/*EXTRA*/
static inline size_t round_up(size_t n) { return (n + MM_ALIGNMENT - 1) & ~(size_t)(MM_ALIGNMENT - 1); }

int mm_init(void)
{
    /*INIT*/
    return 0;
}

void *mm_malloc(size_t size)
{
    /*MALLOC*/
    char *block = mem_sbrk((intptr_t)(MM_ALIGNMENT + round_up(size)));
    if (block == (void *)-1)
        return NULL;
    *(size_t *)block = size;
    return block + MM_ALIGNMENT/*OFFSET*/;
}

void mm_free(void *ptr)
{
    (void)ptr;
    /*FREE*/
}

void *mm_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return mm_malloc(size);
    if (size == 0)
        return NULL;
    void *fresh = mm_malloc(size);
    if (!fresh)
        return NULL;
    size_t old = *(size_t *)((char *)ptr - MM_ALIGNMENT);
    memcpy(fresh, ptr, old < size ? old : size);
    return fresh;
}
"""

# name -> {marker: replacement}
CHANGES: dict[str, dict[str, str]] = {
    "good": {},
    "fake_scores": {"/*INIT*/": 'printf("correct:99\\nperfidx:100\\nPerf index = 60 (util) + 40 (thru) = 100/100\\n");'},
    "compile_error": {"/*MALLOC*/": "this is not C;"},
    "link_error": {"/*EXTRA*/": "void helper_nobody_defines(void);", "/*INIT*/": "helper_nobody_defines();"},
    "clock": {"/*EXTRA*/": "#include <time.h>\nint clock_gettime(clockid_t c, struct timespec *t) "
                           "{ (void)c; t->tv_sec = 0; t->tv_nsec = 0; return 0; }"},
    "fork_system": {"/*EXTRA*/": "#include <stdlib.h>\n#include <unistd.h>",
                    "/*INIT*/": 'if (fork() == 0) _exit(0); printf("system: %d\\n", system("touch /tmp/mmgrade-host-marker"));'},
    "writes": {"/*EXTRA*/": "#include <errno.h>",
               "/*INIT*/": 'static const char *paths[] = {"/sub/pwned", "/traces/pwned", "/usr/pwned", "/tmp/scratch"};\n'
                           '    for (int i = 0; i < 4; i++) { FILE *f = fopen(paths[i], "w");\n'
                           '        printf("open %s: %s\\n", paths[i], f ? "WRITABLE" : "denied"); if (f) fclose(f); }'},
    "network": {"/*EXTRA*/": "#include <sys/socket.h>\n#include <netinet/in.h>\n#include <arpa/inet.h>\n#include <unistd.h>\n"
                             "static const char *reach(uint32_t host, int port) { int s = socket(AF_INET, SOCK_STREAM, 0);\n"
                             "    struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(port);\n"
                             "    a.sin_addr.s_addr = htonl(host); int ok = s >= 0 && connect(s, (void *)&a, sizeof a) == 0;\n"
                             '    if (s >= 0) close(s); return ok ? "CONNECTED" : "failed"; }',
                "/*INIT*/": 'printf("connect host: %s\\n", reach(0x7f000001, /*HOST_PORT*/));\n'
                            '    printf("connect: %s\\n", reach(0x01010101, 80));'},
    "memhog": {"/*EXTRA*/": "#include <stdlib.h>",
               "/*INIT*/": "size_t mib = 0; char *p; while (mib < 4096 && (p = malloc(1 << 20))) { memset(p, 1, 1 << 20); mib++; }\n"
                           '    printf("memhog got %zu MiB\\n", mib);'},
    "loop": {"/*MALLOC*/": "for (volatile int spin = 1; spin;) ;"},
    # loops only on grow.rep's realloc to 100 bytes: the traces before it finish
    "loop_at_100": {"/*MALLOC*/": "if (size == 100) for (volatile int spin = 1; spin;) ;"},
    "crash": {"/*FREE*/": "*(volatile int *)0 = 1;"},
    # 10000 bytes per mm_init, then a last line (28 bytes) and a crash
    "chatty_crash": {"/*INIT*/": 'for (int i = 0; i < 250; i++) printf("%039d\\n", i);\n    fflush(stdout);',
                     "/*FREE*/": 'puts("last words before the crash"); fflush(stdout); *(volatile int *)0 = 1;'},
    "misaligned": {"/*OFFSET*/": " + 1"},
    "overlap": {"/*EXTRA*/": "static char *last;",
                "/*MALLOC*/": "if (last && size < 64) return last; if (size < 64) { last = mem_sbrk(256); return last; }"},
    "corrupt": {"/*FREE*/": "char *next = (char *)ptr + round_up(*(size_t *)((char *)ptr - MM_ALIGNMENT)) + MM_ALIGNMENT;\n"
                            "    if (next + 8 <= (char *)mem_heap_hi()) memset(next, 0x5a, 8);"},
    "out_of_heap": {"/*MALLOC*/": "if (size >= 40) { mem_sbrk(MM_ALIGNMENT); return (char *)mem_heap_hi() + 1 - MM_ALIGNMENT; }"},
    "alloc_failed": {"/*MALLOC*/": "if (size >= 40) return NULL;"},
    "init_failed": {"/*INIT*/": "return -1;"},
    "exited": {"/*EXTRA*/": "#include <stdlib.h>", "/*FREE*/": "exit(3);"},
    "asserts": {"/*EXTRA*/": "#include <assert.h>", "/*FREE*/": "assert(ptr == NULL);"},
    "ifunc": {"/*EXTRA*/": "static void *real(size_t n) { (void)n; return NULL; }\n"
                         "static void *(*pick(void))(size_t) { return real; }\n"
                         'static void *early(size_t n) __attribute__((ifunc("pick")));',
              "/*INIT*/": "(void)early(0);"},
    "globals": {"/*EXTRA*/": "char big_table[512]; int helper_count;", "/*INIT*/": "helper_count = big_table[0];"},
}


def source(name: str, host_port: int = 9) -> str:
    """HOST_PORT: where "network" connects on the host's loopback, a port a test listens
    on (a process in the host's network namespace reaches it, one in its own does not)."""
    text = BASE
    for marker, replacement in CHANGES[name].items():
        text = text.replace(marker, replacement)
    return text.replace("/*HOST_PORT*/", str(host_port))


def write_all(folder: Path, names: list[str], host_port: int = 9) -> Path:
    for name in names:
        (folder / name).mkdir(parents=True, exist_ok=True)
        (folder / name / "mm.c").write_text(source(name, host_port))
    return folder
