/*
 * notify_mail.h — what a notification mail says and how it is written,
 * internal to notify/.  Pure functions: no network, no database, no
 * globals.  The delivery worker fills a struct notify_about from the
 * outbox, turns it into a subject and a body with notify_mail_text (or
 * several games into one with notify_mail_digest), and wraps those into
 * an RFC 5322 message with notify_mail_message for the SMTP client.
 *
 * Times are Unix seconds (UTC); dates in the inputs are the RFC 3339 UTC
 * text korpd stores ("2026-11-25T13:45:00Z").  Texts are UTF-8.
 */
#ifndef KORP_NOTIFY_MAIL_H
#define KORP_NOTIFY_MAIL_H

#include "base.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Enough for any subject notify_mail_text writes from names of up to 30
 * characters, with its NUL. */
#define NOTIFY_SUBJECT_MAX 256
/* Enough for any diagram notify_diagram writes, with its NUL. */
#define NOTIFY_DIAGRAM_MAX 2048

/*
 * Writes a plain-text diagram of the position `fen` of `variant`
 * ("korpalski", "glinski") into out (at most `size` bytes with the NUL):
 * the board with coordinates, White at the bottom, White's men in upper
 * case and Black's in lower case, '.' for an empty cell; for Korpalski
 * also both reserves and both prisons; then whose turn it is.  Lines end
 * in '\n' and hold only ASCII, for a fixed-width font.  Returns the length
 * written, or 0 (and out "" when size > 0) for an unknown variant, a
 * position the rules refuse, or a buffer too small for the whole diagram.
 */
size_t notify_diagram(const char *variant, const char *fen, char *out, size_t size);
/* The same with its words (the turn, the reserves, the key) in `language`
 * ("pl", "hu"; NULL or "en": English, all ASCII); the board stays ASCII. */
size_t notify_diagram_in(const char *language, const char *variant, const char *fen, char *out,
                         size_t size);

/* What a notification is about: one mail each, as db_kinds.def lists them
 * (NOTIFY_YOUR_MOVE for a move, NOTIFY_CHALLENGE ...). */
enum notify_kind {
#define EVENT(NAME, type, MAIL) NOTIFY_##MAIL,
#define NOTICE(NAME, type, MAIL) NOTIFY_##MAIL,
#define MAIL(NAME, type) NOTIFY_##NAME,
#include "db_kinds.def"
    NOTIFY_KIND_COUNT
};
/* The older spelling of the constant. */
#define NOTIFY_CHALLENGE_CANCELED NOTIFY_CHALLENGE_CANCELLED

/*
 * The facts one notification tells, all borrowed.  A kind uses some of
 * them (see notify_mail_text); the others may be NULL.  "You" is the
 * recipient, player_name.
 */
struct notify_about {
    enum notify_kind kind;
    const char *variant;          /* "korpalski", "glinski" */
    const char *game_id;
    const char *challenge_id;
    const char *player_name;      /* the recipient */
    const char *opponent_name;
    const char *my_color;         /* "white", "black" */
    const char *fen;              /* the game's position now */
    int ply;                      /* plies played, the last move included */
    const char *last_san;         /* the opponent's last move */
    const char *last_uci;
    const char *last_polish;      /* Korpalski only: the inventor's notation */
    const char *deadline;         /* RFC 3339 UTC, or NULL for none */
    long long now;                /* Unix seconds, to say how long is left */
    const char *status;           /* "active", "finished", "aborted" */
    const char *result;           /* "1-0", "0-1", "1/2-1/2", "3/4-1/4", ... */
    const char *termination;      /* "checkmate", "resignation", "timeout", ... */
    const char *draw_offer;       /* "white", "black" or NULL */
    const char *game_url;
    const char *challenge_url;
    const char *settings_url;     /* notification settings, unsubscribing */
    const char *webhook_url;      /* NOTIFY_WEBHOOK_DISABLED */
    const char *webhook_reason;   /* NOTIFY_WEBHOOK_DISABLED */
    const char *confirm_url;      /* NOTIFY_EMAIL_CONFIRM: the signed link */
    const char *message_text;     /* NOTIFY_MESSAGE: what the opponent wrote */
    /* A Fischer clock: the recipient's time when it became their
     * turn, in seconds (shown beside the deadline). */
    bool fischer;
    long long my_time;
    const char *tournament_name;  /* NOTIFY_TOURNAMENT_START, _END */
    const char *arbiter_reason;   /* NOTIFY_ARBITER: the arbiter's words */
    const char *language;         /* the recipient's: "en", "pl", "hu"; NULL: English */
};

/*
 * Writes the subject (at most subject_size bytes with the NUL) and the
 * body (into *body, malloc'd, the caller frees) of the mail about `a`:
 * plain UTF-8 text with '\n' line ends, lines of at most 72 columns where
 * words allow, greeting the player, saying what happened (the last move in
 * SAN, and in Polish notation when last_polish is given), with the diagram
 * when fen is given, the deadline when there is one, the link to act on
 * and a footer pointing at settings_url.  Returns false, *body NULL and a
 * message in err when a fact the kind needs is missing or the subject does
 * not fit.
 */
bool notify_mail_text(const struct notify_about *a, char *subject, size_t subject_size,
                      char **body, struct base_err *err);

/* One game in a digest: it is the player's move there.  All borrowed. */
struct notify_digest_game {
    const char *game_id;
    const char *variant;          /* "korpalski", "glinski" */
    const char *opponent_name;
    const char *my_color;         /* "white", "black" or NULL */
    int ply;                      /* plies played */
    const char *last_san;         /* the opponent's last move, or NULL */
    const char *deadline;         /* RFC 3339 UTC, or NULL for none */
    const char *game_url;
};

/* A digest: several games waiting for one player's move. */
struct notify_digest {
    const char *player_name;
    const struct notify_digest_game *games;  /* listed in this order */
    size_t count;                             /* at least 1 */
    long long now;                            /* Unix seconds */
    const char *settings_url;
    const char *language;                     /* "en", "pl", "hu"; NULL: English */
};

/*
 * Writes the subject ("Your move in 3 games") and the body (malloc'd) of a
 * digest listing each game: id, opponent, variant, colour, last move,
 * deadline and link.  Returns false as notify_mail_text does.
 */
bool notify_mail_digest(const struct notify_digest *d, char *subject, size_t subject_size,
                        char **body, struct base_err *err);

/* A mail to send, all borrowed. */
struct notify_mail {
    const char *from_address;       /* local@domain */
    const char *from_name;          /* or NULL */
    const char *to_address;         /* local@domain */
    const char *to_name;            /* or NULL */
    const char *subject;            /* UTF-8 */
    const char *body;               /* UTF-8, '\n' or "\r\n" line ends */
    const char *message_id;         /* id-left@id-right without <>, or NULL
                                       for a random one */
    const char *message_id_domain;  /* for the random one; NULL: the
                                       from_address's domain */
    const char *unsubscribe_url;    /* http(s) URL, or NULL */
    time_t date;
};

/* Longest subject, name or URL notify_mail_message accepts, in bytes. */
#define NOTIFY_HEADER_TEXT_MAX 900

/*
 * Writes the whole message for SMTP: CRLF line ends, header lines of at
 * most 78 characters where they can be folded (998 at most), Date, From,
 * To, Subject (RFC 2047 encoded words when not ASCII), Message-ID,
 * MIME-Version, Content-Type text/plain UTF-8, Content-Transfer-Encoding
 * quoted-printable, Auto-Submitted: auto-generated and, with an
 * unsubscribe_url, List-Unsubscribe (plus List-Unsubscribe-Post for
 * one-click when the URL is https, RFC 8058); then the body,
 * quoted-printable, so every line is ASCII and at most 76 characters.
 *
 * Nothing that goes into a header can carry a line break: a name, subject,
 * URL or id with any control character (CR, LF, TAB, ...), text that is
 * not UTF-8, an address that is not a plain local@domain, or text longer
 * than NOTIFY_HEADER_TEXT_MAX is refused.  Returns the message (malloc'd,
 * the caller frees) or NULL with a message in err.
 */
char *notify_mail_message(const struct notify_mail *m, struct base_err *err);

#endif
