/* scrub.c - the processor and process state a call leaves, put back (see scrub.h). */
#define _GNU_SOURCE
#include "driver/scrub.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Written once in the child before the parent's copy of its memory (audit.h). */
static struct {
    uint64_t signal_mask;
    bool mask_kept;
#ifdef __x86_64__
    uint64_t fs_base, gs_base;
    uint32_t pkru;
    uint16_t ds, es, fs, gs;
    bool has_fsgsbase, has_pkru;
#endif
} start;

#ifdef __x86_64__
#include <cpuid.h>

enum {
    HWCAP2_FSGSBASE_BIT = 1 << 1,   /* AT_HWCAP2: the kernel lets user code write the FS and GS bases */
    CPUID_OSPKE_BIT = 1 << 4,       /* leaf 7, ECX: the kernel enabled protection keys (PKRU) */
    MXCSR_DEFAULT = 0x1F80,         /* all exceptions masked, round to nearest */
};
/* RFLAGS bits a process may set and no call should pass on: TF, DF, NT, AC, ID. */
static const uint64_t FLAGS_CLEARED = 1u << 8 | 1u << 10 | 1u << 14 | 1u << 18 | 1u << 21;


static inline uint16_t selector_ds(void) { uint16_t s; __asm__ volatile("mov %%ds, %0" : "=r"(s)); return s; }
static inline uint16_t selector_es(void) { uint16_t s; __asm__ volatile("mov %%es, %0" : "=r"(s)); return s; }
static inline uint16_t selector_fs(void) { uint16_t s; __asm__ volatile("mov %%fs, %0" : "=r"(s)); return s; }
static inline uint16_t selector_gs(void) { uint16_t s; __asm__ volatile("mov %%gs, %0" : "=r"(s)); return s; }

static inline uint32_t read_pkru(void)
{
    uint32_t eax, edx;
    __asm__ volatile("rdpkru" : "=a"(eax), "=d"(edx) : "c"(0));
    return eax;
}

static bool kernel_enabled_pkru(void)
{
    unsigned eax, ebx, ecx, edx;
    return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) && (ecx & CPUID_OSPKE_BIT);
}

static void record_processor(void)
{
    start.ds = selector_ds(), start.es = selector_es(), start.fs = selector_fs(), start.gs = selector_gs();
    if ((start.has_fsgsbase = getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE_BIT)) {
        __asm__ volatile("rdfsbase %0" : "=r"(start.fs_base));
        __asm__ volatile("rdgsbase %0" : "=r"(start.gs_base));
    }
    if ((start.has_pkru = kernel_enabled_pkru()))
        start.pkru = read_pkru();
}

/* The mask registers with kxorw, which AVX-512F has: it zeroes all 64 bits (k0
 * too: no predicate, but a register a process may write). */
static inline void zero_vector_registers(void)
{
    if (__builtin_cpu_supports("avx512f"))
        __asm__ volatile("vpxord %%zmm16, %%zmm16, %%zmm16\n vpxord %%zmm17, %%zmm17, %%zmm17\n"
                         "vpxord %%zmm18, %%zmm18, %%zmm18\n vpxord %%zmm19, %%zmm19, %%zmm19\n"
                         "vpxord %%zmm20, %%zmm20, %%zmm20\n vpxord %%zmm21, %%zmm21, %%zmm21\n"
                         "vpxord %%zmm22, %%zmm22, %%zmm22\n vpxord %%zmm23, %%zmm23, %%zmm23\n"
                         "vpxord %%zmm24, %%zmm24, %%zmm24\n vpxord %%zmm25, %%zmm25, %%zmm25\n"
                         "vpxord %%zmm26, %%zmm26, %%zmm26\n vpxord %%zmm27, %%zmm27, %%zmm27\n"
                         "vpxord %%zmm28, %%zmm28, %%zmm28\n vpxord %%zmm29, %%zmm29, %%zmm29\n"
                         "vpxord %%zmm30, %%zmm30, %%zmm30\n vpxord %%zmm31, %%zmm31, %%zmm31\n"
                         "kxorw %%k0, %%k0, %%k0\n kxorw %%k1, %%k1, %%k1\n kxorw %%k2, %%k2, %%k2\n kxorw %%k3, %%k3, %%k3\n"
                         "kxorw %%k4, %%k4, %%k4\n kxorw %%k5, %%k5, %%k5\n kxorw %%k6, %%k6, %%k6\n kxorw %%k7, %%k7, %%k7" ::: "memory");
    if (__builtin_cpu_supports("avx"))
        __asm__ volatile("vzeroall" ::: "memory");
    else
        __asm__ volatile("pxor %%xmm0, %%xmm0\n pxor %%xmm1, %%xmm1\n pxor %%xmm2, %%xmm2\n pxor %%xmm3, %%xmm3\n"
                         "pxor %%xmm4, %%xmm4\n pxor %%xmm5, %%xmm5\n pxor %%xmm6, %%xmm6\n pxor %%xmm7, %%xmm7\n"
                         "pxor %%xmm8, %%xmm8\n pxor %%xmm9, %%xmm9\n pxor %%xmm10, %%xmm10\n"
                         "pxor %%xmm11, %%xmm11\n pxor %%xmm12, %%xmm12\n pxor %%xmm13, %%xmm13\n"
                         "pxor %%xmm14, %%xmm14\n pxor %%xmm15, %%xmm15" ::: "memory");
    /* the MMX registers alias x87's: zero them, then leave the x87 state empty;
     * MXCSR back to its value at start-up (its flags and modes are bits too) */
    static const uint32_t mxcsr_default = MXCSR_DEFAULT;
    __asm__ volatile("pxor %%mm0, %%mm0\n pxor %%mm1, %%mm1\n pxor %%mm2, %%mm2\n pxor %%mm3, %%mm3\n"
                     "pxor %%mm4, %%mm4\n pxor %%mm5, %%mm5\n pxor %%mm6, %%mm6\n pxor %%mm7, %%mm7\n"
                     "emms\n fninit\n ldmxcsr %0" : : "m"(mxcsr_default) : "memory");
}

/* Below the red zone: the compiler may keep this function's locals in the 128
 * bytes under the stack pointer. */
static inline void clear_flags(void)
{
    __asm__ volatile("lea -128(%%rsp), %%rsp\n pushfq\n andq %0, (%%rsp)\n popfq\n lea 128(%%rsp), %%rsp"
                     : : "r"(~FLAGS_CLEARED) : "cc", "memory");
}

/* A selector is loaded only when it changed: a load costs some 50 ns in a VM, a
 * read almost nothing.  Loading one may reset its segment's base (a null
 * selector, on Intel), so the bases are written after. */
static inline void restore_segments(void)
{
    if (selector_ds() != start.ds)
        __asm__ volatile("mov %0, %%ds" : : "r"(start.ds));
    if (selector_es() != start.es)
        __asm__ volatile("mov %0, %%es" : : "r"(start.es));
    if (selector_fs() != start.fs)
        __asm__ volatile("mov %0, %%fs" : : "r"(start.fs));
    if (selector_gs() != start.gs)
        __asm__ volatile("mov %0, %%gs" : : "r"(start.gs));
    if (start.has_fsgsbase)
        __asm__ volatile("wrfsbase %0\n wrgsbase %1" : : "r"(start.fs_base), "r"(start.gs_base) : "memory");
}

static void restore_processor(void)
{
    zero_vector_registers();
    clear_flags();
    restore_segments();
    if (start.has_pkru)
        __asm__ volatile("wrpkru" : : "a"(start.pkru), "c"(0), "d"(0) : "memory");
}

#else

static void record_processor(void) {}
static void restore_processor(void) {}

#endif

void scrub_record(void)
{
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &start.signal_mask, sizeof start.signal_mask);
    record_processor();
}

void scrub_mask_kept(void) { start.mask_kept = true; }

void scrub_after_call(void)
{
    restore_processor();
    if (!start.mask_kept)
        syscall(SYS_rt_sigprocmask, SIG_SETMASK, &start.signal_mask, NULL, sizeof start.signal_mask);
}
