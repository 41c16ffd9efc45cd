/*
 * pgn.c — splitting a game record (PGN, or bare movetext) into tags and
 * move tokens (lines starting with % or # are comments), and writing one.
 * It knows nothing of any variant's moves: the caller parses each token
 * against its position.
 */
#include "rules.h"

#include <stdio.h>
#include <string.h>

#define TOKEN_MAX 128

struct reader_state {
    const struct rules_pgn_reader *r;
    bool in_game;       /* tags or moves seen since the last game ended */
    bool moves_seen;
};

static bool is_space(char c)
{
    return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static bool is_result(const char *t)
{
    static const char *const results[] = { "1-0", "0-1", "1/2-1/2", "*", "3/4-1/4",
                                           "1/4-3/4", "\xC2\xBD-\xC2\xBD", "remi", NULL };
    for (int i = 0; results[i] != NULL; i++)
        if (strcmp(t, results[i]) == 0)
            return true;
    return false;
}

static bool has_alnum(const char *t)
{
    for (; *t; t++)
        if ((*t >= '0' && *t <= '9') || (*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z'))
            return true;
    return false;
}

static int end_game(struct reader_state *st)
{
    int rc = 0;
    if (st->in_game && st->r->on_game_end != NULL)
        rc = st->r->on_game_end(st->r->arg);
    st->in_game = false;
    st->moves_seen = false;
    return rc;
}

/* Reads `[Name "value"]` starting at text[*i] == '['. */
static int read_tag(struct reader_state *st, const char *text, size_t len, size_t *i)
{
    char name[TOKEN_MAX], value[TOKEN_MAX * 4];
    size_t n = 0, v = 0, k = *i + 1;

    while (k < len && is_space(text[k]))
        k++;
    while (k < len && !is_space(text[k]) && text[k] != '"' && text[k] != ']') {
        if (n + 1 < sizeof name)
            name[n++] = text[k];
        k++;
    }
    name[n] = '\0';
    while (k < len && text[k] != '"' && text[k] != ']' && text[k] != '\n')
        k++;
    if (k < len && text[k] == '"') {
        for (k++; k < len && text[k] != '"' && text[k] != '\n'; k++) {
            if (text[k] == '\\' && k + 1 < len)
                k++;
            if (v + 1 < sizeof value)
                value[v++] = text[k];
        }
    }
    value[v] = '\0';
    while (k < len && text[k] != ']' && text[k] != '\n')
        k++;
    *i = k < len ? k + 1 : len;
    st->in_game = true;
    if (st->r->on_tag != NULL && n > 0)
        return st->r->on_tag(st->r->arg, name, value);
    return 0;
}

/* Skips from an opening bracket to its match, nesting and comments included. */
static size_t skip_group(const char *text, size_t len, size_t i)
{
    int depth = 0;
    for (; i < len; i++) {
        if (text[i] == '{') {
            while (i < len && text[i] != '}')
                i++;
        } else if (text[i] == '(') {
            depth++;
        } else if (text[i] == ')' && --depth == 0) {
            return i + 1;
        }
    }
    return len;
}

static int handle_token(struct reader_state *st, char *tok)
{
    size_t n;

    /* Move numbers: "12." "12..." "12.e4" "12...Nf6". */
    if (tok[0] >= '0' && tok[0] <= '9') {
        char *t = tok;
        while (*t >= '0' && *t <= '9')
            t++;
        if (*t == '.') {
            while (*t == '.')
                t++;
            tok = t;
        }
    }
    if (tok[0] == '\0')
        return 0;
    if (is_result(tok))
        return end_game(st);
    /* Every move has a letter or digit: "...", "====" or a result in a lost
     * encoding are not moves. */
    if (!has_alnum(tok))
        return 0;
    n = strlen(tok);
    while (n > 0 && (tok[n - 1] == '!' || tok[n - 1] == '?'))
        tok[--n] = '\0';
    if (n == 0)
        return 0;
    st->in_game = true;
    st->moves_seen = true;
    return st->r->on_move != NULL ? st->r->on_move(st->r->arg, tok) : 0;
}

int rules_pgn_read(const char *text, size_t len, const struct rules_pgn_reader *reader)
{
    struct reader_state st = { reader, false, false };
    size_t i = 0;
    int rc = 0;

    while (i < len && rc == 0) {
        char c = text[i];
        if (is_space(c)) {
            i++;
        } else if (c == '[') {
            if (st.moves_seen)
                rc = end_game(&st);
            if (rc == 0)
                rc = read_tag(&st, text, len, &i);
        } else if (c == '{') {
            while (i < len && text[i] != '}')
                i++;
            i++;
        } else if (c == ';' || ((c == '%' || c == '#') && (i == 0 || text[i - 1] == '\n'))) {
            while (i < len && text[i] != '\n')
                i++;
        } else if (c == '(') {
            i = skip_group(text, len, i);
        } else if (c == '$') {
            for (i++; i < len && text[i] >= '0' && text[i] <= '9'; i++)
                ;
        } else if (c == ')' || c == ']' || c == '}') {
            i++;
        } else {
            char tok[TOKEN_MAX];
            size_t n = 0;
            while (i < len && !is_space(text[i]) && strchr("{}()[];$", text[i]) == NULL) {
                if (n + 1 < sizeof tok)
                    tok[n++] = text[i];
                i++;
            }
            tok[n] = '\0';
            rc = handle_token(&st, tok);
        }
    }
    if (rc == 0)
        rc = end_game(&st);
    return rc;
}

struct dialect_scan {
    unsigned char *out;
    int max;
    int games;
    bool hungarian;
};

static int scan_move(void *arg, const char *token)
{
    struct dialect_scan *d = arg;
    if (token[0] == 'V' || token[0] == 'F' || token[0] == 'H')
        d->hungarian = true;
    return 0;
}

static int scan_end(void *arg)
{
    struct dialect_scan *d = arg;
    if (d->out != NULL && d->games < d->max)
        d->out[d->games] = d->hungarian ? RULES_DIALECT_HUNGARIAN : RULES_DIALECT_DEFAULT;
    d->games++;
    d->hungarian = false;
    return 0;
}

int rules_pgn_dialects(const char *text, size_t len, unsigned char *out, int max)
{
    struct dialect_scan d = { out, max, 0, false };
    struct rules_pgn_reader reader = { NULL, scan_move, scan_end, &d };
    rules_pgn_read(text, len, &reader);
    return d.games;
}

/* ---- writing ------------------------------------------------------------ */

struct out {
    char *buf;
    size_t size;
    size_t len;
    size_t column;
};

static void emit(struct out *o, const char *text)
{
    size_t n = strlen(text);
    if (o->len < o->size)
        snprintf(o->buf + o->len, o->size - o->len, "%s", text);
    o->len += n;
    const char *nl = strrchr(text, '\n');
    o->column = nl ? strlen(nl + 1) : o->column + n;
}

/* A movetext token, after a space or on a new line before column 80. */
static void emit_token(struct out *o, const char *token)
{
    if (o->column > 0)
        emit(o, o->column + 1 + strlen(token) >= 80 ? "\n" : " ");
    emit(o, token);
}

static void emit_tag(struct out *o, const char *name, const char *value)
{
    emit(o, "[");
    emit(o, name);
    emit(o, " \"");
    for (const char *c = value; *c; c++) {
        char one[3] = { *c, 0, 0 };
        if (*c == '"' || *c == '\\') {
            one[0] = '\\';
            one[1] = *c;
        }
        emit(o, one);
    }
    emit(o, "\"]\n");
}

static const char *tag_value(const char *const *tags, const char *name)
{
    for (int i = 0; tags != NULL && tags[i] != NULL && tags[i + 1] != NULL; i += 2)
        if (strcmp(tags[i], name) == 0)
            return tags[i + 1];
    return NULL;
}

size_t rules_pgn_write(const struct rules_variant *v, const char *const *tags,
                       const struct rules_position *start,
                       const struct rules_move *moves, int count,
                       enum rules_result result, char *buf, size_t size)
{
    static const char *const roster[] = { "Event", "Site", "Date", "Round", "White",
                                          "Black", NULL };
    static const char *const own[] = { "Event", "Site", "Date", "Round", "White", "Black",
                                       "Result", "Variant", "SetUp", "FEN", NULL };
    struct out o = { buf, size, 0, 0 };
    struct rules_position pos = *start;
    char fen[RULES_TEXT_MAX], start_fen[RULES_TEXT_MAX];
    struct rules_position initial;

    if (size > 0)
        buf[0] = '\0';
    /* Every move must be legal where it is played; else write nothing. */
    for (int i = 0; i < count; i++)
        if (v->position_apply(&pos, moves[i]) != RULES_OK)
            return 0;
    pos = *start;
    for (int i = 0; roster[i] != NULL; i++) {
        const char *value = tag_value(tags, roster[i]);
        emit_tag(&o, roster[i], value ? value : "?");
    }
    emit_tag(&o, "Result", rules_result_text(result));
    emit_tag(&o, "Variant", v->pgn_name);
    v->position_format(start, fen, sizeof fen);
    v->position_parse(&initial, v->start_text, NULL);
    v->position_format(&initial, start_fen, sizeof start_fen);
    if (strcmp(fen, start_fen) != 0) {
        emit_tag(&o, "SetUp", "1");
        emit_tag(&o, "FEN", fen);
    }
    for (int i = 0; tags != NULL && tags[i] != NULL && tags[i + 1] != NULL; i += 2) {
        bool written = false;
        for (int k = 0; own[k] != NULL; k++)
            written |= strcmp(tags[i], own[k]) == 0;
        if (!written)
            emit_tag(&o, tags[i], tags[i + 1]);
    }
    emit(&o, "\n");
    for (int i = 0; i < count; i++) {
        char number[16], san[RULES_MOVE_TEXT_MAX];
        enum rules_color side = v->side_to_move(&pos);
        if (side == RULES_WHITE || i == 0) {
            snprintf(number, sizeof number, "%d.%s", v->fullmove_number(&pos),
                     side == RULES_WHITE ? "" : "..");
            emit_token(&o, number);
        }
        v->move_format(&pos, moves[i], RULES_NOTATION_SAN, san, sizeof san);
        emit_token(&o, san);
        v->position_apply(&pos, moves[i]);
    }
    emit_token(&o, rules_result_text(result));
    emit(&o, "\n");
    return o.len;
}
