/*
 * api_limits.c — who may do how much: rate limits (a token bucket per API
 * token, per client address on routes that need none), open connections
 * per address, and the address lists that exempt or allow (trusted
 * proxies, /metrics).  Each key has a bucket of its own, found by a keyed
 * hash in chains, so no key can reset another's; a bucket that has filled
 * up again is forgotten (it would start full anyway).  A request costs one
 * token, or more on the routes that are dear to answer (dear_routes).
 * Limits are per korpd process.
 */
#include "api_int.h"

#include "base.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHAINS 8192            /* a power of two */
#define MOST_BUCKETS 262144    /* beyond this, new keys share one bucket */
#define TAKES_PER_PRUNE 4096

struct bucket {
    struct bucket *next;
    double tokens;
    int64_t at_us;
    char key[];
};

struct api_limits {
    pthread_mutex_t lock;
    double rate;      /* requests a second; 0: no limit */
    double burst;
    size_t count;     /* buckets held */
    unsigned takes;   /* since the last prune */
    struct bucket *overflow;        /* shared by keys past MOST_BUCKETS */
    struct bucket *chains[CHAINS];
};

static struct bucket *bucket_new(const char *key, double burst, int64_t now)
{
    size_t n = strlen(key) + 1;
    struct bucket *b = malloc(sizeof *b + n);
    if (b == NULL)
        return NULL;
    b->next = NULL;
    b->tokens = burst;
    b->at_us = now;
    memcpy(b->key, key, n);
    return b;
}

struct api_limits *api_limits_new(double rate, double burst)
{
    struct api_limits *l = calloc(1, sizeof *l);
    if (l == NULL)
        return NULL;
    pthread_mutex_init(&l->lock, NULL);
    l->rate = rate;
    l->burst = burst < 1 ? 1 : burst;
    if ((l->overflow = bucket_new("overflow", l->burst, base_monotonic_us())) == NULL) {
        api_limits_free(l);
        return NULL;
    }
    return l;
}

void api_limits_free(struct api_limits *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < CHAINS; i++)
        for (struct bucket *b = l->chains[i], *next; b != NULL; b = next) {
            next = b->next;
            free(b);
        }
    free(l->overflow);
    pthread_mutex_destroy(&l->lock);
    free(l);
}

/* Tops a bucket up for the time since it was last used. */
static void refill(const struct api_limits *l, struct bucket *b, int64_t now)
{
    b->tokens += (double)(now - b->at_us) / 1e6 * l->rate;
    if (b->tokens > l->burst)
        b->tokens = l->burst;
    b->at_us = now;
}

/* Forgets the buckets that are full again. */
static void prune(struct api_limits *l, int64_t now)
{
    for (size_t i = 0; i < CHAINS; i++)
        for (struct bucket **p = &l->chains[i]; *p != NULL;) {
            refill(l, *p, now);
            if ((*p)->tokens >= l->burst) {
                struct bucket *full = *p;
                *p = full->next;
                free(full);
                l->count--;
            } else {
                p = &(*p)->next;
            }
        }
}

/* The key's bucket, made when it has none. */
static struct bucket *bucket_of(struct api_limits *l, const char *key, int64_t now)
{
    struct bucket **chain = &l->chains[api_keyed_hash(key, strlen(key)) & (CHAINS - 1)];
    struct bucket *b;
    for (b = *chain; b != NULL; b = b->next)
        if (strcmp(b->key, key) == 0)
            return b;
    if (l->count >= MOST_BUCKETS || (b = bucket_new(key, l->burst, now)) == NULL)
        return l->overflow;
    b->next = *chain;
    *chain = b;
    l->count++;
    return b;
}

/* Takes cost tokens (at most a full bucket's) from key's bucket. */
static bool take(struct api_limits *l, const char *key, double cost, int *retry_after)
{
    struct bucket *b;
    int64_t now = base_monotonic_us();
    bool ok;

    if (l == NULL || l->rate <= 0)
        return true;
    if (cost > l->burst)
        cost = l->burst;   /* else the route could never be served */
    pthread_mutex_lock(&l->lock);
    if (++l->takes >= TAKES_PER_PRUNE) {
        l->takes = 0;
        prune(l, now);
    }
    b = bucket_of(l, key, now);
    refill(l, b, now);
    ok = b->tokens >= cost;
    if (ok)
        b->tokens -= cost;
    else
        *retry_after = (int)((cost - b->tokens) / l->rate) + 1;
    pthread_mutex_unlock(&l->lock);
    return ok;
}

bool api_limits_take(struct api_limits *l, const char *key, int *retry_after)
{
    return take(l, key, 1, retry_after);
}

/*
 * Routes that cost more than one request, in tokens of the same buckets:
 * each reads or computes much more than a game's row (a tournament's PGN
 * replays every game of it).  A pattern here is the route table's own
 * (api_routes.c); a route not listed costs one.
 */
static const struct {
    const char *method;
    const char *pattern;
    double cost;
} dear_routes[] = {
    { "GET", "/v1/tournaments/{id}/pgn", 20 },
    { "GET", "/v1/games/{id}/pgn", 3 },
    { "GET", "/v1/games/{id}/analysis", 5 },
    { "GET", "/v1/games/{id}/legal-moves", 2 },
    { "POST", "/v1/replay", 5 },
    { "POST", "/v1/analyse", 5 },
    { NULL, NULL, 0 },
};

static double route_cost(const struct api_request *req)
{
    for (int i = 0; dear_routes[i].pattern != NULL; i++)
        if (strcmp(dear_routes[i].pattern, req->route) == 0 &&
            strcmp(dear_routes[i].method, req->method) == 0)
            return dear_routes[i].cost;
    return 1;
}

/*
 * Charges the request, at its route's cost, to its token's bucket (its
 * address's without one), then to its player's: a player's requests,
 * through all their tokens and sessions together, are limited as one
 * token's are, so that minting tokens does not buy more requests.
 */
bool api_limits_check(struct api_request *req, enum MHD_Result *replied)
{
    char key[56];
    double cost = route_cost(req);
    int retry = 1;

    if (req->authenticated) {
        snprintf(key, sizeof key, "t:%s", req->caller.token_id);
    } else {
        char addr[48];
        api_client_address(req, addr, sizeof addr);
        snprintf(key, sizeof key, "a:%s", addr);
    }
    if (!take(req->limits, key, cost, &retry)) {
        req->retry_after = retry;
        *replied = api_fail(req, API_PROBLEM_TOO_MANY_REQUESTS,
                            "%s sent requests faster than its limit; retry in %d s",
                            req->authenticated ? "this token" : "this address", retry);
        return false;
    }
    if (!req->authenticated)
        return true;
    snprintf(key, sizeof key, "p:%s", req->caller.player_id);
    if (take(req->limits, key, cost, &retry))
        return true;
    req->retry_after = retry;
    *replied = api_fail(req, API_PROBLEM_TOO_MANY_REQUESTS,
                        "your requests, from all your tokens together, came faster than a "
                        "player's limit; retry in %d s", retry);
    return false;
}

/* ---- Addresses. */

static const unsigned char v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

bool api_addr_parse(const char *text, size_t len, struct api_addr *out)
{
    char buf[INET6_ADDRSTRLEN];
    struct in_addr v4;
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (inet_pton(AF_INET, buf, &v4) == 1) {
        memcpy(out->b, v4_mapped, 12);
        memcpy(out->b + 12, &v4, 4);
        return true;
    }
    return inet_pton(AF_INET6, buf, out->b) == 1;
}

bool api_addr_from_socket(const struct sockaddr *sa, struct api_addr *out)
{
    if (sa == NULL)
        return false;
    if (sa->sa_family == AF_INET) {
        memcpy(out->b, v4_mapped, 12);
        memcpy(out->b + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        return true;
    }
    if (sa->sa_family == AF_INET6) {
        memcpy(out->b, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
        return true;
    }
    return false;
}

void api_addr_text(const struct api_addr *a, char *out, size_t size)
{
    const char *done = memcmp(a->b, v4_mapped, 12) == 0
                           ? inet_ntop(AF_INET, a->b + 12, out, (socklen_t)size)
                           : inet_ntop(AF_INET6, a->b, out, (socklen_t)size);
    if (done == NULL && size > 0)
        snprintf(out, size, "?");
}

/* One range: an address and how many of its leading bits must match. */
struct range {
    struct api_addr net;
    int bits;
};

struct api_addr_list {
    int n;
    struct range ranges[];
};

/* Reads "address" or "address/bits" (bits of IPv4 for an IPv4 address). */
static bool range_parse(const char *text, size_t len, struct range *r)
{
    const char *slash = memchr(text, '/', len);
    size_t alen = slash ? (size_t)(slash - text) : len;
    bool v4;
    long bits;
    if (!api_addr_parse(text, alen, &r->net))
        return false;
    v4 = memcmp(r->net.b, v4_mapped, 12) == 0 && memchr(text, ':', alen) == NULL;
    bits = v4 ? 32 : 128;
    if (slash != NULL) {
        char digits[4];
        char *end = NULL;
        size_t dlen = len - alen - 1;
        if (dlen == 0 || dlen >= sizeof digits)
            return false;
        memcpy(digits, slash + 1, dlen);
        digits[dlen] = '\0';
        bits = strtol(digits, &end, 10);
        if (*end != '\0' || digits[0] < '0' || digits[0] > '9' || bits < 0 ||
            bits > (v4 ? 32 : 128))
            return false;
    }
    r->bits = (int)bits + (v4 ? 96 : 0);
    return true;
}

struct api_addr_list *api_addr_list_new(const char *setting, const char *text,
                                        struct base_err *err)
{
    struct api_addr_list *l;
    size_t most = 1;
    if (text == NULL)
        text = "";
    for (const char *c = text; *c; c++)
        most += *c == ',' || *c == ' ';
    l = calloc(1, sizeof *l + most * sizeof l->ranges[0]);
    if (l == NULL) {
        base_err_set(err, "out of memory");
        return NULL;
    }
    for (const char *c = text; *c != '\0';) {
        size_t len = strcspn(c, ", \t");
        if (len > 0 && !range_parse(c, len, &l->ranges[l->n++])) {
            base_err_set(err, "%s: '%.*s' is not an address or CIDR (like 10.0.0.0/8 or ::1)",
                         setting, (int)(len > 60 ? 60 : len), c);
            free(l);
            return NULL;
        }
        c += len;
        c += strspn(c, ", \t");
    }
    return l;
}

void api_addr_list_free(struct api_addr_list *l)
{
    free(l);
}

static bool range_has(const struct range *r, const struct api_addr *a)
{
    int whole = r->bits / 8, rest = r->bits % 8;
    if (memcmp(r->net.b, a->b, (size_t)whole) != 0)
        return false;
    if (rest == 0)
        return true;
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return (r->net.b[whole] & mask) == (a->b[whole] & mask);
}

bool api_addr_list_has(const struct api_addr_list *l, const struct api_addr *a)
{
    for (int i = 0; l != NULL && i < l->n; i++)
        if (range_has(&l->ranges[i], a))
            return true;
    return false;
}

bool api_address_list_check(const char *setting, const char *text, struct base_err *err)
{
    struct api_addr_list *l = api_addr_list_new(setting, text, err);
    api_addr_list_free(l);
    return l != NULL;
}

/* ---- The keyed hash. */

static unsigned char hash_key[32];
static pthread_once_t hash_key_once = PTHREAD_ONCE_INIT;

static void hash_key_make(void)
{
    /* Without randomness, korpd still runs; the slots are then guessable,
     * which makes tables no worse than an unkeyed hash. */
    if (RAND_bytes(hash_key, sizeof hash_key) != 1)
        base_log(BASE_LOG_WARN, "no random key for the limit tables' hash");
}

uint64_t api_keyed_hash(const void *data, size_t len)
{
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int maclen = 0;
    uint64_t h = 0;
    pthread_once(&hash_key_once, hash_key_make);
    if (HMAC(EVP_sha256(), hash_key, sizeof hash_key, data, len, mac, &maclen) == NULL)
        return 0;
    memcpy(&h, mac, sizeof h);
    return h;
}

/* ---- Open connections per address: open addressing, deleted by shifting
 * back (no tombstones), so the table holds only addresses with a
 * connection open and never fills while API_CONNECTION_LIMIT holds. */

#define CONN_SLOTS 32768   /* a power of two above API_CONNECTION_LIMIT */

struct conn_slot {
    struct api_addr addr;
    int n;                 /* 0: empty */
};

struct api_conn_counts {
    pthread_mutex_t lock;
    int limit;
    struct conn_slot slots[CONN_SLOTS];
};

struct api_conn_counts *api_conn_counts_new(int limit)
{
    struct api_conn_counts *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    c->limit = limit;
    return c;
}

void api_conn_counts_free(struct api_conn_counts *c)
{
    if (c == NULL)
        return;
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static size_t conn_home(const struct api_addr *a)
{
    return (size_t)(api_keyed_hash(a->b, sizeof a->b) % CONN_SLOTS);
}

/* The slot holding a, or the empty one where it would go. */
static size_t conn_find(struct api_conn_counts *c, const struct api_addr *a)
{
    size_t i = conn_home(a);
    while (c->slots[i].n != 0 && memcmp(&c->slots[i].addr, a, sizeof *a) != 0)
        i = (i + 1) % CONN_SLOTS;
    return i;
}

/* Empties slot i, moving later entries of its run back so that each stays
 * reachable from its home slot. */
static void conn_remove(struct api_conn_counts *c, size_t i)
{
    size_t j = i;
    for (;;) {
        c->slots[i].n = 0;
        for (;;) {
            size_t home;
            j = (j + 1) % CONN_SLOTS;
            if (c->slots[j].n == 0)
                return;
            home = conn_home(&c->slots[j].addr);
            /* Entry j may stay when its home lies cyclically in (i, j]. */
            if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
                continue;
            break;
        }
        c->slots[i] = c->slots[j];
        i = j;
    }
}

bool api_conn_admit(struct api_conn_counts *c, const struct api_addr *a)
{
    bool ok;
    if (c == NULL || c->limit <= 0)
        return true;
    pthread_mutex_lock(&c->lock);
    ok = c->slots[conn_find(c, a)].n < c->limit;
    pthread_mutex_unlock(&c->lock);
    return ok;
}

void api_conn_count(struct api_conn_counts *c, const struct api_addr *a, int delta)
{
    size_t i;
    if (c == NULL || c->limit <= 0)
        return;
    pthread_mutex_lock(&c->lock);
    i = conn_find(c, a);
    if (c->slots[i].n == 0 && delta > 0)
        c->slots[i].addr = *a;
    if (c->slots[i].n != 0 || delta > 0) {
        c->slots[i].n += delta;
        if (c->slots[i].n <= 0)
            conn_remove(c, i);
    }
    pthread_mutex_unlock(&c->lock);
}
