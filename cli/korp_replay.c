/*
 * korp_replay.c — replays game records: every ply checked by the rules,
 * the result decided from the final position, not from the record's tags.
 */
#include "korp_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORD_LIMIT (64u << 20)
#define TAG_LIMIT 32

struct replay {
    const struct rules_variant *forced;   /* --variant */
    const struct rules_variant *variant;  /* this game's */
    const struct rules_variant *tagged;   /* the record's last Variant tag */
    struct rules_position pos;
    char fen_tag[RULES_TEXT_MAX * 2];
    int dialect;
    unsigned char *dialects;   /* per game, from a first pass */
    int game;          /* 1-based */
    int games;         /* in the whole input, from a first pass */
    int ply;
    int ended_ply;     /* ply at which the position ended the game, or -1 */
    enum rules_status ended_by;
    bool started;      /* position set up for this game */
    bool failed;       /* this game stopped on an error */
    int failures;
    /* For --pgn: the game's tags, start and moves. */
    bool pgn;
    char tag_text[TAG_LIMIT][2][256];
    int tag_count;
    struct rules_position start;
    struct rules_move *moves;
    int move_count, move_cap;
    /* For analyse: stop after this ply (-1: play all), and the repetition
     * keys since the last irreversible move, the current position's last. */
    bool analyse;
    bool every_ply;    /* analyse --every-ply: an object per position */
    int stop_ply;
    uint64_t *keys;
    int key_count, key_cap;
};

/* Appends the current position's key (after an irreversible move, the
 * list restarts: no earlier position can recur). */
static bool keep_key(struct replay *r, bool restart)
{
    if (restart)
        r->key_count = 0;
    if (r->key_count == r->key_cap) {
        int cap = r->key_cap ? r->key_cap * 2 : 256;
        uint64_t *more = realloc(r->keys, (size_t)cap * sizeof *more);
        if (more == NULL)
            return false;
        r->keys = more;
        r->key_cap = cap;
    }
    r->keys[r->key_count++] = r->variant->repetition_key(&r->pos);
    return true;
}

static bool keep_move(struct replay *r, struct rules_move m)
{
    if (r->move_count == r->move_cap) {
        int cap = r->move_cap ? r->move_cap * 2 : 256;
        struct rules_move *more = realloc(r->moves, (size_t)cap * sizeof *more);
        if (more == NULL)
            return false;
        r->moves = more;
        r->move_cap = cap;
    }
    r->moves[r->move_count++] = m;
    return true;
}

/* The checked game as PGN: the rules' result where the position ended the
 * game, else the record's own Result (resignation, agreement, time). */
static void write_pgn(struct replay *r, const struct rules_report *rep)
{
    const char *tags[TAG_LIMIT * 2 + 1];
    const char *tagged = NULL;
    enum rules_result result = rep->result;
    size_t need;
    char *text;

    for (int i = 0; i < r->tag_count; i++) {
        tags[2 * i] = r->tag_text[i][0];
        tags[2 * i + 1] = r->tag_text[i][1];
        if (strcmp(r->tag_text[i][0], "Result") == 0)
            tagged = r->tag_text[i][1];
    }
    tags[2 * r->tag_count] = NULL;
    if (rep->status == RULES_ONGOING && tagged != NULL && !rules_result_parse(tagged, &result))
        result = RULES_RESULT_NONE;
    need = rules_pgn_write(r->variant, tags, &r->start, r->moves, r->move_count, result,
                           NULL, 0);
    text = malloc(need + 1);
    if (text == NULL) {
        fprintf(stderr, "korp: out of memory\n");
        return;
    }
    rules_pgn_write(r->variant, tags, &r->start, r->moves, r->move_count, result, text,
                    need + 1);
    printf("%s%s", r->game > 1 ? "\n" : "", text);
    free(text);
}

static void game_prefix(const struct replay *r, char *buf, size_t size)
{
    if (r->games > 1)
        snprintf(buf, size, "game %d: ", r->game);
    else
        buf[0] = '\0';
}

static int on_tag(void *arg, const char *name, const char *value)
{
    struct replay *r = arg;
    if (r->tag_count < TAG_LIMIT) {
        snprintf(r->tag_text[r->tag_count][0], sizeof r->tag_text[0][0], "%s", name);
        snprintf(r->tag_text[r->tag_count][1], sizeof r->tag_text[0][1], "%s", value);
        r->tag_count++;
    }
    if (strcmp(name, "Variant") == 0 && r->forced == NULL) {
        r->variant = rules_variant_find_pgn(value);
        if (r->variant == NULL)
            r->variant = rules_variant_find(value);
        if (r->variant != NULL)
            r->tagged = r->variant;
    } else if (strcmp(name, "FEN") == 0) {
        snprintf(r->fen_tag, sizeof r->fen_tag, "%s", value);
    }
    return 0;
}

/* Records the ply at which the position ended the game (mate, stalemate,
 * insufficient material), so that a later move is refused. */
static void note_end(struct replay *r)
{
    struct rules_report rep;
    if (r->ended_ply >= 0)
        return;
    r->variant->position_report(&r->pos, &rep);
    if (rep.status != RULES_ONGOING) {
        r->ended_ply = r->ply;
        r->ended_by = rep.status;
    }
}

static const char *status_words(enum rules_status status)
{
    switch (status) {
    case RULES_CHECKMATE: return "checkmate";
    case RULES_STALEMATE: return "stalemate";
    case RULES_INSUFFICIENT_MATERIAL: return "insufficient material";
    default: return "ongoing";
    }
}

/* Sets up the game's start on its first move (tags come before moves). */
static bool start_game(struct replay *r)
{
    struct rules_why why;
    char prefix[32];
    const char *fen;

    /* --variant, else this game's tag, else the record's, else korpalski. */
    if (r->forced != NULL)
        r->variant = r->forced;
    if (r->variant == NULL)
        r->variant = r->tagged ? r->tagged : rules_variant_find("korpalski");
    fen = r->fen_tag[0] ? r->fen_tag : r->variant->start_text;
    r->dialect = r->dialects[r->game - 1];
    r->started = true;
    if (r->games > 1 && !r->pgn)
        printf("game %d\n", r->game);
    if (r->variant->position_parse(&r->pos, fen, &why) != RULES_OK) {
        game_prefix(r, prefix, sizeof prefix);
        fprintf(stderr, "%sFEN tag: %s\n", prefix, why.text);
        r->failed = true;
        return false;
    }
    r->start = r->pos;
    note_end(r);
    if (r->analyse && !keep_key(r, true)) {
        fprintf(stderr, "korp: out of memory\n");
        return false;
    }
    if (r->every_ply)
        korp_print_analysis(r->variant, &r->pos, r->keys, r->key_count, r->ply);
    return true;
}

static int on_move(void *arg, const char *token)
{
    struct replay *r = arg;
    const struct rules_variant *v;
    struct rules_move move;
    struct rules_why why;
    char san[RULES_MOVE_TEXT_MAX], fen[RULES_TEXT_MAX];
    char prefix[32];

    if (r->failed || (!r->started && !start_game(r)))
        return 0;
    if (r->analyse && r->stop_ply >= 0 && r->ply >= r->stop_ply)
        return 0;   /* the arbiter asked about an earlier ply */
    v = r->variant;
    r->ply++;
    if (r->ended_ply >= 0) {
        game_prefix(r, prefix, sizeof prefix);
        fprintf(stderr, "%sply %d: %s: the game ended at ply %d by %s\n", prefix, r->ply,
                token, r->ended_ply, status_words(r->ended_by));
        r->failed = true;
        return 0;
    }
    if (v->move_parse(&r->pos, token, r->dialect, &move, &why) != RULES_OK) {
        game_prefix(r, prefix, sizeof prefix);
        fprintf(stderr, "%sply %d: %s: %s\n", prefix, r->ply, token, why.text);
        r->failed = true;
        return 0;
    }
    bool irreversible = v->move_is_irreversible(&r->pos, move);
    if (r->pgn) {
        if (!keep_move(r, move)) {
            fprintf(stderr, "korp: out of memory\n");
            return 1;
        }
    } else {
        v->move_format(&r->pos, move, RULES_NOTATION_SAN, san, sizeof san);
    }
    if (v->position_apply(&r->pos, move) != RULES_OK) {
        fprintf(stderr, "korp: internal error: a parsed move is not legal\n");
        return 1;
    }
    note_end(r);
    if (r->analyse) {
        if (!keep_key(r, irreversible)) {
            fprintf(stderr, "korp: out of memory\n");
            return 1;
        }
        if (r->every_ply)
            korp_print_analysis(v, &r->pos, r->keys, r->key_count, r->ply);
    } else if (!r->pgn) {
        v->position_format(&r->pos, fen, sizeof fen);
        printf("%d %s %s\n", r->ply, san, fen);
    }
    return 0;
}

static int on_game_end(void *arg)
{
    struct replay *r = arg;
    struct rules_report rep;

    if (!r->failed && (r->started || start_game(r))) {
        r->variant->position_report(&r->pos, &rep);
        if (r->analyse && r->stop_ply > r->ply) {
            fprintf(stderr, "korp: --ply %d: the game has only %d plies\n", r->stop_ply,
                    r->ply);
            r->failed = true;
        } else if (r->analyse && !r->every_ply) {
            korp_print_analysis(r->variant, &r->pos, r->keys, r->key_count, r->ply);
        } else if (r->analyse) {
            /* every position was printed as it came */
        } else if (r->pgn) {
            write_pgn(r, &rep);
        } else {
            printf("result %s %s\n", rules_result_text(rep.result),
                   rules_status_text(rep.status));
        }
    } else if (!r->pgn && !r->analyse) {
        printf("result * error\n");
    }
    r->failures += r->failed;
    r->game++;
    r->variant = NULL;
    r->fen_tag[0] = '\0';
    r->ply = 0;
    r->ended_ply = -1;
    r->tag_count = 0;
    r->move_count = 0;
    r->started = r->failed = false;
    return 0;
}

/* Reads all of a stream, up to RECORD_LIMIT bytes. */
static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || ferror(f))
            break;
        if (cap >= RECORD_LIMIT) {
            free(buf);
            errno = EFBIG;
            return NULL;
        }
        char *bigger = realloc(buf, cap * 2);
        if (bigger == NULL)
            free(buf);
        buf = bigger;
        cap *= 2;
    }
    if (buf != NULL && ferror(f)) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

int korp_replay(const struct korp_args *args)
{
    struct replay r = { 0 };
    struct rules_pgn_reader reader = { on_tag, on_move, on_game_end, &r };
    const char *path = args->operand_count > 0 ? args->operands[0] : NULL;
    FILE *f = stdin;
    size_t len = 0;
    char *text;

    if (args->operand_count > 1) {
        fprintf(stderr, "korp: replay takes at most one FILE\n");
        return 2;
    }
    if (path != NULL && strcmp(path, "-") != 0 && (f = fopen(path, "rb")) == NULL) {
        fprintf(stderr, "korp: cannot open %s: %s\n", path, strerror(errno));
        return 2;
    }
    text = read_all(f, &len);
    if (f != stdin)
        fclose(f);
    if (text == NULL) {
        fprintf(stderr, "korp: cannot read %s: %s\n", path ? path : "standard input",
                strerror(errno));
        return 2;
    }
    r.forced = args->variant;
    r.pgn = args->pgn;
    r.analyse = args->analyse;
    r.stop_ply = args->stop_ply;
    r.every_ply = args->analyse && args->every_ply;
    r.game = 1;
    r.ended_ply = -1;
    r.games = rules_pgn_dialects(text, len, NULL, 0);
    r.dialects = calloc((size_t)r.games + 1, 1);
    if (r.dialects == NULL) {
        free(text);
        fprintf(stderr, "korp: out of memory\n");
        return 2;
    }
    rules_pgn_dialects(text, len, r.dialects, r.games);
    if (r.games == 0) {
        /* An empty record is a game with no moves. */
        r.games = 1;
        on_game_end(&r);
    } else {
        rules_pgn_read(text, len, &reader);
    }
    free(r.moves);
    free(r.keys);
    free(r.dialects);
    free(text);
    return r.failures ? 1 : 0;
}
