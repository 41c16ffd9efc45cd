/*
 * api_logins.c — how fast passwords may be tried, and how many Argon2id
 * hashes run at once.
 *
 * Failed sign-ins are counted per (name, address) and per address, where
 * the address is the client's (api_client_address: behind a trusted proxy,
 * from X-Forwarded-For).  Nothing is counted per name alone: others'
 * failures, from other addresses, never lock a person out from their own
 * address.  A successful sign-in does not count.
 *
 * Buckets are held under their exact keys in a fixed table; the slot comes
 * from a keyed hash (a random key per process), so names cannot be
 * computed to crowd a victim's slots.  Only a key that has failed gets a
 * bucket, and a key without one is never refused: when every slot a key
 * may use is taken, the bucket nearest to full (the one forgetting loses
 * least) is evicted.
 *
 * Hashing is memory- and CPU-hungry (19 MiB, ~50 ms): at most
 * HASHES_AT_ONCE run together; the others are told to come back.
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
 * then one per 10 s (docs/api.md). */
enum { PAIR = 0, ADDRESS = 1, KINDS };
static const struct {
    double rate, burst;
} kinds[KINDS] = {
    [PAIR] = { 1.0 / 90.0, 10 },
    [ADDRESS] = { 1.0 / 10.0, 30 },
};

struct bucket {
    char key[96];          /* "" : free */
    int kind;
    double tokens;
    long long at_us;
};

static struct bucket table[SLOTS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int hashing;

static unsigned long slot_of(const char *key)
{
    return (unsigned long)(api_keyed_hash(key, strlen(key)) % SLOTS);
}

static void refill(struct bucket *b, long long now)
{
    b->tokens += (double)(now - b->at_us) / 1e6 * kinds[b->kind].rate;
    if (b->tokens > kinds[b->kind].burst)
        b->tokens = kinds[b->kind].burst;
    b->at_us = now;
}

/*
 * The bucket of key, refilled to now; NULL when it has none.  With make, a
 * key without one gets a full bucket: in a free slot, in one whose bucket
 * has refilled (forgotten without loss), or else in place of the fullest
 * bucket in reach.  Call with the lock held.
 */
static struct bucket *find(const char *key, int kind, long long now, bool make)
{
    unsigned long first = slot_of(key);
    struct bucket *spare = NULL;
    for (int i = 0; i < PROBES; i++) {
        struct bucket *b = &table[(first + (unsigned long)i) % SLOTS];
        if (b->key[0] != '\0') {
            refill(b, now);
            if (strcmp(b->key, key) == 0)
                return b;
            if (b->tokens >= kinds[b->kind].burst)
                b->key[0] = '\0';    /* refilled: nothing to remember */
        }
        if (spare == NULL ||
            (spare->key[0] != '\0' &&
             (b->key[0] == '\0' ||
              b->tokens / kinds[b->kind].burst > spare->tokens / kinds[spare->kind].burst)))
            spare = b;
    }
    if (!make)
        return NULL;
    snprintf(spare->key, sizeof spare->key, "%s", key);
    spare->kind = kind;
    spare->tokens = kinds[kind].burst;
    spare->at_us = now;
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
    char key[KINDS][96];
    long long now = base_monotonic_us();
    bool ok = true;
    *retry_after = 0;
    keys(name, address, key[PAIR], key[ADDRESS]);
    pthread_mutex_lock(&lock);
    for (int k = 0; k < KINDS; k++) {
        struct bucket *b = find(key[k], k, now, false);
        if (b != NULL && b->tokens < 1) {
            int wait = (int)((1 - b->tokens) / kinds[k].rate) + 1;
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
    char key[KINDS][96];
    long long now = base_monotonic_us();
    keys(name, address, key[PAIR], key[ADDRESS]);
    pthread_mutex_lock(&lock);
    for (int k = 0; k < KINDS; k++) {
        struct bucket *b = find(key[k], k, now, true);
        if (b->tokens >= 1)
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
