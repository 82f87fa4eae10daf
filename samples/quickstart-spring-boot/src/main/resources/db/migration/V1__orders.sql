-- The application's own tables, migrated by Spring Boot's Flyway. The outbox's come from the
-- migration shipped in outbox-jdbc, which the starter runs right after, with a history table of
-- their own (outbox_schema_history).
CREATE TABLE orders (
    id     uuid          NOT NULL PRIMARY KEY,
    total  numeric(12,2) NOT NULL
);
