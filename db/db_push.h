/*
 * db_push.h — the browsers' Web Push subscriptions of a player, and what a
 * push delivery of the outbox is sent to.  The VAPID key pair is a server
 * secret (db_server_secret, db_notify.h).
 */
#ifndef KORP_DB_PUSH_H
#define KORP_DB_PUSH_H

#include "db_pool.h"

/* Sizes of a subscription's keys (RFC 8291): the browser's P-256 public
 * key, uncompressed, and its authentication secret. */
#define DB_PUSH_P256DH_LEN 65
#define DB_PUSH_AUTH_LEN 16
#define DB_PUSH_ENDPOINT_MAX 2048

/*
 * Records a subscription (the same endpoint again takes the new keys and
 * keeps its id); *json is {"id"}, malloc'd.  DB_CONFLICT when the player
 * has `max` others already.
 */
enum db_status db_push_subscription_create(struct db_pool *pool, const char *id,
                                           const char *player_id, const char *endpoint,
                                           const unsigned char p256dh[DB_PUSH_P256DH_LEN],
                                           const unsigned char auth[DB_PUSH_AUTH_LEN], int max,
                                           char **json, struct base_err *err);

/* {"subscriptions": [{"id", "endpoint", "created_at"}]}, oldest first. */
enum db_status db_push_subscription_list(struct db_pool *pool, const char *player_id,
                                         char **json, struct base_err *err);

/* Deletes one of the player's subscriptions (its owed pushes with it);
 * DB_NOT_FOUND when the player has none of that id. */
enum db_status db_push_subscription_delete(struct db_pool *pool, const char *player_id,
                                           const char *id, struct base_err *err);

/* Where a push delivery goes. */
struct db_push_target {
    char id[BASE_ID_SIZE];                    /* the subscription */
    char endpoint[DB_PUSH_ENDPOINT_MAX + 1];
    unsigned char p256dh[DB_PUSH_P256DH_LEN];
    unsigned char auth[DB_PUSH_AUTH_LEN];
};

/* The subscription a push delivery is owed to; DB_NOT_FOUND when it is
 * gone. */
enum db_status db_push_target_of(struct db_pool *pool, long long delivery_id,
                                 struct db_push_target *out, struct base_err *err);

/* Forgets a subscription the push service no longer knows (404, 410). */
enum db_status db_push_subscription_gone(struct db_pool *pool, const char *id,
                                         struct base_err *err);

#endif
