/* allocator.c - the allocator's file as make named it (see allocator.h). */
#include "driver/allocator.h"

#ifndef MDRIVER_ALLOCATOR
#define MDRIVER_ALLOCATOR "mm.c"
#endif

const char allocator_file[] = MDRIVER_ALLOCATOR;
