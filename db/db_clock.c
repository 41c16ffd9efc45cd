/*
 * db_clock.c — a game's time, worked out from its row: each side's seconds
 * at the start of the turn, when the turn began, and the leave that stops
 * the clocks (both players' bookings, when the game allows leave).
 *
 * Time is whole seconds since 1970: a turn starts at the whole second of
 * the move that began it, and leave starts and ends at whole seconds, so a
 * clock reads the same to the second however late a request comes within
 * that second.  The pauses are in order of start and may overlap (two
 * players' bookings) or lie wholly before the times asked about.
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

long long db_clock_run_seconds(const struct db_pause *p, int n, long long t0, long long t1)
{
    long long t = t0, run = 0;
    if (t1 <= t0)
        return 0;
    for (int i = 0; i < n && t < t1; i++) {
        if (p[i].start >= t1)
            break;
        if (p[i].end <= t)
            continue;
        if (p[i].start > t)
            run += p[i].start - t;
        t = p[i].end < t1 ? p[i].end : t1;
    }
    return run + (t1 > t ? t1 - t : 0);
}

long long db_clock_run_out(const struct db_pause *p, int n, long long t0, long long budget)
{
    long long t = t0, left = budget > 0 ? budget : 0;
    for (int i = 0; i < n; i++) {
        if (p[i].end <= t)
            continue;
        if (p[i].start > t) {
            if (p[i].start - t >= left)
                break;
            left -= p[i].start - t;
        }
        t = p[i].end;
    }
    return t + left;
}

long long db_clock_paused_until(const struct db_pause *p, int n, long long now)
{
    long long t = now;
    for (int i = 0; i < n; i++) {
        if (p[i].end <= now)
            continue;
        if (p[i].start > t)
            break;
        if (p[i].end > t)
            t = p[i].end;
    }
    return t > now ? t : 0;
}

void db_time_text(long long unix_seconds, char out[DB_TIME_SIZE])
{
    struct tm tm;
    time_t t = (time_t)unix_seconds;
    if (gmtime_r(&t, &tm) == NULL || strftime(out, DB_TIME_SIZE, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        out[0] = '\0';
}

bool db_pauses_parse(const char *text, struct db_pause **out, int *count)
{
    int cap = 0, n = 0;
    struct db_pause *p;
    *out = NULL;
    *count = 0;
    if (text == NULL || text[0] == '\0')
        return true;
    for (const char *s = text; *s; s++)
        cap += *s == ' ';
    cap = cap / 2 + 1;
    if ((p = calloc((size_t)cap, sizeof *p)) == NULL)
        return false;
    for (const char *s = text; *s != '\0' && n < cap;) {
        char *end;
        p[n].start = strtoll(s, &end, 10);
        if (end == s)
            break;
        p[n].end = strtoll(end, &end, 10);
        n++;
        s = end;
        while (*s == ' ')
            s++;
    }
    *out = p;
    *count = n;
    return true;
}

/* The side to move's seconds left now, counting the turn's running time. */
static long long running_left(const struct db_game *g, long long seconds)
{
    long long left = seconds - db_clock_run_seconds(g->pauses, g->pause_count, g->turn_started,
                                                    g->now);
    return left > 0 ? left : 0;
}

void db_game_clock_now(struct db_game *g)
{
    bool running = g->status == DB_GAME_ACTIVE && g->clocked;
    bool white_runs = running && g->ply % 2 == 0, black_runs = running && g->ply % 2 == 1;
    long long until;

    g->remaining_white = white_runs ? running_left(g, g->white_seconds) : g->white_seconds;
    g->remaining_black = black_runs ? running_left(g, g->black_seconds) : g->black_seconds;
    g->paused_until[0] = '\0';
    if (running && (until = db_clock_paused_until(g->pauses, g->pause_count, g->now)) > 0)
        db_time_text(until, g->paused_until);
}

bool db_game_clock_charge(struct db_game *g, bool moved, long long *deadline_unix)
{
    /* The side to move before the save: the mover when a move was made. */
    bool white_was_to_move = (moved ? g->ply - 1 : g->ply) % 2 == 0;
    long long *mover = white_was_to_move ? &g->white_seconds : &g->black_seconds;
    long long *other = white_was_to_move ? &g->black_seconds : &g->white_seconds;
    long long left;

    if (!g->clocked || !g->was_active || (!moved && g->status == DB_GAME_ACTIVE))
        return false;
    left = running_left(g, *mover);
    if (moved && g->clock.type == DB_CLOCK_FISCHER) {
        left += (long long)g->clock.increment_days * 86400;
        if (left > (long long)g->clock.max_days * 86400)
            left = (long long)g->clock.max_days * 86400;
    } else if (moved) {
        left = (long long)g->days_per_move * 86400;
        *other = left;
    }
    *mover = left;
    g->turn_started = g->now;
    *deadline_unix = 0;
    if (g->status == DB_GAME_ACTIVE)
        *deadline_unix = db_clock_run_out(g->pauses, g->pause_count, g->now,
                                            g->ply % 2 == 0 ? g->white_seconds
                                                            : g->black_seconds);
    return true;
}
