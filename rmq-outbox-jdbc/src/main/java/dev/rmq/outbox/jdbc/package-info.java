/**
 * A transactional outbox for rmq's sends in PostgreSQL or MySQL/MariaDB. {@link dev.rmq.outbox.jdbc.JdbcOutbox}
 * writes a send as a row on the application's own connection, in its transaction, and its relay moves the rows to
 * Redis in order and deletes them once Redis has answered. Its schema is migrated by Flyway, with a history table of
 * its own.
 */
@NullMarked
package dev.rmq.outbox.jdbc;

import org.jspecify.annotations.NullMarked;
