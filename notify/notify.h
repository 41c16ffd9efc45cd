/*
 * notify.h — turn notifications by email (SMTP) and signed webhook.
 *
 * What is owed is written by the database in the transaction that commits
 * the event (db/ migration 003: the outbox).  This module delivers it:
 * worker threads claim due deliveries (any number of workers in any number
 * of processes share them), send them, and record each attempt; failures
 * are retried with backoff.  It also owns the settings and their
 * validation, the webhook URL checks and secrets, and the signed one-click
 * unsubscribe links.
 */
#ifndef KORP_NOTIFY_H
#define KORP_NOTIFY_H

#include "db.h"

#include <stdbool.h>
#include <stddef.h>

struct notify_config {
    const char *smtp_url;        /* smtp://host:port or smtps://…; NULL: no email */
    const char *smtp_tls;        /* "required": STARTTLS or nothing; NULL: as the URL says */
    const char *smtp_user, *smtp_password;
    const char *mail_from;       /* envelope and From: address */
    const char *public_url;      /* where people reach korpd (links in emails) */
    int workers;                 /* delivery threads; 0: this process delivers nothing */
    double backoff_scale;        /* multiplies retry delays and the give-up window */
    double lease_seconds;        /* a claimed delivery is due again after this */
    bool allow_private;          /* webhooks may reach private addresses */
    int webhook_timeout_seconds;
    int sweep_seconds;           /* how often reminders and digests are looked for */
    const char *push_contact;    /* the VAPID JWT's sub; NULL: no Web Push */
    const char *vapid_key_file;  /* PEM P-256 private key; NULL: the database's */
};

/* Checks the settings; false with a message in err if one is unusable. */
bool notify_config_check(const struct notify_config *config, struct base_err *err);

/*
 * Loads (or makes, once per database) the key that signs unsubscribe
 * links.  Call once at start-up, before any thread uses the links.
 */
bool notify_links_init(struct db_pool *pool, struct base_err *err);

/* How long the links in emails work. */
#define NOTIFY_UNSUBSCRIBE_DAYS 90
#define NOTIFY_CONFIRM_DAYS 3

/* What a signed link is. */
enum notify_link {
    NOTIFY_LINK_OK,
    NOTIFY_LINK_BAD,         /* not one korpd made (or cut short) */
    NOTIFY_LINK_EXPIRED
};

/* The one-click unsubscribe URL for a player (public_url + path + expiry +
 * HMAC), working for NOTIFY_UNSUBSCRIBE_DAYS from now (Unix seconds). */
void notify_unsubscribe_url(const char *public_url, const char *player_id, long long now,
                            char *out, size_t size);

/* Whether exp and sig (the link's query) make player_id's unsubscribe link. */
enum notify_link notify_unsubscribe_check(const char *player_id, const char *exp,
                                          const char *sig, long long now);

/* The link confirming a player's address, working for NOTIFY_CONFIRM_DAYS
 * after `sent` (Unix seconds). */
void notify_confirm_url(const char *public_url, const char *player_id, const char *address,
                        long long sent, char *out, size_t size);

/* Whether exp and sig make the link confirming `address` for player_id. */
enum notify_link notify_confirm_check(const char *player_id, const char *address,
                                      const char *exp, const char *sig, long long now);

/* Why a webhook URL is refused, or NOTIFY_WEBHOOK_URL_OK. */
enum notify_webhook_url {
    NOTIFY_WEBHOOK_URL_OK = 0,
    NOTIFY_WEBHOOK_URL_BAD,          /* not an http(s) URL with a host */
    NOTIFY_WEBHOOK_URL_PRIVATE,      /* an address webhooks may not reach */
    NOTIFY_WEBHOOK_URL_UNRESOLVED    /* the host name does not resolve */
};

/* Checks a webhook URL at registration (resolving its host); err says
 * what is wrong and how to put it right. */
enum notify_webhook_url notify_webhook_url_check(const char *url, bool allow_private,
                                                 struct base_err *err);

/* A new webhook secret: "whsec_" and base64 of 32 random bytes. */
bool notify_webhook_secret(char *out, size_t size);

/*
 * Web Push (notify_push.c).  Loads the VAPID key pair (the file's, or the
 * database's, made by the first korpd that asks) when push_contact is set;
 * logs that push is off otherwise.  Call once at start-up, before threads.
 */
bool notify_push_init(struct db_pool *pool, const struct notify_config *c,
                      struct base_err *err);

/* The VAPID public key in base64url (a browser's applicationServerKey);
 * false when push is off. */
bool notify_push_public_key(char *out, size_t size);

/* Whether bytes are an uncompressed point of P-256 (a subscription's p256dh). */
bool notify_push_point_valid(const unsigned char *point, size_t len);

/* base64url without padding, as browsers write subscription keys: encode
 * (the length written, 0 if it does not fit) and decode (strict). */
size_t notify_base64url_encode(const void *data, size_t len, char *out, size_t size);
bool notify_base64url_decode(const char *text, unsigned char *out, size_t size, size_t *len);

/* Delivery counters since start (for /metrics), by channel. */
struct notify_stats {
    unsigned long delivered[DB_CHANNEL_COUNT], retried[DB_CHANNEL_COUNT],
        failed[DB_CHANNEL_COUNT];   /* by enum db_channel */
};
void notify_stats(struct notify_stats *out);

struct notify;

/* Starts the delivery workers (config->workers of them), the wake-up
 * listener and the reminder scheduler.  NULL with a message on failure;
 * with no workers configured, returns a handle that does nothing. */
struct notify *notify_start(struct db_pool *pool, const struct notify_config *config,
                            struct base_err *err);

/* Stops and joins every thread.  A delivery in flight finishes first. */
void notify_stop(struct notify *n);

#endif
