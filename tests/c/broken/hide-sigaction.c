/* hide-sigaction.c - red team: the sizes of 8 blocks, 4 bits each, kept in the
 * mask of the action the kernel holds for SIGUSR2, in the bits of the real-time
 * signals (each of the 64 signals' actions could hold some 24 bytes more).  The
 * sandbox allowed rt_sigaction for abort()'s sake; it now allows only reading an
 * action: no allocator has a reason to change one. */
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { SLOTS = 8, FIELD_BITS = 4 };
enum { FIRST_HIDDEN = 32 };   /* the kernel's signal numbers 33-64 are bits 32-63 */

#include "hide-fields.h"

/* The kernel's own layout of struct sigaction on x86-64. */
typedef struct {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
} kernel_action_t;

static inline uint64_t load(void)
{
    kernel_action_t now = {0};
    syscall(SYS_rt_sigaction, SIGUSR2, NULL, &now, sizeof now.mask);
    return now.mask >> FIRST_HIDDEN;
}

static inline void store(uint64_t v)
{
    kernel_action_t now = {0};
    syscall(SYS_rt_sigaction, SIGUSR2, NULL, &now, sizeof now.mask);
    now.mask = (now.mask & 0xffffffffu) | v << FIRST_HIDDEN;
    syscall(SYS_rt_sigaction, SIGUSR2, &now, NULL, sizeof now.mask);
}
