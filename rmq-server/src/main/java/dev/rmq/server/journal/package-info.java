/**
 * The database behind the journal: {@link dev.rmq.server.journal.DataSourceSwitch} leaves it out unless one is
 * configured, so the server starts without one. The restore endpoint itself is the {@code api.restore} package's.
 */
@NullMarked
package dev.rmq.server.journal;

import org.jspecify.annotations.NullMarked;
