/* describe.c - `mdriver --describe` (see describe.h). */
#include "driver/describe.h"

#include "config.h"
#include "driver/audit.h"
#include "driver/json.h"
#include "driver/outcome.h"
#include "driver/sandbox.h"
#include "mm_stats.h"

void json_write_description(FILE *out)
{
    json_t j = {.out = out};
    json_open(&j, NULL, '{');
    json_integer(&j, "schema", 1);
    json_integer(&j, "alignment", MM_ALIGNMENT);
    json_integer(&j, "default_max_heap", MDRIVER_DEFAULT_MAX_HEAP);
    json_number(&j, "util_weight", MM_UTIL_WEIGHT);
    json_number(&j, "throughput_cap", MM_THROUGHPUT_CAP);
    json_bool(&j, "seccomp", sandbox_available());
    json_bool(&j, "audit", audit_available());
    json_open(&j, "outcomes", '[');
    for (int o = 0; o < OUTCOME_COUNT; o++) {
        json_open(&j, NULL, '{');
        json_string(&j, "name", outcome_name((outcome_t)o));
        json_string(&j, "explanation", outcome_explanation((outcome_t)o));
        json_close(&j, '}');
    }
    json_close(&j, ']');
    json_open(&j, "stats_fields", '[');
#define MM_STATS_DESCRIBE(name, what) \
    json_open(&j, NULL, '{');         \
    json_string(&j, "name", #name);   \
    json_string(&j, "meaning", what); \
    json_close(&j, '}');
    MM_STATS_FIELDS(MM_STATS_DESCRIBE)
#undef MM_STATS_DESCRIBE
    json_close(&j, ']');
    json_close(&j, '}');
    fputc('\n', out);
}
