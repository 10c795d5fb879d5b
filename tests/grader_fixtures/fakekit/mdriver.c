/* Fake driver for the grader's tests: links with the allocator for real (so link
 * errors are real), then hands over to driver/fake.py next to the build folder. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "mm.h"

int main(int argc, char **argv)
{
    char exe[PATH_MAX], script[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0)
        return 2;
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    snprintf(script, sizeof script, "%s/../../driver/fake.py", exe);
    if (argc > 99)
        return mm_init();  /* keeps the allocator linked in */
    char *args[128] = {"python3", script};
    for (int i = 1; i < argc && i < 120; i++)
        args[i + 1] = argv[i];
    execv("/usr/bin/python3", args);
    return 2;
}
