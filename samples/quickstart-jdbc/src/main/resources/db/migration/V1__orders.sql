-- The application's own tables. The outbox's come from the migration shipped in outbox-jdbc, run by
-- OrdersApp with a history table of their own.
CREATE TABLE orders (
    id     uuid          NOT NULL PRIMARY KEY,
    total  numeric(12,2) NOT NULL
);
