/*
 * fuzz_head.c — request heads as the gate in front of libmicrohttpd judges
 * them (api_head_scan): nothing a client sends may crash it or make it read
 * past the bytes received, and a verdict on a whole head never changes as
 * more bytes arrive (the gate judges a head as soon as it is whole).
 */
#include "api_gate.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly size bytes: the sanitizer sees any read past it. */
    char *buf = malloc(size > 0 ? size : 1);
    enum api_head_verdict all, part;
    size_t cut;

    if (buf == NULL)
        return 0;
    memcpy(buf, data, size);
    all = api_head_scan(buf, size);
    /* Some prefix, chosen by the input: a refusal there stands. */
    cut = size > 0 ? (size_t)data[0] * size / 256 : 0;
    part = api_head_scan(buf, cut);
    if ((part == API_HEAD_BAD_LENGTH || part == API_HEAD_HUGE_LENGTH) && part != all)
        abort();
    if (part == API_HEAD_PASS && all == API_HEAD_INCOMPLETE)
        abort();   /* a whole head cannot become partial */
    free(buf);
    return 0;
}
