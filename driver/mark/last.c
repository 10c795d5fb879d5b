/* last.c - linked just after the allocator's object: its variables mark where
 * the allocator's writable data (.data, .bss) ends (driver/audit.h). */
char mm_globals_data_last = 1;
char mm_globals_bss_last;
