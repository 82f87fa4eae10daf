-- Outbox tables for MariaDB and MySQL (InnoDB). Shipped with outbox-hibernate; run it with your
-- migration tool. Delivery core version 2: append-only messages, one head row per aggregate.
-- Times are DATETIME(6) in UTC; the relay's lease times come from the database clock
-- (UTC_TIMESTAMP(6)).

-- Messages: written once by the flush, deleted by cleanup, never updated; clustered on position,
-- so rows are appended. seq is 1, 2, 3, ... per aggregate without gaps, in commit order.
CREATE TABLE IF NOT EXISTS outbox_messages (
    position        BIGINT       NOT NULL AUTO_INCREMENT,
    id              CHAR(36)     CHARACTER SET ascii NOT NULL,
    aggregate_type  VARCHAR(255) NOT NULL,
    aggregate_id    VARCHAR(255) NOT NULL,
    seq             BIGINT       NOT NULL,
    event_type      VARCHAR(255) NOT NULL,
    content_type    VARCHAR(100) NOT NULL,
    payload         LONGTEXT     NOT NULL,
    headers         TEXT         NOT NULL,
    occurred_at     DATETIME(6)  NOT NULL,
    created_at      DATETIME(6)  NOT NULL,
    PRIMARY KEY (position),
    UNIQUE KEY uq_outbox_messages_id (id),
    UNIQUE KEY uq_outbox_messages_seq (aggregate_type, aggregate_id, seq),
    KEY ix_outbox_messages_created (created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- Heads: one row per aggregate (see the PostgreSQL file for the meaning of each column). due_at is
-- available_at while messages are pending and the head is not held, NULL otherwise: the claim reads
-- its index range up to now, which leased, retrying and held heads are not in.
CREATE TABLE IF NOT EXISTS outbox_heads (
    aggregate_type  VARCHAR(255) NOT NULL,
    aggregate_id    VARCHAR(255) NOT NULL,
    write_seq       BIGINT       NOT NULL,
    delivered_seq   BIGINT       NOT NULL DEFAULT 0,
    available_at    DATETIME(6)  NOT NULL,
    claimed_by      VARCHAR(100),
    lease_token     BIGINT       NOT NULL DEFAULT 0,
    attempts        INT          NOT NULL DEFAULT 0,
    last_error      TEXT,
    held            BOOLEAN      NOT NULL DEFAULT FALSE,
    due_at          DATETIME(6)  AS
        (CASE WHEN write_seq > delivered_seq AND NOT held THEN available_at END) PERSISTENT,
    PRIMARY KEY (aggregate_type, aggregate_id),
    KEY ix_outbox_heads_due (due_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS outbox_dead_letters (
    id               CHAR(36)     CHARACTER SET ascii NOT NULL,
    aggregate_type   VARCHAR(255) NOT NULL,
    aggregate_id     VARCHAR(255) NOT NULL,
    seq              BIGINT       NOT NULL,
    event_type       VARCHAR(255) NOT NULL,
    content_type     VARCHAR(100) NOT NULL,
    payload          LONGTEXT     NOT NULL,
    headers          TEXT         NOT NULL,
    occurred_at      DATETIME(6)  NOT NULL,
    created_at       DATETIME(6)  NOT NULL,
    attempts         INT          NOT NULL,
    last_error       TEXT,
    dead_lettered_at DATETIME(6)  NOT NULL,
    PRIMARY KEY (id),
    KEY ix_outbox_dead_letters_aggregate (aggregate_type, aggregate_id),
    KEY ix_outbox_dead_letters_time (dead_lettered_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

-- What was published: the messages at or before their head's cursor.
CREATE OR REPLACE VIEW outbox_published AS
    SELECT m.* FROM outbox_messages m JOIN outbox_heads h
        ON h.aggregate_type = m.aggregate_type AND h.aggregate_id = m.aggregate_id
    WHERE m.seq <= h.delivered_seq;
