/*
 * notify_addr.c — which addresses a webhook may reach, the check of a
 * webhook URL at registration, and the libcurl settings that hold every
 * delivery to the address that was checked (SSRF and DNS rebinding).
 */
#include "notify_sign.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- Which addresses a webhook may reach ---------------------------------- */

/*
 * An allow list: IPv4 public unicast (0.0.0.0-223.255.255.255 less the
 * special-purpose ranges of IANA's IPv4 registry, RFC 6890 and its updates)
 * and IPv6 global unicast (2000::/3, less the special-purpose ranges inside
 * it).  Anything no row allows is refused: multicast, class E, every IPv6
 * range outside 2000::/3 (loopback, unique local, link-local, multicast,
 * and any range assigned later).  The first matching row decides, so
 * narrower rows come first; the named refusals only give a clearer reason.
 * A row with embedded_v4 set is not judged itself: the IPv4 address at that
 * byte offset is (an IPv6 form that reaches an IPv4 host: v4-mapped, NAT64's
 * well-known prefix, 6to4).
 */
enum range_rule { RANGE_REFUSE, RANGE_ALLOW, RANGE_EMBEDDED };

struct address_range {
    const char *prefix;     /* network address, IPv4 or IPv6 text */
    int bits;
    enum range_rule rule;
    int embedded_v4;        /* RANGE_EMBEDDED: byte offset of the IPv4 address */
    const char *what;       /* RANGE_REFUSE: "<address> is <what>" */
};

#define NOT_UNICAST "not a public unicast address"

static const struct address_range special_ranges[] = {
    {"0.0.0.0", 8, RANGE_REFUSE, 0, "a \"this network\" address"},
    {"10.0.0.0", 8, RANGE_REFUSE, 0, "a private-use address"},
    {"100.64.0.0", 10, RANGE_REFUSE, 0, "a shared (carrier-grade NAT) address"},
    {"127.0.0.0", 8, RANGE_REFUSE, 0, "a loopback address"},
    {"169.254.0.0", 16, RANGE_REFUSE, 0, "a link-local address"},
    {"172.16.0.0", 12, RANGE_REFUSE, 0, "a private-use address"},
    {"192.0.0.0", 24, RANGE_REFUSE, 0, "an IETF protocol assignment address"},
    {"192.0.2.0", 24, RANGE_REFUSE, 0, "a documentation address"},
    {"192.88.99.0", 24, RANGE_REFUSE, 0, "a 6to4 relay anycast address"},
    {"192.168.0.0", 16, RANGE_REFUSE, 0, "a private-use address"},
    {"198.18.0.0", 15, RANGE_REFUSE, 0, "a benchmarking address"},
    {"198.51.100.0", 24, RANGE_REFUSE, 0, "a documentation address"},
    {"203.0.113.0", 24, RANGE_REFUSE, 0, "a documentation address"},
    {"0.0.0.0", 1, RANGE_ALLOW, 0, NULL},               /* 0.0.0.0-127.255.255.255 */
    {"128.0.0.0", 2, RANGE_ALLOW, 0, NULL},             /* 128.0.0.0-191.255.255.255 */
    {"192.0.0.0", 3, RANGE_ALLOW, 0, NULL},             /* 192.0.0.0-223.255.255.255 */
    {"224.0.0.0", 4, RANGE_REFUSE, 0, "a multicast address"},
    {"255.255.255.255", 32, RANGE_REFUSE, 0, "the limited broadcast address"},
    {"240.0.0.0", 4, RANGE_REFUSE, 0, "a reserved address"},
    {"0.0.0.0", 0, RANGE_REFUSE, 0, NOT_UNICAST},

    {"::ffff:0:0", 96, RANGE_EMBEDDED, 12, NULL},       /* IPv4-mapped */
    {"64:ff9b::", 96, RANGE_EMBEDDED, 12, NULL},        /* NAT64 */
    {"2002::", 16, RANGE_EMBEDDED, 2, NULL},            /* 6to4 */
    {"2001::", 23, RANGE_REFUSE, 0, "an IETF protocol assignment address"},
    {"2001:db8::", 32, RANGE_REFUSE, 0, "a documentation address"},
    {"3fff::", 20, RANGE_REFUSE, 0, "a documentation address"},
    {"2000::", 3, RANGE_ALLOW, 0, NULL},                /* global unicast */
    {"::", 128, RANGE_REFUSE, 0, "the unspecified address"},
    {"::1", 128, RANGE_REFUSE, 0, "a loopback address"},
    {"::", 96, RANGE_REFUSE, 0, "a deprecated IPv4-compatible address"},
    {"64:ff9b:1::", 48, RANGE_REFUSE, 0, "a local-use NAT64 address"},
    {"100::", 64, RANGE_REFUSE, 0, "a discard-only address"},
    {"5f00::", 16, RANGE_REFUSE, 0, "a segment routing (SRv6) address"},
    {"fc00::", 7, RANGE_REFUSE, 0, "a unique local address"},
    {"fe80::", 10, RANGE_REFUSE, 0, "a link-local address"},
    {"fec0::", 10, RANGE_REFUSE, 0, "a site-local address"},
    {"ff00::", 8, RANGE_REFUSE, 0, "a multicast address"},
    {"::", 0, RANGE_REFUSE, 0, "outside IPv6 global unicast (2000::/3)"},
    {NULL, 0, RANGE_REFUSE, 0, NULL},
};

/* True if the first bits of addr are those of net. */
static bool prefix_match(const unsigned char *addr, const unsigned char *net, int bits)
{
    int whole = bits / 8, rest = bits % 8;
    if (memcmp(addr, net, (size_t)whole) != 0)
        return false;
    if (rest == 0)
        return true;
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return (addr[whole] & mask) == (net[whole] & mask);
}

/*
 * Why the len (4 or 16) bytes at addr may not be reached, or NULL if the
 * address is public unicast.  If an embedded IPv4 address decided,
 * *embedded points to its 4 bytes (embedded may be NULL).
 */
static const char *special_kind(const unsigned char *addr, size_t len,
                                const unsigned char **embedded)
{
    for (const struct address_range *r = special_ranges; r->prefix; r++) {
        bool v6 = strchr(r->prefix, ':') != NULL;
        unsigned char net[16];
        if ((v6 ? 16u : 4u) != len)
            continue;
        /* A row that does not parse is a bug: refuse rather than allow. */
        if (inet_pton(v6 ? AF_INET6 : AF_INET, r->prefix, net) != 1)
            return "an address korp cannot classify";
        if (!prefix_match(addr, net, r->bits))
            continue;
        if (r->rule == RANGE_ALLOW)
            return NULL;
        if (r->rule == RANGE_REFUSE)
            return r->what;
        if (embedded)
            *embedded = addr + r->embedded_v4;
        return special_kind(addr + r->embedded_v4, 4, NULL);
    }
    return NOT_UNICAST;      /* no row matched: a table without its last row */
}

/*
 * special_kind of a socket address; any family but IPv4 and IPv6 is
 * refused.  If an embedded IPv4 address decided, it is written to
 * embedded_text (INET_ADDRSTRLEN bytes; "" otherwise).
 */
static const char *sockaddr_kind(const struct sockaddr *sa, char *embedded_text)
{
    const unsigned char *embedded = NULL;
    const char *what = "an address of an unknown family";
    if (sa->sa_family == AF_INET) {
        struct sockaddr_in sin;
        memcpy(&sin, sa, sizeof sin);
        what = special_kind((const unsigned char *)&sin.sin_addr, 4, NULL);
    } else if (sa->sa_family == AF_INET6) {
        struct sockaddr_in6 sin6;
        memcpy(&sin6, sa, sizeof sin6);
        what = special_kind(sin6.sin6_addr.s6_addr, 16, &embedded);
        if (embedded && embedded_text)
            inet_ntop(AF_INET, embedded, embedded_text, INET_ADDRSTRLEN);
    }
    return what;
}

bool notify_addr_public(const struct sockaddr *sa)
{
    return sa && sockaddr_kind(sa, NULL) == NULL;
}

/* ---- Webhook URLs ------------------------------------------------------- */

static const char private_hint[] =
    "webhooks cannot reach private networks "
    "(set KORP_WEBHOOK_ALLOW_PRIVATE=1 for a private deployment)";

struct webhook_url {
    char host[NOTIFY_HOST_MAX + 1];   /* as libcurl will look it up, no brackets */
    char port[6];
    bool literal;                     /* the host is an IP address */
};

/* The part of the URL, or NULL if it has none (curl_free the result). */
static char *url_part(CURLU *u, CURLUPart what, unsigned flags)
{
    char *text = NULL;
    if (curl_url_get(u, what, &text, flags) != CURLUE_OK)
        return NULL;
    return text;
}

/* Checks the URL's syntax and fills out; no network. */
static enum notify_url_verdict url_parse(const char *url, struct webhook_url *out, struct base_err *err)
{
    enum notify_url_verdict verdict = NOTIFY_URL_BAD_URL;
    CURLU *u = NULL;
    char *scheme = NULL, *user = NULL, *password = NULL, *host = NULL, *port = NULL;
    CURLUcode rc;

    size_t len = url ? strlen(url) : 0;
    if (len == 0) {
        base_err_set(err, "webhook URL is empty: write it as https://host/path");
        goto done;
    }
    if (len > NOTIFY_URL_MAX) {
        base_err_set(err, "webhook URL is %zu characters long: the limit is %d", len,
                 NOTIFY_URL_MAX);
        goto done;
    }
    u = curl_url();
    if (!u) {
        base_err_set(err, "out of memory while checking the webhook URL");
        goto done;
    }
    rc = curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);
    if (rc == CURLUE_BAD_SCHEME || rc == CURLUE_NO_SCHEME) {
        base_err_set(err, "webhook URLs must use http or https: write it as "
                               "https://host/path");
        goto done;
    }
    if (rc != CURLUE_OK) {
        base_err_set(err, "webhook URL is not valid (%s): write it as https://host/path",
                 curl_url_strerror(rc));
        goto done;
    }

    scheme = url_part(u, CURLUPART_SCHEME, 0);
    if (!scheme || (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)) {
        base_err_set(err, "webhook URLs must use http or https, not %s",
                 scheme ? scheme : "no scheme");
        goto done;
    }
    /* libcurl reads "http:///name" and "http:/name" as host "name"; a URL
     * that means what it says has exactly "scheme://" and then the host. */
    size_t scheme_len = strlen(scheme);
    if (strncasecmp(url, scheme, scheme_len) != 0 ||
        strncmp(url + scheme_len, "://", 3) != 0 || url[scheme_len + 3] == '/' ||
        url[scheme_len + 3] == '\0') {
        base_err_set(err, "webhook URL has no host: write it as %s://host/path", scheme);
        goto done;
    }
    user = url_part(u, CURLUPART_USER, 0);
    password = url_part(u, CURLUPART_PASSWORD, 0);
    if (user || password) {
        base_err_set(err, "webhook URLs cannot contain a user name or password: "
                               "remove them (korp signs every request instead)");
        goto done;
    }
    host = url_part(u, CURLUPART_HOST, CURLU_PUNYCODE);
    if (!host) {
        base_err_set(err, "webhook URL has no usable host name: write names outside "
                               "ASCII in their punycode (xn--) form");
        goto done;
    }
    port = url_part(u, CURLUPART_PORT, CURLU_DEFAULT_PORT);
    long port_number = port ? strtol(port, NULL, 10) : 0;
    /* 80, 443 and the unprivileged ports: not the well-known ports of other
     * services (SSH, SMTP, databases' and mail's below 1024). */
    if (port_number != 80 && port_number != 443 && (port_number < 1024 || port_number > 65535)) {
        base_err_set(err, "webhook URL port %s is not allowed: use 80, 443 or a port from "
                          "1024 to 65535", port ? port : "(none)");
        goto done;
    }

    /* An IPv6 literal comes back as "[::1]": the brackets are URL syntax. */
    const char *name = host;
    size_t name_len = strlen(host);
    if (name_len >= 2 && host[0] == '[' && host[name_len - 1] == ']') {
        name++;
        name_len -= 2;
    }
    if (name_len == 0 || name_len > NOTIFY_HOST_MAX) {
        base_err_set(err, "webhook URL host is %s: write it as https://host/path",
                 name_len ? "longer than 253 characters" : "empty");
        goto done;
    }
    memcpy(out->host, name, name_len);
    out->host[name_len] = '\0';
    snprintf(out->port, sizeof out->port, "%ld", port_number);
    unsigned char ip[16];
    out->literal = inet_pton(AF_INET, out->host, ip) == 1 ||
                   inet_pton(AF_INET6, out->host, ip) == 1;
    verdict = NOTIFY_URL_OK;
done:
    curl_free(scheme);
    curl_free(user);
    curl_free(password);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return verdict;
}

/* Resolves the URL's host to TCP addresses (*res is the caller's to free). */
static enum notify_url_verdict url_resolve(const struct webhook_url *url, struct addrinfo **res,
                                           struct base_err *err)
{
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    *res = NULL;
    int rc = getaddrinfo(url->host, url->port, &hints, res);
    if (rc == 0 && *res)
        return NOTIFY_URL_OK;
    if (rc == EAI_AGAIN)
        base_err_set(err, "webhook host %s could not be resolved now (%s): try again later",
                 url->host, gai_strerror(rc));
    else
        base_err_set(err, "webhook host %s does not resolve (%s): check the name",
                 url->host, gai_strerror(rc ? rc : EAI_NONAME));
    return NOTIFY_URL_UNRESOLVED;
}

/* The numeric text of a socket address ("" if it has none). */
static void address_text(const struct sockaddr *sa, socklen_t len, char out[INET6_ADDRSTRLEN])
{
    if (getnameinfo(sa, len, out, INET6_ADDRSTRLEN, NULL, 0, NI_NUMERICHOST) != 0)
        out[0] = '\0';
}

/* Says why the address ai may not be reached. */
static void refusal(const struct webhook_url *url, const struct addrinfo *ai, struct base_err *err)
{
    char text[INET6_ADDRSTRLEN], v4[INET_ADDRSTRLEN] = "";
    char carried[sizeof v4 + 24] = "";
    address_text(ai->ai_addr, ai->ai_addrlen, text);
    const char *what = sockaddr_kind(ai->ai_addr, v4);
    /* "64:ff9b::a00:1 (which carries 10.0.0.1) is a private-use address" */
    if (v4[0] && !strstr(text, v4))
        snprintf(carried, sizeof carried, " (which carries %s)", v4);
    if (url->literal)
        base_err_set(err, "%s%s is %s: %s", text, carried, what, private_hint);
    else
        base_err_set(err, "%s resolves to %s%s, %s: %s", url->host, text, carried, what,
                 private_hint);
}

enum notify_url_verdict notify_url_check(const char *url, bool allow_private, struct base_err *err)
{
    struct webhook_url parsed;
    struct addrinfo *res = NULL;
    enum notify_url_verdict verdict = url_parse(url, &parsed, err);
    if (verdict != NOTIFY_URL_OK)
        goto done;
    verdict = url_resolve(&parsed, &res, err);
    if (verdict != NOTIFY_URL_OK || allow_private)
        goto done;
    /* Every address must be public: a name with one private address is
     * one DNS answer away from a request into the private network. */
    for (const struct addrinfo *ai = res; ai; ai = ai->ai_next)
        if (!notify_addr_public(ai->ai_addr)) {
            refusal(&parsed, ai, err);
            verdict = NOTIFY_URL_PRIVATE;
            break;
        }
done:
    if (res)
        freeaddrinfo(res);
    if (verdict == NOTIFY_URL_OK && err != NULL)
        err->text[0] = '\0';
    return verdict;
}

bool notify_url_pin(const char *url, bool allow_private, struct notify_pin *pin, struct base_err *err)
{
    struct webhook_url parsed;
    struct addrinfo *res = NULL;
    const struct addrinfo *chosen = NULL;
    bool ok = false;
    enum notify_url_verdict verdict;

    memset(pin, 0, sizeof *pin);
    if ((verdict = url_parse(url, &parsed, err)) != NOTIFY_URL_OK ||
        (verdict = url_resolve(&parsed, &res, err)) != NOTIFY_URL_OK)
        goto done;
    verdict = NOTIFY_URL_PRIVATE;
    for (const struct addrinfo *ai = res; ai && !chosen; ai = ai->ai_next)
        if (allow_private || notify_addr_public(ai->ai_addr))
            chosen = ai;
    if (!chosen) {
        refusal(&parsed, res, err);
        goto done;
    }

    memcpy(pin->host, parsed.host, sizeof pin->host);
    pin->port = atoi(parsed.port);
    address_text(chosen->ai_addr, chosen->ai_addrlen, pin->address);
    if (!pin->address[0]) {
        base_err_set(err, "webhook host %s resolved to an address that cannot be written",
                 parsed.host);
        goto done;
    }
    /* libcurl never resolves an IP literal, so it needs no pin (and its
     * resolve entries cannot name an IPv6 host). */
    if (!parsed.literal) {
        bool v6 = chosen->ai_family == AF_INET6;
        snprintf(pin->resolve, sizeof pin->resolve, "%s:%d:%s%s%s", pin->host, pin->port,
                 v6 ? "[" : "", pin->address, v6 ? "]" : "");
    }
    ok = true;
done:
    if (res)
        freeaddrinfo(res);
    if (ok && err != NULL)
        err->text[0] = '\0';
    if (!ok) {
        memset(pin, 0, sizeof *pin);
        pin->verdict = verdict;
    }
    return ok;
}

/* ---- libcurl ----------------------------------------------------------- */

curl_socket_t notify_open_socket(void *clientp, curlsocktype purpose,
                                 struct curl_sockaddr *addr)
{
    const bool *allow_private = clientp;
    if (purpose != CURLSOCKTYPE_IPCXN)
        return CURL_SOCKET_BAD;
    bool allowed = allow_private && *allow_private;
    if (!allowed) {
        struct sockaddr_storage ss;
        /* libcurl's address may be longer than struct curl_sockaddr's
         * member: copy what it says it holds. */
        if (addr->addrlen > sizeof ss)
            return CURL_SOCKET_BAD;
        memset(&ss, 0, sizeof ss);
        memcpy(&ss, (const char *)addr + offsetof(struct curl_sockaddr, addr), addr->addrlen);
        if (!notify_addr_public((const struct sockaddr *)&ss))
            return CURL_SOCKET_BAD;
    }
    return socket(addr->family, addr->socktype, addr->protocol);
}

bool notify_curl_harden(CURL *curl, const struct notify_pin *pin, bool allow_private,
                        struct curl_slist **resolve_list)
{
    /* What the open-socket callback reads: constants, so the pointer stays
     * valid for any handle's lifetime. */
    static const bool private_allowed = true, private_refused = false;
    const bool *allow = allow_private ? &private_allowed : &private_refused;

    if (pin && pin->resolve[0]) {
        struct curl_slist *list = curl_slist_append(*resolve_list, pin->resolve);
        if (!list)
            return false;
        *resolve_list = list;
        if (curl_easy_setopt(curl, CURLOPT_RESOLVE, *resolve_list) != CURLE_OK)
            return false;
    }
    return curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK &&
           curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") == CURLE_OK &&
           curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L) == CURLE_OK &&
           curl_easy_setopt(curl, CURLOPT_PROXY, "") == CURLE_OK &&
           curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L) == CURLE_OK &&
           curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, notify_open_socket) == CURLE_OK &&
           curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, (void *)allow) == CURLE_OK;
}
