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
#include "i18n.h"
#include "rules.h"

#include <stdarg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Times ----------------------------------------------------------------- */

/* Every text below is an English msgid (N_) said in the
 * recipient's language by i18n_text (po/<lang>.po). */
static const char *const day_names[7] = { N_("Sunday"), N_("Monday"), N_("Tuesday"),
                                          N_("Wednesday"), N_("Thursday"), N_("Friday"),
                                          N_("Saturday") };
/* Months as a date says them ("25 November 2026"): Polish puts them in the
 * genitive there. */
static const char *const month_names[12] = { N_("January"), N_("February"), N_("March"),
                                              N_("April"), N_("May"), N_("June"), N_("July"),
                                              N_("August"), N_("September"), N_("October"),
                                              N_("November"), N_("December") };

/*
 * Appends `template` in `language` with each {name} replaced by the value
 * given after it: fill(t, lang, "{a} and {b}", "a", x, "b", y, NULL).  A
 * name without a value stays as it is.
 */
static void fill(struct base_text *t, const char *language, const char *template, ...)
{
    const char *p = i18n_text(language, template);
    while (*p) {
        const char *open = strchr(p, '{');
        const char *close = open ? strchr(open, '}') : NULL;
        if (close == NULL) {
            base_text_str(t, p);
            return;
        }
        base_text_add(t, p, (size_t)(open - p));
        const char *value = NULL;
        va_list ap;
        va_start(ap, template);
        for (const char *name; value == NULL && (name = va_arg(ap, const char *)) != NULL;) {
            const char *v = va_arg(ap, const char *);
            if (strlen(name) == (size_t)(close - open - 1) &&
                memcmp(name, open + 1, (size_t)(close - open - 1)) == 0)
                value = v;
        }
        va_end(ap);
        if (value != NULL)
            base_text_str(t, value);
        else
            base_text_add(t, open, (size_t)(close - open + 1));
        p = close + 1;
    }
}

/* fill() into a fixed buffer. */
static void fill_into(char *out, size_t size, const char *language, const char *template,
                      const char *name, const char *value)
{
    struct base_text t = { 0 };
    fill(&t, language, template, name, value, (const char *)NULL);
    snprintf(out, size, "%s", t.buf && !t.failed ? t.buf : "");
    free(t.buf);
}

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

/* "Wednesday 25 November 2026, 13:45 UTC" (in English) */
static bool time_words(const char *language, long long when, char *out, size_t size)
{
    time_t t = (time_t)when;
    struct tm tm;
    char day[16], year[16], clock[32];
    if (gmtime_r(&t, &tm) == NULL)
        return false;
    snprintf(day, sizeof day, "%d", tm.tm_mday);
    snprintf(year, sizeof year, "%d", tm.tm_year + 1900);
    snprintf(clock, sizeof clock, "%02d:%02d", tm.tm_hour, tm.tm_min);
    struct base_text w = { 0 };
    fill(&w, language, N_("{weekday} {day} {month} {year}, {time} UTC"),
         "weekday", i18n_text(language, day_names[tm.tm_wday]), "day", day,
         "month", i18n_text(language, month_names[tm.tm_mon]), "year", year, "time", clock,
         (const char *)NULL);
    bool ok = !w.failed && w.buf != NULL && w.len < size;
    if (ok)
        memcpy(out, w.buf, w.len + 1);
    free(w.buf);
    return ok;
}

/* How long is left, rounded as a reader expects: "24 hours" for
 * 23:59:30, "3 days", "45 minutes"; never less than "1 minute". */
static void time_left_words(const char *language, long long seconds, char *out, size_t size)
{
    char n[24];
    long long minutes = (seconds + 59) / 60;
    long long hours = (seconds + 1800) / 3600;
    long long days = (seconds + 43200) / 86400;
    if (minutes < 1)
        minutes = 1;
    if (minutes < 60) {
        snprintf(n, sizeof n, "%lld", minutes);
        fill_into(out, size, language, minutes == 1 ? N_("1 minute") : N_("{n} minutes"), "n", n);
    } else if (hours < 48) {
        snprintf(n, sizeof n, "%lld", hours);
        fill_into(out, size, language, hours == 1 ? N_("1 hour") : N_("{n} hours"), "n", n);
    } else {
        snprintf(n, sizeof n, "%lld", days);
        fill_into(out, size, language, N_("{n} days"), "n", n);
    }
}

/* ---- Words about games ----------------------------------------------------- */

/* Terminations as korpd stores them: the noun for a subject, the phrase
 * for a sentence. */
static const struct {
    const char *slug;
    const char *noun;
    const char *phrase;
} terminations[] = {
    { "checkmate", N_("checkmate"), N_("by checkmate") },
    { "stalemate", N_("stalemate"), N_("by stalemate") },
    { "insufficient-material", N_("insufficient material"), N_("by insufficient material") },
    { "threefold", N_("threefold repetition"), N_("by threefold repetition") },
    { "fifty-move", N_("fifty-move rule"), N_("by the fifty-move rule") },
    { "agreement", N_("agreement"), N_("by agreement") },
    { "resignation", N_("resignation"), N_("by resignation") },
    { "timeout", N_("time"), N_("on time") },
    { "adjudication", N_("adjudication"), N_("by adjudication") },
    { "aborted", N_("aborted"), N_("early (aborted)") },
    { NULL, NULL, NULL }
};

/* Results in the words of PGN, and what they mean to White and to Black. */
static const struct {
    const char *result;
    const char *text;
    const char *for_color[2];
} results[] = {
    { "1-0", "1-0", { N_("You won."), N_("You lost.") } },
    { "0-1", "0-1", { N_("You lost."), N_("You won.") } },
    { "1/2-1/2", "1/2-1/2", { N_("It is a draw."), N_("It is a draw.") } },
    { "3/4-1/4", "3/4-1/4", { N_("You stalemated your opponent: 3/4 point for you."),
                              N_("You were stalemated: 1/4 point for you.") } },
    { "1/4-3/4", "1/4-3/4", { N_("You were stalemated: 1/4 point for you."),
                              N_("You stalemated your opponent: 3/4 point for you.") } },
    { "*", N_("no result"), { N_("Neither side scores."), N_("Neither side scores.") } },
    { NULL, NULL, { NULL, NULL } }
};

/* 0 for "white", 1 for "black", -1 otherwise. */
static int color_index(const char *color)
{
    enum db_color c = DB_COLOR_NONE;
    db_color_parse(color, &c);
    return c == DB_COLOR_WHITE ? 0 : c == DB_COLOR_BLACK ? 1 : -1;
}

/* "You play {color}." with the colour said in a whole sentence, so that
 * each language can inflect it. */
static const char *const you_play[2] = { N_("You play White."), N_("You play Black.") };
static const char *const digest_you_play[2] = { N_(", you play White"), N_(", you play Black") };

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
    [FIELD_COLOR] = { "color", "my_color white or black" },  /* "You play White." */
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
      N_("Your move in game {game} against {opponent} ({variant})"),
      N_("It is your move in game {game} against {opponent} ({variant}). {color}"),
      SHOW_MOVE | SHOW_DIAGRAM | SHOW_DEADLINE | SHOW_GAME_URL },
    { NOTIFY_CHALLENGE, "challenge",
      N_("{opponent} challenges you to a game of {variant}"),
      N_("{opponent} challenges you to a game of {variant}. You can accept or decline the "
      "challenge on its page."),
      SHOW_CHALLENGE_URL },
    { NOTIFY_GAME_START, "game-start",
      N_("New game {game} against {opponent} ({variant})"),
      N_("Your game {game} against {opponent} ({variant}) has begun. {color}"),
      SHOW_DIAGRAM | SHOW_DEADLINE | SHOW_GAME_URL },
    { NOTIFY_DRAW_OFFER, "draw-offer",
      N_("{opponent} offers a draw in game {game}"),
      N_("{opponent} offers a draw in game {game} ({variant}). You can accept or decline "
      "it on the game's page."),
      SHOW_MOVE | SHOW_DIAGRAM | SHOW_DEADLINE | SHOW_GAME_URL },
    { NOTIFY_GAME_END, "game-end",
      N_("Game {game} against {opponent} ended: {result} ({how})"),
      N_("Your game {game} against {opponent} ({variant}) has ended {by}: {result}. {outcome}"),
      SHOW_MOVE | SHOW_DIAGRAM | SHOW_GAME_URL },
    { NOTIFY_DEADLINE_NEAR, "deadline-near",
      N_("{left} left for your move in game {game} against {opponent}"),
      N_("Your time for a move in game {game} against {opponent} ({variant}) runs out in "
      "{left}. If you do not move by then, the game ends on time: you lose, or draw if "
      "{opponent} has no mating material."),
      SHOW_MOVE | SHOW_DIAGRAM | SHOW_DEADLINE | SHOW_GAME_URL },
    { NOTIFY_CHALLENGE_DECLINED, "challenge-declined",
      N_("{opponent} declined your challenge to a game of {variant}"),
      N_("{opponent} declined your challenge to a game of {variant}."),
      0 },
    { NOTIFY_CHALLENGE_CANCELLED, "challenge-cancelled",
      N_("{opponent} withdrew the challenge to a game of {variant}"),
      N_("{opponent} withdrew the challenge to a game of {variant} that was waiting for "
      "your answer."),
      0 },
    { NOTIFY_CLAIM, "claim",
      N_("{opponent} claimed a draw in game {game} ({how})"),
      N_("{opponent} claimed a draw {by} in game {game} ({variant}). The claim was valid: "
      "the game is drawn."),
      SHOW_DIAGRAM | SHOW_GAME_URL },
    { NOTIFY_WEBHOOK_DISABLED, "webhook-disabled",
      N_("Your korp webhook was turned off"),
      N_("Your webhook {webhook} was turned off after its deliveries kept failing: "
      "{reason}. Turn it on again in your settings once it answers."),
      0 },
    { NOTIFY_EMAIL_CONFIRM, "email-confirm",
      N_("Confirm your email address for korp"),
      N_("This address was given for the korp account {player}. To get korp's mails here "
      "(your moves, challenges, results), confirm it with the link below within 3 days; "
      "until then korp sends nothing else to it. If you did not give it, ignore this "
      "mail: nothing more will come."),
      SHOW_CONFIRM_URL },
    { NOTIFY_MESSAGE, "message",
      N_("{opponent} sent you a message in game {game}"),
      N_("{opponent} sent you a message in game {game} ({variant}):"),
      SHOW_MESSAGE | SHOW_GAME_URL },
    { NOTIFY_CONDITIONAL_PLAYED, "conditional-played",
      N_("Your conditional move {move} was played in game {game}"),
      N_("Your conditional move {move} was played in game {game} against {opponent} "
      "({variant}), as you had planned. It is {opponent}'s move now."),
      SHOW_DIAGRAM | SHOW_GAME_URL },
    { NOTIFY_ARBITER, "arbiter",
      N_("An arbiter has ruled on game {game}"),
      N_("An arbiter has ruled on a claim or request in your game {game} ({variant}): "
      "{decision}"),
      SHOW_DIAGRAM | SHOW_GAME_URL },
    { NOTIFY_TOURNAMENT_START, "tournament-start",
      N_("Tournament {tournament} has begun"),
      N_("The round robin {tournament} ({variant}) has begun: all your games in it are "
      "made, and you can play them in any order."),
      0 },
    { NOTIFY_TOURNAMENT_END, "tournament-end",
      N_("Tournament {tournament} has ended"),
      N_("The round robin {tournament} ({variant}) has ended: its last game is over."),
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

static void add_footer(struct base_text *t, const char *language, const char *settings_url)
{
    base_text_str(t, "\n-- \n");
    add_wrapped(t, i18n_text(language, N_("korp correspondence chess. You get this mail because "
                                          "email notifications are on for your account. To "
                                          "choose which mails you get, or to unsubscribe, go "
                                          "to your notification settings:")), "");
    add_link(t, "", settings_url);
}

/* A label on a line of its own after a blank line, then a URL. */
static void add_labelled_link(struct base_text *t, const char *language, const char *label,
                              const char *url)
{
    base_text_str(t, "\n");
    base_text_str(t, i18n_text(language, label));
    base_text_str(t, "\n");
    add_link(t, "", url);
}

/* The last move as a paragraph: "alice's last move: 12... Nf6 (in the
 * inventor's Polish notation: S/f6)." */
static void add_move(struct base_text *t, const char *language, const char *opponent, int ply,
                     const char *san, const char *polish)
{
    struct base_text para = { 0 };
    char move[64];
    move_words(ply, san, move, sizeof move);
    if (polish && polish[0])
        fill(&para, language,
             N_("{opponent}'s last move: {move} (in the inventor's Polish notation: {polish})."),
             "opponent", opponent, "move", move, "polish", polish, (const char *)NULL);
    else
        fill(&para, language, N_("{opponent}'s last move: {move}."), "opponent", opponent,
             "move", move, (const char *)NULL);
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
static bool add_deadline(struct base_text *t, const char *language, const char *label,
                         const char *indent, const char *deadline, long long now)
{
    long long when;
    char words[128], left[64];
    if (!time_parse(deadline, &when) || !time_words(language, when, words, sizeof words))
        return false;
    base_text_str(t, indent);
    if (when > now) {
        time_left_words(language, when - now, left, sizeof left);
        fill(t, language, N_("{label} {date} (in {left})."), "label", i18n_text(language, label),
             "date", words, "left", left, (const char *)NULL);
    } else {
        fill(t, language, N_("{label} {date} (passed)."), "label", i18n_text(language, label),
             "date", words, (const char *)NULL);
    }
    base_text_str(t, "\n");
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
    char left[64] = "";
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
    const char *lang = a->language;
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
    value[FIELD_COLOR] = color >= 0 ? i18n_text(lang, you_play[color]) : NULL;
    for (int i = 0; a->termination && terminations[i].slug; i++)
        if (strcmp(terminations[i].slug, a->termination) == 0) {
            value[FIELD_HOW] = i18n_text(lang, terminations[i].noun);
            value[FIELD_BY] = i18n_text(lang, terminations[i].phrase);
        }
    for (int i = 0; a->result && results[i].result; i++)
        if (strcmp(results[i].result, a->result) == 0) {
            value[FIELD_RESULT] = i18n_text(lang, results[i].text);
            value[FIELD_OUTCOME] = color >= 0 ? i18n_text(lang, results[i].for_color[color]) : NULL;
        }
    if (a->deadline && time_parse(a->deadline, &when)) {
        time_left_words(lang, when - a->now, left, sizeof left);
        value[FIELD_LEFT] = left;
    }
    value[FIELD_WEBHOOK] = a->webhook_url;
    value[FIELD_REASON] = a->webhook_reason;
    value[FIELD_MOVE] = a->last_san;
    value[FIELD_TOURNAMENT] = a->tournament_name;
    value[FIELD_DECISION] = a->arbiter_reason;

    if (!expand(&subj, i18n_text(lang, kinds[k].subject), value, kind, err))
        goto done;
    if (subj.failed || subj.len >= subject_size) {
        base_err_set(err, "%s notification: the subject does not fit", kind);
        goto done;
    }
    memcpy(subject, subj.buf, subj.len + 1);

    if (!expand(&t, i18n_text(lang, N_("Hello {player},")), value, kind, err))
        goto done;
    base_text_str(&t, "\n\n");
    struct base_text summary = { 0 };
    bool expanded = expand(&summary, i18n_text(lang, kinds[k].summary), value, kind, err);
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
        add_move(&t, lang, a->opponent_name, a->ply, a->last_san, a->last_polish);
    }
    if ((show & SHOW_DIAGRAM) && a->fen && a->fen[0]) {
        char diagram[NOTIFY_DIAGRAM_MAX];
        if (notify_diagram_in(lang, a->variant, a->fen, diagram, sizeof diagram) == 0) {
            base_err_set(err, "%s notification: the rules refuse the position '%s'",
                     kind, a->fen);
            goto done;
        }
        base_text_str(&t, "\n");
        base_text_str(&t, diagram);
    }
    if ((show & SHOW_DEADLINE) && a->deadline && a->deadline[0]) {
        base_text_str(&t, "\n");
        if (!add_deadline(&t, lang, N_("Your deadline:"), "", a->deadline, a->now)) {
            base_err_set(err, "%s notification: unreadable deadline '%s'", kind,
                     a->deadline);
            goto done;
        }
    }
    if ((show & SHOW_DEADLINE) && a->fischer && a->my_time >= 0) {
        char time_left[64];
        time_left_words(lang, a->my_time, time_left, sizeof time_left);
        fill(&t, lang, N_("Time on your clock: {left} (Fischer)."), "left", time_left,
             (const char *)NULL);
        base_text_str(&t, "\n");
    }
    if ((show & SHOW_GAME_URL) && a->game_url && a->game_url[0])
        add_labelled_link(&t, lang, N_("Open the game:"), a->game_url);
    if ((show & SHOW_CHALLENGE_URL) && a->challenge_url && a->challenge_url[0])
        add_labelled_link(&t, lang, N_("See the challenge:"), a->challenge_url);
    if (show & SHOW_CONFIRM_URL) {
        if (a->confirm_url == NULL || a->confirm_url[0] == '\0') {
            base_err_set(err, "%s notification needs confirm_url", kind);
            goto done;
        }
        add_labelled_link(&t, lang, N_("Confirm the address:"), a->confirm_url);
    }
    add_footer(&t, lang, a->settings_url);
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
    const char *lang = d->language;
    char count[24];
    snprintf(count, sizeof count, "%zu", d->count);
    struct base_text subj = { 0 };
    fill(&subj, lang, d->count == 1 ? N_("Your move in 1 game") : N_("Your move in {n} games"),
         "n", count, (const char *)NULL);
    int n = subj.failed || subj.buf == NULL ? -1 : snprintf(subject, subject_size, "%s", subj.buf);
    free(subj.buf);
    if (n < 0 || (size_t)n >= subject_size) {
        base_err_set(err, "digest: the subject does not fit");
        goto done;
    }

    fill(&t, lang, N_("Hello {player},"), "player", d->player_name, (const char *)NULL);
    base_text_str(&t, "\n\n");
    fill(&t, lang, d->count == 1 ? N_("It is your move in 1 game:")
                                 : N_("It is your move in {n} games:"),
         "n", count, (const char *)NULL);
    base_text_str(&t, "\n");
    for (size_t i = 0; i < d->count; i++) {
        const struct notify_digest_game *g = &d->games[i];
        const char *variant = variant_words(g->variant);
        int color = color_index(g->my_color);
        if (g->game_id == NULL || g->opponent_name == NULL || variant == NULL) {
            base_err_set(err, "digest game %zu needs game_id, opponent_name and a "
                     "known variant", i + 1);
            goto done;
        }
        base_text_str(&t, "\n* ");
        fill(&t, lang, N_("Game {game} against {opponent} ({variant})"), "game", g->game_id,
             "opponent", g->opponent_name, "variant", variant, (const char *)NULL);
        if (color >= 0)
            base_text_str(&t, i18n_text(lang, digest_you_play[color]));
        base_text_str(&t, "\n");
        if (g->last_san && g->last_san[0]) {
            char move[64];
            move_words(g->ply, g->last_san, move, sizeof move);
            base_text_str(&t, "  ");
            fill(&t, lang, N_("Last move: {move}"), "move", move, (const char *)NULL);
            base_text_str(&t, "\n");
        }
        if (g->deadline && g->deadline[0] &&
            !add_deadline(&t, lang, N_("Deadline:"), "  ", g->deadline, d->now)) {
            base_err_set(err, "digest game %s: unreadable deadline '%s'", g->game_id,
                     g->deadline);
            goto done;
        }
        if (g->game_url && g->game_url[0])
            add_link(&t, "  ", g->game_url);
    }
    add_footer(&t, lang, d->settings_url);
    ok = finish_body(&t, body, err);

done:
    free(t.buf);
    if (!ok && subject_size > 0)
        subject[0] = '\0';
    return ok;
}
