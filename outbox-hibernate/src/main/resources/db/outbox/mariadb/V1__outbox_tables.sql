-- Outbox tables for MariaDB and MySQL (InnoDB). Shipped with outbox-hibernate; run it with your
-- migration tool. The table is clustered on position, so the claim reads rows in insert order.
-- Times are DATETIME(6) in UTC, written and read by the JVM (no session time zone involved).
CREATE TABLE IF NOT EXISTS outbox_messages (
    position        BIGINT       NOT NULL AUTO_INCREMENT,
    id              CHAR(36)     CHARACTER SET ascii NOT NULL,
    aggregate_type  VARCHAR(255) NOT NULL,
    aggregate_id    VARCHAR(255) NOT NULL,
    event_type      VARCHAR(255) NOT NULL,
    content_type    VARCHAR(100) NOT NULL,
    payload         LONGTEXT     NOT NULL,
    headers         TEXT         NOT NULL,
    occurred_at     DATETIME(6)  NOT NULL,
    created_at      DATETIME(6)  NOT NULL,
    status          VARCHAR(16)  NOT NULL,
    attempts        INT          NOT NULL,
    next_attempt_at DATETIME(6)  NOT NULL,
    last_error      TEXT,
    claimed_by      VARCHAR(100),
    claimed_until   DATETIME(6),
    published_at    DATETIME(6),
    PRIMARY KEY (position),
    UNIQUE KEY uq_outbox_messages_id (id),
    KEY ix_outbox_messages_pending (status, position),
    KEY ix_outbox_messages_pending_aggregate (aggregate_type, aggregate_id, status, position),
    KEY ix_outbox_messages_published (status, published_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS outbox_dead_letters (
    id               CHAR(36)     CHARACTER SET ascii NOT NULL,
    position         BIGINT       NOT NULL,
    aggregate_type   VARCHAR(255) NOT NULL,
    aggregate_id     VARCHAR(255) NOT NULL,
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
