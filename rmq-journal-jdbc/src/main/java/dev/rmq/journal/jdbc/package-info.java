/**
 * A journal of rmq's messages in PostgreSQL or MySQL/MariaDB, and the restore of what Redis lost. {@link
 * dev.rmq.journal.jdbc.JdbcJournal} is the whole API: given to {@code RmqClient.Builder.journal}, it writes a row
 * per message and a row per change of its state, and {@link dev.rmq.journal.jdbc.JdbcJournal#restore} puts back
 * every message whose last state is not finished. Its schema is migrated by Flyway, with a history table of its own.
 */
@NullMarked
package dev.rmq.journal.jdbc;

import org.jspecify.annotations.NullMarked;
