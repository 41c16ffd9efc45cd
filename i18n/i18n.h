/*
 * i18n — korp's texts in the reader's language: English, Polish
 * and Hungarian.  The translations live in po/<lang>.po; the build turns
 * them into a table (po/catalog.py) so that korpd needs no installed .mo
 * files.  Texts are looked up by their English msgid, as gettext does.
 * Mark a text for the catalogs with N_("...") where it is written and
 * translate it with i18n_text() where it is used.
 */
#ifndef KORP_I18N_H
#define KORP_I18N_H

#include <stddef.h>

/* Marks a string literal for xgettext (scripts/i18n-extract.sh). */
#define N_(text) text

struct i18n_entry {
    const char *msgid;
    const char *text[4];   /* one per i18n_catalog_languages, NULL: untranslated */
};

/* The generated catalog (build/i18n/i18n_catalog.c). */
extern const char *const i18n_catalog_languages[];
extern const size_t i18n_catalog_language_count;
extern const struct i18n_entry i18n_catalog[];
extern const size_t i18n_catalog_count;

/*
 * The text of `msgid` in `language` ("en", "pl", "hu"): the translation,
 * or msgid itself for English, an unknown language, or a text the catalog
 * lacks.  Never NULL for a non-NULL msgid.
 */
const char *i18n_text(const char *language, const char *msgid);

/* "pl" or "hu" when `language` is one korp translates to, else "en". */
const char *i18n_language(const char *language);

#endif
