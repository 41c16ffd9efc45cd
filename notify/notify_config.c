/*
 * notify_config.c — validation of the notification settings.
 */
#include "notify.h"

#include <stdio.h>
#include <string.h>

bool notify_config_check(const struct notify_config *config, struct base_err *err)
{
    const char *url = config->smtp_url;
    if (url != NULL && url[0] != '\0' && strncmp(url, "smtp://", 7) != 0 &&
        strncmp(url, "smtps://", 8) != 0) {
        base_err_set(err, "KORP_SMTP_URL must start with smtp:// or smtps://, not '%s'", url);
        return false;
    }
    if (url != NULL && url[0] != '\0' &&
        (config->mail_from == NULL || strchr(config->mail_from, '@') == NULL)) {
        base_err_set(err, "KORP_MAIL_FROM must be an email address when KORP_SMTP_URL is set");
        return false;
    }
    if (config->smtp_tls != NULL && strcmp(config->smtp_tls, "required") != 0 &&
        strcmp(config->smtp_tls, "none") != 0) {
        base_err_set(err, "KORP_SMTP_TLS must be 'required' or 'none', not '%s'",
                 config->smtp_tls);
        return false;
    }
    if (config->mail_from != NULL && strpbrk(config->mail_from, " \t\r\n<>\"") != NULL) {
        base_err_set(err, "KORP_MAIL_FROM must be a plain address like korp@example.org");
        return false;
    }
    if (config->public_url != NULL && strncmp(config->public_url, "http://", 7) != 0 &&
        strncmp(config->public_url, "https://", 8) != 0) {
        base_err_set(err, "KORP_PUBLIC_URL must start with http:// or https://, not '%s'",
                 config->public_url);
        return false;
    }
    return true;
}
