/*
 * games_leave.c — leave: a player books whole UTC days within a
 * yearly allowance, and while either player of a game is on leave no time
 * runs in it.  A booking made, cancelled or cut short sets the deadlines
 * of the player's games again in the same transaction (the running time
 * itself is counted in SQL, migration 007).
 */
#include "games_int.h"

#include <stdio.h>
#include <string.h>

/* A booking may start up to this many days after today. */
#define LEAVE_DAYS_AHEAD 365

struct book {
    const char *player_id, *start_day;
    int days, allowance;
    struct games_leave *l;
};

static enum db_status book_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct book *b = arg;
    struct games_leave *l = b->l;
    struct db_leave_year years[4];
    int ahead = 0, count = 0;
    bool overlaps = false;
    enum db_status rc;

    memset(l, 0, sizeof *l);
    if ((rc = db_leave_lock_player(tx, b->player_id, b->start_day, &ahead)) != DB_OK)
        return rc;
    if (ahead < 0 || ahead > LEAVE_DAYS_AHEAD)
        return games_refuse(r, GAMES_DAY_OUT_OF_RANGE, "'start' must be today or up to %d days ahead "
                          "(UTC, by korpd's clock); %s is %d days %s", LEAVE_DAYS_AHEAD,
                          b->start_day, ahead < 0 ? -ahead : ahead, ahead < 0 ? "ago" : "ahead");
    if ((rc = db_leave_overlaps(tx, b->player_id, b->start_day, b->days, &overlaps)) != DB_OK)
        return rc;
    if (overlaps) {
        r->code = "leave-overlap";
        return games_refuse(r, GAMES_CONFLICT, "%d days from %s overlap leave you have booked; "
                          "cancel that booking first, or choose other days", b->days, b->start_day);
    }
    rc = db_leave_years(tx, b->player_id, b->start_day, b->days, years,
                        (int)(sizeof years / sizeof *years), &count);
    if (rc != DB_OK)
        return rc;
    for (int i = 0; i < count; i++)
        if (years[i].used + years[i].days > b->allowance) {
            int left = b->allowance - years[i].used;
            l->year = years[i].year;
            l->left = left > 0 ? left : 0;
            return games_refuse(r, GAMES_LEAVE_EXCEEDED, "this booking takes %d days of %d, where "
                              "you have %d of your %d days of leave left", years[i].days,
                              years[i].year, l->left, b->allowance);
        }
    if ((rc = db_leave_insert(tx, b->player_id, b->start_day, b->days, &l->booking)) != DB_OK)
        return rc;
    return db_leave_games_deadline(tx, b->player_id);
}

void games_leave_book(struct db_pool *pool, const char *player_id, const char *start_day,
                      int days, int allowance, struct games_leave *l, struct games_result *out)
{
    struct book b = { player_id, start_day, days, allowance, l };
    games_run(pool, book_tx, &b, out);
}

struct cancel {
    const char *player_id, *leave_id;
};

static enum db_status cancel_tx(struct db_tx *tx, struct games_result *r, void *arg)
{
    struct cancel *c = arg;
    enum db_leave_state state = DB_LEAVE_AHEAD;
    int ahead = 0;
    enum db_status rc;

    if ((rc = db_leave_lock_player(tx, c->player_id, NULL, &ahead)) != DB_OK)
        return rc;
    rc = db_leave_lock(tx, c->leave_id, c->player_id, &state);
    if (rc == DB_NOT_FOUND)
        return games_refuse(r, GAMES_NOT_FOUND, "you have no leave booked with the id '%s'",
                          c->leave_id);
    if (rc != DB_OK)
        return rc;
    if (state == DB_LEAVE_ENDED)
        return games_refuse(r, GAMES_CONFLICT, "this leave is over: there is nothing to cancel");
    rc = state == DB_LEAVE_AHEAD ? db_leave_delete(tx, c->leave_id)
                                 : db_leave_end_today(tx, c->leave_id);
    return rc == DB_OK ? db_leave_games_deadline(tx, c->player_id) : rc;
}

void games_leave_cancel(struct db_pool *pool, const char *player_id, const char *leave_id,
                        struct games_result *out)
{
    struct cancel c = { player_id, leave_id };
    games_run(pool, cancel_tx, &c, out);
}
