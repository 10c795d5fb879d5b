/*
 * launch.c - the recorder's watch on the programs a recorded process starts.
 *
 * The exec family, posix_spawn, system and popen are wrapped: a program started with
 * an environment that no longer preloads the recorder (`env -i prog`, or
 * unsetenv("LD_PRELOAD") then system) would run unrecorded, unseen; such a start
 * leaves a note, $MMTRACE_OUT-unrecorded.<pid> (the program, then the one that
 * started it), which `record` reports; so does one whose environment names the recorder but
 * whose loader will not load it: statically linked (no loader), or setuid or setgid (a secure
 * exec ignores a preload named by path), a third line saying which.  Nothing here allocates:
 * these run in any process, between fork and exec too.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "recorder.h"

extern char **environ;

/* The real exec and spawn functions, found once at load time (with busy set, so that what
 * dlsym allocates is not logged as the program's). */
static struct {
    int (*execve)(const char *, char *const[], char *const[]);
    int (*execvpe)(const char *, char *const[], char *const[]);
    int (*fexecve)(int, char *const[], char *const[]);
    int (*posix_spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                       const posix_spawnattr_t *, char *const[], char *const[]);
    int (*posix_spawnp)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const[], char *const[]);
    int (*system)(const char *);
    FILE *(*popen)(const char *, const char *);
    const char *self;  /* this library's path, as LD_PRELOAD named it */
    char out[4096];    /* MMTRACE_OUT at load time: `env -i` clears the environment first */
} real;

/* The value of NAME ("NAME=") in ENVP, or NULL. */
static const char *env_value(char *const envp[], const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
        if (strncmp(envp[i], name, n) == 0)
            return envp[i] + n;
    return NULL;
}

/* Whether a program started with ENVP loads this recorder with this run's MMTRACE_OUT:
 * LD_PRELOAD names our library (its items are separated by spaces or colons). */
static int reaches_recorder(char *const envp[])
{
    const char *out = env_value(envp, "MMTRACE_OUT=");
    const char *pre = env_value(envp, "LD_PRELOAD=");
    if (real.out[0] == '\0' || real.self == NULL)
        return 1; /* not recording, or no way to tell: nothing to report */
    if (out == NULL || strcmp(out, real.out) != 0 || pre == NULL)
        return 0;
    size_t n = strlen(real.self);
    for (const char *p = pre; (p = strstr(p, real.self)) != NULL; p += n)
        if ((p == pre || p[-1] == ' ' || p[-1] == ':') &&
            (p[n] == '\0' || p[n] == ' ' || p[n] == ':'))
            return 1;
    return 0;
}

/* Why a program whose environment reaches the recorder still runs without it (the note's third
 * line; mmtrace/record.py reads the same words). */
enum { LOADED = 0, STATIC = 1, SETUID = 2 };
static const char *const UNLOADED[] = {"", "static", "setuid"};

/* Whether exec'ing the file is a secure exec (AT_SECURE), where the loader ignores LD_PRELOAD's
 * paths: its setuid or setgid bit takes effect and changes the effective ids. */
static int secure_exec(int fd, const struct stat *st)
{
    struct statvfs vfs;
    if ((fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)) ||
        prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
        return 0; /* the bits are ignored there */
    return ((st->st_mode & S_ISUID) && st->st_uid != getuid()) ||
           ((st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP) && st->st_gid != getgid());
}

/* Whether the ELF file whose header is HEAD has no program interpreter (PT_INTERP): no loader
 * runs, so nothing is preloaded.  The type of each program header is its first word. */
static int no_interpreter(int fd, const unsigned char *head)
{
    uint64_t phoff;
    uint16_t type, phentsize, phnum;
    if (head[EI_CLASS] == ELFCLASS64) {
        Elf64_Ehdr e;
        memcpy(&e, head, sizeof e);
        phoff = e.e_phoff, type = e.e_type, phentsize = e.e_phentsize, phnum = e.e_phnum;
    } else if (head[EI_CLASS] == ELFCLASS32) {
        Elf32_Ehdr e;
        memcpy(&e, head, sizeof e);
        phoff = e.e_phoff, type = e.e_type, phentsize = e.e_phentsize, phnum = e.e_phnum;
    } else {
        return 0;
    }
    if ((type != ET_EXEC && type != ET_DYN) || phnum == 0 || phentsize < sizeof(uint32_t))
        return 0;
    for (uint16_t i = 0; i < phnum; i++) {
        uint32_t kind;
        if (pread(fd, &kind, sizeof kind, (off_t)(phoff + (uint64_t)i * phentsize)) != sizeof kind)
            return 0;
        if (kind == PT_INTERP)
            return 0;
    }
    return 1;
}

/* Whether the program open at FD will load the recorder (LOADED), or not: STATIC or SETUID.  A
 * script (its interpreter is dynamic) and what cannot be read count as LOADED. */
static int loader_of(int fd)
{
    struct stat st;
    unsigned char head[sizeof(Elf64_Ehdr)];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head ||
        memcmp(head, ELFMAG, SELFMAG) != 0)
        return LOADED;
    return secure_exec(fd, &st) ? SETUID : no_interpreter(fd, head) ? STATIC : LOADED;
}

/* FILE as execvp finds it: itself if it names a path, else the first executable regular file
 * of that name in $PATH's folders (an empty one is the current folder), written into buf;
 * NULL if none. */
static const char *on_path(const char *file, char *buf, size_t cap)
{
    if (strchr(file, '/') != NULL)
        return file;
    const char *dirs = getenv("PATH");
    size_t len = strlen(file);
    for (const char *dir = dirs ? dirs : "/bin:/usr/bin";; dir++) {
        const char *end = strchrnul(dir, ':');
        size_t n = end > dir ? (size_t)(end - dir) : 1;
        struct stat st;
        if (n + len + 2 <= cap) {
            memcpy(buf, end > dir ? dir : ".", n);
            buf[n] = '/';
            memcpy(buf + n + 1, file, len + 1);
            if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
                return buf;
        }
        if (*end == '\0')
            return NULL;
        dir = end;
    }
}

/* Whether the program at PATH (searched for on $PATH when SEARCH) will load the recorder. */
static int loader_at(const char *path, int search)
{
    char found[4096];
    const char *file = search ? on_path(path, found, sizeof found) : path;
    int fd = file ? open(file, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0)
        return LOADED; /* the exec fails, or finds what we cannot: nothing to say */
    int why = loader_of(fd);
    close(fd);
    return why;
}

/* Leave the note that PID runs PROGRAM unrecorded, WHY (LOADED: its environment dropped the
 * recorder); the note's path goes to path. */
static void note_unrecorded(char *path, size_t cap, long pid, const char *program, int why)
{
    static const char SUFFIX[] = "-unrecorded";
    size_t n = strlen(real.out);
    path[0] = '\0';
    if (n + sizeof SUFFIX > cap)
        return;
    memcpy(path, real.out, n);
    memcpy(path + n, SUFFIX, sizeof SUFFIX);
    n += sizeof SUFFIX - 1;
    if (put_number(path, cap, &n, pid) != 0) {
        path[0] = '\0';
        return;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        path[0] = '\0';
        return;
    }
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    /* best effort: a note cut short still says that something ran unrecorded */
    if (write(fd, program, strlen(program)) >= 0 && write(fd, "\n", 1) >= 0 &&
        write(fd, self, strlen(self)) >= 0 && write(fd, "\n", 1) >= 0 && why != LOADED &&
        write(fd, UNLOADED[why], strlen(UNLOADED[why])) >= 0)
        (void)write(fd, "\n", 1);
    close(fd);
}

/* Before an exec: a program that will not reach the recorder is noted now (the process is
 * someone else after the exec); the note's path stays in note, so that a failed exec can
 * take it back. */
enum { NOTE_CAP = 4096 };

static inline void before_exec(char *note, const char *program, char *const envp[], int why)
{
    int reached = reaches_recorder(envp);
    note[0] = '\0';
    if (!reached || why != LOADED)
        note_unrecorded(note, NOTE_CAP, getpid(), program, reached ? why : LOADED);
}

static inline int exec_failed(const char *note, int r)
{
    int saved = errno;
    if (note[0] != '\0')
        unlink(note);
    errno = saved;
    return r;
}

int execve(const char *path, char *const argv[], char *const envp[])
{
    char note[NOTE_CAP];
    before_exec(note, path, envp, loader_at(path, 0));
    int r = real.execve ? real.execve(path, argv, envp) : (errno = ENOSYS, -1);
    return exec_failed(note, r);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
    char note[NOTE_CAP];
    before_exec(note, file, envp, loader_at(file, 1));
    int r = real.execvpe ? real.execvpe(file, argv, envp) : (errno = ENOSYS, -1);
    return exec_failed(note, r);
}

int fexecve(int fd, char *const argv[], char *const envp[])
{
    /* the program's name: what /proc/self/fd/<fd> links to */
    char note[NOTE_CAP], link[32] = "/proc/self/fd", program[4096];
    size_t n = strlen(link);
    ssize_t len = -1;
    if (put_number(link, sizeof link, &n, fd) == 0) {
        link[strlen("/proc/self/fd")] = '/'; /* put_number wrote ".<fd>" */
        len = readlink(link, program, sizeof program - 1);
    }
    program[len > 0 ? len : 0] = '\0';
    before_exec(note, len > 0 ? program : "(fexecve)", envp, loader_of(fd));
    int r = real.fexecve ? real.fexecve(fd, argv, envp) : (errno = ENOSYS, -1);
    return exec_failed(note, r);
}

int execv(const char *path, char *const argv[]) { return execve(path, argv, environ); }
int execvp(const char *file, char *const argv[]) { return execvpe(file, argv, environ); }

/* execl, execlp, execle: the arguments after the first, counted, then gathered into an argv
 * on the caller's stack. */
static inline size_t count_args(va_list ap)
{
    va_list more;
    va_copy(more, ap);
    size_t n = 1;
    while (va_arg(more, char *) != NULL)
        n++;
    va_end(more);
    return n;
}

static inline void gather_args(char **argv, size_t n, const char *arg, va_list ap)
{
    argv[0] = (char *)arg;
    for (size_t i = 1; i <= n; i++)
        argv[i] = va_arg(ap, char *); /* the last is the NULL */
}

int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(ap);
    char *argv[n + 1];
    gather_args(argv, n, arg, ap);
    va_end(ap);
    return execve(path, argv, environ);
}

int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(ap);
    char *argv[n + 1];
    gather_args(argv, n, arg, ap);
    va_end(ap);
    return execvpe(file, argv, environ);
}

int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(ap);
    char *argv[n + 1];
    gather_args(argv, n, arg, ap);
    char **envp = va_arg(ap, char **);
    va_end(ap);
    return execve(path, argv, envp);
}

/* posix_spawn: the child's pid is known once it has started, so the note follows it. */
int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
                const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    pid_t kid = 0;
    if (real.posix_spawn == NULL)
        return ENOSYS;
    int r = real.posix_spawn(&kid, path, actions, attr, argv, envp);
    int reached = r == 0 && reaches_recorder(envp), why = reached ? loader_at(path, 0) : LOADED;
    if (r == 0 && (!reached || why != LOADED)) {
        char note[NOTE_CAP];
        note_unrecorded(note, sizeof note, kid, path, why);
    }
    if (r == 0 && pid != NULL)
        *pid = kid;
    return r;
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
                 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    pid_t kid = 0;
    if (real.posix_spawnp == NULL)
        return ENOSYS;
    int r = real.posix_spawnp(&kid, file, actions, attr, argv, envp);
    int reached = r == 0 && reaches_recorder(envp), why = reached ? loader_at(file, 1) : LOADED;
    if (r == 0 && (!reached || why != LOADED)) {
        char note[NOTE_CAP];
        note_unrecorded(note, sizeof note, kid, file, why);
    }
    if (r == 0 && pid != NULL)
        *pid = kid;
    return r;
}

/* system and popen start their shell inside libc, past the wrappers above, with the
 * caller's environment: the note names the command, against the caller's pid. */
static void before_shell(const char *command)
{
    if (command == NULL || reaches_recorder(environ))
        return;
    char program[1024], note[NOTE_CAP];
    size_t n = 0;
    for (; command[n] != '\0' && n < sizeof program - 1; n++)
        program[n] = command[n] == '\n' ? ' ' : command[n];   /* the note is two lines */
    program[n] = '\0';
    note_unrecorded(note, sizeof note, getpid(), program, LOADED);
}

int system(const char *command)
{
    before_shell(command);
    return real.system ? real.system(command) : (errno = ENOSYS, -1);
}

FILE *popen(const char *command, const char *mode)
{
    before_shell(command);
    return real.popen ? real.popen(command, mode) : (errno = ENOSYS, NULL);
}

/* The real functions and this run's MMTRACE_OUT, at load time (the constructor in
 * recorder.c calls this with its busy flag set). */
void launch_init(void)
{
    real.execve = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execve");
    real.execvpe = (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, "execvpe");
    real.fexecve = (int (*)(int, char *const[], char *const[]))dlsym(RTLD_NEXT, "fexecve");
    *(void **)&real.posix_spawn = dlsym(RTLD_NEXT, "posix_spawn");
    *(void **)&real.posix_spawnp = dlsym(RTLD_NEXT, "posix_spawnp");
    *(void **)&real.system = dlsym(RTLD_NEXT, "system");
    *(void **)&real.popen = dlsym(RTLD_NEXT, "popen");
    const char *out = getenv("MMTRACE_OUT");
    if (out != NULL && strlen(out) < sizeof real.out)
        strcpy(real.out, out);
    Dl_info info;
    if (dladdr((void *)launch_init, &info) != 0)
        real.self = info.dli_fname;
}
