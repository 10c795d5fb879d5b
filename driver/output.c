/* output.c - outputs written whole, or a failure said (see output.h). */
#define _GNU_SOURCE
#include "driver/output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The folder path is in ("." for a bare name), in a new string. */
static char *folder_of(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return NULL;
    char *dir = strdup(dirname(copy));
    free(copy);
    return dir;
}

bool replace_check(const char *path)
{
    struct stat st;
    bool existed = stat(path, &st) == 0;
    /* Appending, not "w": the check must never empty an earlier file. */
    FILE *f = fopen(path, "a");
    if (!f)
        return false;
    fclose(f);
    if (!existed) {
        unlink(path);
        return true;
    }
    if (!S_ISREG(st.st_mode))
        return true;  /* a device or a pipe: written directly (replace_begin) */
    char *dir = folder_of(path);
    if (!dir)
        return false;
    bool ok = access(dir, W_OK | X_OK) == 0;  /* the rename needs the folder */
    free(dir);
    return ok;
}

FILE *replace_begin(replace_t *r, const char *path)
{
    r->path = path;
    r->f = NULL;
    r->tmp = NULL;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return r->f = fopen(path, "w");  /* /dev/null, a pipe: nothing earlier to keep */
    if (asprintf(&r->tmp, "%s.tmpXXXXXX", path) < 0) {
        r->tmp = NULL;
        return NULL;
    }
    int fd = mkstemp(r->tmp);
    if (fd < 0) {
        free(r->tmp);
        r->tmp = NULL;
        return NULL;
    }
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);  /* mkstemp's 0600 is not what "w" would have made */
    if (!(r->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        replace_abandon(r);
        errno = e;
    }
    return r->f;
}

bool replace_commit(replace_t *r)
{
    errno = 0;
    bool ok = fflush(r->f) == 0 && !ferror(r->f) && (!r->tmp || fsync(fileno(r->f)) == 0);
    int e = ok ? 0 : errno ? errno : EIO;
    if (fclose(r->f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    r->f = NULL;
    if (ok && r->tmp && rename(r->tmp, r->path) != 0) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        replace_abandon(r);
        errno = e;
        return false;
    }
    free(r->tmp);
    r->tmp = NULL;
    return true;
}

void replace_abandon(replace_t *r)
{
    if (r->f)
        fclose(r->f);
    r->f = NULL;
    if (r->tmp)
        unlink(r->tmp);
    free(r->tmp);
    r->tmp = NULL;
}

bool stdout_done(const char *program)
{
    errno = 0;
    bool failed = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    failed = fclose(stdout) != 0 || failed;
    if (!e)
        e = errno;
    if (failed)
        fprintf(stderr, "%s: stdout: write failed: %s\n", program, e ? strerror(e) : "an I/O error");
    return !failed;
}
