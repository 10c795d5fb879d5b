/* output.c - outputs written whole, or a failure said (see output.h). */
#define _GNU_SOURCE
#include "driver/output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file path names, through any symbolic link (a link is written through, not
 * replaced by a file), in a new string. */
static char *target_of(const char *path)
{
    char *real = realpath(path, NULL);
    if (real)
        return real;
    char link[PATH_MAX];
    ssize_t n = readlink(path, link, sizeof link - 1);  /* a link to a file not made yet */
    if (n <= 0)
        return strdup(path);
    link[n] = '\0';
    char *copy = strdup(path), *joined = NULL;
    if (copy && link[0] != '/' && asprintf(&joined, "%s/%s", dirname(copy), link) < 0)
        joined = NULL;
    free(copy);
    return link[0] == '/' ? strdup(link) : joined;
}

/* The folder path is in ("." for a bare name), in a new string. */
static char *folder_of(const char *path)
{
    char *target = target_of(path);
    if (!target)
        return NULL;
    char *dir = strdup(dirname(target));
    free(target);
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
        char *made = target_of(path);  /* through a link: the file made, not the link */
        unlink(made ? made : path);
        free(made);
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
    r->path = NULL;
    r->f = NULL;
    r->tmp = NULL;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return r->f = fopen(path, "w");  /* /dev/null, a pipe: nothing earlier to keep */
    if (!(r->path = target_of(path)))
        return NULL;
    if (asprintf(&r->tmp, "%s.tmpXXXXXX", r->path) < 0) {
        r->tmp = NULL;
        replace_abandon(r);
        return NULL;
    }
    int fd = mkstemp(r->tmp);
    if (fd < 0) {
        int e = errno;
        free(r->tmp);
        r->tmp = NULL;
        replace_abandon(r);
        errno = e;
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
    free(r->path);
    r->path = NULL;
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
    free(r->path);
    r->path = NULL;
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

void output_hold_std_fds(void)
{
    for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int held = open("/dev/null", O_RDONLY);  /* the lowest free number: fd itself */
        if (held >= 0 && held != fd) {
            dup2(held, fd);
            close(held);
        }
    }
}
