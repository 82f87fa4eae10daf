-- Outbox streams (MariaDB 10.3 or newer: MySQL has no ADD COLUMN IF NOT EXISTS: leave "IF NOT EXISTS" out
-- there): what a consumer's inbox needs to apply each message once and in order (with
-- outbox-inbox, or by hand). Additive: run it after V1__outbox_tables.sql; rows written before it
-- read as epoch 0, and their next message says that nothing earlier is missing (prev seq 0).

-- epoch: when the head was created (milliseconds since 1970 on the writer's clock). Cleanup deletes
-- an idle head whose messages are all gone, and the aggregate's next write starts again at seq 1:
-- under a larger epoch, so that (epoch, seq) only grows per aggregate. Each message copies its
-- head's epoch, since CDC mode reads the message table alone.
-- published_seq: the last seq of the current epoch the broker acknowledged. It trails
-- delivered_seq when messages were dead-lettered without the hold: they will never be published,
-- and the next message says so by naming published_seq as its previous seq.
ALTER TABLE outbox_heads ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0;
ALTER TABLE outbox_heads ADD COLUMN IF NOT EXISTS published_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE outbox_messages ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0;
ALTER TABLE outbox_dead_letters ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0;
