/*
 * notify_sign.h — the notify module's internal contract for webhooks:
 * Standard Webhooks signatures (notify_sign.c) and the checks that keep a
 * webhook from reaching a private network (notify_addr.c).
 *
 * Signatures follow https://www.standardwebhooks.com/ (version 1.0.0): the
 * secret is "whsec_" and the base64 of the key; the signature of a message
 * is "v1," and the base64 of HMAC-SHA256(key, "<msg_id>.<timestamp>.<body>").
 *
 * A webhook URL is checked twice: when it is registered (notify_url_check:
 * is it http(s), and does its host resolve only to public addresses?) and
 * at every delivery (notify_url_pin and notify_curl_harden: resolve once,
 * connect to exactly that address, refuse any private address at the
 * socket), so a DNS answer that changes in between cannot steer a request
 * into the server's own network.
 */
#ifndef KORP_NOTIFY_SIGN_H
#define KORP_NOTIFY_SIGN_H

#include "base.h"

#include <curl/curl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* ---- Standard Webhooks signatures -------------------------------------- */

#define NOTIFY_SECRET_PREFIX "whsec_"
#define NOTIFY_SECRET_BYTES 32                                 /* keys we make */
#define NOTIFY_SECRET_LEN (6 + BASE_BASE64_LEN(NOTIFY_SECRET_BYTES)) /* 50 */
#define NOTIFY_KEY_MIN_BYTES 24         /* the spec's minimum key: 192 bits */
#define NOTIFY_KEY_MAX_BYTES 64         /* and maximum: 512 bits */
#define NOTIFY_SIGNATURE_LEN (3 + BASE_BASE64_LEN(32))        /* "v1," + 44 */

/*
 * Writes a new webhook secret, "whsec_" and the base64 of 32 bytes from
 * OpenSSL's CSPRNG, and a NUL to out (size >= NOTIFY_SECRET_LEN + 1).
 * False if out is too small or the generator failed.
 */
bool notify_secret_new(char *out, size_t size);

/*
 * Signs one webhook delivery: writes "v1,<base64 signature>" and a NUL to
 * out (size >= NOTIFY_SIGNATURE_LEN + 1).  secret is "whsec_<base64>" whose
 * key is 24 to 64 bytes; msg_id is non-empty and has no '.' (the spec's
 * rule, so that id and timestamp cannot be confused); timestamp is Unix
 * seconds >= 0; body is the exact bytes sent.  False, with out empty, if
 * any of these is malformed or out is too small.
 */
bool notify_sign(const char *secret, const char *msg_id, long long timestamp,
                 const char *body, size_t body_len, char *out, size_t size);

/*
 * The webhook-signature header value for n >= 1 secrets (the new one and
 * the old ones while a secret is rotated): each signature as notify_sign
 * writes it, separated by single spaces.  out needs
 * n * (NOTIFY_SIGNATURE_LEN + 1) bytes.  False, with out empty, if a secret
 * is malformed or out is too small.
 */
bool notify_sign_all(const char *const *secrets, int n, const char *msg_id,
                     long long timestamp, const char *body, size_t body_len,
                     char *out, size_t size);

/*
 * HMAC-SHA256 of text under key as 64 lower-case hex digits and a NUL: the
 * server's own signed links (unsubscribe URLs).  On an OpenSSL failure out
 * is empty, which base_secret_equal never accepts.
 */
void notify_hmac_hex(const void *key, size_t key_len, const char *text, char out[65]);

/* ---- Webhook addresses and URLs (SSRF, DNS rebinding) ----------------- */

#define NOTIFY_URL_MAX 2048              /* longest webhook URL accepted */
#define NOTIFY_HOST_MAX 253              /* longest DNS name */

enum notify_url_verdict {
    NOTIFY_URL_OK = 0,
    NOTIFY_URL_BAD_URL,      /* syntax, scheme, credentials, port: a 422 */
    NOTIFY_URL_PRIVATE,      /* resolves to an address webhooks may not reach */
    NOTIFY_URL_UNRESOLVED,   /* the host does not resolve (now) */
};

/*
 * True if sa (AF_INET or AF_INET6) is an address a webhook may connect to:
 * not in any special-purpose range of IANA's IPv4 and IPv6 registries
 * (loopback, private-use, link-local, shared, documentation, multicast,
 * reserved …).  IPv6 forms that carry an IPv4 address (v4-mapped, NAT64
 * 64:ff9b::/96, 6to4) are judged by that IPv4 address.  False for any other
 * family.
 */
bool notify_addr_public(const struct sockaddr *sa);

/*
 * Checks a webhook URL when it is registered: at most NOTIFY_URL_MAX
 * characters, http or https, a host, no user name or password, a port from
 * 1 to 65535, and a host that resolves, every address of which is public
 * (any address, when allow_private).  On any verdict but NOTIFY_URL_OK, err
 * says what is wrong and how to fix it.
 */
enum notify_url_verdict notify_url_check(const char *url, bool allow_private,
                                         struct base_err *err);

/*
 * Where one delivery connects: the URL's host and port and the single
 * address chosen for them.  resolve is the CURLOPT_RESOLVE entry
 * "host:port:address" (an IPv6 address in brackets) that makes libcurl use
 * that address and no DNS answer of its own; it is empty when the host is
 * an IP literal, which libcurl never looks up.
 */
struct notify_pin {
    enum notify_url_verdict verdict;           /* why notify_url_pin failed */
    char host[NOTIFY_HOST_MAX + 1];            /* without IPv6 brackets */
    int port;
    char address[INET6_ADDRSTRLEN];
    char resolve[NOTIFY_HOST_MAX + 1 + 6 + 2 + INET6_ADDRSTRLEN + 1];
};

/*
 * Checks url as notify_url_check does, resolves its host once and fills pin
 * with the first address that is public (or any, when allow_private).
 * False with a message in err if the URL is bad, the host does not resolve
 * or no address may be used.
 */
bool notify_url_pin(const char *url, bool allow_private, struct notify_pin *pin,
                    struct base_err *err);

/*
 * A CURLOPT_OPENSOCKETFUNCTION: opens the socket libcurl asks for only if
 * the address is public, or if clientp points to a bool that is true
 * (NULL means false).  Returns CURL_SOCKET_BAD otherwise, so the transfer
 * fails with CURLE_COULDNT_CONNECT whatever the resolver answered.
 */
curl_socket_t notify_open_socket(void *clientp, curlsocktype purpose,
                                 struct curl_sockaddr *addr);

/*
 * Locks a webhook transfer down: the pin's CURLOPT_RESOLVE entry (appended
 * to *resolve_list, which the caller frees with curl_slist_free_all after
 * the transfer; pin may be NULL), http and https only, redirects not
 * followed, no proxy (not even from the environment), no signals, and
 * notify_open_socket refusing private addresses unless allow_private.
 * Timeouts and size limits are the caller's.  False if an option could not
 * be set (out of memory): the handle must not be used then.
 */
bool notify_curl_harden(CURL *curl, const struct notify_pin *pin, bool allow_private,
                        struct curl_slist **resolve_list);

#endif
