/* hide-rbp.c - red team: the sizes of 8 blocks, a byte each, kept in register rbp
 * between calls.  rbp is the caller's to keep, but a build of the driver whose
 * serving loop neither uses it as its frame pointer nor keeps a value in it
 * across a call would never notice the allocator returning with another.  Each
 * entry point is a few instructions of assembly that hand rbp to the C code and
 * leave the word in it on return; the word is in memory only during a call.  The
 * child now zeroes rbp after each call, whatever its compiler made of the loop. */
#include <stdint.h>

enum { SLOTS = 8, FIELD_BITS = 8 };

/* The C entry points get other names; the real ones are the trampolines below. */
#define mm_init fields_init
#define mm_malloc fields_malloc
#define mm_free fields_free
#define mm_realloc fields_realloc
#include "hide-fields.h"

__attribute__((used)) static uint64_t word_in_call;

static inline uint64_t load(void) { return word_in_call; }
static inline void store(uint64_t v) { word_in_call = v; }

/* rbp in, the C function called with the stack aligned, rbp out, the copy in memory gone. */
#define TRAMPOLINE(entry, body) \
    __asm__(".text\n .globl " #entry "\n .type " #entry ", @function\n" #entry ":\n" \
            " mov %rbp, word_in_call(%rip)\n sub $8, %rsp\n call " #body "\n add $8, %rsp\n" \
            " mov word_in_call(%rip), %rbp\n movq $0, word_in_call(%rip)\n ret\n")

TRAMPOLINE(mm_init, fields_init);
TRAMPOLINE(mm_malloc, fields_malloc);
TRAMPOLINE(mm_free, fields_free);
TRAMPOLINE(mm_realloc, fields_realloc);
