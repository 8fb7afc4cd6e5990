-- rmq's journal: one row per message (its whole content and its last state), one row per change of its state.
-- Times are epoch milliseconds (score, not_before, expire_at) as rmq reads them, or timestamps for people.

CREATE TABLE rmq_messages (
    id          BIGSERIAL     PRIMARY KEY,
    topic       VARCHAR(128)  NOT NULL,
    msg_key     VARCHAR(1024) NOT NULL,
    slot        INTEGER       NOT NULL,
    -- R range-merge, P priority, F fixed-time
    type        CHAR(1)       NOT NULL,
    -- due time (epoch ms) for R and F, priority for P
    score       BIGINT        NOT NULL,
    not_before  BIGINT,
    expire_at   BIGINT,
    headers     TEXT          NOT NULL,
    payload     BYTEA         NOT NULL,
    created_at  TIMESTAMP(3)  NOT NULL,
    -- the last state: sent, merged, delivered, acked, retried, dead, cancelled, rescheduled, expired, restored,
    -- released
    state       VARCHAR(16)   NOT NULL,
    attempts    INTEGER       NOT NULL DEFAULT 0,
    -- whether the message is done with: acked, dead, cancelled, expired, or delivered at most once
    finished    BOOLEAN       NOT NULL DEFAULT FALSE,
    updated_at  TIMESTAMP(3)  NOT NULL
);

-- finds a key's messages: its open ones (at most two: one in flight, one sent behind it), or its latest
CREATE INDEX rmq_messages_key ON rmq_messages (topic, msg_key);
-- what restore reads, in id order
CREATE INDEX rmq_messages_unfinished ON rmq_messages (id) WHERE NOT finished;
-- what retention prunes
CREATE INDEX rmq_messages_done ON rmq_messages (updated_at) WHERE finished;

CREATE TABLE rmq_transitions (
    id          BIGSERIAL     PRIMARY KEY,
    message_id  BIGINT        NOT NULL REFERENCES rmq_messages (id) ON DELETE CASCADE,
    state       VARCHAR(16)   NOT NULL,
    attempt     INTEGER       NOT NULL,
    at          TIMESTAMP(3)  NOT NULL,
    worker      VARCHAR(200),
    host        VARCHAR(200),
    detail      VARCHAR(1024)
);

CREATE INDEX rmq_transitions_message ON rmq_transitions (message_id);
