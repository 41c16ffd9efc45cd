/*
 * db_fairplay.h — the fair-play analysis of rated games played with
 * engines forbidden: the queue of ended games waiting for it, and the
 * figures it finds per player; in db_fairplay.c.  db.h includes it.
 */
#ifndef KORP_DB_FAIRPLAY_H
#define KORP_DB_FAIRPLAY_H

/* One side's figures over the moves counted. */
struct db_fairplay_side {
    int moves;                    /* moves counted */
    double top1, top3;            /* shares (0..1) of the engine's first, first three */
    double acpl;                  /* average centipawn loss against the engine's best */
    double median_seconds;        /* median thinking time */
    double spread_seconds;        /* its interquartile range */
    double under_minute;          /* share (0..1) of the moves made in under a minute */
};

/* One move judged: the side that made it, the move played and the
 * engine's first choice (UCI), whether it was within the engine's first
 * three, the centipawns it lost. */
struct db_fairplay_judged {
    int ply;
    bool black;
    char played[32], engine[32];
    bool top3;
    int loss;
};

/* A game's analysis ([0] White, [1] Black), or where it stands. */
struct db_fairplay {
    bool queued;                  /* waiting for a worker */
    bool done;                    /* analysed: nodes and side hold the figures */
    bool failed;                  /* set aside: its moves could not be replayed */
    long long nodes;              /* the node budget of each search */
    struct db_fairplay_side side[2];
    /* Stored: the moves judged (judged_count of them, malloc'd by the
     * analysis, freed by db_fairplay_analyse_next).  Read: the same as a
     * JSON array (owned: db_fairplay_clear). */
    struct db_fairplay_judged *judged;
    int judged_count;
    char *judged_json;
    /* Set by an analysis that cannot be made at all (its moves do not
     * replay): the game is set aside with this text. */
    char failure[200];
};

/* Frees what a db_fairplay read by db_fairplay_get owns. */
void db_fairplay_clear(struct db_fairplay *f);

/* One move of the game analysed: the position before it is the previous
 * move's fen (the variant's start for the first). */
struct db_fairplay_move {
    int ply;
    char uci[32];
    char fen[DB_FEN_SIZE];        /* after the move */
    double seconds;               /* since the previous move (or the game's start) */
};

/* Queues a game that has just ended for the analysis (in its transaction). */
enum db_status db_fairplay_enqueue(struct db_tx *tx, const char *game_id);

/* A worker's hold on the game it analyses: a lease of
 * DB_FAIRPLAY_LEASE_SECONDS, renewed by db_fairplay_hold. */
struct db_fairplay_lease;
#define DB_FAIRPLAY_LEASE_SECONDS 60

/* Renews the lease once a third of it has passed (call it often: between
 * positions).  DB_CONFLICT, with why in err, when the lease ran out and
 * another worker took the game: stop analysing it.  Any other failure is
 * tried again at the next call (the lease has time left). */
enum db_status db_fairplay_hold(struct db_fairplay_lease *lease, struct base_err *err);

/* Analyses a game, with no transaction open: gets the moves of the leased
 * game and fills *out (its nodes and sides); a failure (why in err) gives
 * the game back to the queue, or sets it aside when out->failure says
 * why it cannot be analysed. */
typedef enum db_status (*db_fairplay_fn)(struct db_fairplay_lease *lease, const char *game_id,
                                         const struct rules_variant *v,
                                         const struct db_fairplay_move *moves, int count,
                                         struct db_fairplay *out, void *arg,
                                         struct base_err *err);

/* When a player goes to the arbiter's queue (docs/fairplay.md): their
 * figures over their last `games` analysed games of a variant (0: never)
 * reach top1 and stay within acpl. */
struct db_fairplay_review {
    int games;
    double top1, acpl;
};

/* What else the transaction that stored game_id's figures owes. */
typedef enum db_status (*db_fairplay_stored_fn)(struct db_tx *tx, const char *game_id,
                                                void *arg);

/* Leases the oldest queued game nobody holds (a short transaction),
 * analyses it by fn with no transaction open and no connection held, then
 * stores the figures and calls stored (if not NULL) in one transaction,
 * while the lease is still this worker's: a worker that dies leaves the
 * game to whoever takes it when the lease runs out.  A game that cannot
 * be analysed (an unknown variant, out->failure) is set aside, logged
 * here.  *game_id is "" when none was waiting. */
enum db_status db_fairplay_analyse_next(struct db_pool *pool, db_fairplay_fn fn,
                                        db_fairplay_stored_fn stored, void *arg,
                                        char game_id[BASE_ID_SIZE], struct base_err *err);

/* A player of the game just analysed whose figures pass review: details is
 * the JSON object of their queue item. */
struct db_fairplay_due {
    char player_id[BASE_ID_SIZE];
    char details[4096];
};

/* The players of game_id (0 to 2, into due) whose last review->games
 * analysed games of its variant pass review, and who have no review of
 * the variant open, nor one made since the first of those games. */
enum db_status db_fairplay_reviews_due(struct db_tx *tx, const char *game_id,
                                       const struct db_fairplay_review *review,
                                       struct db_fairplay_due due[2], int *count);

/* A player's figures over their last analysed games of a variant. */
struct db_fairplay_player {
    char id[BASE_ID_SIZE], name[DB_NAME_SIZE];
    int games;                    /* analysed games counted (at most 100) */
    long long moves;              /* moves counted over them */
    double top1, top3, acpl;      /* weighted by each game's moves */
    double top1_percentile;       /* share of the players listed below their top1 */
    double acpl_percentile;       /* ... above their acpl */
    double rating;                /* their rating in the variant (1500 without one) */
    int similar_players;          /* other players listed within 200 points of it */
    double top1_similar, acpl_similar;   /* the percentiles among those (0 when none) */
    char *recent;                 /* the last 10 games' figures, a JSON array; owned */
    char *windows;                /* figures over the last 10, 25, 100: a JSON object
                                   * {"last10": {...}, ...}; owned */
};

/* Up to max players of variant with at least min_games analysed games,
 * those who stand out most first; free each one's recent and windows. */
enum db_status db_fairplay_players(struct db_pool *pool, const struct rules_variant *variant,
                                   int min_games, struct db_fairplay_player *out, int max,
                                   int *count, struct base_err *err);

/* Where a game's analysis stands (neither queued nor done: none is owed).
 * DB_NOT_FOUND when no game has that id. */
enum db_status db_fairplay_get(struct db_pool *pool, const char *game_id,
                               struct db_fairplay *out, struct base_err *err);

/* An arbiter answers the open fair-play review item_id with a warning:
 * the item resolved, the warning logged (log_id made here).  DB_NOT_FOUND
 * when item_id is not an open review. */
enum db_status db_fairplay_warn(struct db_tx *tx, const char *item_id, const char *arbiter_id,
                                const char *reason, const char *message,
                                char log_id[BASE_ID_SIZE]);

/* The arbiters' last actions about player_id (NULL: anyone), or the
 * warnings player_id was given (warnings), newest first: *json a JSON
 * array, to free. */
enum db_status db_arbiter_log(struct db_pool *pool, const char *player_id, bool warnings,
                              char **json, struct base_err *err);

#endif
