-- Tables that only grew are pruned by the sweeper, in
-- batches (db_prune.c): events past KORP_EVENT_RETENTION_DAYS, finished
-- notification deliveries (and their attempts) past
-- KORP_DELIVERY_RETENTION_DAYS; idempotency keys past 24 hours were
-- already.  Pruning, not partitioning: rows go at the rate they came, a
-- batch deletes by primary key with no lock beyond its own rows, and
-- nothing in the schema or the queries changes (partitioning events by
-- time would need the partition key in its primary key and in every
-- foreign key to it).

-- The highest event id pruned: an event stream resuming after an id below
-- it may have missed events that are gone (410 `events-pruned`).
CREATE TABLE event_retention (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    pruned_through bigint NOT NULL DEFAULT 0
);
INSERT INTO event_retention DEFAULT VALUES;

-- An event a delivery still names is kept until that delivery goes.
CREATE INDEX deliveries_event ON deliveries (event_id);
-- The oldest rows, found without reading the others: a batch reads what it
-- deletes (and the few rows kept for a delivery), a sweep with nothing to
-- prune one index entry.  New rows append at the right end of each index.
CREATE INDEX events_created ON events (created_at);
CREATE INDEX deliveries_created ON deliveries (created_at);
