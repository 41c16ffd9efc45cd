/*
 * notify_webhooks.c — what the API asks of notify/ when a webhook is
 * registered: the URL check and a new secret.
 */
#include "notify.h"

#include "notify_sign.h"

enum notify_webhook_url notify_webhook_url_check(const char *url, bool allow_private,
                                                 struct base_err *err)
{
    switch (notify_url_check(url, allow_private, err)) {
    case NOTIFY_URL_OK: return NOTIFY_WEBHOOK_URL_OK;
    case NOTIFY_URL_BAD_URL: return NOTIFY_WEBHOOK_URL_BAD;
    case NOTIFY_URL_PRIVATE: return NOTIFY_WEBHOOK_URL_PRIVATE;
    case NOTIFY_URL_UNRESOLVED: return NOTIFY_WEBHOOK_URL_UNRESOLVED;
    }
    return NOTIFY_WEBHOOK_URL_BAD;
}

bool notify_webhook_secret(char *out, size_t size)
{
    return notify_secret_new(out, size);
}
