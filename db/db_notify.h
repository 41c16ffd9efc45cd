/*
 * db_notify.h — notification preferences, webhooks and the outbox; in
 * db_notify.c and db_settings.c.  db.h includes it.
 */
#ifndef KORP_DB_NOTIFY_H
#define KORP_DB_NOTIFY_H

#include "db_pool.h"
#include "db_names.h"
#include "db_kinds.h"

/* The channel notify workers LISTEN on: NOTIFYed (empty payload) by every
 * transaction that makes a delivery due. */
#define DB_DELIVERIES_CHANNEL "korp_deliveries"

/*
 * Preferences, webhooks and deliveries answer with the JSON object the API
 * shows, written by the database (the one place these objects are built);
 * *json is malloc'd (the caller frees).  DB_NOT_FOUND: no such row, or not
 * the player's.
 */

/* A change to a player's preferences: only what is marked set changes. */
struct db_settings_change {
    bool set_email;              /* email: an address, or NULL for none */
    const char *email;
    bool email_confirmed;        /* a new address counts as confirmed (no link mailed) */
    bool set_email_enabled, email_enabled;
    bool set_email_events;
    db_notification_set email_events;
    bool set_webhook_events;
    db_notification_set webhook_events;
    bool set_push_events;
    db_notification_set push_events;
    bool set_digest, digest;
    bool set_digest_hour;
    int digest_hour;             /* 0-23, UTC */
    bool set_reminder_hours;
    int reminder_hours;
    const char *language;        /* "en", "pl", "hu"; NULL: unchanged */
};

enum db_status db_settings_get(struct db_pool *pool, const char *player_id, char **json,
                               struct base_err *err);
enum db_status db_settings_put(struct db_pool *pool, const char *player_id,
                               const struct db_settings_change *change, char **json,
                               struct base_err *err);

/* A player's address ("" for none), whether it is confirmed, and korp's
 * clock.  DB_NOT_FOUND: no such player. */
enum db_status db_email_confirm_state(struct db_pool *pool, const char *player_id, char *email,
                                      size_t size, bool *confirmed, long long *now,
                                      struct base_err *err);

/* Confirms the player's address if it is still `email` and unconfirmed;
 * DB_NOT_FOUND otherwise. */
enum db_status db_email_confirm(struct db_pool *pool, const char *player_id, const char *email,
                                struct base_err *err);

/* Owes the player another confirmation email: DB_NOT_FOUND when there is
 * no unconfirmed address; *owed false when three went in 24 hours. */
enum db_status db_email_confirm_resend(struct db_pool *pool, const char *player_id, bool *owed,
                                       struct base_err *err);

/* Switches a player's email off (the unsubscribe link). */
enum db_status db_email_off(struct db_pool *pool, const char *player_id, struct base_err *err);

/* Registers a webhook (the answer shows its secret, this once); DB_CONFLICT
 * when the player has `max` already. */
enum db_status db_webhook_create(struct db_pool *pool, const char *id, const char *player_id,
                                 const char *url, db_notification_set events,
                                 const char *secret, int max, char **json, struct base_err *err);
/* {"webhooks": [...]}, oldest first. */
enum db_status db_webhook_list(struct db_pool *pool, const char *player_id, char **json,
                               struct base_err *err);
enum db_status db_webhook_get(struct db_pool *pool, const char *player_id, const char *id,
                              char **json, struct base_err *err);
enum db_status db_webhook_delete(struct db_pool *pool, const char *player_id, const char *id,
                                 struct base_err *err);
/* A new secret; the old one signs too for 24 hours.  {"id", "secret"}. */
enum db_status db_webhook_rotate(struct db_pool *pool, const char *player_id, const char *id,
                                 const char *secret, char **json, struct base_err *err);
/* Enables a webhook again (its failures forgotten). */
enum db_status db_webhook_enable(struct db_pool *pool, const char *player_id, const char *id,
                                 char **json, struct base_err *err);
/* {"deliveries": [...]}: at most `limit`, newest first, with their attempts. */
enum db_status db_delivery_list(struct db_pool *pool, const char *player_id,
                                const char *webhook_id, int limit, char **json, struct base_err *err);
/* Sends a delivery again now (not one that is being sent). */
enum db_status db_delivery_retry(struct db_pool *pool, const char *player_id,
                                 const char *webhook_id, long long delivery, char **json,
                                 struct base_err *err);

/* A delivery claimed by a worker, with what sending it needs. */
struct db_delivery {
    long long id;
    enum db_channel channel;
    char type[24];                 /* a notification type, "digest" or "webhook_disabled" */
    char *payload;                 /* JSON object text; owned */
    int attempt;                   /* this attempt's number, from 1 */
    long long created_unix, now_unix;
    char player_id[BASE_ID_SIZE], player_name[DB_NAME_SIZE];
    char email[256];               /* "" when none */
    bool email_enabled;
    bool email_confirmed;          /* the address is confirmed */
    char challenge_status[16];     /* the payload's challenge's status, "" when none */
    char webhook_id[BASE_ID_SIZE];
    char url[2049];
    char secret[128], previous_secret[128];   /* previous: "" unless rotated < 24 h ago */
    bool webhook_enabled;
    double failing_seconds;        /* how long the endpoint has failed; < 0: it has not */
    char opponent_name[DB_NAME_SIZE];
    char deadline[DB_TIME_SIZE];   /* the game's, "" when none */
    char my_color[8];              /* the recipient's in the game, "" when none */
    char language[8];              /* the recipient's: "en", "pl", "hu" */
};

/* Frees what a claimed delivery owns. */
void db_deliveries_free(struct db_delivery *d, int count);

/*
 * Claims up to max due deliveries of one channel (FOR UPDATE SKIP LOCKED:
 * workers in any process share the work), each leased for lease_s seconds:
 * one not finished by then is due again.  Webhooks whose endpoint is
 * failing come after the others.  *out is malloc'd (db_deliveries_free).
 */
enum db_status db_deliveries_claim(struct db_pool *pool, int max, double lease_s,
                                   enum db_channel channel, struct db_delivery **out, int *count,
                                   struct base_err *err);

/* Gives a claimed delivery back unsent: its claim does not count as an
 * attempt, and it is due again after delay_s.  Nothing happens if the
 * claim no longer holds it. */
enum db_status db_delivery_defer(struct db_pool *pool, const struct db_delivery *d,
                                 double delay_s, struct base_err *err);

/* Extends a claimed delivery's lease by lease_s from now; *ours is false
 * when another worker has taken it over meanwhile (do not send it). */
enum db_status db_delivery_extend(struct db_pool *pool, const struct db_delivery *d,
                                  double lease_s, bool *ours, struct base_err *err);

/* How an attempt ended. */
enum db_delivery_outcome {
    DB_DELIVERED,       /* done */
    DB_RETRY,           /* try again after retry_s */
    DB_FAILED,          /* this delivery is given up */
    DB_ENDPOINT_GONE    /* given up, and its webhook disabled (reason) */
};

struct db_attempt {
    int status_code;          /* HTTP or SMTP code; 0: none */
    double latency_ms;
    const char *error;        /* NULL when none */
    enum db_delivery_outcome outcome;
    double retry_s;           /* DB_RETRY */
    const char *reason;       /* DB_ENDPOINT_GONE: why, for the owner */
};

/* Records an attempt and its outcome (one transaction).  Disabling an
 * endpoint fails its other owed deliveries and, when the owner takes
 * email, owes them a "webhook_disabled" message. */
enum db_status db_delivery_finish(struct db_pool *pool, const struct db_delivery *d,
                                  const struct db_attempt *a, struct base_err *err);

/* Earliest time a pending delivery of the channel falls due, in seconds
 * from now (may be negative); *any false when nothing is pending. */
enum db_status db_deliveries_next(struct db_pool *pool, enum db_channel channel,
                                  double *seconds, bool *any, struct base_err *err);

/* Sends the deadline reminders due (an event "deadline_near" for the player
 * to move, once per ply), at most max; *sent says how many. */
enum db_status db_reminders_send(struct db_pool *pool, int max, int *sent, struct base_err *err);

/* Deletes up to 1000 deliveries finished more than 30 days ago (with their
 * attempts) and up to 1000 expired sessions; *deleted says how many. */
enum db_status db_records_prune(struct db_pool *pool, int *deleted, struct base_err *err);

/* Owes each player whose digest hour has come today a "digest" email
 * listing the games where it is their move; *owed says how many. */
enum db_status db_digests_owe(struct db_pool *pool, int *owed, struct base_err *err);

/* Told a wake-up's payload; "" after (re)connecting, when what was NOTIFYed
 * meanwhile was not heard. */
typedef void (*db_wake_fn)(void *arg, const char *payload);

/*
 * A thread that LISTENs on `channel` on its own connection and calls
 * wake(arg, payload) for each notification, and wake(arg, "") after
 * (re)connecting.  On korp_deliveries the payload names the channel that
 * has deliveries due (db_channel_text), or is "" for any.
 */
struct db_listener *db_wakeup_start(struct db_pool *pool, const char *channel, db_wake_fn wake,
                                    void *arg, struct base_err *err);

#endif
