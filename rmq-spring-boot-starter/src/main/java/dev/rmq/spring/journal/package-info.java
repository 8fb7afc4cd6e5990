/**
 * The JDBC journal on Spring Boot: {@code rmq.journal.enabled=true} and the application's {@code DataSource} give the
 * client a {@link dev.rmq.journal.jdbc.JdbcJournal}, with its gauges, and optionally a restore at start-up.
 */
@NullMarked
package dev.rmq.spring.journal;

import org.jspecify.annotations.NullMarked;
