/* api_int.h — what the files of api/ share. */
#ifndef KORP_API_INT_H
#define KORP_API_INT_H

#include "api.h"

#include <cjson/cJSON.h>
#include <microhttpd.h>
#include <stdbool.h>

/* Largest request body accepted. */
#define API_BODY_LIMIT (64 * 1024)

/* One request, from first call of the access handler to completion. */
struct api_request {
    const struct api_config *config;
    struct MHD_Connection *conn;
    const char *method;
    const char *path;
    char *body;
    size_t body_len;
    bool body_too_large;
};

typedef enum MHD_Result (*api_handler)(struct api_request *req);

/* Queues resp (NULL: fails the connection) and releases it. */
enum MHD_Result api_reply(struct MHD_Connection *conn, unsigned status,
                          struct MHD_Response *resp);

/* A problem+json response, for callers that add headers before api_reply. */
struct MHD_Response *api_problem_response(unsigned status, const char *type,
                                          const char *title, const char *detail);

/* Replies with a JSON body; takes ownership of json. */
enum MHD_Result api_reply_json(struct MHD_Connection *conn, unsigned status,
                               cJSON *json);

/* Replies with an RFC 9457 problem: type is a short slug ("not-found"). */
enum MHD_Result api_reply_problem(struct MHD_Connection *conn, unsigned status,
                                  const char *type, const char *title,
                                  const char *detail);

/* Picks the handler for the request, or replies 404/405 itself. */
enum MHD_Result api_route(struct api_request *req);

enum MHD_Result api_health(struct api_request *req);

#endif
