/*
 * db.h — korp's PostgreSQL layer: a connection pool, the schema migrations
 * and the queries the server runs.  Only this module speaks SQL.
 *
 * Every wait on the database has a deadline: for a free connection, for a
 * new connection, and for each statement's answer.  A request never blocks
 * forever on a hung server; it gets DB_BUSY or DB_UNREACHABLE instead.
 *
 * The interface is split by table or concern, one header each; this one
 * includes them all (db/README.md says what holds across them).
 */
#ifndef KORP_DB_H
#define KORP_DB_H

#include "db_pool.h"          /* the pool, transactions, migrations */
#include "db_names.h"         /* the words of stored state */
#include "db_kinds.h"         /* kinds of event and notification */
#include "db_clock.h"         /* clocks */
#include "db_players.h"       /* players, tokens, sessions */
#include "db_bots.h"          /* bot accounts */
#include "db_challenges.h"
#include "db_games.h"         /* games, moves, conditional moves */
#include "db_messages.h"      /* notes and messages */
#include "db_leave.h"
#include "db_ratings.h"
#include "db_arbiter.h"       /* the arbiter's queue */
#include "db_fairplay.h"      /* the fair-play analysis */
#include "db_tournaments.h"
#include "db_events.h"        /* the event log, its feed, the waker */
#include "db_notify.h"        /* preferences, webhooks, the outbox */
#include "db_push.h"          /* Web Push subscriptions */
#include "db_idempotency.h"
#include "db_prune.h"

#endif
