/*
 * notify_config.c — validation of the notification settings.
 */
#include "notify.h"

#include <stdio.h>
#include <string.h>

bool notify_config_check(const struct notify_config *config, char *err, size_t errsize)
{
    const char *url = config->smtp_url;
    if (url != NULL && url[0] != '\0' && strncmp(url, "smtp://", 7) != 0 &&
        strncmp(url, "smtps://", 8) != 0) {
        snprintf(err, errsize, "KORP_SMTP_URL must start with smtp:// or smtps://, not '%s'", url);
        return false;
    }
    if (url != NULL && url[0] != '\0' &&
        (config->mail_from == NULL || strchr(config->mail_from, '@') == NULL)) {
        snprintf(err, errsize, "KORP_MAIL_FROM must be an email address when KORP_SMTP_URL is set");
        return false;
    }
    if (config->webhook_secret != NULL && config->webhook_secret[0] != '\0' &&
        strlen(config->webhook_secret) < 16) {
        snprintf(err, errsize, "KORP_WEBHOOK_SECRET must be at least 16 characters");
        return false;
    }
    return true;
}
