/*
 * db_kinds.h — the kinds of event and of notification, generated from
 * db_kinds.def (db_kinds.c).  Included by db.h.
 */
#ifndef KORP_DB_KINDS_H
#define KORP_DB_KINDS_H

/* The kinds of event, as the players' event stream names them. */
enum db_event {
#define EVENT(NAME, type, MAIL) DB_EVENT_##NAME,
#include "db_kinds.def"
    DB_EVENT_COUNT
};
/* The older spelling of the constant. */
#define DB_EVENT_CHALLENGE_CANCELED DB_EVENT_CHALLENGE_CANCELLED

/* The stream's name of a kind of event ("unknown" for none). */
const char *db_event_name(enum db_event event);

/* The kinds of notification a player may choose (event types and the
 * deadline reminder), as korp_notification_types() lists them. */
enum db_notification_type {
#define EVENT(NAME, type, MAIL) DB_NOTIFICATION_##NAME,
#define NOTICE(NAME, type, MAIL) DB_NOTIFICATION_##NAME,
#include "db_kinds.def"
    DB_NOTIFICATION_TYPE_COUNT
};
extern const char *const db_notification_types[DB_NOTIFICATION_TYPE_COUNT];

/* A set of notification kinds: bit i stands for db_notification_types[i]. */
typedef unsigned db_notification_set;
#define DB_NOTIFICATION_ALL ((1u << DB_NOTIFICATION_TYPE_COUNT) - 1)

/* The kind of that name (or of an older spelling of it), or -1. */
int db_notification_type_index(const char *name);

#endif
