/*
 * allocator.h - which allocator file this driver was built around.
 *
 * Its own object (driver/allocator.c, built per configuration with the path make
 * was given), so that mdriver.c and mmreplay.c do not depend on the allocator and
 * build once for every allocator (Makefile: the shared objects).
 */
#ifndef DRIVER_ALLOCATOR_H
#define DRIVER_ALLOCATOR_H

extern const char allocator_file[];

#endif
