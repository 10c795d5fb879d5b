/* closes-channel.c - closes-hangs.c keeping its output open: only the channel's doorbells
 * close, so the parent waits for the output's end, which never comes. */
#define CLOSE_FROM 3
#include "closes-hangs.c"
