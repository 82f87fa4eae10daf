-- The application's own tables, migrated before the outbox's (the migration shipped in
-- outbox-jdbc), which have a history table of their own: outbox_schema_history.
CREATE TABLE orders (
    id     uuid          NOT NULL PRIMARY KEY,
    total  numeric(12,2) NOT NULL
);
