/*
 * i18n_text.c — looks a msgid up in the generated catalog.
 */
#include "i18n.h"

#include <stdlib.h>
#include <string.h>

static int language_index(const char *language)
{
    for (size_t i = 0; language != NULL && i < i18n_catalog_language_count; i++)
        if (strcmp(language, i18n_catalog_languages[i]) == 0)
            return (int)i;
    return -1;
}

const char *i18n_language(const char *language)
{
    int i = language_index(language);
    return i < 0 ? "en" : i18n_catalog_languages[i];
}

static int by_msgid(const void *key, const void *entry)
{
    return strcmp(key, ((const struct i18n_entry *)entry)->msgid);
}

const char *i18n_text(const char *language, const char *msgid)
{
    int i = language_index(language);
    if (i < 0 || msgid == NULL)
        return msgid;
    const struct i18n_entry *e = bsearch(msgid, i18n_catalog, i18n_catalog_count,
                                         sizeof *i18n_catalog, by_msgid);
    return e != NULL && e->text[i] != NULL ? e->text[i] : msgid;
}
