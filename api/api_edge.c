/*
 * api_edge.c — the edge (docs/security.md) that needs no connection
 * bookkeeping: the client's address behind trusted proxies
 * (X-Forwarded-For), and the request heads libmicrohttpd 0.9.75 would
 * misread (a NUL in the target, an unknown Transfer-Encoding, two
 * Content-Lengths).  Connection counts and the head deadline are
 * api_server.c's.
 */
#include "api_int.h"

#include "base.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- The client's address. */

struct forwarded {
    char text[1024];     /* every X-Forwarded-For line, joined by commas */
    size_t len;
    bool overflow;
};

static enum MHD_Result collect_forwarded(void *cls, enum MHD_ValueKind kind, const char *key,
                                         const char *value)
{
    struct forwarded *f = cls;
    size_t n = value ? strlen(value) : 0;
    (void)kind;
    if (strcasecmp(key, "X-Forwarded-For") != 0)
        return MHD_YES;
    if (f->len + n + 2 > sizeof f->text) {
        f->overflow = true;
        return MHD_NO;
    }
    if (f->len > 0)
        f->text[f->len++] = ',';
    memcpy(f->text + f->len, value, n);
    f->len += n;
    f->text[f->len] = '\0';
    return MHD_YES;
}

/*
 * From the right: the first X-Forwarded-For entry that is not a trusted
 * proxy is the client (each proxy appends the address it saw; entries
 * further left were written by the client and may be forged).  When every
 * entry is trusted, the left-most one is.  False when there is no usable
 * entry: the peer then stands for the client.
 */
static bool forwarded_client(struct api_request *req, struct api_addr *out)
{
    struct forwarded f = { .len = 0 };
    size_t end;
    bool found = false;

    f.text[0] = '\0';
    MHD_get_connection_values(req->conn, MHD_HEADER_KIND, collect_forwarded, &f);
    if (f.overflow)
        base_log(BASE_LOG_WARN, "X-Forwarded-For longer than %zu bytes: using its end",
                 sizeof f.text);
    end = f.len;
    while (end > 0) {
        size_t start = end, a, b;
        struct api_addr addr;
        while (start > 0 && f.text[start - 1] != ',')
            start--;
        a = start + strspn(f.text + start, " \t");
        b = end;
        while (b > a && (f.text[b - 1] == ' ' || f.text[b - 1] == '\t'))
            b--;
        end = start > 0 ? start - 1 : 0;
        if (b == a)
            continue;
        if (!api_addr_parse(f.text + a, b - a, &addr))
            return found;   /* written by no proxy of ours: stop here */
        *out = addr;
        found = true;
        if (!api_addr_list_has(req->trusted, &addr))
            return true;
    }
    return found;
}

bool api_client_addr(struct api_request *req, struct api_addr *out)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || !api_addr_from_socket(info->client_addr, out))
        return false;
    if (api_addr_list_has(req->trusted, out))
        forwarded_client(req, out);
    return true;
}

void api_client_address(struct api_request *req, char *out, size_t size)
{
    struct api_addr a;
    if (api_client_addr(req, &a))
        api_addr_text(&a, out, size);
    else
        snprintf(out, size, "?");
}

/* ---- Request heads libmicrohttpd 0.9.75 misreads. */

struct header_count {
    const char *name;
    int n;
};

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    struct header_count *c = cls;
    (void)kind;
    (void)value;
    if (strcasecmp(key, c->name) == 0)
        c->n++;
    return MHD_YES;
}

static int header_count(struct MHD_Connection *conn, const char *name)
{
    struct header_count c = { name, 0 };
    MHD_get_connection_values(conn, MHD_HEADER_KIND, count_header, &c);
    return c.n;
}

/*
 * Answers a head that must not be served (on the handler's first call, so
 * that libmicrohttpd closes the connection after the answer): false when
 * the head is fine.
 */
bool api_head_refused(struct api_request *req, bool target_cut, enum MHD_Result *replied)
{
    const char *te = MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_TRANSFER_ENCODING);
    if (target_cut) {
        req->path = "-";
        *replied = api_fail(req, API_PROBLEM_BAD_REQUEST,
                            "the request target holds a NUL byte");
        return true;
    }
    if (header_count(req->conn, MHD_HTTP_HEADER_TRANSFER_ENCODING) > 1 ||
        (te != NULL && strcasecmp(te, "chunked") != 0)) {
        *replied = api_fail(req, API_PROBLEM_NOT_IMPLEMENTED,
                            "korpd reads only the chunked transfer coding (Transfer-Encoding: "
                            "chunked, once), or a Content-Length");
        return true;
    }
    if (header_count(req->conn, MHD_HTTP_HEADER_CONTENT_LENGTH) > 1) {
        *replied = api_fail(req, API_PROBLEM_BAD_REQUEST,
                            "the request has more than one Content-Length header");
        return true;
    }
    return false;
}
