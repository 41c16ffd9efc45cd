/*
 * api_edge.c — the edge (docs/security.md) that needs no connection
 * bookkeeping: the client's address behind trusted proxies
 * (X-Forwarded-For), and the request heads libmicrohttpd 0.9.75 would
 * misread (a NUL in the target, an unknown Transfer-Encoding, two
 * Content-Lengths, both framings at once, a forwarded chain too long to
 * read).  Connection counts and the head and body deadlines are
 * api_server.c's; an invalid Content-Length is api_gate.c's.
 */
#include "api_int.h"

#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- The client's address. */

/*
 * Every X-Forwarded-For line, joined by commas, read whole: the chain is
 * judged from its right end, and a line left out would make an entry the
 * client wrote look like the proxy's.  A head is at most
 * API_CONNECTION_MEMORY bytes (libmicrohttpd refuses a larger one), so the
 * cap only guards against a change of that limit: past it the chain counts
 * as unreadable, never as shorter.
 */
struct forwarded {
    struct base_text text;
    bool unreadable;
};

static enum MHD_Result collect_forwarded(void *cls, enum MHD_ValueKind kind, const char *key,
                                         const char *value)
{
    struct forwarded *f = cls;
    size_t n = value ? strlen(value) : 0;
    (void)kind;
    if (strcasecmp(key, "X-Forwarded-For") != 0)
        return MHD_YES;
    if (f->text.len + n + 1 > API_CONNECTION_MEMORY) {
        f->unreadable = true;
        return MHD_NO;
    }
    if (f->text.len > 0)
        base_text_add(&f->text, ",", 1);
    base_text_add(&f->text, value ? value : "", n);
    return MHD_YES;
}

/* What X-Forwarded-For says of the client. */
enum forwarded_verdict {
    FORWARDED_NONE,        /* no usable entry: the peer stands for the client */
    FORWARDED_FOUND,       /* *out holds the client */
    FORWARDED_UNREADABLE   /* the chain could not be read whole: refused */
};

/*
 * From the right: the first X-Forwarded-For entry that is not a trusted
 * proxy is the client (each proxy appends the address it saw; entries
 * further left were written by the client and may be forged).  When every
 * entry is trusted, the left-most one is.
 */
static enum forwarded_verdict forwarded_client(struct api_request *req, struct api_addr *out)
{
    struct forwarded f = { .unreadable = false };
    enum forwarded_verdict verdict = FORWARDED_NONE;
    const char *text;
    size_t end;

    MHD_get_connection_values(req->conn, MHD_HEADER_KIND, collect_forwarded, &f);
    if (f.unreadable || f.text.failed) {
        free(f.text.buf);
        return FORWARDED_UNREADABLE;
    }
    text = f.text.buf != NULL ? f.text.buf : "";
    end = f.text.len;
    while (end > 0) {
        size_t start = end, a, b;
        struct api_addr addr;
        while (start > 0 && text[start - 1] != ',')
            start--;
        a = start + strspn(text + start, " \t");
        b = end;
        while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t'))
            b--;
        end = start > 0 ? start - 1 : 0;
        if (b == a)
            continue;
        if (!api_addr_parse(text + a, b - a, &addr))
            break;   /* written by no proxy of ours: stop here */
        *out = addr;
        verdict = FORWARDED_FOUND;
        if (!api_addr_list_has(req->trusted, &addr))
            break;
    }
    free(f.text.buf);
    return verdict;
}

/* The peer, and whether it is a trusted proxy. */
static bool peer_addr(struct api_request *req, struct api_addr *out, bool *trusted)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || !api_addr_from_socket(info->client_addr, out))
        return false;
    *trusted = api_addr_list_has(req->trusted, out);
    return true;
}

bool api_client_addr(struct api_request *req, struct api_addr *out)
{
    bool trusted = false;
    if (!peer_addr(req, out, &trusted))
        return false;
    /* An unreadable chain was refused with the head (api_head_refused):
     * should one get here all the same, the client is unknown. */
    return !trusted || forwarded_client(req, out) != FORWARDED_UNREADABLE;
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

/* Whether the request comes from a trusted proxy with an X-Forwarded-For
 * chain korpd cannot read whole. */
static bool forwarded_unreadable(struct api_request *req)
{
    struct api_addr a;
    bool trusted = false;
    return peer_addr(req, &a, &trusted) && trusted &&
           forwarded_client(req, &a) == FORWARDED_UNREADABLE;
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
    /* Both framings at once is how requests are smuggled past a proxy that
     * reads the other one (RFC 9112 6.1 lets a server refuse it, and has it
     * close the connection either way). */
    if (te != NULL && header_count(req->conn, MHD_HTTP_HEADER_CONTENT_LENGTH) > 0) {
        *replied = api_fail(req, API_PROBLEM_BAD_REQUEST,
                            "the request has both Transfer-Encoding and Content-Length; "
                            "send one of them");
        return true;
    }
    if (forwarded_unreadable(req)) {
        base_log(BASE_LOG_WARN, "X-Forwarded-For from a trusted proxy longer than %d bytes: "
                 "refused (400)", API_CONNECTION_MEMORY);
        *replied = api_fail(req, API_PROBLEM_BAD_REQUEST,
                            "X-Forwarded-For is too long to be read whole");
        return true;
    }
    if (header_count(req->conn, MHD_HTTP_HEADER_CONTENT_LENGTH) > 1) {
        *replied = api_fail(req, API_PROBLEM_BAD_REQUEST,
                            "the request has more than one Content-Length header");
        return true;
    }
    return false;
}
