/*
 * writable.h - where the executable's writable data lies, found from its own ELF
 * program headers (no system call, no library call), for the broken allocators
 * that scan the driver's memory.  The writable segments may have unmapped gaps
 * between them, so a scan must stay inside one.
 */
#ifndef BROKEN_WRITABLE_H
#define BROKEN_WRITABLE_H

#include <elf.h>
#include <link.h>
#include <stdint.h>

extern const ElfW(Ehdr) __ehdr_start;  /* the ELF header, mapped at the start of the first segment */

typedef struct {
    uintptr_t from, to;
} span_t;

/* The i-th writable segment, or false when there are no more. */
static inline int writable_segment(int i, span_t *s)
{
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)&__ehdr_start + __ehdr_start.e_phoff);
    uintptr_t base = (uintptr_t)&__ehdr_start;  /* less the vaddr of the first segment, which maps it */
    for (int n = 0; n < __ehdr_start.e_phnum; n++)
        if (ph[n].p_type == PT_LOAD) {
            base -= ph[n].p_vaddr;
            break;
        }
    for (int n = 0; n < __ehdr_start.e_phnum; n++)
        if (ph[n].p_type == PT_LOAD && (ph[n].p_flags & PF_W) && i-- == 0) {
            *s = (span_t){base + ph[n].p_vaddr, base + ph[n].p_vaddr + ph[n].p_memsz};
            return 1;
        }
    return 0;
}

#endif
