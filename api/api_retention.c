/*
 * api_retention.c — an event stream resuming after events that were
 * pruned: events live KORP_EVENT_RETENTION_DAYS, and a
 * Last-Event-ID older than the newest event pruned may have missed some of
 * them, so the stream is refused with 410 `events-pruned` rather than
 * resumed with a silent gap.  The client reads the state again (its games)
 * and opens a stream without Last-Event-ID.  Last-Event-ID 0 (from the
 * start) gets the events still kept.
 */
#include "api_int.h"

#include "base.h"

bool api_events_kept(struct api_request *req, long long last_id, enum MHD_Result *replied)
{
    struct base_err err = { "" };
    long long through = 0;
    enum db_status st = db_events_pruned_through(req->config->pool, &through, &err);
    if (st != DB_OK) {
        *replied = api_fail_db(req, st, err.text);
        return false;
    }
    /* 0 asks for every event kept (a game replayed from its start). */
    if (last_id == 0 || last_id >= through)
        return true;
    *replied = api_fail(req, API_PROBLEM_EVENTS_PRUNED,
                        "events up to id %lld have been pruned (events are kept %d days), so "
                        "some after %lld may be gone: read your games again, then open the "
                        "stream without Last-Event-ID",
                        through, req->config->event_retention_days, last_id);
    return false;
}
