/*
 * client.c — one libcurl easy handle for the bot's API calls (it keeps the
 * connection to korpd open between calls), and the retry rules.
 */
#include "client.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Retries: up to ATTEMPTS tries, waiting FIRST_WAIT seconds after the first
 * failure and twice as long after each next one, at most LONGEST_WAIT; a
 * Retry-After from korpd wins (up to LONGEST_RETRY_AFTER).  About half a
 * minute in all: enough for korpd to restart. */
#define ATTEMPTS 10
#define FIRST_WAIT 0.25
#define LONGEST_WAIT 5.0
#define LONGEST_RETRY_AFTER 60
#define BODY_LIMIT (8 * 1024 * 1024)

struct client {
    CURL *curl;
    char *base;
    char *token;
    char *auth;         /* the Authorization header line */
};

struct body {
    char *s;
    size_t len;
    bool too_big;
};

void client_log(const char *fmt, ...)
{
    struct timespec ts;
    struct tm tm;
    char when[32], line[1024];
    va_list ap;

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One write per line, so that lines of two processes never mix. */
    fprintf(stderr, "%s.%03ldZ random-bot: %s\n", when, ts.tv_nsec / 1000000, line);
}

double client_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void client_sleep(double seconds)
{
    struct timespec ts;
    if (seconds <= 0)
        return;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static char *joined(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 1;
    char *s = malloc(n);
    if (s != NULL)
        snprintf(s, n, "%s%s", a, b);
    return s;
}

struct client *client_new(const char *base_url, const char *token)
{
    struct client *c = calloc(1, sizeof *c);
    size_t n;

    if (c == NULL)
        return NULL;
    c->curl = curl_easy_init();
    c->base = strdup(base_url);
    c->token = token != NULL ? strdup(token) : NULL;
    c->auth = token != NULL ? joined("Authorization: Bearer ", token) : NULL;
    if (c->curl == NULL || c->base == NULL || (token != NULL && (c->token == NULL ||
                                                                 c->auth == NULL))) {
        client_free(c);
        return NULL;
    }
    n = strlen(c->base);
    while (n > 0 && c->base[n - 1] == '/')
        c->base[--n] = '\0';
    return c;
}

void client_free(struct client *c)
{
    if (c == NULL)
        return;
    curl_easy_cleanup(c->curl);
    free(c->base);
    free(c->token);
    free(c->auth);
    free(c);
}

const char *client_base(const struct client *c)
{
    return c->base;
}

const char *client_token(const struct client *c)
{
    return c->token;
}

static size_t on_body(char *data, size_t size, size_t count, void *arg)
{
    struct body *b = arg;
    size_t n = size * count;

    if (b->too_big || b->len + n > BODY_LIMIT) {
        b->too_big = true;
        return n;       /* read on, keep nothing: the answer is not for us */
    }
    char *bigger = realloc(b->s, b->len + n + 1);
    if (bigger == NULL)
        return 0;       /* libcurl fails the transfer */
    b->s = bigger;
    memcpy(b->s + b->len, data, n);
    b->len += n;
    b->s[b->len] = '\0';
    return n;
}

bool client_call(struct client *c, const char *method, const char *path, const cJSON *body,
                 const char *key, struct client_reply *out)
{
    bool post = strcmp(method, "POST") == 0, answered = false;
    char *url = joined(c->base, path);
    char *text = body != NULL ? cJSON_PrintUnformatted(body) : NULL;
    char *key_line = key != NULL ? joined("Idempotency-Key: ", key) : NULL;
    struct curl_slist *headers = NULL;
    double wait = FIRST_WAIT;

    out->status = 0;
    out->json = NULL;
    if (url == NULL || (body != NULL && text == NULL) || (key != NULL && key_line == NULL)) {
        client_log("%s %s: out of memory", method, path);
        goto done;
    }
    if (c->auth != NULL)
        headers = curl_slist_append(headers, c->auth);
    headers = curl_slist_append(headers, "Accept: application/json");
    /* Without a body, send no Content-Type (libcurl would add a form's). */
    headers = curl_slist_append(headers, text != NULL ? "Content-Type: application/json"
                                                      : "Content-Type:");
    if (key_line != NULL)
        headers = curl_slist_append(headers, key_line);

    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
        struct body got = { NULL, 0, false };
        curl_off_t retry_after = -1;
        char why[CURL_ERROR_SIZE + 32] = "";
        CURLcode res;
        long status = 0;

        /* A reset keeps the open connection; only the options go. */
        curl_easy_reset(c->curl);
        curl_easy_setopt(c->curl, CURLOPT_URL, url);
        curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &got);
        curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, 10L);
        curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, 30L);
        curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
        if (post) {
            curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
            curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, text != NULL ? text : "");
            curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE, (long)(text ? strlen(text) : 0));
        }
        res = curl_easy_perform(c->curl);
        if (res == CURLE_OK) {
            curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
            curl_easy_getinfo(c->curl, CURLINFO_RETRY_AFTER, &retry_after);
        }
        if (res == CURLE_OK && status != 429 && status < 500) {
            out->status = status;
            if (got.s != NULL && !got.too_big)
                out->json = cJSON_ParseWithLength(got.s, got.len);
            free(got.s);
            answered = true;
            break;
        }
        free(got.s);
        out->status = status;
        if (res != CURLE_OK)
            snprintf(why, sizeof why, "%s", curl_easy_strerror(res));
        else
            snprintf(why, sizeof why, "HTTP %ld", status);
        if (attempt == ATTEMPTS) {
            client_log("%s %s: %s; giving up after %d tries", method, path, why, attempt);
            break;
        }
        double delay = wait;
        if (retry_after > 0)
            delay = retry_after < LONGEST_RETRY_AFTER ? (double)retry_after
                                                      : LONGEST_RETRY_AFTER;
        wait = wait * 2 < LONGEST_WAIT ? wait * 2 : LONGEST_WAIT;
        client_log("%s %s: %s; retry %d in %.2f s%s", method, path, why, attempt, delay,
                   retry_after > 0 ? " (Retry-After)" : "");
        client_sleep(delay);
    }
done:
    curl_slist_free_all(headers);
    free(key_line);
    free(text);
    free(url);
    return answered;
}

void client_reply_clear(struct client_reply *r)
{
    cJSON_Delete(r->json);
    r->json = NULL;
    r->status = 0;
}

const char *client_json_string(const cJSON *json, const char *name)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(json, name));
    return s != NULL ? s : "";
}
