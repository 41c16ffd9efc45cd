-- Web Push: the browsers' subscriptions of a player, the kinds a player
-- takes by push, and push as a channel of the outbox.  The VAPID key pair
-- is a server secret (server_secrets, "vapid private key").
CREATE TABLE push_subscriptions (
    id text PRIMARY KEY,
    player_id text NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    endpoint text NOT NULL,
    p256dh bytea NOT NULL CHECK (length(p256dh) = 65),
    auth bytea NOT NULL CHECK (length(auth) = 16),
    created_at timestamptz NOT NULL,
    UNIQUE (player_id, endpoint)
);

ALTER TABLE notification_settings
    ADD COLUMN push_events text[] NOT NULL
        DEFAULT ARRAY['challenge', 'move', 'draw_offer', 'game_end', 'deadline_near', 'message']
        CHECK (push_events <@ korp_notification_types());

ALTER TABLE deliveries
    ADD COLUMN push_subscription_id text REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    DROP CONSTRAINT deliveries_channel_check,
    ADD CONSTRAINT deliveries_channel_check CHECK (channel IN ('email', 'webhook', 'push')),
    ADD CONSTRAINT deliveries_push_check
        CHECK ((channel = 'push') = (push_subscription_id IS NOT NULL));
CREATE INDEX deliveries_push_subscription ON deliveries (push_subscription_id)
    WHERE push_subscription_id IS NOT NULL;
