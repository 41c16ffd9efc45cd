/*
 * test_perft.c — perft counts from an EPD file of independent counts
 * ("FEN ;D1 n ;D2 n ..."), up to a maximum depth.
 * usage: test_perft VARIANT FILE MAX_DEPTH
 */
#include "rules.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const struct rules_variant *v;
    char line[1024];
    int max_depth, checked = 0, failed = 0;
    FILE *f;

    if (argc != 4) {
        fprintf(stderr, "usage: test_perft VARIANT FILE MAX_DEPTH\n");
        return 2;
    }
    rules_init();
    v = rules_variant_find(argv[1]);
    max_depth = atoi(argv[3]);
    if (v == NULL || (f = fopen(argv[2], "r")) == NULL) {
        fprintf(stderr, "test_perft: unknown variant or unreadable file\n");
        return 2;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        struct rules_position pos;
        struct rules_why why = { 0 };
        char *semi = strchr(line, ';');
        if (line[0] == '#' || semi == NULL)
            continue;
        *semi = '\0';
        if (v->position_parse(&pos, line, &why) != RULES_OK) {
            printf("FAIL %s: %s\n", line, why.text);
            failed++;
            continue;
        }
        for (char *d = semi + 1; d != NULL; d = strchr(d, ';')) {
            int depth;
            uint64_t expected;
            if (*d == ';')
                d++;
            if (sscanf(d, " D%d %" SCNu64, &depth, &expected) != 2 || depth > max_depth)
                continue;
            uint64_t got = v->perft(&pos, depth);
            checked++;
            if (got != expected) {
                failed++;
                printf("FAIL %s depth %d: %" PRIu64 ", expected %" PRIu64 "\n", line, depth,
                       got, expected);
            }
        }
    }
    fclose(f);
    printf("%d passed, %d failed\n", checked - failed, failed);
    return failed > 0 || checked == 0;
}
