/*
 * notify_test.h — what the mail tests (test_notify_mail.c,
 * test_notify_clock.c, test_i18n_mail.c) share: the deadline they name, the
 * game they write about, and a mail's text asserted written.
 */
#ifndef KORP_TESTS_NOTIFY_TEST_H
#define KORP_TESTS_NOTIFY_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "notify_mail.h"

/* 2026-11-25T13:45:00Z, a Wednesday (`date -u -d @1795614300`). */
#define DEADLINE_TEXT "2026-11-25T13:45:00Z"
#define DEADLINE_UNIX 1795614300LL

/*
 * A mail of KIND for bob, who plays White against alice in the Korpalski
 * game aZ3kP9qw: alice's Q@d8 (H/d8) at ply 38 was the last move, bob's
 * deadline is a day away; the game's end, where a kind tells it, is 1-0 by
 * checkmate.  Tests set what else their kind needs.
 */
static inline struct notify_about notify_test_about(enum notify_kind kind)
{
    return (struct notify_about){
        .kind = kind,
        .variant = "korpalski",
        .game_id = "aZ3kP9qw",
        .player_name = "bob",
        .opponent_name = "alice",
        .my_color = "white",
        .ply = 38,
        .last_san = "Q@d8",
        .last_uci = "Q@d8",
        .last_polish = "H/d8",
        .deadline = DEADLINE_TEXT,
        .now = DEADLINE_UNIX - 24 * 3600,
        .status = "active",
        .result = "1-0",
        .termination = "checkmate",
        .game_url = "https://korp.example/games/aZ3kP9qw",
        .settings_url = "https://korp.example/settings/notifications",
    };
}

/*
 * bob's digest in LANGUAGE: his turn in the shared game, and as Black after
 * White's f5f7 in carol's Glinski game without a deadline; two hours before
 * the first one's deadline.
 */
static inline struct notify_digest notify_test_digest(const char *language)
{
    static const struct notify_digest_game games[] = {
        { "aZ3kP9qw", "korpalski", "alice", "white", 38, "Q@d8", DEADLINE_TEXT,
          "https://korp.example/games/aZ3kP9qw" },
        { "Hx7Gl1nsk", "glinski", "carol", "black", 1, "f5f7", NULL,
          "https://korp.example/games/Hx7Gl1nsk" },
    };
    return (struct notify_digest){ "bob", games, 2, DEADLINE_UNIX - 2 * 3600,
                                   "https://korp.example/settings/notifications", language };
}

/* The body of A's mail (malloc'd), its subject into SUBJECT; fails the test
 * when the mail cannot be written. */
static inline char *notify_test_text(const struct notify_about *a, char subject[NOTIFY_SUBJECT_MAX])
{
    char *body = NULL;
    struct base_err err = { "" };
    if (!notify_mail_text(a, subject, NOTIFY_SUBJECT_MAX, &body, &err))
        fail_msg("kind %d: %s", (int)a->kind, err.text);
    return body;
}

#endif
