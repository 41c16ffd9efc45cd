/*
 * fuzz_position.c — libFuzzer target: any text given to a variant's
 * position reader must be accepted or refused with a message, never crash;
 * an accepted position must write, read back the same, and generate moves;
 * after one of its legal moves (picked by the text's length) the written
 * position must read back the same too.
 */
#include "rules.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    struct rules_why why;
    char text[512], out[RULES_TEXT_MAX], again[RULES_TEXT_MAX];
    struct rules_move moves[RULES_MAX_MOVES];

    if (!ready) {
        rules_init();
        ready = true;
    }
    if (size >= sizeof text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    for (const struct rules_variant *const *v = rules_variant_list(); *v; v++) {
        struct rules_position pos, back;
        if ((*v)->position_parse(&pos, text, &why) != RULES_OK)
            continue;
        (*v)->position_format(&pos, out, sizeof out);
        if ((*v)->position_parse(&back, out, &why) != RULES_OK)
            abort();
        (*v)->position_format(&back, again, sizeof again);
        if (strcmp(out, again) != 0)
            abort();
        if ((*v)->repetition_key(&back) != (*v)->repetition_key(&pos))
            abort();
        int n = (*v)->moves_legal(&pos, moves);
        if (n == 0)
            continue;
        if ((*v)->position_apply(&pos, moves[size % (size_t)n]) != RULES_OK)
            abort();
        (*v)->position_format(&pos, out, sizeof out);
        if ((*v)->position_parse(&back, out, &why) != RULES_OK)
            abort();
        (*v)->position_format(&back, again, sizeof again);
        if (strcmp(out, again) != 0 || (*v)->repetition_key(&back) != (*v)->repetition_key(&pos))
            abort();
    }
    return 0;
}
