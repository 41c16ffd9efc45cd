/*
 * main.c — korpd: wires the settings, the database pool, the migrations
 * and the HTTP server, then waits for SIGINT or SIGTERM.
 */
#include "api.h"
#include "config.h"
#include "db.h"
#include "rules.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#ifndef KORP_VERSION
#define KORP_VERSION "0.0.0"
#endif

static void log_line(const char *level, const char *msg)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(stderr, "%s korpd %s: %s\n", stamp, level, msg);
}

int main(int argc, char **argv)
{
    struct korpd_config config;
    struct db_pool *pool = NULL;
    struct api_server *server = NULL;
    char err[512], msg[640];
    sigset_t signals;
    int sig = 0, rc = 1;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: korpd [--help] [--version]\n\n"
                   "korp's correspondence play server; configured by the environment.\n\n%s",
                   korpd_config_help);
            return 0;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("korpd %s\n", KORP_VERSION);
            return 0;
        }
        fprintf(stderr, "korpd: unknown argument '%s' (see korpd --help)\n", argv[i]);
        return 2;
    }
    if (!korpd_config_load(&config, err, sizeof err)) {
        fprintf(stderr, "korpd: %s\n", err);
        return 2;
    }
    rules_init();

    /* Signals are taken by sigwait below, never by the server's threads. */
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);
    signal(SIGPIPE, SIG_IGN);

    pool = db_pool_new(config.database_url, config.db_pool_size, err, sizeof err);
    if (pool == NULL)
        goto fail;
    if (db_migrate(pool, err, sizeof err) != DB_OK) {
        snprintf(msg, sizeof msg, "cannot prepare the database: %s", err);
        log_line("error", msg);
        goto done;
    }
    struct api_config api = { config.listen_host, config.listen_port, config.http_threads,
                              pool, KORP_VERSION };
    server = api_server_start(&api, err, sizeof err);
    if (server == NULL)
        goto fail;
    snprintf(msg, sizeof msg, "listening on http://%s:%u (schema version %d)",
             config.listen_host, config.listen_port, db_migration_count());
    log_line("info", msg);
    sigwait(&signals, &sig);
    snprintf(msg, sizeof msg, "stopping on signal %d", sig);
    log_line("info", msg);
    rc = 0;
    goto done;
fail:
    log_line("error", err);
done:
    api_server_stop(server);
    db_pool_free(pool);
    return rc;
}
