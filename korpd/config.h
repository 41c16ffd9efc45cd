/*
 * config.h — korpd's settings, all from environment variables with
 * documented defaults (the table in README.md and `korpd --help`).  No
 * other file of korpd or its modules reads the environment.
 */
#ifndef KORPD_CONFIG_H
#define KORPD_CONFIG_H

#include "base.h"
#include "notify.h"

#include <stdbool.h>
#include <stddef.h>

#define KORPD_DEFAULT_DATABASE_URL "postgresql://korp@127.0.0.1:54320/korp"
#define KORPD_DEFAULT_LISTEN "127.0.0.1:8080"
#define KORPD_DEFAULT_METRICS_ALLOW "127.0.0.0/8,::1"

struct korpd_config {
    const char *database_url;
    char listen_host[64];
    unsigned short listen_port;
    int db_pool_size;
    int http_threads;
    int db_timeout_ms;         /* wait for a connection / a statement */
    int shutdown_seconds;      /* grace for requests in flight on SIGTERM */
    int sweep_seconds;         /* how often overdue games are ended */
    int keepalive_seconds;     /* comment lines on idle event streams */
    int rate_limit;            /* requests a second per token or address; 0: none */
    int rate_burst;
    bool test_clock;           /* KORP_TEST_CLOCK=1: the clock may be moved */
    char public_url[512];      /* KORP_PUBLIC_URL, no trailing '/' */
    const char *trusted_proxies;   /* KORP_TRUSTED_PROXIES: addresses/CIDRs, or NULL */
    const char *metrics_allow;     /* KORP_METRICS_ALLOW: addresses/CIDRs */
    int connections_per_address;   /* KORP_CONNECTIONS_PER_ADDRESS; 0: no cap */
    int request_head_seconds;      /* KORP_REQUEST_HEAD_SECONDS; 0: no deadline */
    struct notify_config notify;
    /* Accounts: caps on streams, sessions, sign-ups and challenges. */
    int streams_per_player;    /* KORP_STREAMS_PER_PLAYER; 0: no cap */
    int streams_per_address;   /* KORP_STREAMS_PER_ADDRESS; 0: no cap */
    int session_max_days;      /* KORP_SESSION_MAX_DAYS */
    int leave_days_per_year;   /* KORP_LEAVE_DAYS_PER_YEAR: leave allowance */
    int signup_limit;          /* KORP_SIGNUP_LIMIT: per address per hour; 0: none */
    bool email_confirmation;   /* KORP_EMAIL_CONFIRMATION=required (the default) */
    int challenges_per_day;    /* KORP_CHALLENGES_PER_DAY: per challenger; 0: none */
    int tournaments_per_day;   /* KORP_TOURNAMENTS_PER_DAY: per director; 0: none */
    int rating_period_days;    /* KORP_RATING_PERIOD_DAYS: Glicko-2 period */
    /* Wake-ups after commit, and the backstop when one is lost. */
    int events_backstop_ms;    /* KORP_EVENTS_BACKSTOP_MS */
    int wake_interval_ms;      /* KORP_WAKE_INTERVAL_MS */
    bool test_kill_after_commit;   /* KORP_TEST_KILL_AFTER_COMMIT=1 (tests only) */
    /* Retention of the tables that only grow: days kept; 0 keeps for ever. */
    int event_retention_days;      /* KORP_EVENT_RETENTION_DAYS */
    int delivery_retention_days;   /* KORP_DELIVERY_RETENTION_DAYS */
    /* Engine analysis. */
    int analysis_per_hour;     /* KORP_ANALYSIS_PER_HOUR: per player */
    int analysis_concurrent;   /* KORP_ANALYSIS_CONCURRENT: searches at once */
    /* The fair-play analysis of rated games with engines forbidden. */
    int fairplay_workers;      /* KORP_FAIRPLAY_WORKERS: threads (0: none here) */
    int fairplay_nodes;        /* KORP_FAIRPLAY_NODES: nodes a search */
    /* KORP_FAIRPLAY_REVIEW_GAMES, _TOP1, _ACPL: a player's last games (0:
     * never) whose figures reach top1 and stay within acpl go to review */
    int fairplay_review_games;
    double fairplay_review_top1, fairplay_review_acpl;
    /* The process itself. */
    enum base_log_level log_level; /* KORP_LOG_LEVEL: the lowest level logged */
    const char *web_dir;       /* KORP_WEB_DIR: serve web/ from here, or NULL */
};

/* The settings table, for --help. */
extern const char korpd_config_help[];

/* Reads the environment; false with a message in err on a bad value. */
bool korpd_config_load(struct korpd_config *config, struct base_err *err);

#endif
