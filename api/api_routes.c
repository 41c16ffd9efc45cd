/*
 * api_routes.c — the route table: method, path, handler.
 */
#include "api_int.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *method;
    const char *path;
    api_handler handler;
} routes[] = {
    { "GET", "/healthz", api_health },
    { "HEAD", "/healthz", api_health },
    { NULL, NULL, NULL },
};

enum MHD_Result api_route(struct api_request *req)
{
    char allowed[64] = "";
    size_t n = 0;

    if (req->body_too_large)
        return api_reply_problem(req->conn, MHD_HTTP_CONTENT_TOO_LARGE, "body-too-large",
                                 "Request body too large",
                                 "the request body is larger than 64 KiB");
    for (int i = 0; routes[i].path != NULL; i++) {
        if (strcmp(routes[i].path, req->path) != 0)
            continue;
        if (strcmp(routes[i].method, req->method) == 0)
            return routes[i].handler(req);
        n += (size_t)snprintf(allowed + n, sizeof allowed - n, "%s%s",
                              n ? ", " : "", routes[i].method);
    }
    if (n == 0) {
        char detail[256];
        snprintf(detail, sizeof detail, "no resource at %.200s", req->path);
        return api_reply_problem(req->conn, MHD_HTTP_NOT_FOUND, "not-found",
                                 "Not found", detail);
    }
    {
        char detail[160];
        struct MHD_Response *resp;
        snprintf(detail, sizeof detail, "%s is not allowed here; use %s", req->method, allowed);
        resp = api_problem_response(MHD_HTTP_METHOD_NOT_ALLOWED, "method-not-allowed",
                                    "Method not allowed", detail);
        if (resp != NULL)
            MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allowed);
        return api_reply(req->conn, MHD_HTTP_METHOD_NOT_ALLOWED, resp);
    }
}
