/* hide-sigmask.c - red team: the sizes of 8 blocks, 4 bits each, kept in the
 * process's signal mask between calls: the bits of the 32 real-time signals,
 * which nothing sends.  abort() and raise() need rt_sigprocmask, so the sandbox
 * allowed it, and the kernel keeps the mask.  The sandbox now answers the call
 * without changing the mask (an unsandboxed child puts it back after each call). */
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { SLOTS = 8, FIELD_BITS = 4 };

#include "hide-fields.h"

enum { FIRST_HIDDEN = 32 };   /* the kernel's signal numbers 33-64 are bits 32-63 */

static inline uint64_t load(void)
{
    uint64_t mask = 0;
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, sizeof mask);
    return mask >> FIRST_HIDDEN;
}

static inline void store(uint64_t v)
{
    uint64_t mask = 0;
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, sizeof mask);
    mask = (mask & 0xffffffffu) | v << FIRST_HIDDEN;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, NULL, sizeof mask);
}
