/*
 * api_metrics.c — GET /metrics in Prometheus's text format: requests by
 * route and status with a latency histogram, moves by outcome, claims,
 * games started and finished, open event streams, and the pool's counters.
 * Counters are this process's (Prometheus sums the processes).
 */
#include "api_int.h"

#include "notify.h"

#include "games.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const unsigned statuses[] = { 200, 201, 204, 400, 401, 403, 404, 405, 409, 413,
                                     415, 422, 429, 500, 503 };
#define STATUS_SLOTS (sizeof statuses / sizeof *statuses + 1)   /* + other */

/* Upper bounds of the latency histogram, in microseconds. */
static const long buckets_us[] = { 1000, 5000, 10000, 25000, 50000, 100000, 250000, 500000,
                                   1000000, 2500000, 5000000, 10000000 };
#define BUCKETS (sizeof buckets_us / sizeof *buckets_us)

/* Move outcomes, by games_outcome (and "accepted" for GAMES_OK); the
 * outcomes a move cannot have are not counted. */
static const char *const move_outcomes[GAMES_OUTCOME_COUNT] = {
    [GAMES_OK] = "accepted", [GAMES_NOT_FOUND] = "not_found", [GAMES_FORBIDDEN] = "forbidden",
    [GAMES_CONFLICT] = "conflict", [GAMES_NOT_YOUR_TURN] = "not_your_turn",
    [GAMES_GAME_OVER] = "game_over", [GAMES_PLY_MISMATCH] = "ply_mismatch",
    [GAMES_ILLEGAL] = "illegal", [GAMES_DRAW_NOT_ALLOWED] = "draw_not_allowed",
    [GAMES_ANSWERED_BEFORE] = "answered_before", [GAMES_DB_ERROR] = "error",
};
#define OUTCOMES (sizeof move_outcomes / sizeof *move_outcomes)

/* Games by variant (its place in rules_variant_list) and by termination
 * (enum db_termination; its slot DB_END_NONE counts aborted games). */
#define VARIANTS 4
#define TERMINATIONS (DB_END_FORFEIT + 1)

static int variant_index(const struct rules_variant *v)
{
    const struct rules_variant *const *all = rules_variant_list();
    for (int i = 0; i < VARIANTS && all[i] != NULL; i++)
        if (all[i] == v)
            return i;
    return -1;
}

static const char *termination_label(size_t e)
{
    return e == DB_END_NONE ? "aborted" : db_termination_text((enum db_termination)e);
}

struct api_metrics {
    int routes;                                              /* the route table's rows */
    atomic_ulong (*requests)[STATUS_SLOTS];                  /* one row more: no route */
    atomic_ulong latency[BUCKETS];
    atomic_ulong latency_count, latency_sum_us;
    atomic_ulong moves[OUTCOMES];
    atomic_ulong claims[2][2];                               /* kind, accepted */
    atomic_long in_flight;                                   /* requests begun, not ended */
    atomic_ulong started[VARIANTS];
    atomic_ulong finished[VARIANTS][TERMINATIONS];
};

struct api_metrics *api_metrics_new(void)
{
    struct api_metrics *m = calloc(1, sizeof(struct api_metrics));
    const char *method, *pattern;

    if (m == NULL)
        return NULL;
    /* A row of counters per route of the table, however long it grows. */
    while (api_route_info(m->routes, &method, &pattern))
        m->routes++;
    m->requests = calloc((size_t)m->routes + 1, sizeof *m->requests);
    if (m->requests == NULL) {
        free(m);
        return NULL;
    }
    return m;
}

void api_metrics_free(struct api_metrics *m)
{
    if (m != NULL)
        free(m->requests);
    free(m);
}

void api_metrics_request(struct api_metrics *m, int route, unsigned status, long duration_us)
{
    size_t slot = STATUS_SLOTS - 1;
    if (m == NULL)
        return;
    for (size_t i = 0; i < STATUS_SLOTS - 1; i++)
        if (statuses[i] == status)
            slot = i;
    if (route < 0 || route >= m->routes)
        route = m->routes;
    atomic_fetch_add(&m->requests[route][slot], 1);
    for (size_t b = 0; b < BUCKETS; b++)
        if (duration_us <= buckets_us[b])
            atomic_fetch_add(&m->latency[b], 1);
    atomic_fetch_add(&m->latency_count, 1);
    atomic_fetch_add(&m->latency_sum_us, (unsigned long)(duration_us > 0 ? duration_us : 0));
}

void api_metrics_game(struct api_metrics *m, const struct db_game *g, bool started)
{
    int v;
    if (m == NULL || (v = variant_index(g->variant)) < 0)
        return;
    if (started) {
        atomic_fetch_add(&m->started[v], 1);
        return;
    }
    if (g->status == DB_GAME_ABORTED)
        atomic_fetch_add(&m->finished[v][DB_END_NONE], 1);
    else if (g->termination != DB_END_NONE && (size_t)g->termination < TERMINATIONS)
        atomic_fetch_add(&m->finished[v][g->termination], 1);
}

void api_metrics_in_flight(struct api_metrics *m, int delta)
{
    if (m != NULL)
        atomic_fetch_add(&m->in_flight, delta);
}

void api_metrics_move(struct api_metrics *m, const struct games_result *r)
{
    /* A key used before counts as answered before, for this request or another. */
    enum games_outcome o = r->outcome == GAMES_KEY_REUSED ? GAMES_ANSWERED_BEFORE : r->outcome;
    if (m != NULL && (size_t)o < OUTCOMES && move_outcomes[o] != NULL)
        atomic_fetch_add(&m->moves[o], 1);
}

void api_metrics_claim(struct api_metrics *m, bool fifty_move, bool accepted)
{
    if (m != NULL)
        atomic_fetch_add(&m->claims[fifty_move][accepted], 1);
}

enum MHD_Result api_metrics_reply(struct api_request *req)
{
    struct api_metrics *m = req->metrics;
    struct base_text t = { 0 };
    struct db_pool_stats db;
    struct notify_stats sent;
    struct MHD_Response *resp;
    unsigned long cumulative, stream_read_failures;
    int streams;
    struct api_addr client;

    /* Only KORP_METRICS_ALLOW reads the counters (by the client's address:
     * behind a trusted proxy, the one it forwarded). */
    if (!api_client_addr(req, &client) || !api_addr_list_has(req->metrics_allow, &client))
        return api_fail(req, API_PROBLEM_FORBIDDEN,
                        "/metrics is open only to the addresses in KORP_METRICS_ALLOW");
    base_text_put(&t, "# HELP korp_http_requests_total HTTP requests answered, by route and status.\n"
            "# TYPE korp_http_requests_total counter\n");
    for (int r = 0; r <= m->routes; r++) {
        const char *method = "-", *pattern = "-";
        if (r < m->routes && !api_route_info(r, &method, &pattern))
            continue;
        for (size_t s = 0; s < STATUS_SLOTS; s++) {
            unsigned long n = atomic_load(&m->requests[r][s]);
            char status[8];
            if (n == 0)
                continue;
            if (s < STATUS_SLOTS - 1)
                snprintf(status, sizeof status, "%u", statuses[s]);
            else
                snprintf(status, sizeof status, "other");
            base_text_put(&t, "korp_http_requests_total{method=\"%s\",route=\"%s\",status=\"%s\"} %lu\n",
                method, pattern, status, n);
        }
    }
    base_text_put(&t, "# HELP korp_http_request_duration_seconds Time from a request's arrival to its "
            "completion.\n# TYPE korp_http_request_duration_seconds histogram\n");
    for (size_t b = 0; b < BUCKETS; b++) {
        cumulative = atomic_load(&m->latency[b]);
        base_text_put(&t, "korp_http_request_duration_seconds_bucket{le=\"%g\"} %lu\n",
            (double)buckets_us[b] / 1e6, cumulative);
    }
    base_text_put(&t, "korp_http_request_duration_seconds_bucket{le=\"+Inf\"} %lu\n"
            "korp_http_request_duration_seconds_sum %.6f\n"
            "korp_http_request_duration_seconds_count %lu\n",
        atomic_load(&m->latency_count), (double)atomic_load(&m->latency_sum_us) / 1e6,
        atomic_load(&m->latency_count));

    base_text_put(&t, "# HELP korp_moves_total Moves submitted, by outcome.\n"
            "# TYPE korp_moves_total counter\n");
    for (size_t o = 0; o < OUTCOMES; o++)
        if (move_outcomes[o] != NULL)
            base_text_put(&t, "korp_moves_total{outcome=\"%s\"} %lu\n", move_outcomes[o],
            atomic_load(&m->moves[o]));
    base_text_put(&t, "# HELP korp_claims_total Draw claims, by kind and whether they held.\n"
            "# TYPE korp_claims_total counter\n");
    for (int k = 0; k < 2; k++)
        for (int a = 0; a < 2; a++)
            base_text_put(&t, "korp_claims_total{kind=\"%s\",accepted=\"%s\"} %lu\n",
                k ? "fifty-move" : "threefold", a ? "true" : "false",
                atomic_load(&m->claims[k][a]));
    base_text_put(&t, "# HELP korp_games_started_total Games started, by variant.\n"
            "# TYPE korp_games_started_total counter\n");
    const struct rules_variant *const *variants = rules_variant_list();
    for (size_t v = 0; v < VARIANTS && variants[v] != NULL; v++)
        base_text_put(&t, "korp_games_started_total{variant=\"%s\"} %lu\n", variants[v]->name,
            atomic_load(&m->started[v]));
    base_text_put(&t, "# HELP korp_games_finished_total Games ended by a request to this process, by "
            "variant and termination (time-outs found by the sweeper are not counted).\n"
            "# TYPE korp_games_finished_total counter\n");
    for (size_t v = 0; v < VARIANTS && variants[v] != NULL; v++)
        for (size_t k = 1; k <= TERMINATIONS; k++) {   /* aborted (slot 0) last */
            size_t e = k % TERMINATIONS;
            base_text_put(&t, "korp_games_finished_total{variant=\"%s\",termination=\"%s\"} %lu\n",
                variants[v]->name, termination_label(e), atomic_load(&m->finished[v][e]));
        }
    base_text_put(&t, "# HELP korp_http_requests_in_flight Requests begun and not yet "
            "answered, this one included.\n# TYPE korp_http_requests_in_flight gauge\n"
            "korp_http_requests_in_flight %ld\n", atomic_load(&m->in_flight));
    streams = api_hub_streams(req->hub, &stream_read_failures);
    base_text_put(&t, "# HELP korp_event_streams Event streams open now.\n"
            "# TYPE korp_event_streams gauge\nkorp_event_streams %d\n"
            "# HELP korp_event_stream_read_failures_total Reads of the database by event "
            "streams that failed (each is read again).\n"
            "# TYPE korp_event_stream_read_failures_total counter\n"
            "korp_event_stream_read_failures_total %lu\n", streams, stream_read_failures);

    db_pool_stats(req->config->pool, &db);
    base_text_put(&t, "# HELP korp_db_pool_waits_total Requests that waited for a free database "
            "connection.\n# TYPE korp_db_pool_waits_total counter\nkorp_db_pool_waits_total %lu\n"
            "# HELP korp_db_pool_wait_timeouts_total Waits for a connection that timed out.\n"
            "# TYPE korp_db_pool_wait_timeouts_total counter\n"
            "korp_db_pool_wait_timeouts_total %lu\n"
            "# HELP korp_db_connects_total Database connections opened.\n"
            "# TYPE korp_db_connects_total counter\nkorp_db_connects_total %lu\n"
            "# HELP korp_db_connect_failures_total Database connections that could not be "
            "opened.\n# TYPE korp_db_connect_failures_total counter\n"
            "korp_db_connect_failures_total %lu\n"
            "# HELP korp_db_retries_total Transactions run again, by reason.\n"
            "# TYPE korp_db_retries_total counter\n"
            "korp_db_retries_total{reason=\"conflict\"} %lu\n"
            "korp_db_retries_total{reason=\"connection\"} %lu\n"
            "# HELP korp_db_errors_total Database calls that ended in an error.\n"
            "# TYPE korp_db_errors_total counter\nkorp_db_errors_total %lu\n",
        db.waits, db.wait_timeouts, db.connects, db.connect_failures, db.retries_conflict,
        db.retries_broken, db.errors);
    notify_stats(&sent);
    base_text_put(&t, "# HELP korp_notifications_total Delivery attempts by this process's notify "
            "workers, by channel and outcome.\n# TYPE korp_notifications_total counter\n");
    for (enum db_channel c = 0; c < DB_CHANNEL_COUNT; c++)
        base_text_put(&t,
            "korp_notifications_total{channel=\"%s\",outcome=\"delivered\"} %lu\n"
            "korp_notifications_total{channel=\"%s\",outcome=\"retried\"} %lu\n"
            "korp_notifications_total{channel=\"%s\",outcome=\"failed\"} %lu\n",
            db_channel_text(c), sent.delivered[c], db_channel_text(c), sent.retried[c],
            db_channel_text(c),
            sent.failed[c]);
    size_t len = t.len;
    char *text = base_text_take(&t);
    if (text == NULL)
        return api_fail_oom(req);
    resp = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
    if (resp == NULL) {
        free(text);
        return api_fail_oom(req);
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                            "text/plain; version=0.0.4; charset=utf-8");
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    return api_reply(req, MHD_HTTP_OK, resp);
}
