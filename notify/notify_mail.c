/*
 * notify_mail.c — the words of a notification mail and the RFC 5322
 * message that carries them.
 *
 * The first half writes subjects and bodies from a table with one row per
 * kind of notification: templates with named {fields}, filled from a
 * struct notify_about.  The second half wraps a subject and a body into a
 * message: every header value is checked so that none can break a line
 * (header injection), non-ASCII text goes into RFC 2047 encoded words, and
 * the body is quoted-printable.  Why quoted-printable rather than 8bit: the
 * result is 7-bit ASCII with lines of at most 76 characters whatever the
 * text, so it passes relays without 8BITMIME, long lines (URLs) never need
 * the SMTP client to break them, and trailing spaces (the "-- " signature
 * line) survive; the text stays readable in the raw message.
 */
#include "notify_mail.h"

#include "base.h"
#include "rules.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- A growing text ------------------------------------------------------ */

struct text {
    char *buf;
    size_t len;
    size_t cap;
    bool failed;  /* out of memory: everything after is dropped */
};

static void text_add(struct text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *grown = realloc(t->buf, cap);
        if (grown == NULL) {
            t->failed = true;
            return;
        }
        t->buf = grown;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

static void text_str(struct text *t, const char *s) { text_add(t, s, strlen(s)); }

static void text_put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void text_put(struct text *t, const char *fmt, ...)
{
    char small[256], *piece = small;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (piece = malloc((size_t)n + 1)) != NULL)
        vsnprintf(piece, (size_t)n + 1, fmt, again);
    va_end(again);
    va_end(ap);
    if (n < 0 || piece == NULL)
        t->failed = true;
    else
        text_add(t, piece, (size_t)n);
    if (piece != small)
        free(piece);
}

/* Hands the text over (NULL if it failed) and empties t. */
static char *text_take(struct text *t)
{
    char *out = t->failed ? NULL : t->buf;
    if (out == NULL)
        free(t->buf);
    *t = (struct text){ 0 };
    return out;
}

/* ---- Times ----------------------------------------------------------------- */

static const char *const day_names[7] = { "Sunday", "Monday", "Tuesday", "Wednesday",
                                          "Thursday", "Friday", "Saturday" };
static const char *const month_names[12] = { "January", "February", "March", "April",
                                             "May", "June", "July", "August",
                                             "September", "October", "November",
                                             "December" };

/* Reads korpd's "2026-11-25T13:45:00Z" into Unix seconds. */
static bool time_parse(const char *text, long long *out)
{
    int year, month, day, hour, minute, second, used = 0;
    if (text == NULL || strlen(text) != 20 ||
        sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &year, &month, &day, &hour, &minute,
               &second, &used) != 6 || used != 20)
        return false;
    struct tm tm = { .tm_year = year - 1900, .tm_mon = month - 1, .tm_mday = day,
                     .tm_hour = hour, .tm_min = minute, .tm_sec = second };
    time_t t = timegm(&tm);
    /* timegm normalises 31 November into 1 December: refuse that. */
    if (t == (time_t)-1 || tm.tm_mon != month - 1 || tm.tm_mday != day ||
        tm.tm_hour != hour || tm.tm_min != minute || tm.tm_sec != second)
        return false;
    *out = (long long)t;
    return true;
}

/* "Wednesday 25 November 2026, 13:45 UTC" */
static bool time_words(long long when, char *out, size_t size)
{
    time_t t = (time_t)when;
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL)
        return false;
    snprintf(out, size, "%s %d %s %d, %02d:%02d UTC", day_names[tm.tm_wday], tm.tm_mday,
             month_names[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min);
    return true;
}

/* How long is left, rounded as a reader expects: "24 hours" for
 * 23:59:30, "3 days", "45 minutes"; never less than "1 minute". */
static void time_left_words(long long seconds, char *out, size_t size)
{
    long long minutes = (seconds + 59) / 60;
    long long hours = (seconds + 1800) / 3600;
    long long days = (seconds + 43200) / 86400;
    if (minutes < 1)
        minutes = 1;
    if (minutes < 60)
        snprintf(out, size, "%lld minute%s", minutes, minutes == 1 ? "" : "s");
    else if (hours < 48)
        snprintf(out, size, "%lld hour%s", hours, hours == 1 ? "" : "s");
    else
        snprintf(out, size, "%lld days", days);
}

/* ---- Words about games ----------------------------------------------------- */

/* Terminations as korpd stores them: the noun for a subject, the phrase
 * for a sentence. */
static const struct {
    const char *slug;
    const char *noun;
    const char *phrase;
} terminations[] = {
    { "checkmate", "checkmate", "by checkmate" },
    { "stalemate", "stalemate", "by stalemate" },
    { "insufficient-material", "insufficient material", "by insufficient material" },
    { "threefold", "threefold repetition", "by threefold repetition" },
    { "fifty-move", "fifty-move rule", "by the fifty-move rule" },
    { "agreement", "agreement", "by agreement" },
    { "resignation", "resignation", "by resignation" },
    { "timeout", "time", "on time" },
    { "adjudication", "adjudication", "by adjudication" },
    { "aborted", "aborted", "early (aborted)" },
    { NULL, NULL, NULL }
};

/* Results in the words of PGN, and what they mean to White and to Black. */
static const struct {
    const char *result;
    const char *text;
    const char *for_color[2];
} results[] = {
    { "1-0", "1-0", { "You won.", "You lost." } },
    { "0-1", "0-1", { "You lost.", "You won." } },
    { "1/2-1/2", "1/2-1/2", { "It is a draw.", "It is a draw." } },
    { "3/4-1/4", "3/4-1/4", { "You stalemated your opponent: 3/4 point for you.",
                              "You were stalemated: 1/4 point for you." } },
    { "1/4-3/4", "1/4-3/4", { "You were stalemated: 1/4 point for you.",
                              "You stalemated your opponent: 3/4 point for you." } },
    { "*", "no result", { "Neither side scores.", "Neither side scores." } },
    { NULL, NULL, { NULL, NULL } }
};

/* 0 for "white", 1 for "black", -1 otherwise. */
static int color_index(const char *color)
{
    if (color == NULL)
        return -1;
    return strcmp(color, "white") == 0 ? 0 : strcmp(color, "black") == 0 ? 1 : -1;
}

static const char *const color_words[2] = { "White", "Black" };

/* "Korpalski", "Glinski", or NULL for an unknown variant. */
static const char *variant_words(const char *variant)
{
    const struct rules_variant *v = variant ? rules_variant_find(variant) : NULL;
    return v ? v->pgn_name : NULL;
}

/* "12. Nf3" after White's 12th move (ply 23), "12... Nf6" after Black's. */
static void move_words(int ply, const char *san, char *out, size_t size)
{
    if (ply <= 0)
        snprintf(out, size, "%s", san);
    else
        snprintf(out, size, "%d%s %s", (ply + 1) / 2, ply % 2 ? "." : "...", san);
}

/* ---- Templates ------------------------------------------------------------- */

/* The {fields} a template may name, and what they are made from (for the
 * message when one is missing). */
enum field {
    FIELD_PLAYER, FIELD_OPPONENT, FIELD_GAME, FIELD_VARIANT, FIELD_COLOR, FIELD_RESULT,
    FIELD_HOW, FIELD_BY, FIELD_OUTCOME, FIELD_LEFT, FIELD_WEBHOOK, FIELD_REASON,
    FIELD_COUNT
};

static const struct {
    const char *name;
    const char *source;
} fields[FIELD_COUNT] = {
    [FIELD_PLAYER] = { "player", "player_name" },
    [FIELD_OPPONENT] = { "opponent", "opponent_name" },
    [FIELD_GAME] = { "game", "game_id" },
    [FIELD_VARIANT] = { "variant", "a known variant" },
    [FIELD_COLOR] = { "color", "my_color white or black" },
    [FIELD_RESULT] = { "result", "result" },
    [FIELD_HOW] = { "how", "termination" },
    [FIELD_BY] = { "by", "termination" },
    [FIELD_OUTCOME] = { "outcome", "result and my_color" },
    [FIELD_LEFT] = { "left", "a readable deadline" },
    [FIELD_WEBHOOK] = { "webhook", "webhook_url" },
    [FIELD_REASON] = { "reason", "webhook_reason" },
};

/* What a kind's mail shows beyond its summary. */
enum {
    SHOW_MOVE = 1 << 0,           /* the opponent's last move */
    SHOW_DIAGRAM = 1 << 1,        /* the position, when fen is given */
    SHOW_DEADLINE = 1 << 2,       /* the deadline, when there is one */
    SHOW_GAME_URL = 1 << 3,
    SHOW_CHALLENGE_URL = 1 << 4
};

static const struct {
    enum notify_kind kind;
    const char *name;       /* for messages */
    const char *subject;
    const char *summary;    /* the first paragraph */
    unsigned show;
} kinds[] = {
    { NOTIFY_YOUR_MOVE, "your-move",
      "Your move in game {game} against {opponent} ({variant})",
      "It is your move in game {game} against {opponent} ({variant}). You play {color}.",
      SHOW_MOVE | SHOW_DIAGRAM | SHOW_DEADLINE | SHOW_GAME_URL },
    { NOTIFY_CHALLENGE, "challenge",
      "{opponent} challenges you to a game of {variant}",
      "{opponent} challenges you to a game of {variant}. You can accept or decline the "
      "challenge on its page.",
      SHOW_CHALLENGE_URL },
    { NOTIFY_GAME_START, "game-start",
      "New game {game} against {opponent} ({variant})",
      "Your game {game} against {opponent} ({variant}) has begun. You play {color}.",
      SHOW_DIAGRAM | SHOW_DEADLINE | SHOW_GAME_URL },
    { NOTIFY_DRAW_OFFER, "draw-offer",
      "{opponent} offers a draw in game {game}",
      "{opponent} offers a draw in game {game} ({variant}). You can accept or decline "
      "it on the game's page.",
      SHOW_MOVE | SHOW_DIAGRAM | SHOW_DEADLINE | SHOW_GAME_URL },
    { NOTIFY_GAME_END, "game-end",
      "Game {game} against {opponent} ended: {result} ({how})",
      "Your game {game} against {opponent} ({variant}) has ended {by}: {result}. {outcome}",
      SHOW_MOVE | SHOW_DIAGRAM | SHOW_GAME_URL },
    { NOTIFY_DEADLINE_NEAR, "deadline-near",
      "{left} left for your move in game {game} against {opponent}",
      "Your time for a move in game {game} against {opponent} ({variant}) runs out in "
      "{left}. If you do not move by then, the game ends on time: you lose, or draw if "
      "{opponent} has no mating material.",
      SHOW_MOVE | SHOW_DIAGRAM | SHOW_DEADLINE | SHOW_GAME_URL },
    { NOTIFY_CHALLENGE_DECLINED, "challenge-declined",
      "{opponent} declined your challenge to a game of {variant}",
      "{opponent} declined your challenge to a game of {variant}.",
      0 },
    { NOTIFY_CHALLENGE_CANCELED, "challenge-canceled",
      "{opponent} withdrew the challenge to a game of {variant}",
      "{opponent} withdrew the challenge to a game of {variant} that was waiting for "
      "your answer.",
      0 },
    { NOTIFY_CLAIM, "claim",
      "{opponent} claimed a draw in game {game} ({how})",
      "{opponent} claimed a draw {by} in game {game} ({variant}). The claim was valid: "
      "the game is drawn.",
      SHOW_DIAGRAM | SHOW_GAME_URL },
    { NOTIFY_WEBHOOK_DISABLED, "webhook-disabled",
      "Your korp webhook was turned off",
      "Your webhook {webhook} was turned off after its deliveries kept failing: "
      "{reason}. Turn it on again in your settings once it answers.",
      0 },
    { NOTIFY_KIND_COUNT, NULL, NULL, NULL, 0 }
};

/*
 * Appends `template` with each {field} replaced by its value.  False with
 * a message naming what is missing when a field has no value.
 */
static bool expand(struct text *out, const char *template, const char *const value[FIELD_COUNT],
                   const char *kind, char *err, size_t errsize)
{
    const char *p = template;
    while (*p) {
        const char *open = strchr(p, '{');
        if (open == NULL) {
            text_str(out, p);
            break;
        }
        text_add(out, p, (size_t)(open - p));
        const char *close = strchr(open, '}');
        size_t n = close ? (size_t)(close - open - 1) : 0;
        int f = 0;
        while (f < FIELD_COUNT && !(strlen(fields[f].name) == n &&
                                    memcmp(fields[f].name, open + 1, n) == 0))
            f++;
        if (f == FIELD_COUNT) {  /* a mistake in the table */
            snprintf(err, errsize, "bad template for %s notifications", kind);
            return false;
        }
        if (value[f] == NULL || value[f][0] == '\0') {
            snprintf(err, errsize, "%s notification needs %s", kind, fields[f].source);
            return false;
        }
        text_str(out, value[f]);
        p = close + 1;
    }
    return true;
}

/*
 * Appends a paragraph wrapped at 72 columns (UTF-8 characters), each line
 * starting with `indent`.  A word longer than a line (a URL) stands alone.
 */
static void add_wrapped(struct text *t, const char *para, const char *indent)
{
    enum { WIDTH = 72 };
    size_t col = 0;
    const char *p = para;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n == 0)
            break;
        size_t chars = 0;
        for (size_t i = 0; i < n; i++)
            chars += ((unsigned char)p[i] & 0xC0) != 0x80;
        if (col > 0 && col + 1 + chars > WIDTH) {
            text_str(t, "\n");
            col = 0;
        }
        if (col == 0) {
            text_str(t, indent);
            col = strlen(indent);
        } else {
            text_str(t, " ");
            col++;
        }
        text_add(t, p, n);
        col += chars;
        p += n;
    }
    text_str(t, "\n");
}

/* A URL on a line of its own, never wrapped. */
static void add_link(struct text *t, const char *before, const char *url)
{
    text_str(t, before);
    text_str(t, url);
    text_str(t, "\n");
}

static void add_footer(struct text *t, const char *settings_url)
{
    text_str(t, "\n-- \n");
    add_wrapped(t, "korp correspondence chess. You get this mail because email "
                   "notifications are on for your account. To choose which mails you "
                   "get, or to unsubscribe, go to your notification settings:", "");
    add_link(t, "", settings_url);
}

/* The last move as a paragraph: "alice's last move: 12... Nf6 (in the
 * inventor's Polish notation: S/f6)." */
static void add_move(struct text *t, const char *opponent, int ply, const char *san,
                     const char *polish)
{
    struct text para = { 0 };
    char move[64];
    move_words(ply, san, move, sizeof move);
    if (polish && polish[0])
        text_put(&para, "%s's last move: %s (in the inventor's Polish notation: %s).",
                 opponent, move, polish);
    else
        text_put(&para, "%s's last move: %s.", opponent, move);
    if (para.failed)
        t->failed = true;
    else
        add_wrapped(t, para.buf, "");
    free(para.buf);
}

/* "Your deadline: Wednesday 25 November 2026, 13:45 UTC (in 24 hours)." */
static bool add_deadline(struct text *t, const char *label, const char *indent,
                         const char *deadline, long long now)
{
    long long when;
    char words[64], left[32];
    if (!time_parse(deadline, &when) || !time_words(when, words, sizeof words))
        return false;
    if (when > now) {
        time_left_words(when - now, left, sizeof left);
        text_put(t, "%s%s %s (in %s).\n", indent, label, words, left);
    } else {
        text_put(t, "%s%s %s (passed).\n", indent, label, words);
    }
    return true;
}

/* Hands out the body, or fails with the reason. */
static bool finish_body(struct text *t, char **body, char *err, size_t errsize)
{
    *body = text_take(t);
    if (*body == NULL) {
        snprintf(err, errsize, "out of memory writing a mail");
        return false;
    }
    return true;
}

bool notify_mail_text(const struct notify_about *a, char *subject, size_t subject_size,
                      char **body, char *err, size_t errsize)
{
    bool ok = false;
    struct text t = { 0 }, subj = { 0 };
    char left[32] = "";
    *body = NULL;
    if (subject_size > 0)
        subject[0] = '\0';

    int k = 0;
    while (kinds[k].name != NULL && kinds[k].kind != a->kind)
        k++;
    if (kinds[k].name == NULL) {
        snprintf(err, errsize, "unknown notification kind %d", (int)a->kind);
        goto done;
    }
    const char *kind = kinds[k].name;
    if (a->settings_url == NULL || a->settings_url[0] == '\0') {
        snprintf(err, errsize, "%s notification needs settings_url", kind);
        goto done;
    }

    /* The values of the template fields: NULL where the facts are missing. */
    const char *value[FIELD_COUNT] = { 0 };
    int color = color_index(a->my_color);
    long long when;
    value[FIELD_PLAYER] = a->player_name;
    value[FIELD_OPPONENT] = a->opponent_name;
    value[FIELD_GAME] = a->game_id;
    value[FIELD_VARIANT] = variant_words(a->variant);
    value[FIELD_COLOR] = color >= 0 ? color_words[color] : NULL;
    for (int i = 0; a->termination && terminations[i].slug; i++)
        if (strcmp(terminations[i].slug, a->termination) == 0) {
            value[FIELD_HOW] = terminations[i].noun;
            value[FIELD_BY] = terminations[i].phrase;
        }
    for (int i = 0; a->result && results[i].result; i++)
        if (strcmp(results[i].result, a->result) == 0) {
            value[FIELD_RESULT] = results[i].text;
            value[FIELD_OUTCOME] = color >= 0 ? results[i].for_color[color] : NULL;
        }
    if (a->deadline && time_parse(a->deadline, &when)) {
        time_left_words(when - a->now, left, sizeof left);
        value[FIELD_LEFT] = left;
    }
    value[FIELD_WEBHOOK] = a->webhook_url;
    value[FIELD_REASON] = a->webhook_reason;

    if (!expand(&subj, kinds[k].subject, value, kind, err, errsize))
        goto done;
    if (subj.failed || subj.len >= subject_size) {
        snprintf(err, errsize, "%s notification: the subject does not fit", kind);
        goto done;
    }
    memcpy(subject, subj.buf, subj.len + 1);

    if (!expand(&t, "Hello {player},\n\n", value, kind, err, errsize))
        goto done;
    struct text summary = { 0 };
    bool expanded = expand(&summary, kinds[k].summary, value, kind, err, errsize);
    if (expanded && !summary.failed)
        add_wrapped(&t, summary.buf, "");
    free(summary.buf);
    if (!expanded)
        goto done;

    unsigned show = kinds[k].show;
    if ((show & SHOW_MOVE) && a->last_san && a->last_san[0] && a->opponent_name) {
        text_str(&t, "\n");
        add_move(&t, a->opponent_name, a->ply, a->last_san, a->last_polish);
    }
    if ((show & SHOW_DIAGRAM) && a->fen && a->fen[0]) {
        char diagram[NOTIFY_DIAGRAM_MAX];
        if (notify_diagram(a->variant, a->fen, diagram, sizeof diagram) == 0) {
            snprintf(err, errsize, "%s notification: the rules refuse the position '%s'",
                     kind, a->fen);
            goto done;
        }
        text_str(&t, "\n");
        text_str(&t, diagram);
    }
    if ((show & SHOW_DEADLINE) && a->deadline && a->deadline[0]) {
        text_str(&t, "\n");
        if (!add_deadline(&t, "Your deadline:", "", a->deadline, a->now)) {
            snprintf(err, errsize, "%s notification: unreadable deadline '%s'", kind,
                     a->deadline);
            goto done;
        }
    }
    if ((show & SHOW_GAME_URL) && a->game_url && a->game_url[0])
        add_link(&t, "\nOpen the game:\n", a->game_url);
    if ((show & SHOW_CHALLENGE_URL) && a->challenge_url && a->challenge_url[0])
        add_link(&t, "\nSee the challenge:\n", a->challenge_url);
    add_footer(&t, a->settings_url);
    ok = finish_body(&t, body, err, errsize);

done:
    free(t.buf);
    free(subj.buf);
    if (!ok && subject_size > 0)
        subject[0] = '\0';
    return ok;
}

bool notify_mail_digest(const struct notify_digest *d, char *subject, size_t subject_size,
                        char **body, char *err, size_t errsize)
{
    bool ok = false;
    struct text t = { 0 };
    *body = NULL;
    if (subject_size > 0)
        subject[0] = '\0';

    if (d->count == 0 || d->games == NULL) {
        snprintf(err, errsize, "a digest needs at least one game");
        goto done;
    }
    if (d->player_name == NULL || d->player_name[0] == '\0' || d->settings_url == NULL ||
        d->settings_url[0] == '\0') {
        snprintf(err, errsize, "a digest needs player_name and settings_url");
        goto done;
    }
    int n = snprintf(subject, subject_size, "Your move in %zu game%s", d->count,
                     d->count == 1 ? "" : "s");
    if (n < 0 || (size_t)n >= subject_size) {
        snprintf(err, errsize, "digest: the subject does not fit");
        goto done;
    }

    text_put(&t, "Hello %s,\n\n", d->player_name);
    text_put(&t, "It is your move in %zu game%s:\n", d->count, d->count == 1 ? "" : "s");
    for (size_t i = 0; i < d->count; i++) {
        const struct notify_digest_game *g = &d->games[i];
        const char *variant = variant_words(g->variant);
        int color = color_index(g->my_color);
        if (g->game_id == NULL || g->opponent_name == NULL || variant == NULL) {
            snprintf(err, errsize, "digest game %zu needs game_id, opponent_name and a "
                     "known variant", i + 1);
            goto done;
        }
        text_put(&t, "\n* Game %s against %s (%s)", g->game_id, g->opponent_name, variant);
        if (color >= 0)
            text_put(&t, ", you play %s", color_words[color]);
        text_str(&t, "\n");
        if (g->last_san && g->last_san[0]) {
            char move[64];
            move_words(g->ply, g->last_san, move, sizeof move);
            text_put(&t, "  Last move: %s\n", move);
        }
        if (g->deadline && g->deadline[0] &&
            !add_deadline(&t, "Deadline:", "  ", g->deadline, d->now)) {
            snprintf(err, errsize, "digest game %s: unreadable deadline '%s'", g->game_id,
                     g->deadline);
            goto done;
        }
        if (g->game_url && g->game_url[0])
            add_link(&t, "  ", g->game_url);
    }
    add_footer(&t, d->settings_url);
    ok = finish_body(&t, body, err, errsize);

done:
    free(t.buf);
    if (!ok && subject_size > 0)
        subject[0] = '\0';
    return ok;
}

/* ---- Checking header values -------------------------------------------------- */

/* Length of the UTF-8 sequence at s (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 if it is not one. */
static size_t utf8_sequence(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (n == 0 || s[0] > 0xF4)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] > 0x9F) ||
        (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] > 0x8F))
        return 0;
    return n;
}

/*
 * Whether `s` may go into a header: not too long, no control character
 * (which is what a line break is), UTF-8, and ASCII when `ascii` is set.
 */
static bool check_text(const char *what, const char *s, bool ascii, char *err, size_t errsize)
{
    size_t len = strlen(s);
    if (len > NOTIFY_HEADER_TEXT_MAX) {
        snprintf(err, errsize, "%s is too long: %zu bytes, at most %d", what, len,
                 NOTIFY_HEADER_TEXT_MAX);
        return false;
    }
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7F) {
            snprintf(err, errsize, "%s contains a control character (0x%02x) at byte %zu",
                     what, c, i);
            return false;
        }
        if (c >= 0x80 && ascii) {
            snprintf(err, errsize, "%s must be ASCII", what);
            return false;
        }
        size_t n = utf8_sequence((const unsigned char *)s + i);
        if (n == 0) {
            snprintf(err, errsize, "%s is not valid UTF-8 at byte %zu", what, i);
            return false;
        }
        i += n;
    }
    return true;
}

/* RFC 5322 atext: what an atom or a dot-atom's parts may hold. */
static bool is_atext(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("!#$%&'*+-/=?^_`{|}~", c) != NULL);
}

/* A dot-atom-text of n bytes: atext runs joined by single dots. */
static bool is_dot_atom(const char *s, size_t n)
{
    if (n == 0 || s[0] == '.' || s[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '.' ? s[i + 1] == '.' : !is_atext(s[i]))
            return false;
    return true;
}

/* A host name of n bytes: labels of letters, digits and inner hyphens. */
static bool is_domain(const char *s, size_t n)
{
    if (n == 0 || n > 253)
        return false;
    size_t label = 0;
    for (size_t i = 0; i <= n; i++) {
        char c = i < n ? s[i] : '.';
        if (c == '.') {
            if (label == 0 || label > 63 || s[i - 1] == '-' || s[i - label] == '-')
                return false;
            label = 0;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   (c >= '0' && c <= '9') || c == '-') {
            label++;
        } else {
            return false;
        }
    }
    return true;
}

/* A plausible mailbox: dot-atom local part, '@', host name; no quoting,
 * spaces or angle brackets. */
static bool check_address(const char *what, const char *s, char *err, size_t errsize)
{
    if (s == NULL || s[0] == '\0') {
        snprintf(err, errsize, "%s is missing", what);
        return false;
    }
    if (!check_text(what, s, true, err, errsize))
        return false;
    const char *at = strrchr(s, '@');
    if (at == NULL || at - s > 64 || !is_dot_atom(s, (size_t)(at - s)) ||
        !is_domain(at + 1, strlen(at + 1))) {
        snprintf(err, errsize, "%s '%s' is not a plain address like name@example.org", what,
                 s);
        return false;
    }
    return true;
}

/* ---- Writing headers ----------------------------------------------------------- */

enum { LINE_SOFT_MAX = 78, LINE_HARD_MAX = 998 };

/* One header field being written, folded before words that would pass
 * column 78. */
struct header {
    struct text *t;
    size_t column;   /* characters on the current line */
    bool has_word;   /* the current line holds a word after the name */
};

static void header_begin(struct header *h, struct text *t, const char *name)
{
    *h = (struct header){ .t = t, .column = strlen(name) + 1 };
    text_str(t, name);
    text_str(t, ":");
}

/* Adds " word", on a new line when the current one would grow too long. */
static void header_word(struct header *h, const char *word, size_t n)
{
    if (h->has_word && n > 0 && h->column + 1 + n > LINE_SOFT_MAX) {
        text_str(h->t, "\r\n");
        h->column = 0;
    }
    text_str(h->t, " ");
    text_add(h->t, word, n);
    h->column += 1 + n;
    h->has_word = true;
}

static void header_end(struct header *h) { text_str(h->t, "\r\n"); }

static void base64(const unsigned char *in, size_t n, char *out)
{
    static const char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = digits[v >> 18 & 63];
        out[o++] = digits[v >> 12 & 63];
        out[o++] = i + 1 < n ? digits[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? digits[v & 63] : '=';
    }
    out[o] = '\0';
}

/*
 * Adds UTF-8 text as RFC 2047 encoded words, each whole characters and at
 * most 42 bytes (56 base64 characters: a word of 68, a folded line of 69).
 * Decoders drop the white space between adjacent encoded words.
 */
static void header_encoded(struct header *h, const char *s)
{
    enum { CHUNK = 42 };
    size_t len = strlen(s), i = 0;
    while (i < len) {
        size_t n = 0;
        while (i + n < len) {
            size_t step = utf8_sequence((const unsigned char *)s + i + n);
            if (step == 0 || n + step > CHUNK)
                break;
            n += step;
        }
        char word[12 + 4 * CHUNK / 3 + 1];
        memcpy(word, "=?UTF-8?B?", 10);
        base64((const unsigned char *)s + i, n, word + 10);
        strcat(word, "?=");
        header_word(h, word, strlen(word));
        i += n;
    }
}

static bool is_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80)
            return false;
    return true;
}

/* Unstructured text (Subject): ASCII as it is, folded at its spaces;
 * anything else, or anything a decoder could take for an encoded word,
 * as encoded words. */
static void header_unstructured(struct header *h, const char *s)
{
    if (!is_ascii(s) || strstr(s, "=?") != NULL) {
        header_encoded(h, s);
        return;
    }
    for (;;) {
        size_t n = strcspn(s, " ");
        header_word(h, s, n);
        if (s[n] == '\0')
            break;
        s += n + 1;
    }
}

/*
 * A display name and address: `name <local@domain>`, the name as atoms
 * when it is words of atext, as a quoted string when it is other printable
 * ASCII that fits the line, and as encoded words otherwise.
 */
static void header_mailbox(struct header *h, const char *name, const char *address)
{
    char angle[NOTIFY_HEADER_TEXT_MAX + 3];
    snprintf(angle, sizeof angle, "<%s>", address);
    if (name == NULL || name[0] == '\0') {
        header_word(h, address, strlen(address));
        return;
    }

    bool atoms = strstr(name, "=?") == NULL && name[0] != ' ';
    bool printable = true;
    size_t quoted_len = 2;
    for (const char *p = name; *p; p++) {
        if (!(is_atext(*p) || (*p == ' ' && p[1] != ' ' && p[1] != '\0')))
            atoms = false;
        if ((unsigned char)*p >= 0x80)
            printable = false;
        quoted_len += (*p == '"' || *p == '\\') ? 2 : 1;
    }
    if (atoms) {
        header_unstructured(h, name);
    } else if (printable && h->column + 1 + quoted_len + 1 + strlen(angle) <= LINE_SOFT_MAX) {
        char quoted[LINE_SOFT_MAX + 1];
        size_t q = 0;
        quoted[q++] = '"';
        for (const char *p = name; *p; p++) {
            if (*p == '"' || *p == '\\')
                quoted[q++] = '\\';
            quoted[q++] = *p;
        }
        quoted[q++] = '"';
        header_word(h, quoted, q);
    } else {
        header_encoded(h, name);
    }
    header_word(h, angle, strlen(angle));
}

/* "Wed, 25 Nov 2026 13:45:00 +0000" (RFC 5322 section 3.3). */
static bool date_header(time_t date, char *out, size_t size)
{
    struct tm tm;
    if (gmtime_r(&date, &tm) == NULL || tm.tm_year + 1900 > 9999 || tm.tm_year + 1900 < 1900)
        return false;
    snprintf(out, size, "%.3s, %d %.3s %04d %02d:%02d:%02d +0000", day_names[tm.tm_wday],
             tm.tm_mday, month_names[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
             tm.tm_sec);
    return true;
}

/* ---- The body ------------------------------------------------------------------ */

/*
 * Appends `body` quoted-printable (RFC 2045 section 6.7) with CRLF line
 * ends: '\n' and "\r\n" end a line; lines are at most 76 characters with
 * soft breaks; '=', bytes outside printable ASCII, a space or tab ending a
 * line, and (RFC 2049 section 3) a line's leading '.' or the F of a
 * leading "From " are encoded.
 */
static void add_quoted_printable(struct text *t, const char *body)
{
    enum { QP_LINE = 75 };  /* and the soft break's '=' */
    const char *p = body;
    while (*p) {
        size_t n = strcspn(p, "\n");
        size_t end = n;
        if (end > 0 && p[end - 1] == '\r')
            end--;
        size_t column = 0;
        for (size_t i = 0; i < end; i++) {
            unsigned char c = (unsigned char)p[i];
            bool blank = c == ' ' || c == '\t';
            for (int attempt = 0; attempt < 2; attempt++) {
                bool encode = (c < 33 && !blank) || c > 126 || c == '=' ||
                              (blank && i + 1 == end) ||
                              (column == 0 && (c == '.' ||
                                               (c == 'F' && strncmp(p + i, "From ", 5) == 0)));
                size_t width = encode ? 3 : 1;
                if (column + width > QP_LINE) {
                    text_str(t, "=\r\n");
                    column = 0;
                    continue;  /* decide again at the start of a line */
                }
                if (encode)
                    text_put(t, "=%02X", c);
                else
                    text_add(t, (const char *)&c, 1);
                column += width;
                break;
            }
        }
        text_str(t, "\r\n");
        p += n;
        if (*p == '\n')
            p++;
    }
}

/* ---- The message --------------------------------------------------------------- */

char *notify_mail_message(const struct notify_mail *m, char *err, size_t errsize)
{
    char *message = NULL;
    struct text t = { 0 };
    struct header h;

    if (!check_address("from address", m->from_address, err, errsize) ||
        !check_address("to address", m->to_address, err, errsize))
        goto done;
    if ((m->from_name && !check_text("from name", m->from_name, false, err, errsize)) ||
        (m->to_name && !check_text("to name", m->to_name, false, err, errsize)))
        goto done;
    if (m->subject == NULL || !check_text("subject", m->subject, false, err, errsize)) {
        if (m->subject == NULL)
            snprintf(err, errsize, "subject is missing");
        goto done;
    }
    if (m->body == NULL) {
        snprintf(err, errsize, "body is missing");
        goto done;
    }
    for (size_t i = 0; m->body[i];) {
        size_t n = utf8_sequence((const unsigned char *)m->body + i);
        if (n == 0) {
            snprintf(err, errsize, "body is not valid UTF-8 at byte %zu", i);
            goto done;
        }
        i += n;
    }

    char id[NOTIFY_HEADER_TEXT_MAX + 3];
    if (m->message_id != NULL) {
        const char *at = strrchr(m->message_id, '@');
        if (!check_text("message id", m->message_id, true, err, errsize))
            goto done;
        if (at == NULL || !is_dot_atom(m->message_id, (size_t)(at - m->message_id)) ||
            !is_dot_atom(at + 1, strlen(at + 1))) {
            snprintf(err, errsize, "message id '%s' is not of the form left@right",
                     m->message_id);
            goto done;
        }
        snprintf(id, sizeof id, "<%s>", m->message_id);
    } else {
        const char *domain = m->message_id_domain ? m->message_id_domain
                                                  : strrchr(m->from_address, '@') + 1;
        char random[25];
        if (!check_text("message id domain", domain, true, err, errsize))
            goto done;
        if (!is_domain(domain, strlen(domain))) {
            snprintf(err, errsize, "message id domain '%s' is not a host name", domain);
            goto done;
        }
        if (!base_random_text(random, sizeof random - 1)) {
            snprintf(err, errsize, "no random bytes for a message id");
            goto done;
        }
        snprintf(id, sizeof id, "<%s@%s>", random, domain);
    }

    const char *url = m->unsubscribe_url;
    bool https = false;
    if (url != NULL) {
        if (!check_text("unsubscribe url", url, true, err, errsize))
            goto done;
        https = strncmp(url, "https://", 8) == 0;
        if ((!https && strncmp(url, "http://", 7) != 0) || strpbrk(url, " <>\"") != NULL) {
            snprintf(err, errsize, "unsubscribe url '%s' must be an http(s) URL without "
                     "spaces, quotes or angle brackets", url);
            goto done;
        }
    }

    char date[64];
    if (!date_header(m->date, date, sizeof date)) {
        snprintf(err, errsize, "date %lld cannot be written", (long long)m->date);
        goto done;
    }

    header_begin(&h, &t, "Date");
    header_word(&h, date, strlen(date));
    header_end(&h);
    header_begin(&h, &t, "From");
    header_mailbox(&h, m->from_name, m->from_address);
    header_end(&h);
    header_begin(&h, &t, "To");
    header_mailbox(&h, m->to_name, m->to_address);
    header_end(&h);
    header_begin(&h, &t, "Subject");
    header_unstructured(&h, m->subject);
    header_end(&h);
    header_begin(&h, &t, "Message-ID");
    header_word(&h, id, strlen(id));
    header_end(&h);
    text_str(&t, "MIME-Version: 1.0\r\n"
                 "Content-Type: text/plain; charset=UTF-8\r\n"
                 "Content-Transfer-Encoding: quoted-printable\r\n"
                 "Auto-Submitted: auto-generated\r\n");
    if (url != NULL) {
        char angle[NOTIFY_HEADER_TEXT_MAX + 3];
        snprintf(angle, sizeof angle, "<%s>", url);
        header_begin(&h, &t, "List-Unsubscribe");
        header_word(&h, angle, strlen(angle));
        header_end(&h);
        /* One-click unsubscribing needs an https URL (RFC 8058 section 3). */
        if (https)
            text_str(&t, "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n");
    }
    text_str(&t, "\r\n");
    add_quoted_printable(&t, m->body);

    if (t.failed) {
        snprintf(err, errsize, "out of memory writing a mail");
        goto done;
    }
    /* The folding keeps lines short; make sure nothing slipped past 998. */
    for (const char *line = t.buf; *line;) {
        const char *crlf = strstr(line, "\r\n");
        if (crlf == NULL || crlf - line > LINE_HARD_MAX) {
            snprintf(err, errsize, "a header line would exceed %d characters", LINE_HARD_MAX);
            goto done;
        }
        line = crlf + 2;
    }
    message = text_take(&t);

done:
    free(t.buf);
    return message;
}
