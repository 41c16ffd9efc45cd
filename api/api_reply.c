/*
 * api_reply.c — the two ways korpd answers: JSON, or an RFC 9457 problem.
 */
#include "api_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct MHD_Response *json_response(cJSON *json, const char *content_type)
{
    char *text = json ? cJSON_PrintUnformatted(json) : NULL;
    struct MHD_Response *resp;

    cJSON_Delete(json);
    if (text == NULL)
        return NULL;
    resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    if (resp == NULL) {
        free(text);
        return NULL;
    }
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    return resp;
}

enum MHD_Result api_reply(struct MHD_Connection *conn, unsigned status,
                          struct MHD_Response *resp)
{
    enum MHD_Result rc;
    if (resp == NULL)
        return MHD_NO;
    rc = MHD_queue_response(conn, status, resp);
    MHD_destroy_response(resp);
    return rc;
}

enum MHD_Result api_reply_json(struct MHD_Connection *conn, unsigned status, cJSON *json)
{
    return api_reply(conn, status, json_response(json, "application/json"));
}

struct MHD_Response *api_problem_response(unsigned status, const char *type,
                                          const char *title, const char *detail)
{
    char uri[128];
    cJSON *json = cJSON_CreateObject();
    if (json == NULL)
        return NULL;
    /* Relative references, resolved against the request: /problems/<slug>. */
    snprintf(uri, sizeof uri, "/problems/%s", type);
    cJSON_AddStringToObject(json, "type", uri);
    cJSON_AddStringToObject(json, "title", title);
    cJSON_AddNumberToObject(json, "status", status);
    if (detail != NULL)
        cJSON_AddStringToObject(json, "detail", detail);
    return json_response(json, "application/problem+json");
}

enum MHD_Result api_reply_problem(struct MHD_Connection *conn, unsigned status,
                                  const char *type, const char *title,
                                  const char *detail)
{
    return api_reply(conn, status, api_problem_response(status, type, title, detail));
}
