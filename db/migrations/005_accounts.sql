-- Accounts: ending a token or a session is heard by every korpd at
-- once, and sign-ups are counted per address.

-- A deleted token or session (revoked, signed out, ended by a password
-- change or by "sign out everywhere", or pruned when expired) is NOTIFYed on
-- korp_revocations in the transaction that deletes it, with its owner and
-- the credential's name as requests know it: "<player id> <token id>", or
-- "<player id> s-<session id>".  Each korpd's listener ends the event streams
-- opened with it.
CREATE FUNCTION korp_credential_ended() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    PERFORM pg_notify('korp_revocations', OLD.player_id || ' ' ||
        CASE WHEN TG_TABLE_NAME = 'sessions' THEN 's-' || OLD.id ELSE OLD.id END);
    RETURN OLD;
END $$;

CREATE TRIGGER tokens_ended AFTER DELETE ON tokens
    FOR EACH ROW EXECUTE FUNCTION korp_credential_ended();
CREATE TRIGGER sessions_ended AFTER DELETE ON sessions
    FOR EACH ROW EXECUTE FUNCTION korp_credential_ended();

-- Sign-ups of the last hour, per client address (KORP_SIGNUP_LIMIT): in the
-- database, so that the limit holds across every korpd.
CREATE TABLE signups (
    address text NOT NULL,
    at timestamptz NOT NULL
);
CREATE INDEX signups_address ON signups (address, at);
