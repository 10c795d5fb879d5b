/* first.c - linked just before the allocator's object: its variables mark where
 * the allocator's writable data (.data, .bss) begins (driver/audit.h). */
char mm_globals_data_first = 1;
char mm_globals_bss_first;
