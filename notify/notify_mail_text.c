/*
 * notify_mail_text.c — the words of a notification mail: its subject and
 * its plain-text body (notify_mail_text), or a digest of several games
 * (notify_mail_digest).
 *
 * Subjects and bodies come from a table with one row per kind of
 * notification: templates with named {fields}, filled from a struct
 * notify_about.  Bodies are UTF-8 with '\n' line ends, wrapped at 72
 * columns; notify_mail_message.c turns them into a message.
 */
#include "notify_mail.h"

#include "base.h"
#include "db.h"
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    enum db_color c = DB_COLOR_NONE;
    db_color_parse(color, &c);
    return c == DB_COLOR_WHITE ? 0 : c == DB_COLOR_BLACK ? 1 : -1;
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
        /* ply / 2 + ply % 2 is the move number, (ply + 1) / 2 without
         * overflowing at INT_MAX. */
        snprintf(out, size, "%d%s %s", ply / 2 + ply % 2, ply % 2 ? "." : "...", san);
}

/* ---- Templates ------------------------------------------------------------- */

/* The {fields} a template may name, and what they are made from (for the
 * message when one is missing). */
enum field {
    FIELD_PLAYER, FIELD_OPPONENT, FIELD_GAME, FIELD_VARIANT, FIELD_COLOR, FIELD_RESULT,
    FIELD_HOW, FIELD_BY, FIELD_OUTCOME, FIELD_LEFT, FIELD_WEBHOOK, FIELD_REASON,
    FIELD_MOVE,
    FIELD_TOURNAMENT, FIELD_DECISION,
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
    [FIELD_MOVE] = { "move", "last_san" },
    [FIELD_TOURNAMENT] = { "tournament", "tournament_name" },
    [FIELD_DECISION] = { "decision", "arbiter_reason" },
};

/* What a kind's mail shows beyond its summary. */
enum {
    SHOW_MOVE = 1 << 0,           /* the opponent's last move */
    SHOW_DIAGRAM = 1 << 1,        /* the position, when fen is given */
    SHOW_DEADLINE = 1 << 2,       /* the deadline, when there is one */
    SHOW_GAME_URL = 1 << 3,
    SHOW_CHALLENGE_URL = 1 << 4,
    SHOW_CONFIRM_URL = 1 << 5,
    SHOW_MESSAGE = 1 << 6         /* the opponent's message, quoted */
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
    { NOTIFY_EMAIL_CONFIRM, "email-confirm",
      "Confirm your email address for korp",
      "This address was given for the korp account {player}. To get korp's mails here "
      "(your moves, challenges, results), confirm it with the link below within 3 days; "
      "until then korp sends nothing else to it. If you did not give it, ignore this "
      "mail: nothing more will come.",
      SHOW_CONFIRM_URL },
    { NOTIFY_MESSAGE, "message",
      "{opponent} sent you a message in game {game}",
      "{opponent} sent you a message in game {game} ({variant}):",
      SHOW_MESSAGE | SHOW_GAME_URL },
    { NOTIFY_CONDITIONAL_PLAYED, "conditional-played",
      "Your conditional move {move} was played in game {game}",
      "Your conditional move {move} was played in game {game} against {opponent} "
      "({variant}), as you had planned. It is {opponent}'s move now.",
      SHOW_DIAGRAM | SHOW_GAME_URL },
    { NOTIFY_ARBITER, "arbiter",
      "An arbiter has ruled on game {game}",
      "An arbiter has ruled on a claim or request in your game {game} ({variant}): "
      "{decision}",
      SHOW_DIAGRAM | SHOW_GAME_URL },
    { NOTIFY_TOURNAMENT_START, "tournament-start",
      "Tournament {tournament} has begun",
      "The round robin {tournament} ({variant}) has begun: all your games in it are "
      "made, and you can play them in any order.",
      0 },
    { NOTIFY_TOURNAMENT_END, "tournament-end",
      "Tournament {tournament} has ended",
      "The round robin {tournament} ({variant}) has ended: its last game is over.",
      0 },
    { NOTIFY_KIND_COUNT, NULL, NULL, NULL, 0 }
};

/*
 * Appends `template` with each {field} replaced by its value.  False with
 * a message naming what is missing when a field has no value.
 */
static bool expand(struct base_text *out, const char *template,
                   const char *const value[FIELD_COUNT], const char *kind, struct base_err *err)
{
    const char *p = template;
    while (*p) {
        const char *open = strchr(p, '{');
        if (open == NULL) {
            base_text_str(out, p);
            break;
        }
        base_text_add(out, p, (size_t)(open - p));
        const char *close = strchr(open, '}');
        size_t n = close ? (size_t)(close - open - 1) : 0;
        int f = 0;
        while (f < FIELD_COUNT && !(strlen(fields[f].name) == n &&
                                    memcmp(fields[f].name, open + 1, n) == 0))
            f++;
        if (f == FIELD_COUNT) {  /* a mistake in the table */
            base_err_set(err, "bad template for %s notifications", kind);
            return false;
        }
        if (value[f] == NULL || value[f][0] == '\0') {
            base_err_set(err, "%s notification needs %s", kind, fields[f].source);
            return false;
        }
        base_text_str(out, value[f]);
        p = close + 1;
    }
    return true;
}

/*
 * Appends a paragraph wrapped at 72 columns (UTF-8 characters), each line
 * starting with `indent`.  A word longer than a line (a URL) stands alone.
 */
static void add_wrapped(struct base_text *t, const char *para, const char *indent)
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
            base_text_str(t, "\n");
            col = 0;
        }
        if (col == 0) {
            base_text_str(t, indent);
            col = strlen(indent);
        } else {
            base_text_str(t, " ");
            col++;
        }
        base_text_add(t, p, n);
        col += chars;
        p += n;
    }
    base_text_str(t, "\n");
}

/* A URL on a line of its own, never wrapped. */
static void add_link(struct base_text *t, const char *before, const char *url)
{
    base_text_str(t, before);
    base_text_str(t, url);
    base_text_str(t, "\n");
}

static void add_footer(struct base_text *t, const char *settings_url)
{
    base_text_str(t, "\n-- \n");
    add_wrapped(t, "korp correspondence chess. You get this mail because email "
                   "notifications are on for your account. To choose which mails you "
                   "get, or to unsubscribe, go to your notification settings:", "");
    add_link(t, "", settings_url);
}

/* The last move as a paragraph: "alice's last move: 12... Nf6 (in the
 * inventor's Polish notation: S/f6)." */
static void add_move(struct base_text *t, const char *opponent, int ply, const char *san,
                     const char *polish)
{
    struct base_text para = { 0 };
    char move[64];
    move_words(ply, san, move, sizeof move);
    if (polish && polish[0])
        base_text_put(&para, "%s's last move: %s (in the inventor's Polish notation: %s).",
                 opponent, move, polish);
    else
        base_text_put(&para, "%s's last move: %s.", opponent, move);
    if (para.failed)
        t->failed = true;
    else
        add_wrapped(t, para.buf, "");
    free(para.buf);
}

/* A text quoted line by line ("> "), each line wrapped, after a blank line. */
static void add_quoted(struct base_text *t, const char *text)
{
    base_text_str(t, "\n");
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        char *line = strndup(p, n);
        if (line == NULL) {
            t->failed = true;
            return;
        }
        if (n == 0)
            base_text_str(t, ">\n");
        else
            add_wrapped(t, line, "> ");
        free(line);
        p += n;
        if (*p == '\n')
            p++;
    }
}

/* "Your deadline: Wednesday 25 November 2026, 13:45 UTC (in 24 hours)." */
static bool add_deadline(struct base_text *t, const char *label, const char *indent,
                         const char *deadline, long long now)
{
    long long when;
    char words[64], left[32];
    if (!time_parse(deadline, &when) || !time_words(when, words, sizeof words))
        return false;
    if (when > now) {
        time_left_words(when - now, left, sizeof left);
        base_text_put(t, "%s%s %s (in %s).\n", indent, label, words, left);
    } else {
        base_text_put(t, "%s%s %s (passed).\n", indent, label, words);
    }
    return true;
}

/* Hands out the body, or fails with the reason. */
static bool finish_body(struct base_text *t, char **body, struct base_err *err)
{
    *body = base_text_take(t);
    if (*body == NULL) {
        base_err_set(err, "out of memory writing a mail");
        return false;
    }
    return true;
}

bool notify_mail_text(const struct notify_about *a, char *subject, size_t subject_size,
                      char **body, struct base_err *err)
{
    bool ok = false;
    struct base_text t = { 0 }, subj = { 0 };
    char left[32] = "";
    *body = NULL;
    if (subject_size > 0)
        subject[0] = '\0';

    int k = 0;
    while (kinds[k].name != NULL && kinds[k].kind != a->kind)
        k++;
    if (kinds[k].name == NULL) {
        base_err_set(err, "unknown notification kind %d", (int)a->kind);
        goto done;
    }
    const char *kind = kinds[k].name;
    if (a->settings_url == NULL || a->settings_url[0] == '\0') {
        base_err_set(err, "%s notification needs settings_url", kind);
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
    value[FIELD_MOVE] = a->last_san;
    value[FIELD_TOURNAMENT] = a->tournament_name;
    value[FIELD_DECISION] = a->arbiter_reason;

    if (!expand(&subj, kinds[k].subject, value, kind, err))
        goto done;
    if (subj.failed || subj.len >= subject_size) {
        base_err_set(err, "%s notification: the subject does not fit", kind);
        goto done;
    }
    memcpy(subject, subj.buf, subj.len + 1);

    if (!expand(&t, "Hello {player},\n\n", value, kind, err))
        goto done;
    struct base_text summary = { 0 };
    bool expanded = expand(&summary, kinds[k].summary, value, kind, err);
    if (expanded && !summary.failed)
        add_wrapped(&t, summary.buf, "");
    free(summary.buf);
    if (!expanded)
        goto done;

    unsigned show = kinds[k].show;
    if (show & SHOW_MESSAGE) {
        if (a->message_text == NULL || a->message_text[0] == '\0') {
            base_err_set(err, "%s notification needs message_text", kind);
            goto done;
        }
        add_quoted(&t, a->message_text);
    }
    if ((show & SHOW_MOVE) && a->last_san && a->last_san[0] && a->opponent_name) {
        base_text_str(&t, "\n");
        add_move(&t, a->opponent_name, a->ply, a->last_san, a->last_polish);
    }
    if ((show & SHOW_DIAGRAM) && a->fen && a->fen[0]) {
        char diagram[NOTIFY_DIAGRAM_MAX];
        if (notify_diagram(a->variant, a->fen, diagram, sizeof diagram) == 0) {
            base_err_set(err, "%s notification: the rules refuse the position '%s'",
                     kind, a->fen);
            goto done;
        }
        base_text_str(&t, "\n");
        base_text_str(&t, diagram);
    }
    if ((show & SHOW_DEADLINE) && a->deadline && a->deadline[0]) {
        base_text_str(&t, "\n");
        if (!add_deadline(&t, "Your deadline:", "", a->deadline, a->now)) {
            base_err_set(err, "%s notification: unreadable deadline '%s'", kind,
                     a->deadline);
            goto done;
        }
    }
    if ((show & SHOW_DEADLINE) && a->fischer && a->my_time >= 0) {
        char time_left[32];
        time_left_words(a->my_time, time_left, sizeof time_left);
        base_text_put(&t, "Time on your clock: %s (Fischer).\n", time_left);
    }
    if ((show & SHOW_GAME_URL) && a->game_url && a->game_url[0])
        add_link(&t, "\nOpen the game:\n", a->game_url);
    if ((show & SHOW_CHALLENGE_URL) && a->challenge_url && a->challenge_url[0])
        add_link(&t, "\nSee the challenge:\n", a->challenge_url);
    if (show & SHOW_CONFIRM_URL) {
        if (a->confirm_url == NULL || a->confirm_url[0] == '\0') {
            base_err_set(err, "%s notification needs confirm_url", kind);
            goto done;
        }
        add_link(&t, "\nConfirm the address:\n", a->confirm_url);
    }
    add_footer(&t, a->settings_url);
    ok = finish_body(&t, body, err);

done:
    free(t.buf);
    free(subj.buf);
    if (!ok && subject_size > 0)
        subject[0] = '\0';
    return ok;
}

bool notify_mail_digest(const struct notify_digest *d, char *subject, size_t subject_size,
                        char **body, struct base_err *err)
{
    bool ok = false;
    struct base_text t = { 0 };
    *body = NULL;
    if (subject_size > 0)
        subject[0] = '\0';

    if (d->count == 0 || d->games == NULL) {
        base_err_set(err, "a digest needs at least one game");
        goto done;
    }
    if (d->player_name == NULL || d->player_name[0] == '\0' || d->settings_url == NULL ||
        d->settings_url[0] == '\0') {
        base_err_set(err, "a digest needs player_name and settings_url");
        goto done;
    }
    int n = snprintf(subject, subject_size, "Your move in %zu game%s", d->count,
                     d->count == 1 ? "" : "s");
    if (n < 0 || (size_t)n >= subject_size) {
        base_err_set(err, "digest: the subject does not fit");
        goto done;
    }

    base_text_put(&t, "Hello %s,\n\n", d->player_name);
    base_text_put(&t, "It is your move in %zu game%s:\n", d->count,
                    d->count == 1 ? "" : "s");
    for (size_t i = 0; i < d->count; i++) {
        const struct notify_digest_game *g = &d->games[i];
        const char *variant = variant_words(g->variant);
        int color = color_index(g->my_color);
        if (g->game_id == NULL || g->opponent_name == NULL || variant == NULL) {
            base_err_set(err, "digest game %zu needs game_id, opponent_name and a "
                     "known variant", i + 1);
            goto done;
        }
        base_text_put(&t, "\n* Game %s against %s (%s)", g->game_id, g->opponent_name,
                        variant);
        if (color >= 0)
            base_text_put(&t, ", you play %s", color_words[color]);
        base_text_str(&t, "\n");
        if (g->last_san && g->last_san[0]) {
            char move[64];
            move_words(g->ply, g->last_san, move, sizeof move);
            base_text_put(&t, "  Last move: %s\n", move);
        }
        if (g->deadline && g->deadline[0] &&
            !add_deadline(&t, "Deadline:", "  ", g->deadline, d->now)) {
            base_err_set(err, "digest game %s: unreadable deadline '%s'", g->game_id,
                     g->deadline);
            goto done;
        }
        if (g->game_url && g->game_url[0])
            add_link(&t, "  ", g->game_url);
    }
    add_footer(&t, d->settings_url);
    ok = finish_body(&t, body, err);

done:
    free(t.buf);
    if (!ok && subject_size > 0)
        subject[0] = '\0';
    return ok;
}
