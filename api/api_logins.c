/*
 * api_logins.c — how fast passwords may be tried, and how many Argon2id
 * hashes run at once.
 *
 * Failed sign-ins are counted per (name, address) and per address, in
 * token buckets held under their exact keys: a bucket is never shared nor
 * reset by another key (when the table is full of live buckets, a new key
 * is refused: the throttle fails closed).  A successful sign-in does not
 * count, so nobody can lock another person out from their own address.
 * Hashing is memory- and CPU-hungry (19 MiB, ~50 ms): at most
 * API_HASHES_AT_ONCE run together; the others are told to come back.
 */
#include "api_int.h"

#include "base.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define SLOTS 4096
#define PROBES 32
#define HASHES_AT_ONCE 2

/* Per (name, address): 10 failures, then one per 90 s; per address: 30,
 * then one per 10 s. */
static const struct {
    double rate, burst;
} kinds[] = {
    [0] = { 1.0 / 90.0, 10 },
    [1] = { 1.0 / 10.0, 30 },
};

struct bucket {
    char key[96];
    int kind;
    double tokens;
    long long at_us;
};

static struct bucket table[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int hashing;

static unsigned long slot_of(const char *key)
{
    unsigned long h = 1469598103u;
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h % SLOTS;
}

static void refill(struct bucket *b, long long now)
{
    b->tokens += (double)(now - b->at_us) / 1e6 * kinds[b->kind].rate;
    if (b->tokens > kinds[b->kind].burst)
        b->tokens = kinds[b->kind].burst;
    b->at_us = now;
}

/* The bucket of key (made full when new), or NULL when no slot is free:
 * a slot is free when empty or when its bucket has refilled (forgotten
 * without loss).  Call with the lock held. */
static struct bucket *find(const char *key, int kind, long long now)
{
    unsigned long first = slot_of(key);
    struct bucket *spare = NULL;
    for (int i = 0; i < PROBES; i++) {
        struct bucket *b = &table[(first + (unsigned long)i) % SLOTS];
        if (b->key[0] != '\0' && strcmp(b->key, key) == 0) {
            refill(b, now);
            return b;
        }
        if (spare == NULL) {
            if (b->key[0] != '\0')
                refill(b, now);
            if (b->key[0] == '\0' || b->tokens >= kinds[b->kind].burst)
                spare = b;
        }
    }
    if (spare != NULL) {
        snprintf(spare->key, sizeof spare->key, "%s", key);
        spare->kind = kind;
        spare->tokens = kinds[kind].burst;
        spare->at_us = now;
    }
    return spare;
}

static void keys(const char *name, const char *address, char pair[96], char addr[96])
{
    snprintf(pair, 96, "n:%.40s@%.48s", name, address);
    for (char *c = pair; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    snprintf(addr, 96, "a:%.48s", address);
}

bool api_login_allowed(const char *name, const char *address, int *retry_after)
{
    char pair[96], addr[96];
    long long now = base_monotonic_us();
    bool ok = true;
    *retry_after = 0;
    keys(name, address, pair, addr);
    pthread_mutex_lock(&lock);
    for (int k = 0; k < 2; k++) {
        struct bucket *b = find(k == 0 ? pair : addr, k, now);
        if (b == NULL || b->tokens < 1) {
            int wait = b == NULL ? 60 : (int)((1 - b->tokens) / kinds[k].rate) + 1;
            ok = false;
            if (wait > *retry_after)
                *retry_after = wait;
        }
    }
    pthread_mutex_unlock(&lock);
    return ok;
}

void api_login_failed(const char *name, const char *address)
{
    char pair[96], addr[96];
    long long now = base_monotonic_us();
    keys(name, address, pair, addr);
    pthread_mutex_lock(&lock);
    for (int k = 0; k < 2; k++) {
        struct bucket *b = find(k == 0 ? pair : addr, k, now);
        if (b != NULL && b->tokens >= 1)
            b->tokens -= 1;
    }
    pthread_mutex_unlock(&lock);
}

bool api_hash_begin(void)
{
    bool ok;
    pthread_mutex_lock(&lock);
    ok = hashing < HASHES_AT_ONCE;
    if (ok)
        hashing++;
    pthread_mutex_unlock(&lock);
    return ok;
}

void api_hash_end(void)
{
    pthread_mutex_lock(&lock);
    hashing--;
    pthread_mutex_unlock(&lock);
}
