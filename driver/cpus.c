/* cpus.c - where a trace's child runs (see cpus.h). */
#define _GNU_SOURCE
#include "driver/cpus.h"

#include <stdlib.h>
#include <string.h>

#include "driver/options.h"

enum { TOGETHER_CHILDREN = 4 };
static unsigned together_for;   /* children still to start together after a failure */

typedef enum { CPUS_ADAPT, CPUS_TOGETHER, CPUS_APART } cpus_choice_t;

static cpus_choice_t cpus_choice(void)
{
    const char *v = options_env("MDRIVER_CPUS");
    if (v && !strcmp(v, "together"))
        return CPUS_TOGETHER;
    if (v && !strcmp(v, "apart"))
        return CPUS_APART;
    return CPUS_ADAPT;
}

const char *cpus_unknown_setting(void)
{
    const char *v = options_env("MDRIVER_CPUS");
    return v && cpus_choice() == CPUS_ADAPT ? v : NULL;
}

/* Pin a process to one CPU: true when done. */
static bool pin(pid_t pid, int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(pid, sizeof one, &one) == 0;
}

void cpus_pin_parent(cpus_t *c)
{
    *c = (cpus_t){.cpu = sched_getcpu()};
    cpus_repin_parent(c);
}

void cpus_repin_parent(cpus_t *c)
{
    c->pinned = c->cpu >= 0 && sched_getaffinity(0, sizeof c->before, &c->before) == 0 && pin(0, c->cpu);
}

static bool move_apart(cpus_t *c, pid_t child, cpus_choice_t choice)
{
    if (!c->pinned || !channel_can_spin() || choice == CPUS_TOGETHER)
        return false;
    if (together_for && choice != CPUS_APART) {
        together_for--;
        return false;
    }
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (i != c->cpu && CPU_ISSET(i, &c->before))
            return pin(child, i);
    return false;
}

void cpus_place_child(cpus_t *c, pid_t child, channel_t *ch, bool checked_calls)
{
    cpus_choice_t choice = cpus_choice();
    c->apart = checked_calls && move_apart(c, child, choice);
    c->stay_apart = c->apart && choice == CPUS_APART;
    channel_set_apart(ch, c->apart);
}

void cpus_join(cpus_t *c, pid_t child, channel_t *ch, bool failed)
{
    if (!c->apart || !pin(child, c->cpu))
        return;
    c->apart = false;
    channel_set_apart(ch, false);
    if (failed)
        together_for = TOGETHER_CHILDREN;
}

void cpus_unpin_parent(cpus_t *c)
{
    if (c->pinned)
        sched_setaffinity(0, sizeof c->before, &c->before);
    c->pinned = false;
}
