-- Inbox tables for PostgreSQL (12 or newer). Shipped with outbox-inbox; run it with your migration
-- tool. Rename the tables (and the index named after the second) if yours are not the defaults.

-- Positions: one row per (source, aggregate) a consumer has seen. (epoch, applied_seq) is the last
-- message applied; (0, 0) and no row both mean nothing applied yet. gap_epoch/gap_seq: the first
-- message found beyond a gap (gapPolicy WAIT), gap_since when; the gap is open while the position
-- is below that message. applied_at (the database clock) is what the cleanup's retention reads.
-- The fill factor leaves room on each page for the update of the next message to stay there.
CREATE TABLE IF NOT EXISTS inbox_positions (
    source          varchar(100) NOT NULL,
    aggregate_type  varchar(255) NOT NULL,
    aggregate_id    varchar(255) NOT NULL,
    epoch           bigint       NOT NULL,
    applied_seq     bigint       NOT NULL,
    applied_at      timestamptz  NOT NULL,
    gap_epoch       bigint,
    gap_seq         bigint,
    gap_since       timestamptz,
    PRIMARY KEY (source, aggregate_type, aggregate_id)
) WITH (fillfactor = 80);

-- The ids of messages without seq (another producer's), for de-duplication by id.
CREATE TABLE IF NOT EXISTS inbox_received_ids (
    source       varchar(100) NOT NULL,
    message_id   varchar(255) NOT NULL,
    received_at  timestamptz  NOT NULL,
    PRIMARY KEY (source, message_id)
);

CREATE INDEX IF NOT EXISTS ix_inbox_received_ids_received
    ON inbox_received_ids (source, received_at);
