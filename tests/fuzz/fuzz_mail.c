/*
 * fuzz_mail.c — notification mails: whatever names, subjects, addresses,
 * URLs, ids and bodies reach notify_mail_message, a message it accepts is
 * well-formed RFC 5322 (CRLF lines, ASCII, header lines of at most 998
 * bytes, exactly one From, To, Subject, Date and Message-ID, so no header
 * can be injected) and carries the body unchanged; a refusal says why.
 * notify_diagram, notify_mail_text and notify_mail_digest get the same
 * fields as game facts, and what they write goes through the same checks.
 *
 * The input: a head of HEAD_SIZE bytes (missing bytes are zero), then the
 * fields in the order of enum field, each ended by a NUL.  A field the
 * input does not reach, or whose bit is set in the head's null mask, is
 * NULL.
 */
#include "notify_mail.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum field {
    F_FROM_ADDRESS, F_FROM_NAME, F_TO_ADDRESS, F_TO_NAME, F_SUBJECT, F_BODY,
    F_MESSAGE_ID, F_MESSAGE_ID_DOMAIN, F_UNSUBSCRIBE_URL, F_FEN, F_VARIANT, F_GAME_ID,
    F_CHALLENGE_ID, F_MY_COLOR, F_LAST_SAN, F_LAST_UCI, F_LAST_POLISH, F_DEADLINE,
    F_STATUS, F_RESULT, F_TERMINATION, F_DRAW_OFFER, F_GAME_URL, F_CHALLENGE_URL,
    F_SETTINGS_URL, F_WEBHOOK_URL, F_WEBHOOK_REASON,
    FIELD_COUNT
};

/* Where each field goes: a const char * member of struct notify_mail and
 * one of struct notify_about, by offset, or NOWHERE.  The recipient is
 * the player, the sender the opponent. */
#define NOWHERE SIZE_MAX
#define MAIL(member) offsetof(struct notify_mail, member)
#define ABOUT(member) offsetof(struct notify_about, member)

enum target { IN_MAIL, IN_ABOUT };

static const size_t routes[FIELD_COUNT][2] = {
    [F_FROM_ADDRESS] = { MAIL(from_address), NOWHERE },
    [F_FROM_NAME] = { MAIL(from_name), ABOUT(opponent_name) },
    [F_TO_ADDRESS] = { MAIL(to_address), NOWHERE },
    [F_TO_NAME] = { MAIL(to_name), ABOUT(player_name) },
    [F_SUBJECT] = { MAIL(subject), NOWHERE },
    [F_BODY] = { MAIL(body), NOWHERE },
    [F_MESSAGE_ID] = { MAIL(message_id), NOWHERE },
    [F_MESSAGE_ID_DOMAIN] = { MAIL(message_id_domain), NOWHERE },
    [F_UNSUBSCRIBE_URL] = { MAIL(unsubscribe_url), NOWHERE },
    [F_FEN] = { NOWHERE, ABOUT(fen) },
    [F_VARIANT] = { NOWHERE, ABOUT(variant) },
    [F_GAME_ID] = { NOWHERE, ABOUT(game_id) },
    [F_CHALLENGE_ID] = { NOWHERE, ABOUT(challenge_id) },
    [F_MY_COLOR] = { NOWHERE, ABOUT(my_color) },
    [F_LAST_SAN] = { NOWHERE, ABOUT(last_san) },
    [F_LAST_UCI] = { NOWHERE, ABOUT(last_uci) },
    [F_LAST_POLISH] = { NOWHERE, ABOUT(last_polish) },
    [F_DEADLINE] = { NOWHERE, ABOUT(deadline) },
    [F_STATUS] = { NOWHERE, ABOUT(status) },
    [F_RESULT] = { NOWHERE, ABOUT(result) },
    [F_TERMINATION] = { NOWHERE, ABOUT(termination) },
    [F_DRAW_OFFER] = { NOWHERE, ABOUT(draw_offer) },
    [F_GAME_URL] = { NOWHERE, ABOUT(game_url) },
    [F_CHALLENGE_URL] = { NOWHERE, ABOUT(challenge_url) },
    [F_SETTINGS_URL] = { NOWHERE, ABOUT(settings_url) },
    [F_WEBHOOK_URL] = { NOWHERE, ABOUT(webhook_url) },
    [F_WEBHOOK_REASON] = { NOWHERE, ABOUT(webhook_reason) },
};

static const char *const variants[] = { "korpalski", "glinski", NULL };

/* The head: numbers the fields cannot carry. */
enum {
    HEAD_NULL_MASK = 0,   /* 4 bytes: bit f makes field f NULL */
    HEAD_KIND = 4,        /* 1 byte: the notification kind, some unknown */
    HEAD_SIZES = 5,       /* 1 byte: small output buffers, when not 0 */
    HEAD_GAMES = 6,       /* 1 byte: games in the digest, 0 to 3 */
    HEAD_PLY = 7,         /* 4 bytes, any int */
    HEAD_DATE = 11,       /* 8 bytes, any time_t */
    HEAD_NOW = 19,        /* 5 bytes: 0 to 2^40 - 1 (about year 36800):
                             `now` is the server's own clock */
    HEAD_SIZE = 24
};

struct input {
    const char *field[FIELD_COUNT];
    uint32_t null_mask;
    uint8_t kind, sizes, games;
    int32_t ply;
    int64_t date;
    long long now;
};

/* ---- Checks ---------------------------------------------------------------- */

static bool ascii_only(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80)
            return false;
    return true;
}

/* An ftext field name before ':', or 0 when the line does not start a field. */
static size_t field_name_len(const char *line, size_t len)
{
    size_t n = 0;
    while (n < len && line[n] > 32 && line[n] < 127 && line[n] != ':')
        n++;
    return n > 0 && n < len && line[n] == ':' ? n : 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Undoes quoted-printable with "\r\n" line ends into '\n' (malloc'd); NULL
 * if the text is not what notify_mail_message writes. */
static char *qp_decode(const char *in)
{
    char *out = malloc(strlen(in) + 1), *o = out;
    for (const char *p = in; *p;) {
        if (p[0] == '=' && p[1] == '\r' && p[2] == '\n') {
            p += 3;
        } else if (p[0] == '=') {
            int hi = hex_digit(p[1]), lo = hi < 0 ? -1 : hex_digit(p[2]);
            if (lo < 0) {
                free(out);
                return NULL;
            }
            *o++ = (char)(hi * 16 + lo);
            p += 3;
        } else if (p[0] == '\r' && p[1] == '\n') {
            *o++ = '\n';
            p += 2;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* The body as the message must carry it: every line, "\r\n" or '\n'
 * ended or last, as the line and '\n' (malloc'd). */
static char *body_lines(const char *body)
{
    char *out = malloc(strlen(body) + 2), *o = out;
    for (const char *p = body; *p;) {
        size_t n = strcspn(p, "\n"), end = n;
        if (end > 0 && p[end - 1] == '\r')
            end--;
        memcpy(o, p, end);
        o += end;
        *o++ = '\n';
        p += n + (p[n] == '\n');
    }
    *o = '\0';
    return out;
}

/*
 * Aborts unless msg is a message as notify_mail_message promises for m:
 * ASCII, CRLF line ends and nothing else, a header block of fields and
 * folded continuation lines of at most 998 bytes holding From, To,
 * Subject, Date and Message-ID exactly once each, and a quoted-printable
 * body of lines of at most 76 characters that decodes to m->body.
 */
static void check_wire(const struct notify_mail *m, const char *msg)
{
    static const char *const once[] = { "From", "To", "Subject", "Date", "Message-ID",
                                        NULL };
    int seen[sizeof once / sizeof *once] = { 0 };
    size_t len = strlen(msg);

    if (!ascii_only(msg) || len < 2 || memcmp(msg + len - 2, "\r\n", 2) != 0)
        abort();
    for (size_t i = 0; i < len; i++)
        if ((msg[i] == '\r') != (i + 1 < len && msg[i + 1] == '\n') ||
            (msg[i] == '\n' && (i == 0 || msg[i - 1] != '\r')))
            abort();   /* a bare CR or LF */

    const char *line = msg;
    bool in_header = true;
    while (*line) {
        const char *crlf = strstr(line, "\r\n");
        size_t n = (size_t)(crlf - line);
        if (in_header && n == 0) {
            in_header = false;
        } else if (in_header) {
            if (n > 998)
                abort();
            if (line[0] == ' ' || line[0] == '\t') {
                /* A continuation: after a field, and never blank. */
                if (line == msg || strspn(line, " \t") >= n)
                    abort();
            } else {
                size_t name = field_name_len(line, n);
                if (name == 0)
                    abort();
                for (int i = 0; once[i]; i++)
                    if (strlen(once[i]) == name && strncasecmp(line, once[i], name) == 0)
                        seen[i]++;
            }
        } else if (n > 76) {
            abort();   /* quoted-printable lines are short */
        }
        line = crlf + 2;
    }
    if (in_header)
        abort();   /* no empty line before the body */
    for (int i = 0; once[i]; i++)
        if (seen[i] != 1)
            abort();

    char *decoded = qp_decode(strstr(msg, "\r\n\r\n") + 4);
    char *expected = body_lines(m->body);
    if (decoded == NULL || strcmp(decoded, expected) != 0)
        abort();
    free(decoded);
    free(expected);
}

/* notify_mail_message either refuses m with a reason or writes a message
 * check_wire accepts. */
static void check_message(const struct notify_mail *m)
{
    struct base_err err = { "" };
    char *msg = notify_mail_message(m, &err);
    if (msg == NULL) {
        if (err.text[0] == '\0')
            abort();
        return;
    }
    check_wire(m, msg);
    free(msg);
}

/* A diagram is ASCII and ends in '\n', or is empty; it fits `size`
 * (a heap buffer of exactly that size, so a write past it is caught). */
static void check_diagram(const char *variant, const char *fen, size_t size)
{
    char *out = malloc(size ? size : 1);
    size_t n = notify_diagram(variant, fen, out, size);
    if (size == 0) {
        if (n != 0)
            abort();
    } else if (n >= size || strlen(out) != n || !ascii_only(out) ||
               (n > 0 && out[n - 1] != '\n')) {
        abort();
    }
    free(out);
}

/*
 * What notify_mail_text and notify_mail_digest return: a refusal with a
 * reason, no body and an empty subject, or a subject that fits and a body
 * of '\n'-ended lines, which then goes into a message as the worker sends
 * it.
 */
static void check_words(bool ok, const char *subject, size_t subject_size, char *body,
                        const char *err, const struct notify_mail *m)
{
    if (!ok) {
        if (body != NULL || err[0] == '\0' || (subject_size > 0 && subject[0] != '\0'))
            abort();
        return;
    }
    size_t len = body ? strlen(body) : 0;
    if (body == NULL || strlen(subject) >= subject_size || len == 0 || body[len - 1] != '\n')
        abort();
    struct notify_mail sent = *m;
    sent.subject = subject;
    sent.body = body;
    check_message(&sent);
    free(body);
}

/* ---- Reading the input ------------------------------------------------------ */

/* Sets the members of a struct notify_mail or notify_about (which says
 * which) that the fields go to. */
static void set_members(void *target, enum target which, const char *const field[FIELD_COUNT])
{
    for (int f = 0; f < FIELD_COUNT; f++)
        if (routes[f][which] != NOWHERE)
            memcpy((char *)target + routes[f][which], &field[f], sizeof(const char *));
}

/* Splits data (copied into text, size + 1 bytes) into the head and the
 * fields. */
static void read_input(const uint8_t *data, size_t size, char *text, struct input *in)
{
    uint8_t head[HEAD_SIZE] = { 0 };
    size_t head_len = size < HEAD_SIZE ? size : HEAD_SIZE;
    uint64_t now = 0;

    memcpy(head, data, head_len);
    memcpy(&in->null_mask, head + HEAD_NULL_MASK, 4);
    in->kind = head[HEAD_KIND];
    in->sizes = head[HEAD_SIZES];
    in->games = head[HEAD_GAMES] % 4;
    memcpy(&in->ply, head + HEAD_PLY, 4);
    memcpy(&in->date, head + HEAD_DATE, 8);
    memcpy(&now, head + HEAD_NOW, 5);
    in->now = (long long)now;

    /* "a\0b" is two fields, "a\0" two ("a" and ""), nothing none. */
    size_t rest = size - head_len;
    memcpy(text, data + head_len, rest);
    text[rest] = '\0';
    const char *p = text;
    for (int f = 0; f < FIELD_COUNT; f++) {
        in->field[f] = NULL;
        if (rest > 0 && p <= text + rest) {
            if (!(in->null_mask & (UINT32_C(1) << f)))
                in->field[f] = p;
            p += strlen(p) + 1;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in;
    char *text = malloc(size + 1);
    read_input(data, size, text, &in);

    struct notify_mail m = { .date = (time_t)in.date };
    set_members(&m, IN_MAIL, in.field);
    check_message(&m);

    /* The diagram at full size and, when the head asks, in a small buffer. */
    for (int v = 0; variants[v]; v++) {
        check_diagram(variants[v], in.field[F_FEN], NOTIFY_DIAGRAM_MAX);
        if (in.sizes)
            check_diagram(variants[v], in.field[F_FEN], (size_t)in.sizes * 4 - 4);
    }

    size_t subject_size = in.sizes ? (size_t)in.sizes % 64 : NOTIFY_SUBJECT_MAX;
    char *subject = malloc(subject_size ? subject_size : 1);
    char *body = NULL;
    struct base_err err = { "" };

    struct notify_about a = { .kind = (enum notify_kind)(in.kind % (NOTIFY_KIND_COUNT + 2)),
                              .ply = in.ply, .now = in.now };
    set_members(&a, IN_ABOUT, in.field);
    bool ok = notify_mail_text(&a, subject, subject_size, &body, &err);
    check_words(ok, subject, subject_size, body, err.text, &m);

    struct notify_digest_game games[3];
    for (size_t g = 0; g < in.games; g++)
        games[g] = (struct notify_digest_game){
            .game_id = in.field[F_GAME_ID], .variant = in.field[F_VARIANT],
            .opponent_name = in.field[F_FROM_NAME], .my_color = in.field[F_MY_COLOR],
            .ply = in.ply, .last_san = in.field[F_LAST_SAN],
            /* The last game without a deadline, the others with one. */
            .deadline = g + 1 < in.games ? in.field[F_DEADLINE] : NULL,
            .game_url = in.field[F_GAME_URL],
        };
    struct notify_digest d = { .player_name = in.field[F_TO_NAME], .games = games,
                               .count = in.games, .now = in.now,
                               .settings_url = in.field[F_SETTINGS_URL] };
    body = NULL;
    err.text[0] = '\0';
    ok = notify_mail_digest(&d, subject, subject_size, &body, &err);
    check_words(ok, subject, subject_size, body, err.text, &m);

    free(subject);
    free(text);
    return 0;
}
