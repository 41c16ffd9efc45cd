/*
 * db_kinds.c — the names of the kinds of event and notification, from
 * db_kinds.def.
 */
#include "db.h"

#include <stddef.h>
#include <string.h>

static const char *const event_names[DB_EVENT_COUNT] = {
#define EVENT(NAME, type, MAIL) [DB_EVENT_##NAME] = type,
#include "db_kinds.def"
};

const char *db_event_name(enum db_event event)
{
    return (unsigned)event < DB_EVENT_COUNT ? event_names[event] : "unknown";
}

const char *const db_notification_types[DB_NOTIFICATION_TYPE_COUNT] = {
#define EVENT(NAME, type, MAIL) [DB_NOTIFICATION_##NAME] = type,
#define NOTICE(NAME, type, MAIL) [DB_NOTIFICATION_##NAME] = type,
#include "db_kinds.def"
};

static const struct {
    const char *type;
    enum db_notification_type kind;
} older[] = {
#define OLDER(NAME, type) { type, DB_NOTIFICATION_##NAME },
#include "db_kinds.def"
    { NULL, 0 },
};

int db_notification_type_index(const char *name)
{
    if (name == NULL)
        return -1;
    for (int i = 0; i < DB_NOTIFICATION_TYPE_COUNT; i++)
        if (strcmp(db_notification_types[i], name) == 0)
            return i;
    for (int i = 0; older[i].type != NULL; i++)
        if (strcmp(older[i].type, name) == 0)
            return (int)older[i].kind;
    return -1;
}
