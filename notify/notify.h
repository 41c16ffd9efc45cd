/*
 * notify.h — turn notifications by email (SMTP) and signed webhook.
 * Delivery comes with the notification issue; today this module owns the
 * settings and their validation, so korpd refuses a bad one at start-up.
 */
#ifndef KORP_NOTIFY_H
#define KORP_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>

struct notify_config {
    const char *smtp_url;        /* smtp://host:port or smtps://…; NULL: no email */
    const char *mail_from;       /* envelope and From: address */
    const char *webhook_secret;  /* HMAC-SHA256 key for webhook signatures */
};

/* Checks the settings; false with a message in err if one is unusable. */
bool notify_config_check(const struct notify_config *config, char *err, size_t errsize);

#endif
