/*
 * scrub.h - what one allocator call could leave for the next outside memory; the
 * serving child (serve.c) puts it back after every call.
 *
 * The parent's audit (audit.h) sees memory.  A call can also leave bits in the
 * processor and in what the kernel keeps for the process, where the driver's own
 * code between two calls may never look.  The red team kept block sizes in each
 * of these (tests/c/broken/hide-*.c), and the child now scrubs them:
 *   - the general registers (r8 outlived the driver's code) and rbp, which is
 *     the caller's to keep, but which a serving loop that keeps nothing in it
 *     would not miss: zeroed, inline in the loop (scrub_general_registers);
 *   - the vector, mask and x87 registers and MXCSR: zeroed, or reset;
 *   - RFLAGS's ID bit (and AC, NT, DF and TF): cleared;
 *   - the DS, ES, FS and GS selectors and, where the kernel lets user code write
 *     them (FSGSBASE: wrfsbase and wrgsbase, no system call), the FS and GS bases;
 *   - PKRU, the protection keys' rights, where the kernel enables the keys;
 *   - the signal mask (rt_sigprocmask, which abort() and raise() need), where no
 *     sandbox keeps it as it is (sandbox.c: the call returns and changes nothing;
 *     a system call after every call would cost some 140 ns).
 * Each is put back to what the child had before the allocator's first call
 * (scrub_record).  A signal's action and the signal stack, which the kernel
 * also keeps, the sandbox lets a call read and not change.
 */
#ifndef DRIVER_SCRUB_H
#define DRIVER_SCRUB_H

/* Note what the child has now, before any allocator code runs and before the
 * sandbox. */
void scrub_record(void);

/* The sandbox keeps the signal mask (sandbox.c): no need to put it back. */
void scrub_mask_kept(void);

/* Zero the vector and x87 registers, reset MXCSR and the flags, put back the
 * selectors, segment bases, PKRU and (unless kept) the signal mask scrub_record
 * saw. */
void scrub_after_call(void);

/* Zero every general register a call may leave changed, rbp too.  Inline in the
 * serving loop, not in a function of its own, whose epilogue would restore the
 * callee-saved ones the allocator set; the compiler keeps its own values in the
 * loop elsewhere across it.  (serve.c is built without a frame pointer, so that
 * rbp is an ordinary register there.) */
static inline __attribute__((always_inline)) void scrub_general_registers(void)
{
#ifdef __x86_64__
    __asm__ volatile("xor %%eax, %%eax\n xor %%ebx, %%ebx\n xor %%ecx, %%ecx\n xor %%edx, %%edx\n"
                     "xor %%esi, %%esi\n xor %%edi, %%edi\n xor %%ebp, %%ebp\n xor %%r8d, %%r8d\n"
                     "xor %%r9d, %%r9d\n xor %%r10d, %%r10d\n xor %%r11d, %%r11d\n xor %%r12d, %%r12d\n"
                     "xor %%r13d, %%r13d\n xor %%r14d, %%r14d\n xor %%r15d, %%r15d"
                     ::: "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12", "r13",
                         "r14", "r15", "cc", "memory");
#endif
}

#endif
