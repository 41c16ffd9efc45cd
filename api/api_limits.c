/*
 * api_limits.c — rate limits: a token bucket per API token (per client
 * address on routes that need none).  Buckets live in a fixed table hashed
 * by key; two keys that share a slot take turns resetting it, which can
 * only be lenient.  Limits are per korpd process.
 */
#include "api_int.h"

#include "base.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 4096

struct bucket {
    char key[48];
    double tokens;
    int64_t at_us;
};

struct api_limits {
    pthread_mutex_t lock;
    double rate;      /* requests a second; 0: no limit */
    double burst;
    struct bucket slots[SLOTS];
};

struct api_limits *api_limits_new(double rate, double burst)
{
    struct api_limits *l = calloc(1, sizeof *l);
    if (l == NULL)
        return NULL;
    pthread_mutex_init(&l->lock, NULL);
    l->rate = rate;
    l->burst = burst < 1 ? 1 : burst;
    return l;
}

void api_limits_free(struct api_limits *l)
{
    if (l == NULL)
        return;
    pthread_mutex_destroy(&l->lock);
    free(l);
}

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

bool api_limits_take(struct api_limits *l, const char *key, int *retry_after)
{
    struct bucket *b;
    int64_t now = base_monotonic_us();
    bool ok;

    if (l == NULL || l->rate <= 0)
        return true;
    pthread_mutex_lock(&l->lock);
    b = &l->slots[hash(key) % SLOTS];
    if (strncmp(b->key, key, sizeof b->key) != 0) {
        snprintf(b->key, sizeof b->key, "%s", key);
        b->tokens = l->burst;
        b->at_us = now;
    }
    b->tokens += (double)(now - b->at_us) / 1e6 * l->rate;
    if (b->tokens > l->burst)
        b->tokens = l->burst;
    b->at_us = now;
    ok = b->tokens >= 1;
    if (ok)
        b->tokens -= 1;
    else
        *retry_after = (int)((1 - b->tokens) / l->rate) + 1;
    pthread_mutex_unlock(&l->lock);
    return ok;
}

/* The bucket of a request: its token's, else its address's. */
bool api_limits_check(struct api_request *req, enum MHD_Result *replied)
{
    char key[56];
    int retry = 1;

    if (req->authenticated) {
        snprintf(key, sizeof key, "t:%s", req->caller.token_id);
    } else {
        char addr[48];
        api_client_address(req, addr, sizeof addr);
        snprintf(key, sizeof key, "a:%s", addr);
    }
    if (api_limits_take(req->limits, key, &retry))
        return true;
    req->retry_after = retry;
    *replied = api_fail(req, API_PROBLEM_TOO_MANY_REQUESTS,
                        "%s sent requests faster than its limit; retry in %d s",
                        req->authenticated ? "this token" : "this address", retry);
    return false;
}
