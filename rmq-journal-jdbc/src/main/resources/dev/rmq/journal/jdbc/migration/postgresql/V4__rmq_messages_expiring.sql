-- What retention prunes besides finished messages: open ones whose time to live ran out. Redis drops such a message
-- while it waits (or moves it to the dead queue) without a consumer seeing it, so no change ever finishes its row.
-- IF NOT EXISTS: an operator who cannot hold back the journal's writes while the index is built creates it by hand
-- first, with CONCURRENTLY (which, run by Flyway, can wait for good on a transaction of Flyway's own), under this
-- name.
CREATE INDEX IF NOT EXISTS rmq_messages_expiring ON rmq_messages (expire_at) WHERE NOT finished AND expire_at IS NOT NULL;
