-- Inbox tables for MariaDB and MySQL (InnoDB). Shipped with outbox-inbox; run it with your
-- migration tool. Rename the tables if yours are not the defaults. Times are DATETIME(6) in UTC
-- from the database clock (UTC_TIMESTAMP(6)); see the PostgreSQL file for the meaning of each
-- column.
CREATE TABLE IF NOT EXISTS inbox_positions (
    source          VARCHAR(100) NOT NULL,
    aggregate_type  VARCHAR(255) NOT NULL,
    aggregate_id    VARCHAR(255) NOT NULL,
    epoch           BIGINT       NOT NULL,
    applied_seq     BIGINT       NOT NULL,
    applied_at      DATETIME(6)  NOT NULL,
    gap_epoch       BIGINT,
    gap_seq         BIGINT,
    gap_since       DATETIME(6),
    PRIMARY KEY (source, aggregate_type, aggregate_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;

CREATE TABLE IF NOT EXISTS inbox_received_ids (
    source       VARCHAR(100) NOT NULL,
    message_id   VARCHAR(255) NOT NULL,
    received_at  DATETIME(6)  NOT NULL,
    PRIMARY KEY (source, message_id),
    KEY ix_inbox_received_ids_received (source, received_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
