/* api_int.h — what the files of api/ share. */
#ifndef KORP_API_INT_H
#define KORP_API_INT_H

#include "api.h"
#include "db.h"

#include <cjson/cJSON.h>
#include <microhttpd.h>
#include <stdbool.h>

/* Largest request body accepted. */
#define API_BODY_LIMIT (64 * 1024)
/* Deepest nesting of JSON accepted in a body. */
#define API_JSON_DEPTH_LIMIT 8
/* Path parameters a route pattern may capture, and their longest text. */
#define API_MAX_PARAMS 2
#define API_PARAM_MAX 64
/* Seconds a client is told to wait after a 503. */
#define API_RETRY_AFTER "2"

/* Per-route needs, checked before the handler runs. */
enum {
    API_JSON_BODY = 1 << 0,    /* the body must be a JSON object: req->json */
};

/* One request, from first call of the access handler to completion. */
struct api_request {
    const struct api_config *config;
    struct MHD_Connection *conn;
    const char *method;
    const char *path;
    char *body;
    size_t body_len;
    bool body_too_large;
    bool replied;                               /* a response is queued */
    char params[API_MAX_PARAMS][API_PARAM_MAX + 1];  /* {name} captures, in order */
    cJSON *json;                                /* the parsed body (API_JSON_BODY) */
};

typedef enum MHD_Result (*api_handler)(struct api_request *req);

/* The kinds of problem korpd answers with: one row each in api_problem.c. */
enum api_problem {
    API_PROBLEM_NOT_FOUND = 0,
    API_PROBLEM_METHOD_NOT_ALLOWED,
    API_PROBLEM_BODY_TOO_LARGE,
    API_PROBLEM_BAD_REQUEST,
    API_PROBLEM_UNSUPPORTED_MEDIA_TYPE,
    API_PROBLEM_UNAVAILABLE,
    API_PROBLEM_INTERNAL,
    API_PROBLEM_COUNT
};

/* Queues resp (NULL: fails the connection) and releases it. */
enum MHD_Result api_reply(struct api_request *req, unsigned status,
                          struct MHD_Response *resp);

/* Replies with a JSON body; takes ownership of json. */
enum MHD_Result api_reply_json(struct api_request *req, unsigned status, cJSON *json);

/*
 * Replies with an RFC 9457 problem of that kind; detail is printf-style
 * and says what was wrong and how to fix it.  Adds the headers the status
 * needs (Retry-After for 503).
 */
enum MHD_Result api_fail(struct api_request *req, enum api_problem problem,
                         const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The problem response itself, for callers that add headers first. */
struct MHD_Response *api_problem_response(enum api_problem problem, const char *detail,
                                          unsigned *status);

/*
 * Replies to a failed database call: 503 (with Retry-After) when it is
 * worth retrying, 500 otherwise.  err (libpq's words) goes to the log,
 * never to the client.
 */
enum MHD_Result api_fail_db(struct api_request *req, enum db_status status, const char *err);

/* Finds the route, checks its needs, runs it; replies 404/405/4xx itself. */
enum MHD_Result api_route(struct api_request *req);

/* Parses req->body as JSON for a route that needs it; replies 4xx itself
 * and returns false when it cannot. */
bool api_body_parse(struct api_request *req, enum MHD_Result *replied);

enum MHD_Result api_health(struct api_request *req);

#endif
