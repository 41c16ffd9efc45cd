/*
 * api_health.c — GET /healthz: is korpd up, and can it reach its database.
 * The database's own error text (hosts, users) goes to the log only.
 */
#include "api_int.h"

#include "base.h"

/* Short public words for why the database is not usable. */
static const char *reason(enum db_status st)
{
    switch (st) {
    case DB_BUSY: return "no database connection came free in time";
    case DB_UNREACHABLE: return "the database cannot be reached";
    default: return "the database answered with an error";
    }
}

enum MHD_Result api_health(struct api_request *req)
{
    struct base_err err = { "" };
    double latency = 0;
    int schema = 0;
    enum db_status st = db_ping(req->config->pool, &latency, &schema, &err);
    cJSON *json = cJSON_CreateObject();
    cJSON *db;

    cJSON_AddStringToObject(json, "status", st == DB_OK ? "ok" : "degraded");
    cJSON_AddStringToObject(json, "version", req->config->version);
    db = cJSON_AddObjectToObject(json, "database");
    cJSON_AddBoolToObject(db, "reachable", st == DB_OK);
    if (st == DB_OK) {
        /* Microseconds are all the precision a health check needs. */
        cJSON_AddNumberToObject(db, "latency_ms", (double)(long)(latency * 1000 + 0.5) / 1000);
        cJSON_AddNumberToObject(db, "schema_version", schema);
    } else {
        base_log(BASE_LOG_WARN, "health check: database %s: %s", db_status_text(st), err.text);
        cJSON_AddStringToObject(db, "error", reason(st));
    }
    return api_reply_json(req, st == DB_OK ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE, json);
}
