/*
 * listen.c — a stand-in for korpd's LISTEN sessions, for bench/moves.sh:
 * with PGBENCH_LISTEN=1 pgbench runs with the same listeners on its
 * database as korpd has on its own, so that the database's work per move
 * (PostgreSQL signals every listening session of the database on each
 * NOTIFY) is alike.
 *
 * usage: listen CONNINFO CHANNEL [read]
 *
 * LISTENs on CHANNEL; with "read", reads back the rows of the event ids a
 * notification carries, as korpd's event listener does (db/db_events.c,
 * the same statement); without, only consumes the notifications (korpd's
 * delivery workers' listener).  Runs until killed; prints the number of
 * notifications on SIGTERM.
 */
#include <libpq-fe.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv)
{
    char sql[128], array[8200];
    long heard = 0;
    PGconn *pg;
    PGresult *res;

    if (argc < 3) {
        fprintf(stderr, "usage: listen CONNINFO CHANNEL [read]\n");
        return 2;
    }
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    pg = PQconnectdb(argv[1]);
    if (PQstatus(pg) != CONNECTION_OK) {
        fprintf(stderr, "listen: %s", PQerrorMessage(pg));
        return 1;
    }
    snprintf(sql, sizeof sql, "LISTEN %s", argv[2]);
    res = PQexec(pg, sql);
    if (PQresultStatus(res) != PGRES_COMMAND_OK) {
        fprintf(stderr, "listen: %s", PQerrorMessage(pg));
        return 1;
    }
    PQclear(res);
    while (!stop) {
        struct pollfd p = { .fd = PQsocket(pg), .events = POLLIN };
        PGnotify *n;
        if (poll(&p, 1, 500) > 0 && !PQconsumeInput(pg))
            break;
        while ((n = PQnotifies(pg)) != NULL) {
            heard++;
            if (argc > 3 && strcmp(argv[3], "read") == 0 && n->extra[0] != '\0') {
                const char *params[1] = { array };
                snprintf(array, sizeof array, "{%s}", n->extra);
                res = PQexecParams(pg, "SELECT id, player_id, coalesce(game_id, '') FROM events"
                                       " WHERE id = ANY ($1::bigint[])",
                                   1, NULL, params, NULL, NULL, 0);
                PQclear(res);
            }
            PQfreemem(n);
        }
    }
    printf("listen %s: %ld notifications\n", argv[2], heard);
    PQfinish(pg);
    return 0;
}
