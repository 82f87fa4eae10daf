-- Inbox tables for H2 (2.x). Shipped with outbox-inbox; run it with your migration tool. Rename
-- the tables (and the index named after the second) if yours are not the defaults; see the
-- PostgreSQL file for the meaning of each column.
CREATE TABLE IF NOT EXISTS inbox_positions (
    source          VARCHAR(100)             NOT NULL,
    aggregate_type  VARCHAR(255)             NOT NULL,
    aggregate_id    VARCHAR(255)             NOT NULL,
    epoch           BIGINT                   NOT NULL,
    applied_seq     BIGINT                   NOT NULL,
    applied_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    gap_epoch       BIGINT,
    gap_seq         BIGINT,
    gap_since       TIMESTAMP WITH TIME ZONE,
    PRIMARY KEY (source, aggregate_type, aggregate_id)
);

CREATE TABLE IF NOT EXISTS inbox_received_ids (
    source       VARCHAR(100)             NOT NULL,
    message_id   VARCHAR(255)             NOT NULL,
    received_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (source, message_id)
);

CREATE INDEX IF NOT EXISTS ix_inbox_received_ids_received
    ON inbox_received_ids (source, received_at);
