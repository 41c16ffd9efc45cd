/*
 * api_health.c — GET /healthz: is korpd up, and can it reach its database.
 */
#include "api_int.h"
#include "db.h"

enum MHD_Result api_health(struct api_request *req)
{
    char err[256] = "";
    double latency = 0;
    int schema = 0;
    enum db_status st = db_ping(req->config->pool, &latency, &schema, err, sizeof err);
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
        cJSON_AddStringToObject(db, "error", err);
    }
    return api_reply_json(req->conn, st == DB_OK ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
                          json);
}
