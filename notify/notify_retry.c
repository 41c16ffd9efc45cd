/*
 * notify_retry.c — when a failed delivery is tried again: about 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h, then daily, for 3 days; each delay jittered by
 * ±20% so that the deliveries of one outage do not return all at once.
 */
#include "notify_int.h"

#include <openssl/rand.h>
#include <stdint.h>

static const double backoff_seconds[] = { 5, 300, 1800, 7200, 18000, 36000, 86400 };
#define BACKOFF_STEPS ((int)(sizeof backoff_seconds / sizeof backoff_seconds[0]))
#define GIVE_UP_SECONDS (3 * 86400.0)

/* A number in [0, 1) from the system's random source. */
static double unit_random(void)
{
    uint32_t x = 0;
    if (RAND_bytes((unsigned char *)&x, sizeof x) != 1)
        return 0.5;
    return (double)x / 4294967296.0;
}

void notify_retry_decide(const struct notify_config *c, const struct db_delivery *d,
                         double retry_after_s, struct db_attempt *a)
{
    int step = d->attempt - 1 < BACKOFF_STEPS ? d->attempt - 1 : BACKOFF_STEPS - 1;
    double delay = backoff_seconds[step < 0 ? 0 : step] * c->backoff_scale *
                   (0.8 + 0.4 * unit_random());
    double window = GIVE_UP_SECONDS * c->backoff_scale;
    double age = (double)(d->now_unix - d->created_unix);

    if (retry_after_s > delay)
        delay = retry_after_s > 86400 ? 86400 : retry_after_s;
    /* An endpoint that has failed for the whole window (this delivery's
     * give-up included) is disabled. */
    if (d->webhook_id[0] != '\0' && d->failing_seconds >= 0 &&
        d->failing_seconds + delay > window) {
        a->outcome = DB_ENDPOINT_GONE;
        a->reason = "the endpoint failed every delivery for 3 days";
    } else if (age + delay > window) {
        a->outcome = DB_FAILED;
    } else {
        a->outcome = DB_RETRY;
        a->retry_s = delay;
    }
}
