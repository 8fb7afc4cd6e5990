/**
 * A transactional outbox for rmq's sends in PostgreSQL or MySQL/MariaDB (8.0.1 and 10.6 or later, for
 * {@code SKIP LOCKED}). {@link dev.rmq.outbox.jdbc.JdbcOutbox} writes a send as a row on the application's own
 * connection, in its transaction, and its relay moves the rows to Redis and deletes them once Redis has answered.
 * Its schema is migrated by Flyway, with a history table of its own.
 *
 * <p>Order: a relay claims and sends rows by their id, the order in which they were written. Two transactions that
 * commit in another order than they wrote can have the later-written row sent first, when the relay reads between the
 * two commits; and a row whose send Redis refused, or did not answer, is tried again after the rows behind it. Since
 * a send merges into the waiting message of its key, the content that waits is then the last one sent, not always
 * the last one written: give the sends of one key a single writer where the latest content must win.
 */
@NullMarked
package dev.rmq.outbox.jdbc;

import org.jspecify.annotations.NullMarked;
