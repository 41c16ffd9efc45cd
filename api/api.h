/*
 * api.h — korp's HTTP interface: libmicrohttpd in, JSON out.  It turns
 * requests into calls on games/ (state changes) and db/ (reads), with
 * rules/ for names and notation, and holds no game logic.
 */
#ifndef KORP_API_H
#define KORP_API_H

#include <stdbool.h>
#include <stddef.h>

struct base_err;
struct db_pool;
struct db_fairplay_review;
struct notify_config;

struct api_config {
    const char *host;          /* IPv4 address to listen on */
    unsigned short port;
    /* Request workers (api_jobs.c): how many requests run at once (each
     * holds its worker while it waits on the database).  libmicrohttpd's
     * own threads, which read and write sockets (and answer a quick read
     * now and then: api_jobs.c), are at most API_IO_THREADS of them. */
    int threads;
    struct db_pool *pool;      /* borrowed; must outlive the server */
    const char *version;
    bool test_clock;           /* KORP_TEST_CLOCK=1: POST /v1/admin/clock exists */
    int keepalive_seconds;     /* comment lines on idle event streams */
    double rate_limit;         /* requests a second per token or address; 0: none */
    double rate_burst;         /* requests a bucket holds */
    const struct notify_config *notify;   /* links, webhook URL rules; borrowed */
    /* Accounts. */
    int streams_per_player;    /* event streams open at once per player; 0: no cap */
    int streams_per_address;   /* ... per client address; 0: no cap */
    int session_max_days;      /* a web session's absolute lifetime */
    int signup_limit;          /* sign-ups per client address per hour; 0: none */
    /* The edge (docs/security.md): address lists are CIDRs or addresses,
     * IPv4 or IPv6, separated by commas or spaces; NULL or "" is none. */
    const char *trusted_proxies;   /* peers whose X-Forwarded-For is believed */
    const char *metrics_allow;     /* clients that may read /metrics */
    int connections_per_address;   /* open at once from one client; 0: no cap */
    int request_head_seconds;      /* the whole request head must arrive in this */
    /* Inboxes. */
    bool email_confirmation;   /* addresses must be confirmed before korpd mails them */
    int challenges_per_day;    /* challenges per challenger in 24 hours; 0: no cap */
    int leave_days_per_year;       /* a player's leave allowance */
    /* Every stream reads the events table at least this often
     * (KORP_EVENTS_BACKSTOP_MS), whether or not a wake-up came; 0: 15000. */
    int events_backstop_ms;
    int event_retention_days;      /* events kept this long; 0: for ever */
    /* Engine analysis: per player per hour, and searches at once. */
    int analysis_per_hour;
    int analysis_concurrent;
    /* KORP_WEB_DIR: the web board's files are read from this folder on each
     * request instead of the copy built in; NULL or "": the built-in copy. */
    const char *web_dir;
    int tournaments_per_day;   /* tournaments per director in 24 hours; 0: no cap */
};

struct api_server;

/*
 * Whether text is a list of addresses or CIDRs api_server_start accepts;
 * false with a message naming setting in err.
 */
bool api_address_list_check(const char *setting, const char *text, struct base_err *err);

/*
 * Binds host:port and starts serving.  Returns NULL with a message in err
 * if the address cannot be used (taken, not local, not valid).
 */
struct api_server *api_server_start(const struct api_config *config,
                                    struct base_err *err);

/*
 * Stops accepting connections (the listening socket closes); requests in
 * flight, and further requests on connections already open, go on.
 */
void api_server_quiesce(struct api_server *server);

/* Requests begun and not yet completed. */
int api_server_in_flight(struct api_server *server);

/*
 * Stops serving and frees the server.  It waits for the handlers running
 * now, so call it once api_server_in_flight is 0 or when waiting no longer
 * matters.  NULL is a no-op.
 */
void api_server_stop(struct api_server *server);

/*
 * Starts `count` fair-play workers, each searching with `nodes` nodes a
 * position and putting the players who pass `review` on the arbiter's
 * queue (api_fairplay.c); false with a message in err.  Stop them with
 * api_fairplay_stop (also after a failed start).
 */
bool api_fairplay_start(struct db_pool *pool, int count, long long nodes,
                        const struct db_fairplay_review *review, struct base_err *err);
void api_fairplay_stop(void);

/* Whether a password meets the policy (8-128 code points, not the player's
 * name, not a common password); why says what is wrong otherwise.  Also for
 * `korpd admin create-arbiter NAME --password-stdin`. */
bool api_password_acceptable(const char *password, const char *name, char *why, size_t size);

#endif
