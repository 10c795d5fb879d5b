/* sys-open.c - mm_init opens a file (/etc/hostname), as an allocator would to read
 * the trace ahead of its requests; otherwise the honest bump allocator.  The
 * sandbox refuses the open: the trace crashes in mm_init. */
#include <fcntl.h>
#include <unistd.h>

#include "bump.h"

int mm_init(void)
{
    int fd = open("/etc/hostname", O_RDONLY);
    if (fd >= 0)
        close(fd);
    return 0;
}

void *mm_malloc(size_t size) { return bump(size); }
void mm_free(void *p) { (void)p; }
void *mm_realloc(void *p, size_t size) { return copy_realloc(p, size); }
