/*
 * test_i18n_mail.c — notification mails in the recipient's language.  The expected Polish and Hungarian words are written here by
 * hand (as a reader of each language would say them), not read from the
 * catalogs: a wrong or missing translation fails.  Also the catalog lookup
 * itself: English and unknown languages fall back to the msgid.
 */
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "notify_test.h"

/* The shared game's mail of KIND, for bob reading LANGUAGE. */
static struct notify_about about(enum notify_kind kind, const char *language)
{
    struct notify_about a = notify_test_about(kind);
    a.language = language;
    return a;
}

/* The body with its line breaks as spaces: wrapping may fall anywhere. */
static char *flat(const char *body)
{
    char *s = strdup(body);
    for (char *p = s; *p; p++)
        if (*p == '\n')
            *p = ' ';
    return s;
}

static void assert_has(const char *body, const char *words)
{
    char *f = flat(body);
    if (strstr(f, words) == NULL)
        fail_msg("'%s' not in:\n%s", words, body);
    free(f);
}

/* The shared game's mail of KIND in LANGUAGE, whose subject must be SUBJECT
 * and whose body must start with GREETING: the body (malloc'd). */
static char *mail(enum notify_kind kind, const char *language, const char *subject,
                  const char *greeting)
{
    struct notify_about a = about(kind, language);
    char written[NOTIFY_SUBJECT_MAX];
    char *body = notify_test_text(&a, written);
    assert_string_equal(written, subject);
    assert_true(strncmp(body, greeting, strlen(greeting)) == 0);
    return body;
}

static void test_i18n_lookup(void **state)
{
    (void)state;
    assert_string_equal(i18n_text("pl", "Sunday"), "niedziela");
    assert_string_equal(i18n_text("hu", "Sunday"), "vasárnap");
    assert_string_equal(i18n_text("en", "Sunday"), "Sunday");
    assert_string_equal(i18n_text(NULL, "Sunday"), "Sunday");
    assert_string_equal(i18n_text("de", "Sunday"), "Sunday");
    assert_string_equal(i18n_text("pl", "no such text anywhere"), "no such text anywhere");
    assert_string_equal(i18n_language("hu"), "hu");
    assert_string_equal(i18n_language("xx"), "en");
    /* The table is sorted, as the lookup needs. */
    for (size_t i = 1; i < i18n_catalog_count; i++)
        assert_true(strcmp(i18n_catalog[i - 1].msgid, i18n_catalog[i].msgid) < 0);
}

static void test_i18n_your_move_polish(void **state)
{
    (void)state;
    char *body = mail(NOTIFY_YOUR_MOVE, "pl", "Twój ruch w partii aZ3kP9qw z alice (Korpalski)",
                      "Cześć, bob,\n\n");
    assert_has(body, "Twój ruch w partii aZ3kP9qw z alice (Korpalski). Grasz białymi.");
    assert_has(body, "Ostatni ruch gracza alice: 19... Q@d8 (w polskiej notacji wynalazcy: H/d8).");
    assert_has(body, "Twój termin: środa, 25 listopada 2026, 13:45 UTC (za 24 godz.).");
    assert_has(body, "Otwórz partię: https://korp.example/games/aZ3kP9qw");
    assert_has(body, "przejdź do ustawień powiadomień:");
    assert_null(strstr(body, "Your "));
    free(body);
}

static void test_i18n_game_end_hungarian(void **state)
{
    (void)state;
    char *body = mail(NOTIFY_GAME_END, "hu", "A(z) aZ3kP9qw játszma alice ellen véget ért: 1-0 (matt)",
                      "Szia, bob!\n\n");
    assert_has(body, "A(z) aZ3kP9qw játszmád alice ellen (Korpalski) véget ért mattal: 1-0. Nyertél.");
    assert_has(body, "alice utolsó lépése: 19... Q@d8 (a feltaláló lengyel jelölésével: H/d8).");
    assert_has(body, "A játszma megnyitása: https://korp.example/games/aZ3kP9qw");
    free(body);

    struct notify_about a = about(NOTIFY_DEADLINE_NEAR, "hu");
    char subject[NOTIFY_SUBJECT_MAX];
    a.now = DEADLINE_UNIX - 3 * 86400;
    body = notify_test_text(&a, subject);
    assert_string_equal(subject, "3 nap maradt a lépésedre a(z) aZ3kP9qw játszmában alice ellen");
    assert_has(body, "Határidőd: 2026. november 25., szerda, 13:45 UTC (3 nap múlva).");
    free(body);
}

static void test_i18n_digest_hungarian_and_english(void **state)
{
    (void)state;
    struct notify_digest d = notify_test_digest("hu");
    char subject[NOTIFY_SUBJECT_MAX], *body = NULL;
    struct base_err err = { "" };
    assert_true(notify_mail_digest(&d, subject, sizeof subject, &body, &err));
    assert_string_equal(subject, "Te lépsz ennyi játszmában: 2");
    assert_has(body, "* aZ3kP9qw játszma alice ellen (Korpalski), világossal játszol");
    assert_has(body, "Utolsó lépés: 19... Q@d8");
    assert_has(body, "Határidő: 2026. november 25., szerda, 13:45 UTC (2 óra múlva).");
    free(body);

    d.language = "en";
    assert_true(notify_mail_digest(&d, subject, sizeof subject, &body, &err));
    assert_string_equal(subject, "Your move in 2 games");
    assert_has(body, "Deadline: Wednesday 25 November 2026, 13:45 UTC (in 2 hours).");
    free(body);
}

/* The diagram's words: a lesson's position (a knight in White's prison,
 * web/assets/lessons.js), counted by hand from its FEN. */
static void test_i18n_diagram_words(void **state)
{
    (void)state;
    const char *fen = "k7/4P3/8/8/8/8/8/K7[QRRBBNPPPPPPPqrrbbnnpppppppp] w - - 0 20";
    char out[NOTIFY_DIAGRAM_MAX];
    assert_true(notify_diagram_in("pl", "korpalski", fen, out, sizeof out) > 0);
    assert_non_null(strstr(out, "Rezerwa białych: hetman, wieże × 2, gońce × 2, skoczek, piony × 7\n"));
    assert_non_null(strstr(out, "Rezerwa czarnych: hetman, wieże × 2, gońce × 2, skoczki × 2, piony × 8\n"));
    assert_non_null(strstr(out, "Niewola białych:  skoczek\n"));
    assert_non_null(strstr(out, "Niewola czarnych:  pusto\n"));
    assert_non_null(strstr(out, "Ruch białych (ruch 20).\n(wielkie litery: białe, małe: czarne)\n"));
    assert_true(notify_diagram_in("hu", "korpalski", fen, out, sizeof out) > 0);
    assert_non_null(strstr(out, "Világos tartaléka: vezér, 2 bástya, 2 futó, huszár, 7 gyalog\n"));
    assert_non_null(strstr(out, "Világos börtöne:   huszár\n"));
    assert_non_null(strstr(out, "Világos lép (20. lépés).\n"));
    /* English stays as it was, all ASCII. */
    assert_true(notify_diagram_in(NULL, "korpalski", fen, out, sizeof out) > 0);
    assert_non_null(strstr(out, "White's reserve: queen, 2 rooks, 2 bishops, knight, 7 pawns\n"));
    assert_non_null(strstr(out, "White to move (move 20).\n"));
    for (const char *p = out; *p; p++)
        assert_true((unsigned char)*p < 128);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_i18n_lookup),
        cmocka_unit_test(test_i18n_your_move_polish),
        cmocka_unit_test(test_i18n_game_end_hungarian),
        cmocka_unit_test(test_i18n_digest_hungarian_and_english),
        cmocka_unit_test(test_i18n_diagram_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
