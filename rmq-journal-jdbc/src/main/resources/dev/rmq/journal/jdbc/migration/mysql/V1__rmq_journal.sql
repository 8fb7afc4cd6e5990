-- rmq's journal: one row per message (its whole content and its last state), one row per change of its state.
-- Times are epoch milliseconds (score, not_before, expire_at) as rmq reads them, or timestamps for people.

CREATE TABLE rmq_messages (
    id          BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
    topic       VARCHAR(128)  NOT NULL,
    msg_key     VARCHAR(1024) NOT NULL,
    slot        INT           NOT NULL,
    -- R range-merge, P priority, F fixed-time
    type        CHAR(1)       NOT NULL,
    -- due time (epoch ms) for R and F, priority for P
    score       BIGINT        NOT NULL,
    not_before  BIGINT        NULL,
    expire_at   BIGINT        NULL,
    headers     MEDIUMTEXT    NOT NULL,
    payload     LONGBLOB      NOT NULL,
    created_at  DATETIME(3)   NOT NULL,
    -- the last state: sent, merged, delivered, acked, retried, dead, cancelled, rescheduled, expired, restored,
    -- released
    state       VARCHAR(16)   NOT NULL,
    attempts    INT           NOT NULL DEFAULT 0,
    -- whether the message is done with: acked, dead, cancelled, expired, or delivered at most once
    finished    BOOLEAN       NOT NULL DEFAULT FALSE,
    updated_at  DATETIME(3)   NOT NULL,
    -- finds a key's open messages (a prefix of the key: an index entry is limited to 3072 bytes)
    INDEX rmq_messages_open (topic, msg_key(255), finished),
    -- what restore reads, and what retention prunes
    INDEX rmq_messages_done (finished, updated_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE rmq_transitions (
    id          BIGINT        NOT NULL AUTO_INCREMENT PRIMARY KEY,
    message_id  BIGINT        NOT NULL,
    state       VARCHAR(16)   NOT NULL,
    attempt     INT           NOT NULL,
    at          DATETIME(3)   NOT NULL,
    worker      VARCHAR(200)  NULL,
    host        VARCHAR(200)  NULL,
    detail      VARCHAR(1024) NULL,
    INDEX rmq_transitions_message (message_id),
    CONSTRAINT rmq_transitions_message_fk FOREIGN KEY (message_id) REFERENCES rmq_messages (id) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
