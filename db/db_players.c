/*
 * db_players.c — players, their tokens, and finding a token's owner.
 * Only the SHA-256 of a token reaches the database.
 */
#include "db_int.h"

#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The Latin letters with a diacritic that names may hold, as their
 * canonical decomposition (a base letter and one combining mark): the
 * precomposed letters of Latin-1 and Latin Extended-A (Polish ą ć ę ł ń ó
 * ś ź ż, Hungarian á é í ó ö ő ú ü ű and their neighbours), so that a name
 * sent decomposed is composed (NFC).  Sorted by base, then mark.
 */
static const struct {
    char base;
    unsigned short mark, composed;
} compositions[] = {
    { 'A', 0x300, 0x0C0 }, { 'A', 0x301, 0x0C1 }, { 'A', 0x302, 0x0C2 }, { 'A', 0x303, 0x0C3 },
    { 'A', 0x304, 0x100 }, { 'A', 0x306, 0x102 }, { 'A', 0x308, 0x0C4 }, { 'A', 0x30A, 0x0C5 },
    { 'A', 0x328, 0x104 }, { 'C', 0x301, 0x106 }, { 'C', 0x302, 0x108 }, { 'C', 0x307, 0x10A },
    { 'C', 0x30C, 0x10C }, { 'C', 0x327, 0x0C7 }, { 'D', 0x30C, 0x10E }, { 'E', 0x300, 0x0C8 },
    { 'E', 0x301, 0x0C9 }, { 'E', 0x302, 0x0CA }, { 'E', 0x304, 0x112 }, { 'E', 0x306, 0x114 },
    { 'E', 0x307, 0x116 }, { 'E', 0x308, 0x0CB }, { 'E', 0x30C, 0x11A }, { 'E', 0x328, 0x118 },
    { 'G', 0x302, 0x11C }, { 'G', 0x306, 0x11E }, { 'G', 0x307, 0x120 }, { 'G', 0x327, 0x122 },
    { 'H', 0x302, 0x124 }, { 'I', 0x300, 0x0CC }, { 'I', 0x301, 0x0CD }, { 'I', 0x302, 0x0CE },
    { 'I', 0x303, 0x128 }, { 'I', 0x304, 0x12A }, { 'I', 0x306, 0x12C }, { 'I', 0x307, 0x130 },
    { 'I', 0x308, 0x0CF }, { 'I', 0x328, 0x12E }, { 'J', 0x302, 0x134 }, { 'K', 0x327, 0x136 },
    { 'L', 0x301, 0x139 }, { 'L', 0x30C, 0x13D }, { 'L', 0x327, 0x13B }, { 'N', 0x301, 0x143 },
    { 'N', 0x303, 0x0D1 }, { 'N', 0x30C, 0x147 }, { 'N', 0x327, 0x145 }, { 'O', 0x300, 0x0D2 },
    { 'O', 0x301, 0x0D3 }, { 'O', 0x302, 0x0D4 }, { 'O', 0x303, 0x0D5 }, { 'O', 0x304, 0x14C },
    { 'O', 0x306, 0x14E }, { 'O', 0x308, 0x0D6 }, { 'O', 0x30B, 0x150 }, { 'R', 0x301, 0x154 },
    { 'R', 0x30C, 0x158 }, { 'R', 0x327, 0x156 }, { 'S', 0x301, 0x15A }, { 'S', 0x302, 0x15C },
    { 'S', 0x30C, 0x160 }, { 'S', 0x327, 0x15E }, { 'T', 0x30C, 0x164 }, { 'T', 0x327, 0x162 },
    { 'U', 0x300, 0x0D9 }, { 'U', 0x301, 0x0DA }, { 'U', 0x302, 0x0DB }, { 'U', 0x303, 0x168 },
    { 'U', 0x304, 0x16A }, { 'U', 0x306, 0x16C }, { 'U', 0x308, 0x0DC }, { 'U', 0x30A, 0x16E },
    { 'U', 0x30B, 0x170 }, { 'U', 0x328, 0x172 }, { 'W', 0x302, 0x174 }, { 'Y', 0x301, 0x0DD },
    { 'Y', 0x302, 0x176 }, { 'Y', 0x308, 0x178 }, { 'Z', 0x301, 0x179 }, { 'Z', 0x307, 0x17B },
    { 'Z', 0x30C, 0x17D }, { 'a', 0x300, 0x0E0 }, { 'a', 0x301, 0x0E1 }, { 'a', 0x302, 0x0E2 },
    { 'a', 0x303, 0x0E3 }, { 'a', 0x304, 0x101 }, { 'a', 0x306, 0x103 }, { 'a', 0x308, 0x0E4 },
    { 'a', 0x30A, 0x0E5 }, { 'a', 0x328, 0x105 }, { 'c', 0x301, 0x107 }, { 'c', 0x302, 0x109 },
    { 'c', 0x307, 0x10B }, { 'c', 0x30C, 0x10D }, { 'c', 0x327, 0x0E7 }, { 'd', 0x30C, 0x10F },
    { 'e', 0x300, 0x0E8 }, { 'e', 0x301, 0x0E9 }, { 'e', 0x302, 0x0EA }, { 'e', 0x304, 0x113 },
    { 'e', 0x306, 0x115 }, { 'e', 0x307, 0x117 }, { 'e', 0x308, 0x0EB }, { 'e', 0x30C, 0x11B },
    { 'e', 0x328, 0x119 }, { 'g', 0x302, 0x11D }, { 'g', 0x306, 0x11F }, { 'g', 0x307, 0x121 },
    { 'g', 0x327, 0x123 }, { 'h', 0x302, 0x125 }, { 'i', 0x300, 0x0EC }, { 'i', 0x301, 0x0ED },
    { 'i', 0x302, 0x0EE }, { 'i', 0x303, 0x129 }, { 'i', 0x304, 0x12B }, { 'i', 0x306, 0x12D },
    { 'i', 0x308, 0x0EF }, { 'i', 0x328, 0x12F }, { 'j', 0x302, 0x135 }, { 'k', 0x327, 0x137 },
    { 'l', 0x301, 0x13A }, { 'l', 0x30C, 0x13E }, { 'l', 0x327, 0x13C }, { 'n', 0x301, 0x144 },
    { 'n', 0x303, 0x0F1 }, { 'n', 0x30C, 0x148 }, { 'n', 0x327, 0x146 }, { 'o', 0x300, 0x0F2 },
    { 'o', 0x301, 0x0F3 }, { 'o', 0x302, 0x0F4 }, { 'o', 0x303, 0x0F5 }, { 'o', 0x304, 0x14D },
    { 'o', 0x306, 0x14F }, { 'o', 0x308, 0x0F6 }, { 'o', 0x30B, 0x151 }, { 'r', 0x301, 0x155 },
    { 'r', 0x30C, 0x159 }, { 'r', 0x327, 0x157 }, { 's', 0x301, 0x15B }, { 's', 0x302, 0x15D },
    { 's', 0x30C, 0x161 }, { 's', 0x327, 0x15F }, { 't', 0x30C, 0x165 }, { 't', 0x327, 0x163 },
    { 'u', 0x300, 0x0F9 }, { 'u', 0x301, 0x0FA }, { 'u', 0x302, 0x0FB }, { 'u', 0x303, 0x169 },
    { 'u', 0x304, 0x16B }, { 'u', 0x306, 0x16D }, { 'u', 0x308, 0x0FC }, { 'u', 0x30A, 0x16F },
    { 'u', 0x30B, 0x171 }, { 'u', 0x328, 0x173 }, { 'w', 0x302, 0x175 }, { 'y', 0x301, 0x0FD },
    { 'y', 0x302, 0x177 }, { 'y', 0x308, 0x0FF }, { 'z', 0x301, 0x17A }, { 'z', 0x307, 0x17C },
    { 'z', 0x30C, 0x17E },
};

/* Latin letters without a decomposition (Ł ł Ø ø Æ æ Œ œ ß ...), allowed too. */
static const unsigned short latin_other[] = {
    0x0C6, 0x0D0, 0x0D8, 0x0DE, 0x0DF, 0x0E6, 0x0F0, 0x0F8, 0x0FE, 0x110, 0x111,
    0x126, 0x127, 0x131, 0x141, 0x142, 0x152, 0x153, 0x166, 0x167,
};

static bool latin_letter(unsigned cp)
{
    for (size_t i = 0; i < sizeof compositions / sizeof *compositions; i++)
        if (compositions[i].composed == cp)
            return true;
    for (size_t i = 0; i < sizeof latin_other / sizeof *latin_other; i++)
        if (latin_other[i] == cp)
            return true;
    return false;
}

static unsigned compose(char base, unsigned mark)
{
    for (size_t i = 0; i < sizeof compositions / sizeof *compositions; i++)
        if (compositions[i].base == base && compositions[i].mark == mark)
            return compositions[i].composed;
    return 0;
}

/* The next code point of UTF-8 text at *s (advanced), 0 at the end, or
 * 0xFFFFFFFF where the text is not UTF-8. */
static unsigned next_point(const unsigned char **s)
{
    const unsigned char *p = *s;
    unsigned cp, more;

    if (p[0] < 0x80) {
        *s += p[0] != 0;
        return p[0];
    }
    more = p[0] >= 0xF0 ? 3 : p[0] >= 0xE0 ? 2 : p[0] >= 0xC0 ? 1 : 0;
    if (more == 0)
        return 0xFFFFFFFF;
    cp = p[0] & (0x3F >> more);
    for (unsigned i = 1; i <= more; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0xFFFFFFFF;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    *s += more + 1;
    return cp;
}

enum db_name_check db_player_name_normalize(const char *name, char out[DB_NAME_SIZE],
                                            int *letters)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t o = 0;
    bool composable = false;   /* the last character is an ASCII letter */
    unsigned cp;

    *letters = 0;
    while ((cp = next_point(&s)) != 0) {
        if (cp >= 0x300 && cp <= 0x36F) {   /* a combining mark: on the letter before */
            unsigned composed = composable ? compose((char)out[o - 1], cp) : 0;
            if (composed == 0)
                return DB_NAME_CHARACTER;
            o--;
            cp = composed;
        } else if (cp < 0x80) {
            if (!((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
                  (cp >= '0' && cp <= '9') || cp == '_' || cp == '-'))
                return DB_NAME_CHARACTER;
            ++*letters;
        } else if (latin_letter(cp)) {
            ++*letters;
        } else {
            return cp == 0xFFFFFFFF ? DB_NAME_CHARACTER : DB_NAME_NOT_LATIN;
        }
        composable = cp < 0x80 && ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z');
        if (o + 2 >= DB_NAME_SIZE)
            return DB_NAME_LENGTH;
        if (cp < 0x80) {
            out[o++] = (char)cp;
        } else {
            out[o++] = (char)(0xC0 | cp >> 6);
            out[o++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    out[o] = '\0';
    return *letters >= 2 && *letters <= 30 ? DB_NAME_OK : DB_NAME_LENGTH;
}

bool db_player_name_valid(const char *name)
{
    char out[DB_NAME_SIZE];
    int letters;
    return db_player_name_normalize(name, out, &letters) == DB_NAME_OK;
}

bool db_new_id(char *id)
{
    return base_random_text(id, BASE_ID_LEN);
}

struct player_create {
    const char *name, *email, *password_hash, *token;
    bool email_confirmed, arbiter;
    struct db_player *out;
    const char *language;      /* "en", "pl", "hu"; NULL: English */
};

static enum db_status insert_token(struct db_tx *tx, const char *player_id, const char *token,
                                   struct db_token *out)
{
    char id[BASE_ID_SIZE], hash[BASE_SHA256_HEX_LEN + 1];
    const char *params[3] = { id, player_id, hash };
    PGresult *res = NULL;
    enum db_status rc;

    if (!db_new_id(id)) {
        base_err_set(tx->err, "the random generator failed");
        return DB_HARD_ERROR;
    }
    base_sha256_hex(token, strlen(token), hash);
    rc = db_exec(tx, DB_STMT_TOKEN_INSERT, params, &res);
    if (rc == DB_OK && out != NULL) {
        snprintf(out->id, sizeof out->id, "%s", id);
        db_row_text(&(struct db_row){ res, 0 }, "created_at", out->created_at,
                    sizeof out->created_at);
        out->last_used_at[0] = '\0';
    }
    PQclear(res);
    return rc;
}

static enum db_status player_create(struct db_tx *tx, void *arg)
{
    struct player_create *c = arg;
    struct db_player *p = c->out;
    const char *params[7] = { p->id, c->name, c->email, c->arbiter ? "arbiter" : "player",
                              c->password_hash, c->email_confirmed ? "true" : "false",
                              c->language };
    PGresult *res = NULL;
    enum db_status rc;

    memset(p, 0, sizeof *p);
    if (!db_new_id(p->id)) {
        base_err_set(tx->err, "the random generator failed");
        return DB_HARD_ERROR;
    }
    rc = db_exec(tx, DB_STMT_PLAYER_INSERT, params, &res);
    if (rc == DB_OK) {
        snprintf(p->name, sizeof p->name, "%s", c->name);
        snprintf(p->email, sizeof p->email, "%s", c->email ? c->email : "");
        p->arbiter = c->arbiter;
        p->email_confirmed = db_row_bool(&(struct db_row){ res, 0 }, "email_confirmed");
        db_row_text(&(struct db_row){ res, 0 }, "created_at", p->created_at,
                    sizeof p->created_at);
        rc = insert_token(tx, p->id, c->token, NULL);
    }
    PQclear(res);
    return rc;
}

enum db_status db_player_create(struct db_pool *pool, const char *name, const char *email,
                                bool email_confirmed, const char *password_hash, bool arbiter,
                                const char *token, struct db_player *out, struct base_err *err)
{
    return db_player_create_in(pool, name, email, email_confirmed, password_hash, arbiter, token,
                               NULL, out, err);
}

enum db_status db_player_create_in(struct db_pool *pool, const char *name, const char *email,
                                   bool email_confirmed, const char *password_hash, bool arbiter,
                                   const char *token, const char *language,
                                   struct db_player *out, struct base_err *err)
{
    char composed[DB_NAME_SIZE];
    int letters;
    /* Stored in NFC whoever creates the player (the API, korpd admin). */
    struct player_create c = { name, email, password_hash, token, email_confirmed, arbiter, out,
                               language };
    if (db_player_name_normalize(name, composed, &letters) == DB_NAME_OK)
        c.name = composed;
    return db_run_tx(pool, player_create, &c, err);
}

#define P(kind, member) DB_##kind(struct db_player, member, #member)
static const struct db_col player_cols[] = {
    P(TEXT, id), P(TEXT, name), P(TEXT, email), P(BOOL, email_confirmed), P(BOOL, arbiter),
    P(TEXT, created_at), P(INT, played), P(INT, won), P(INT, drawn), P(INT, lost),
    P(INT, quarter_points), DB_COLS_END
};

DB_READER(player_read, struct db_player, player_cols)

enum db_status db_player_get(struct db_pool *pool, const char *id, struct db_player *out,
                             struct base_err *err)
{
    const char *params[1] = { id };
    return db_get_row(pool, DB_STMT_PLAYER_GET, params, player_read, out, err);
}

struct caller_find {
    const char *token;
    struct db_caller *out;
};

static enum db_status caller_find(struct db_tx *tx, void *arg)
{
    struct caller_find *f = arg;
    char hash[BASE_SHA256_HEX_LEN + 1];
    const char *params[1] = { hash };
    PGresult *res = NULL;
    enum db_status rc;

    base_sha256_hex(f->token, strlen(f->token), hash);
    rc = db_exec(tx, DB_STMT_TOKEN_FIND, params, &res);
    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_NOT_FOUND;
    if (rc == DB_OK) {
        struct db_caller *c = f->out;
        const struct db_row r = { res, 0 };
        db_row_text(&r, "token_id", c->token_id, sizeof c->token_id);
        db_row_text(&r, "player_id", c->player_id, sizeof c->player_id);
        db_row_text(&r, "name", c->name, sizeof c->name);
        c->arbiter = db_row_bool(&r, "arbiter");
        /* Last use is noted at most once a minute: a write per request
         * would cost more than the request. */
        if (db_row_bool(&r, "stale")) {
            const char *touch[1] = { c->token_id };
            rc = db_exec(tx, DB_STMT_TOKEN_TOUCH, touch, NULL);
        }
    }
    PQclear(res);
    return rc;
}

enum db_status db_caller_find(struct db_pool *pool, const char *token, struct db_caller *out,
                              struct base_err *err)
{
    struct caller_find f = { token, out };
    return db_run_once(pool, caller_find, &f, err);
}

struct token_create {
    const char *player_id, *token;
    int max;
    struct db_token *out;
};

/* Counts the player's tokens under their row's lock, then inserts one if
 * fewer than max: two creations at once cannot both take the last place. */
static enum db_status token_create(struct db_tx *tx, void *arg)
{
    struct token_create *c = arg;
    char id[BASE_ID_SIZE], hash[BASE_SHA256_HEX_LEN + 1], max[16];
    const char *lock[1] = { c->player_id };
    const char *params[4] = { id, c->player_id, hash, max };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_TOKEN_LOCK_PLAYER, lock, &res);

    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_NOT_FOUND;
    PQclear(res);
    res = NULL;
    if (rc != DB_OK)
        return rc;
    if (!db_new_id(id))
        return db_tx_fail(tx, "the random generator failed");
    base_sha256_hex(c->token, strlen(c->token), hash);
    snprintf(max, sizeof max, "%d", c->max);
    rc = db_exec(tx, DB_STMT_TOKEN_INSERT_CAPPED, params, &res);
    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_CONFLICT;
    if (rc == DB_OK) {
        snprintf(c->out->id, sizeof c->out->id, "%s", id);
        db_row_text(&(struct db_row){ res, 0 }, "created_at", c->out->created_at,
                    sizeof c->out->created_at);
        c->out->last_used_at[0] = '\0';
    }
    PQclear(res);
    return rc;
}

enum db_status db_token_create(struct db_pool *pool, const char *player_id, const char *token,
                               int max, struct db_token *out, struct base_err *err)
{
    struct token_create c = { player_id, token, max, out };
    return db_run_tx(pool, token_create, &c, err);
}

#define T(member) DB_TEXT(struct db_token, member, #member)
static const struct db_col token_cols[] = {
    T(id), T(created_at), T(last_used_at), DB_COLS_END
};

DB_READER(token_read, struct db_token, token_cols)

enum db_status db_token_list(struct db_pool *pool, const char *player_id, struct db_token *out,
                             int max, int *count, struct base_err *err)
{
    char limit[16];
    const char *params[2] = { player_id, limit };
    snprintf(limit, sizeof limit, "%d", max);
    return db_get_rows(pool, DB_STMT_TOKEN_LIST, params, token_read, out, sizeof *out, max,
                       count, err);
}

struct token_revoke {
    const char *player_id, *token_id;
};

static enum db_status token_revoke(struct db_tx *tx, void *arg)
{
    struct token_revoke *r = arg;
    const char *params[2] = { r->token_id, r->player_id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_TOKEN_DELETE, params, &res);
    if (rc == DB_OK && atoi(PQcmdTuples(res)) == 0)
        rc = DB_NOT_FOUND;
    PQclear(res);
    return rc;
}

enum db_status db_token_revoke(struct db_pool *pool, const char *player_id,
                               const char *token_id, struct base_err *err)
{
    struct token_revoke r = { player_id, token_id };
    return db_run_once(pool, token_revoke, &r, err);
}
