-- rmq's transactional outbox: one row per send written in the application's transaction, deleted once the relay
-- has moved it to Redis. Times are epoch milliseconds as rmq reads them, or timestamps for people.

CREATE TABLE rmq_outbox (
    -- the relay's order
    id            BIGSERIAL     PRIMARY KEY,
    topic         VARCHAR(128)  NOT NULL,
    -- R range-merge, P priority, F fixed-time
    type          CHAR(1)       NOT NULL,
    -- the message's key: its own, or the one derived from its payload, so that a send relayed twice merges
    msg_key       VARCHAR(1024) NOT NULL,
    slot_basis    VARCHAR(1024),
    -- time range ms (R), priority (P), fixed time epoch ms (F)
    type_value    BIGINT        NOT NULL,
    -- the headers, as a JSON object of strings
    headers       TEXT          NOT NULL,
    payload       BYTEA         NOT NULL,
    ttl_ms        BIGINT,
    -- an epoch ms before which the message is not delivered; a send's delay is counted from when it was written
    not_before    BIGINT,
    -- the repeated-key rule of the send, when it has one: its kind and window
    repeated_key  VARCHAR(16),
    repeated_ms   BIGINT,
    created_at    TIMESTAMP(3)  NOT NULL,
    -- sends Redis refused (a full backlog): how often, why the last time, and when the relay tries again
    attempts      INTEGER       NOT NULL DEFAULT 0,
    last_error    VARCHAR(1024),
    retry_at      TIMESTAMP(3),
    -- a relay's claim on the row while it sends it: no other relay takes the row until then, so a relay whose
    -- transaction fails after Redis took the row deletes it later instead of another one sending it again
    claimed_until TIMESTAMP(3)
);
