/*
 * notify_mail_message.c — the RFC 5322 message that carries a notification
 * mail (notify_mail_message).
 *
 * Every header value is checked so that none can break a line (header
 * injection), non-ASCII text goes into RFC 2047 encoded words, header
 * lines are folded, and the body is quoted-printable.  Why
 * quoted-printable rather than 8bit: the result is 7-bit ASCII with lines
 * of at most 76 characters whatever the text, so it passes relays without
 * 8BITMIME, long lines (URLs) never need the SMTP client to break them,
 * and trailing spaces (the "-- " signature line) survive; the text stays
 * readable in the raw message.
 */
#include "notify_mail.h"
#include "notify_sign.h"

#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Checking header values -------------------------------------------------- */

/*
 * Whether `s` may go into a header: not too long, no control character
 * (which is what a line break is), UTF-8, and ASCII when `ascii` is set.
 */
static bool check_text(const char *what, const char *s, bool ascii, struct base_err *err)
{
    size_t len = strlen(s);
    if (len > NOTIFY_HEADER_TEXT_MAX) {
        base_err_set(err, "%s is too long: %zu bytes, at most %d", what, len,
                 NOTIFY_HEADER_TEXT_MAX);
        return false;
    }
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7F) {
            base_err_set(err, "%s contains a control character (0x%02x) at byte %zu",
                     what, c, i);
            return false;
        }
        if (c >= 0x80 && ascii) {
            base_err_set(err, "%s must be ASCII", what);
            return false;
        }
        size_t n = base_utf8_char_len((const unsigned char *)s + i, len - i);
        if (n == 0) {
            base_err_set(err, "%s is not valid UTF-8 at byte %zu", what, i);
            return false;
        }
        i += n;
    }
    return true;
}

/* A plausible mailbox: dot-atom local part, '@', host name; no quoting,
 * spaces or angle brackets. */
static bool check_address(const char *what, const char *s, struct base_err *err)
{
    if (s == NULL || s[0] == '\0') {
        base_err_set(err, "%s is missing", what);
        return false;
    }
    if (!check_text(what, s, true, err))
        return false;
    if (!base_email_valid(s)) {
        base_err_set(err, "%s '%s' is not a plain address like name@example.org", what,
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
    struct base_text *t;
    size_t column;   /* characters on the current line */
    bool has_word;   /* the current line holds a word after the name */
};

static void header_begin(struct header *h, struct base_text *t, const char *name)
{
    *h = (struct header){ .t = t, .column = strlen(name) + 1 };
    base_text_str(t, name);
    base_text_str(t, ":");
}

/* Adds " word", on a new line when the current one would grow too long. */
static void header_word(struct header *h, const char *word, size_t n)
{
    if (h->has_word && n > 0 && h->column + 1 + n > LINE_SOFT_MAX) {
        base_text_str(h->t, "\r\n");
        h->column = 0;
    }
    base_text_str(h->t, " ");
    base_text_add(h->t, word, n);
    h->column += 1 + n;
    h->has_word = true;
}

static void header_end(struct header *h) { base_text_str(h->t, "\r\n"); }

/*
 * Adds UTF-8 text as RFC 2047 encoded words, each whole characters and at
 * most 42 bytes (56 base64 characters: a word of 68, a folded line of 69).
 * Decoders drop the white space between adjacent encoded words.
 */
static void header_encoded(struct header *h, const char *s)
{
    enum { CHUNK = 42, OPEN_LEN = 10 /* "=?UTF-8?B?" */ };
    size_t len = strlen(s), i = 0;
    while (i < len) {
        size_t n = 0;
        while (i + n < len) {
            size_t step = base_utf8_char_len((const unsigned char *)s + i + n, len - i - n);
            if (step == 0 || n + step > CHUNK)
                break;
            n += step;
        }
        char word[OPEN_LEN + BASE_BASE64_LEN(CHUNK) + sizeof "?="];
        memcpy(word, "=?UTF-8?B?", OPEN_LEN);
        size_t w = OPEN_LEN + base_base64_encode(s + i, n, word + OPEN_LEN,
                                                   sizeof word - OPEN_LEN);
        memcpy(word + w, "?=", 2);
        header_word(h, word, w + 2);
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
        if (!(base_email_atext(*p) || (*p == ' ' && p[1] != ' ' && p[1] != '\0')))
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

/* RFC 5322's day-name and month tokens (section 3.3): English, whatever
 * the locale. */
static const char day_tokens[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
static const char month_tokens[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

/* "Wed, 25 Nov 2026 13:45:00 +0000" (RFC 5322 section 3.3). */
static bool date_header(time_t date, char *out, size_t size)
{
    struct tm tm;
    /* Years 1900 to 9999, tested on tm_year: near INT_MAX, + 1900 would
     * overflow. */
    if (gmtime_r(&date, &tm) == NULL || tm.tm_year < 0 || tm.tm_year > 9999 - 1900)
        return false;
    snprintf(out, size, "%s, %d %s %04d %02d:%02d:%02d +0000", day_tokens[tm.tm_wday],
             tm.tm_mday, month_tokens[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
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
static void add_quoted_printable(struct base_text *t, const char *body)
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
                    base_text_str(t, "=\r\n");
                    column = 0;
                    continue;  /* decide again at the start of a line */
                }
                if (encode)
                    base_text_put(t, "=%02X", c);
                else
                    base_text_add(t, (const char *)&c, 1);
                column += width;
                break;
            }
        }
        base_text_str(t, "\r\n");
        p += n;
        if (*p == '\n')
            p++;
    }
}

/* ---- The message --------------------------------------------------------------- */

char *notify_mail_message(const struct notify_mail *m, struct base_err *err)
{
    char *message = NULL;
    struct base_text t = { 0 };
    struct header h;

    if (!check_address("from address", m->from_address, err) ||
        !check_address("to address", m->to_address, err))
        goto done;
    if ((m->from_name && !check_text("from name", m->from_name, false, err)) ||
        (m->to_name && !check_text("to name", m->to_name, false, err)))
        goto done;
    if (m->subject == NULL || !check_text("subject", m->subject, false, err)) {
        if (m->subject == NULL)
            base_err_set(err, "subject is missing");
        goto done;
    }
    if (m->body == NULL) {
        base_err_set(err, "body is missing");
        goto done;
    }
    long bad = base_utf8_invalid_at((const unsigned char *)m->body, strlen(m->body));
    if (bad >= 0) {
        base_err_set(err, "body is not valid UTF-8 at byte %ld", bad);
        goto done;
    }

    char id[NOTIFY_HEADER_TEXT_MAX + 3];
    if (m->message_id != NULL) {
        const char *at = strrchr(m->message_id, '@');
        if (!check_text("message id", m->message_id, true, err))
            goto done;
        if (at == NULL || !base_email_dot_atom(m->message_id, (size_t)(at - m->message_id)) ||
            !base_email_dot_atom(at + 1, strlen(at + 1))) {
            base_err_set(err, "message id '%s' is not of the form left@right",
                     m->message_id);
            goto done;
        }
        snprintf(id, sizeof id, "<%s>", m->message_id);
    } else {
        const char *domain = m->message_id_domain ? m->message_id_domain
                                                  : strrchr(m->from_address, '@') + 1;
        char random[25];
        if (!check_text("message id domain", domain, true, err))
            goto done;
        if (!base_email_host(domain, strlen(domain))) {
            base_err_set(err, "message id domain '%s' is not a host name", domain);
            goto done;
        }
        if (!base_random_text(random, sizeof random - 1)) {
            base_err_set(err, "no random bytes for a message id");
            goto done;
        }
        snprintf(id, sizeof id, "<%s@%s>", random, domain);
    }

    const char *url = m->unsubscribe_url;
    bool https = false;
    if (url != NULL) {
        if (!check_text("unsubscribe url", url, true, err))
            goto done;
        https = strncmp(url, "https://", 8) == 0;
        if ((!https && strncmp(url, "http://", 7) != 0) || strpbrk(url, " <>\"") != NULL) {
            base_err_set(err, "unsubscribe url '%s' must be an http(s) URL without "
                     "spaces, quotes or angle brackets", url);
            goto done;
        }
    }

    char date[64];
    if (!date_header(m->date, date, sizeof date)) {
        base_err_set(err, "date %lld cannot be written", (long long)m->date);
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
    base_text_str(&t, "MIME-Version: 1.0\r\n"
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
            base_text_str(&t, "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n");
    }
    base_text_str(&t, "\r\n");
    add_quoted_printable(&t, m->body);

    if (t.failed) {
        base_err_set(err, "out of memory writing a mail");
        goto done;
    }
    /* The folding keeps lines short; make sure nothing slipped past 998. */
    for (const char *line = t.buf; *line;) {
        const char *crlf = strstr(line, "\r\n");
        if (crlf == NULL || crlf - line > LINE_HARD_MAX) {
            base_err_set(err, "a header line would exceed %d characters", LINE_HARD_MAX);
            goto done;
        }
        line = crlf + 2;
    }
    message = base_text_take(&t);

done:
    free(t.buf);
    return message;
}
