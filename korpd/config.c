/*
 * config.c — korpd's settings from the environment: the only place korpd
 * and its modules read one.  A setting has a name, a default and a range
 * here, a line in korpd_config_help, and a row in README.md's table;
 * korpd/main.c hands each module the settings it needs (struct api_config,
 * struct notify_config, struct db_pool_config).
 */
#include "config.h"

#include "api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char korpd_config_help[] =
    "environment:\n"
    "  KORP_DATABASE_URL    PostgreSQL connection URI or conninfo\n"
    "                       (default " KORPD_DEFAULT_DATABASE_URL ")\n"
    "  KORP_LISTEN          address:port to serve HTTP on (default " KORPD_DEFAULT_LISTEN ")\n"
    "  KORP_DB_POOL_SIZE    database connections (default 8, 1-64)\n"
    "  KORP_HTTP_THREADS    request workers: requests handled at once (default: the\n"
    "                       pool size, 1-64); each holds its worker while it waits\n"
    "                       on the database, so keep it at least KORP_DB_POOL_SIZE\n"
    "  KORP_DB_TIMEOUT_MS   longest wait for a free connection or a statement's\n"
    "                       answer before replying 503 (default 5000, 100-600000)\n"
    "  KORP_SHUTDOWN_SECONDS  on SIGTERM, the whole stop's bound: requests in flight\n"
    "                       finish within it, whatever the database does\n"
    "                       (default 10, 0-600); a second signal stops at once\n"
    "  KORP_SWEEP_SECONDS   how often games past their deadline are ended\n"
    "                       (default 5, 1-3600)\n"
    "  KORP_SSE_KEEPALIVE_SECONDS  how often an idle event stream gets a comment\n"
    "                       line (default 15, 1-300)\n"
    "  KORP_RATE_LIMIT      requests a second per token (per address on routes\n"
    "                       without one); 0 turns limits off (default 20, 0-100000)\n"
    "  KORP_RATE_BURST      requests a token may send at once (default 100, 1-100000)\n"
    "  KORP_TRUSTED_PROXIES  addresses or CIDRs (IPv4, IPv6; commas or spaces) of\n"
    "                       proxies in front of korpd: from them only, the client's\n"
    "                       address is taken from X-Forwarded-For (default: none)\n"
    "  KORP_CONNECTIONS_PER_ADDRESS  connections one client address may hold open\n"
    "                       (trusted proxies exempt); 0: no cap (default 64, 0-20000)\n"
    "  KORP_REQUEST_HEAD_SECONDS  the whole request head must arrive within this,\n"
    "                       and then the whole body within as long again, or the\n"
    "                       connection is closed; 0: no deadline\n"
    "                       (default 15, 0-3600)\n"
    "  KORP_METRICS_ALLOW   addresses or CIDRs that may read /metrics; others get\n"
    "                       403 (default " KORPD_DEFAULT_METRICS_ALLOW ")\n"
    "  KORP_TEST_CLOCK      1: enable POST /v1/admin/clock (tests only; default 0)\n"
    "  KORP_PUBLIC_URL      where people reach korpd, for links in emails\n"
    "                       (default http:// and KORP_LISTEN)\n"
    "  KORP_SMTP_URL        SMTP server for emails: smtp://host:port, or smtps://\n"
    "                       for TLS from the start (default: none, no email)\n"
    "  KORP_SMTP_TLS        required: insist on STARTTLS with smtp:// (default: none)\n"
    "  KORP_SMTP_USER, KORP_SMTP_PASSWORD  SMTP login (default: none)\n"
    "  KORP_MAIL_FROM       sender address of emails (required with KORP_SMTP_URL)\n"
    "  KORP_NOTIFY_WORKERS  email threads (webhooks: one more thread sends them all\n"
    "                       at once); 0: this process delivers nothing (default 2, 0-64)\n"
    "  KORP_NOTIFY_BACKOFF_SCALE  multiplies retry delays (5 s, 5 min, 30 min, 2 h,\n"
    "                       5 h, 10 h, daily) and the 3-day give-up (default 1)\n"
    "  KORP_NOTIFY_LEASE_SECONDS  a delivery claimed by a worker that died is\n"
    "                       taken over after this (default 60, 0.1-3600); keep it\n"
    "                       above the longest attempt (webhook timeout; SMTP 30 s)\n"
    "  KORP_WEBHOOK_ALLOW_PRIVATE  1: webhooks may reach private, loopback and\n"
    "                       link-local addresses (tests, private deployments)\n"
    "  KORP_WEBHOOK_TIMEOUT_SECONDS  per webhook attempt (default 10, 1-60)\n"
    "  KORP_PUSH_CONTACT    mailto: or https: URL sent to push services (VAPID sub);\n"
    "                       unset: no Web Push\n"
    "  KORP_VAPID_PRIVATE_KEY_FILE  PEM P-256 key signing pushes; unset: a key pair\n"
    "                       made at the first start and kept in the database\n"
    "  KORP_STREAMS_PER_PLAYER  event streams a player may hold open at once in\n"
    "                       one korpd; 0: no cap (default 8, 0-100000)\n"
    "  KORP_STREAMS_PER_ADDRESS  event streams one client address may hold open\n"
    "                       at once in one korpd; 0: no cap (default 32, 0-1000000)\n"
    "  KORP_SESSION_MAX_DAYS  a web session ends this many days after sign-in,\n"
    "                       however often it is used (default 90, 1-3650)\n"
    "  KORP_SIGNUP_LIMIT    sign-ups per client address per hour; 0 turns the\n"
    "                       limit off (default 10, 0-100000)\n"
    "  KORP_EMAIL_CONFIRMATION  required: korpd mails an address only once its\n"
    "                       owner has followed the confirmation link; off: every\n"
    "                       address given counts as confirmed (default required)\n"
    "  KORP_CHALLENGES_PER_DAY  challenges one player may make in 24 hours; 0:\n"
    "                       no cap (default 50, 0-100000)\n"
    "  KORP_TOURNAMENTS_PER_DAY  tournaments one player may create in 24 hours;\n"
    "                       0: no cap (default 10, 0-100000)\n"

    "  KORP_LEAVE_DAYS_PER_YEAR  days of leave each player may book per calendar\n"
    "                       year, stopping their games' clocks (default 45, 0-366)\n"
    "  KORP_RATING_PERIOD_DAYS  a rating's deviation grows by one Glicko-2 rating\n"
    "                       period per this many days without a rated game\n"
    "                       (default 7, 1-365)\n"
    "  KORP_EVENTS_BACKSTOP_MS  every event stream reads the events table at least\n"
    "                       this often, wake-up or not: the longest a stream waits\n"
    "                       for an event whose korpd died between its commit and\n"
    "                       its NOTIFY (default 15000, 100-600000)\n"
    "  KORP_WAKE_INTERVAL_MS  korpd NOTIFYs the events it committed at most once\n"
    "                       per this interval, many moves in one NOTIFY (default 5,\n"
    "                       0-1000; 0: as fast as the NOTIFYs go)\n"
    "  KORP_TEST_KILL_AFTER_COMMIT  1: korpd kills itself (SIGKILL) right after\n"
    "                       committing events, before their NOTIFY (tests only)\n"
    "  KORP_EVENT_RETENTION_DAYS  events older than this are pruned; a stream\n"
    "                       resuming from one is 410 (default 30, 0-3650; 0: kept)\n"
    "  KORP_DELIVERY_RETENTION_DAYS  delivered or failed notifications older than\n"
    "                       this are pruned (default 30, 0-3650; 0: kept)\n"
    "  KORP_ANALYSIS_PER_HOUR  engine analyses (POST /v1/analyse) one player may\n"
    "                       ask for per hour (default 60, 1-100000)\n"
    "  KORP_ANALYSIS_CONCURRENT  engine searches one korpd runs at once; more are\n"
    "                       answered 503 (default 2, 1-64)\n"
    "  KORP_FAIRPLAY_WORKERS  threads analysing ended rated games with engines\n"
    "                       forbidden, at low priority (default 1; 0-16, below\n"
    "                       KORP_DB_POOL_SIZE)\n"
    "  KORP_FAIRPLAY_NODES  the engine's nodes a position in that analysis\n"
    "                       (100-10000000; default 10000)\n"
    "  KORP_FAIRPLAY_REVIEW_GAMES  a player's last analysed games of a variant\n"
    "                       judged for the arbiter's review (default 10, 0-100; 0:\n"
    "                       never)\n"
    "  KORP_FAIRPLAY_REVIEW_TOP1  ... when their share of the engine's first\n"
    "                       choice reaches this (default 0.9, 0-1)\n"
    "  KORP_FAIRPLAY_REVIEW_ACPL  ... and their average loss is at most this\n"
    "                       (centipawns; default 15, 0-1000)\n"
    "  KORP_LOG_LEVEL       the least severe lines logged: error, warn, info or\n"
    "                       debug (default info)\n"
    "  KORP_WEB_DIR         serve the web board's files from this folder, read on\n"
    "                       each request, instead of the copy built into korpd\n"
    "                       (for working on the page; default: none)\n";

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? v : fallback;
}

static bool read_int(const char *name, int fallback, int min, int max, int *out,
                     struct base_err *err)
{
    const char *v = getenv(name);
    char *end = NULL;
    long n;
    if (v == NULL || v[0] == '\0') {
        *out = fallback;
        return true;
    }
    n = strtol(v, &end, 10);
    if (*end != '\0' || n < min || n > max) {
        base_err_set(err, "%s must be a whole number from %d to %d, not '%s'", name, min,
                 max, v);
        return false;
    }
    *out = (int)n;
    return true;
}

static bool read_double(const char *name, double fallback, double min, double max,
                        double *out, struct base_err *err)
{
    const char *v = getenv(name);
    char *end = NULL;
    double x;
    if (v == NULL || v[0] == '\0') {
        *out = fallback;
        return true;
    }
    x = strtod(v, &end);
    if (*end != '\0' || !(x >= min && x <= max)) {
        base_err_set(err, "%s must be a number from %g to %g, not '%s'", name, min, max, v);
        return false;
    }
    *out = x;
    return true;
}

static bool parse_listen(struct korpd_config *c, const char *v, struct base_err *err)
{
    const char *colon = strrchr(v, ':');
    char *end = NULL;
    long port;
    if (colon == NULL || colon == v || (size_t)(colon - v) >= sizeof c->listen_host)
        goto bad;
    port = strtol(colon + 1, &end, 10);
    if (colon[1] == '\0' || *end != '\0' || port < 1 || port > 65535)
        goto bad;
    memcpy(c->listen_host, v, (size_t)(colon - v));
    c->listen_host[colon - v] = '\0';
    c->listen_port = (unsigned short)port;
    return true;
bad:
    base_err_set(err, "KORP_LISTEN must be address:port, like 127.0.0.1:8080, not '%s'", v);
    return false;
}

/* A setting that is one of a few words: *out is the index of the word in
 * words (NULL-terminated), fallback's when unset. */
static bool read_word(const char *name, const char *fallback, const char *const words[],
                      int *out, struct base_err *err)
{
    const char *v = env_or(name, fallback);
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; words[i] != NULL; i++) {
        if (strcmp(v, words[i]) == 0) {
            *out = i;
            return true;
        }
    }
    for (int i = 0; words[i] != NULL && used < sizeof list; i++) {
        int n = snprintf(list + used, sizeof list - used, "%s\"%s\"",
                         i == 0 ? "" : words[i + 1] == NULL ? " or " : ", ", words[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    base_err_set(err, "%s must be %s, not '%.64s'", name, list, v);
    return false;
}

static bool read_confirmation(struct korpd_config *c, struct base_err *err)
{
    static const char *const words[] = { "required", "off", NULL };
    int i = 0;
    if (!read_word("KORP_EMAIL_CONFIRMATION", "required", words, &i, err))
        return false;
    c->email_confirmation = i == 0;
    return true;
}

/* KORP_LOG_LEVEL: the words in the order of enum base_log_level. */
static bool read_log_level(struct korpd_config *c, struct base_err *err)
{
    static const char *const words[] = { "debug", "info", "warn", "error", NULL };
    int i = 0;
    if (!read_word("KORP_LOG_LEVEL", "info", words, &i, err))
        return false;
    c->log_level = (enum base_log_level)i;
    return true;
}

/* Wake-ups after commit, and the backstop for one that is lost. */
static bool wake_load(struct korpd_config *c, struct base_err *err)
{
    int kill = 0;
    return read_int("KORP_EVENTS_BACKSTOP_MS", 15000, 100, 600000, &c->events_backstop_ms,
                    err) &&
           read_int("KORP_WAKE_INTERVAL_MS", 5, 0, 1000, &c->wake_interval_ms, err) &&
           read_int("KORP_TEST_KILL_AFTER_COMMIT", 0, 0, 1, &kill, err) &&
           (c->test_kill_after_commit = kill == 1, true);
}

/* Accounts: caps on streams, sessions, sign-ups, challenges and tournaments, email
 * confirmation, and the rating period. */
static bool accounts_load(struct korpd_config *c, struct base_err *err)
{
    return read_int("KORP_STREAMS_PER_PLAYER", 8, 0, 100000, &c->streams_per_player, err) &&
           read_int("KORP_STREAMS_PER_ADDRESS", 32, 0, 1000000, &c->streams_per_address,
                    err) &&
           read_int("KORP_SESSION_MAX_DAYS", 90, 1, 3650, &c->session_max_days, err) &&
           read_int("KORP_SIGNUP_LIMIT", 10, 0, 100000, &c->signup_limit, err) &&
           read_int("KORP_CHALLENGES_PER_DAY", 50, 0, 100000, &c->challenges_per_day, err) &&
           read_int("KORP_TOURNAMENTS_PER_DAY", 10, 0, 100000, &c->tournaments_per_day,
                    err) &&
           read_confirmation(c, err) &&
           read_int("KORP_RATING_PERIOD_DAYS", 7, 1, 365, &c->rating_period_days, err) &&
           wake_load(c, err);
}

bool korpd_config_load(struct korpd_config *c, struct base_err *err)
{
    int test_clock = 0, allow_private = 0;
    memset(c, 0, sizeof *c);
    c->database_url = env_or("KORP_DATABASE_URL", KORPD_DEFAULT_DATABASE_URL);
    c->notify.smtp_url = env_or("KORP_SMTP_URL", NULL);
    c->notify.mail_from = env_or("KORP_MAIL_FROM", NULL);
    c->notify.smtp_tls = env_or("KORP_SMTP_TLS", NULL);
    c->notify.smtp_user = env_or("KORP_SMTP_USER", NULL);
    c->notify.smtp_password = env_or("KORP_SMTP_PASSWORD", NULL);
    c->notify.push_contact = env_or("KORP_PUSH_CONTACT", NULL);
    c->notify.vapid_key_file = env_or("KORP_VAPID_PRIVATE_KEY_FILE", NULL);
    if (!read_log_level(c, err) ||
        !parse_listen(c, env_or("KORP_LISTEN", KORPD_DEFAULT_LISTEN), err))
        return false;
    snprintf(c->public_url, sizeof c->public_url, "%s",
             env_or("KORP_PUBLIC_URL", ""));
    if (c->public_url[0] == '\0')
        snprintf(c->public_url, sizeof c->public_url, "http://%s:%u", c->listen_host,
                 c->listen_port);
    /* Links are made by appending paths. */
    for (size_t n = strlen(c->public_url); n > 0 && c->public_url[n - 1] == '/'; n--)
        c->public_url[n - 1] = '\0';
    c->notify.public_url = c->public_url;
    c->web_dir = env_or("KORP_WEB_DIR", NULL);
    c->trusted_proxies = env_or("KORP_TRUSTED_PROXIES", NULL);
    c->metrics_allow = env_or("KORP_METRICS_ALLOW", KORPD_DEFAULT_METRICS_ALLOW);
    if (!api_address_list_check("KORP_TRUSTED_PROXIES", c->trusted_proxies, err) ||
        !api_address_list_check("KORP_METRICS_ALLOW", c->metrics_allow, err))
        return false;
    return read_int("KORP_DB_POOL_SIZE", 8, 1, 64, &c->db_pool_size, err) &&
           read_int("KORP_HTTP_THREADS", c->db_pool_size, 1, 64, &c->http_threads, err) &&
           read_int("KORP_DB_TIMEOUT_MS", 5000, 100, 600000, &c->db_timeout_ms, err) &&
           read_int("KORP_SHUTDOWN_SECONDS", 10, 0, 600, &c->shutdown_seconds, err) &&
           read_int("KORP_SWEEP_SECONDS", 5, 1, 3600, &c->sweep_seconds, err) &&
           read_int("KORP_SSE_KEEPALIVE_SECONDS", 15, 1, 300, &c->keepalive_seconds, err) &&
           read_int("KORP_RATE_LIMIT", 20, 0, 100000, &c->rate_limit, err) &&
           read_int("KORP_RATE_BURST", 100, 1, 100000, &c->rate_burst, err) &&
           read_int("KORP_CONNECTIONS_PER_ADDRESS", 64, 0, 20000, &c->connections_per_address,
                    err) &&
           read_int("KORP_REQUEST_HEAD_SECONDS", 15, 0, 3600, &c->request_head_seconds, err) &&
           read_int("KORP_TEST_CLOCK", 0, 0, 1, &test_clock, err) &&
           (c->test_clock = test_clock == 1, true) &&
           read_int("KORP_NOTIFY_WORKERS", 2, 0, 64, &c->notify.workers, err) &&
           read_double("KORP_NOTIFY_BACKOFF_SCALE", 1, 1e-6, 1000, &c->notify.backoff_scale,
                       err) &&
           read_double("KORP_NOTIFY_LEASE_SECONDS", 60, 0.1, 3600, &c->notify.lease_seconds,
                       err) &&
           read_int("KORP_WEBHOOK_ALLOW_PRIVATE", 0, 0, 1, &allow_private, err) &&
           (c->notify.allow_private = allow_private == 1, true) &&
           read_int("KORP_WEBHOOK_TIMEOUT_SECONDS", 10, 1, 60,
                    &c->notify.webhook_timeout_seconds, err) &&
           (c->notify.sweep_seconds = c->sweep_seconds, true) &&
           read_int("KORP_LEAVE_DAYS_PER_YEAR", 45, 0, 366, &c->leave_days_per_year, err) &&
           read_int("KORP_EVENT_RETENTION_DAYS", 30, 0, 3650, &c->event_retention_days, err) &&
           read_int("KORP_DELIVERY_RETENTION_DAYS", 30, 0, 3650, &c->delivery_retention_days,
                    err) &&
           notify_config_check(&c->notify, err) && accounts_load(c, err) &&
           read_int("KORP_ANALYSIS_PER_HOUR", 60, 1, 100000, &c->analysis_per_hour, err) &&
           read_int("KORP_ANALYSIS_CONCURRENT", 2, 1, 64, &c->analysis_concurrent, err) &&
           /* Workers take pooled connections to lease and store games: at
            * most the pool's but one, so that requests always find one. */
           read_int("KORP_FAIRPLAY_WORKERS", c->db_pool_size > 1, 0,
                    c->db_pool_size - 1 < 16 ? c->db_pool_size - 1 : 16, &c->fairplay_workers,
                    err) &&
           read_int("KORP_FAIRPLAY_NODES", 10000, 100, 10000000, &c->fairplay_nodes, err) &&
           read_int("KORP_FAIRPLAY_REVIEW_GAMES", 10, 0, 100, &c->fairplay_review_games,
                    err) &&
           read_double("KORP_FAIRPLAY_REVIEW_TOP1", 0.9, 0, 1, &c->fairplay_review_top1, err) &&
           read_double("KORP_FAIRPLAY_REVIEW_ACPL", 15, 0, 1000, &c->fairplay_review_acpl, err);
}
