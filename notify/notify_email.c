/*
 * notify_email.c — one attempt at an email delivery: the facts from the
 * outbox row, the text from notify_mail_text.c, the message sent over SMTP with
 * libcurl (smtp://, smtps://, STARTTLS when KORP_SMTP_TLS=required).
 */
#include "notify_int.h"

#include "base.h"
#include "notify_mail.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The mail a delivery's type makes, and whether it is one at all. */
static const struct {
    const char *type;
    enum notify_kind kind;
} kinds[] = {
#define EVENT(NAME, type, MAIL) { type, NOTIFY_##MAIL },
#define NOTICE(NAME, type, MAIL) { type, NOTIFY_##MAIL },
#define MAIL(NAME, type) { type, NOTIFY_##NAME },
#include "db_kinds.def"
};

static bool kind_of(const char *type, enum notify_kind *kind)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].type != NULL && strcmp(kinds[i].type, type) == 0) {
            *kind = kinds[i].kind;
            return true;
        }
    return false;
}

static const char *text(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int number(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valueint : 0;
}

/* Links into korpd's web pages. */
struct links {
    char game[512], challenge[512], settings[512], unsubscribe[1024], confirm[1024];
};

static void links_make(const struct notify_config *c, const struct db_delivery *d,
                       const char *game_id, const char *challenge_id, struct links *l)
{
    const char *base = c->public_url ? c->public_url : "";
    snprintf(l->game, sizeof l->game, "%s/games/%s", base, game_id ? game_id : "");
    snprintf(l->challenge, sizeof l->challenge, "%s/challenges/%s", base,
             challenge_id ? challenge_id : "");
    snprintf(l->settings, sizeof l->settings, "%s/settings", base);
    notify_unsubscribe_url(base, d->player_id, d->now_unix, l->unsubscribe,
                           sizeof l->unsubscribe);
    /* Made when the address was given: a retry sends the same link. */
    notify_confirm_url(base, d->player_id, d->email, d->created_unix, l->confirm,
                       sizeof l->confirm);
}

/* A move's Fischer clock: the recipient's time, from the event's
 * "clock": {"type": "fischer", "white": s, "black": s}. */
static void fischer_time(const cJSON *data, const char *my_color, struct notify_about *a)
{
    const cJSON *clock = cJSON_GetObjectItemCaseSensitive(data, "clock");
    const char *type = text(clock, "type");
    const cJSON *mine = my_color ? cJSON_GetObjectItemCaseSensitive(clock, my_color) : NULL;
    if (type != NULL && strcmp(type, "fischer") == 0 && cJSON_IsNumber(mine)) {
        a->fischer = true;
        a->my_time = (long long)mine->valuedouble;
    }
}

/* Subject and body of a single notification. */
bool notify_email_compose(const struct notify_config *c, const struct db_delivery *d,
                          const cJSON *data, char *subject, size_t size, char **body,
                          struct base_err *error)
{
    struct notify_about a = { 0 };
    struct links l;

    if (!kind_of(d->type, &a.kind)) {
        base_err_set(error, "no email is written for '%s'", d->type);
        return false;
    }
    /* A conditional reply told to the player who set it (not to move now). */
    if (a.kind == NOTIFY_YOUR_MOVE &&
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(data, "conditional")) &&
        d->my_color[0] && text(data, "to_move") && strcmp(d->my_color, text(data, "to_move")) != 0)
        a.kind = NOTIFY_CONDITIONAL_PLAYED;
    a.message_text = text(cJSON_GetObjectItemCaseSensitive(data, "message"), "text");
    links_make(c, d, text(data, "game_id"), text(data, "challenge_id"), &l);
    a.variant = text(data, "variant");
    a.game_id = text(data, "game_id");
    a.challenge_id = text(data, "challenge_id");
    a.player_name = d->player_name;
    a.opponent_name = d->opponent_name[0] ? d->opponent_name : NULL;
    a.my_color = d->my_color[0] ? d->my_color : NULL;
    a.fen = text(data, "fen");
    a.ply = number(data, "ply");
    a.last_san = text(data, "san");
    a.last_uci = text(data, "uci");
    a.last_polish = text(data, "polish");
    a.deadline = text(data, "deadline") ? text(data, "deadline")
                 : d->deadline[0]       ? d->deadline
                                        : NULL;
    a.now = d->now_unix;
    a.status = text(data, "status");
    a.result = text(data, "result");
    a.termination = text(data, "termination");
    a.draw_offer = text(data, "draw_offer");
    a.game_url = l.game;
    a.challenge_url = l.challenge;
    a.settings_url = l.settings;
    a.webhook_url = text(data, "url");
    a.webhook_reason = text(data, "reason");
    a.confirm_url = l.confirm;
    fischer_time(data, a.my_color, &a);
    a.tournament_name = text(data, "name");
    a.arbiter_reason = text(data, "reason");
    a.language = d->language;
    return notify_mail_text(&a, subject, size, body, error);
}

/* Subject and body of a daily digest. */
static bool compose_digest(const struct notify_config *c, const struct db_delivery *d,
                           const cJSON *data, char *subject, size_t size, char **body,
                           struct base_err *error)
{
    const cJSON *games = cJSON_GetObjectItemCaseSensitive(data, "games");
    int count = cJSON_GetArraySize(games);
    struct notify_digest_game *list = calloc((size_t)(count > 0 ? count : 1), sizeof *list);
    struct links *links = calloc((size_t)(count > 0 ? count : 1), sizeof *links);
    struct notify_digest digest = { d->player_name, list, (size_t)count, d->now_unix, NULL,
                                    d->language };
    const cJSON *g;
    int i = 0;
    bool ok = false;

    if (list == NULL || links == NULL || count <= 0) {
        base_err_set(error, count <= 0 ? "a digest without games" : "out of memory");
    } else {
        cJSON_ArrayForEach(g, games) {
            links_make(c, d, text(g, "game_id"), NULL, &links[i]);
            list[i] = (struct notify_digest_game){ text(g, "game_id"), text(g, "variant"),
                                                   text(g, "opponent"), NULL, number(g, "ply"),
                                                   NULL, text(g, "deadline"), links[i].game };
            i++;
        }
        digest.settings_url = links[0].settings;
        ok = notify_mail_digest(&digest, subject, size, body, error);
    }
    free(list);
    free(links);
    return ok;
}

/*
 * Whether the mail is still to be sent when its turn comes: only the
 * confirmation goes to an unconfirmed address (and only to the address it
 * confirms), and a challenge cancelled or declined before its mail leaves
 * is not told (one made and cancelled at once mails nobody; one accepted
 * meanwhile still is: a game came of it).  False with the reason in error.
 */
static bool still_owed(const struct db_delivery *d, const cJSON *data, struct base_err *error)
{
    const char *address = text(data, "email");
    if (strcmp(d->type, "email_confirm") == 0) {
        if (d->email_confirmed)
            base_err_set(error, "the address is confirmed already");
        else if (address == NULL || strcmp(address, d->email) != 0)
            base_err_set(error, "the player has changed the address since");
        else
            return true;
        return false;
    }
    if (!d->email_confirmed) {
        base_err_set(error, "the address is not confirmed");
        return false;
    }
    if (strcmp(d->type, "challenge") == 0 &&
        (strcmp(d->challenge_status, "cancelled") == 0 ||
         strcmp(d->challenge_status, "declined") == 0)) {
        base_err_set(error, "the challenge is no longer open");
        return false;
    }
    return true;
}

struct reader {
    const char *text;
    size_t left;
};

static size_t read_message(char *out, size_t size, size_t n, void *arg)
{
    struct reader *r = arg;
    size_t take = size * n < r->left ? size * n : r->left;
    memcpy(out, r->text, take);
    r->text += take;
    r->left -= take;
    return take;
}

/* Sends a message; false with the server's or libcurl's words in error. */
static bool smtp_send(struct notify_sender *s, const struct db_delivery *d,
                      const char *message, struct db_attempt *a, struct base_err *error,
                      bool *refused)
{
    const struct notify_config *c = s->config;
    struct curl_slist *rcpt = curl_slist_append(NULL, d->email);
    struct reader r = { message, strlen(message) };
    char curl_error[CURL_ERROR_SIZE] = "";
    long code = 0;
    CURLcode rc;

    if (rcpt == NULL) {
        base_err_set(error, "out of memory");
        return false;
    }
    curl_easy_reset(s->curl);
    curl_easy_setopt(s->curl, CURLOPT_URL, c->smtp_url);
    curl_easy_setopt(s->curl, CURLOPT_MAIL_FROM, c->mail_from);
    curl_easy_setopt(s->curl, CURLOPT_MAIL_RCPT, rcpt);
    curl_easy_setopt(s->curl, CURLOPT_READFUNCTION, read_message);
    curl_easy_setopt(s->curl, CURLOPT_READDATA, &r);
    curl_easy_setopt(s->curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(s->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(s->curl, CURLOPT_TIMEOUT, (long)NOTIFY_SMTP_TIMEOUT_SECONDS);
    curl_easy_setopt(s->curl, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(s->curl, CURLOPT_ERRORBUFFER, curl_error);
    if (c->smtp_tls != NULL && strcmp(c->smtp_tls, "required") == 0)
        curl_easy_setopt(s->curl, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
    if (c->smtp_user != NULL && c->smtp_user[0] != '\0') {
        curl_easy_setopt(s->curl, CURLOPT_USERNAME, c->smtp_user);
        curl_easy_setopt(s->curl, CURLOPT_PASSWORD, c->smtp_password ? c->smtp_password : "");
    }
    rc = curl_easy_perform(s->curl);
    curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(rcpt);
    a->status_code = (int)code;
    /* 550-553: no such mailbox, not here, over quota, bad address (RFC 5321
     * 4.2.3): this recipient, for good.  A refused login (535), a required
     * TLS (530) or a failing server (554) are not the message's fault. */
    *refused = rc != CURLE_OK && code >= 550 && code <= 553;
    if (rc == CURLE_OK)
        return true;
    base_err_set(error, "%s", curl_error[0] ? curl_error : curl_easy_strerror(rc));
    return false;
}

void notify_email_send(struct notify_sender *s, const struct db_delivery *d,
                       struct db_attempt *a, struct base_err *error)
{
    const struct notify_config *c = s->config;
    char subject[NOTIFY_SUBJECT_MAX], message_id[64], unsubscribe[1024];
    char *body = NULL, *message = NULL;
    cJSON *data = NULL;
    long long started = base_monotonic_us();
    bool composed, refused = false;

    *a = (struct db_attempt){ 0 };
    a->outcome = DB_FAILED;
    if (c->smtp_url == NULL || c->smtp_url[0] == '\0') {
        /* Left owed: another process with SMTP settings may send it. */
        base_err_set(error, "this korpd has no KORP_SMTP_URL");
        notify_retry_decide(c, d, 0, a);
        return;
    }
    if (!d->email_enabled || d->email[0] == '\0') {
        base_err_set(error, "the player has turned email off or has no address");
        return;
    }
    if ((data = cJSON_Parse(d->payload)) == NULL) {
        base_err_set(error, "the notification's data is unreadable");
        return;
    }
    if (!still_owed(d, data, error)) {
        cJSON_Delete(data);
        return;
    }
    composed = strcmp(d->type, "digest") == 0
                   ? compose_digest(c, d, data, subject, sizeof subject, &body, error)
                   : notify_email_compose(c, d, data, subject, sizeof subject, &body, error);
    cJSON_Delete(data);
    if (!composed)
        return;
    /* One Message-ID per delivery: a retried message is the same message. */
    snprintf(message_id, sizeof message_id, "msg_%lld.%lld", d->id, d->created_unix);
    notify_unsubscribe_url(c->public_url ? c->public_url : "", d->player_id, d->now_unix,
                           unsubscribe, sizeof unsubscribe);
    struct notify_mail mail = {
        .from_address = c->mail_from, .from_name = "korp", .to_address = d->email,
        .to_name = d->player_name, .subject = subject, .body = body, .message_id = NULL,
        .message_id_domain = NULL, .unsubscribe_url = unsubscribe, .date = time(NULL),
    };
    char id_full[128];
    const char *at = strchr(c->mail_from, '@');
    snprintf(id_full, sizeof id_full, "%s@%s", message_id, at ? at + 1 : "korp.invalid");
    mail.message_id = id_full;
    message = notify_mail_message(&mail, error);
    free(body);
    if (message == NULL)
        return;
    if (smtp_send(s, d, message, a, error, &refused)) {
        a->outcome = DB_DELIVERED;
    } else if (refused) {
        a->outcome = DB_FAILED;      /* the server refuses this recipient for good */
    } else {
        /* Anything else (a 5xx login or TLS refusal included) is korpd's or
         * the server's to fix: tried again, with backoff. */
        notify_retry_decide(c, d, 0, a);
    }
    a->latency_ms = (double)(base_monotonic_us() - started) / 1000.0;
    free(message);
}
