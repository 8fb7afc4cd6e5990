/**
 * Restoring over HTTP: what Redis lost is put back from the JDBC journal, when the server has one.
 */
@NullMarked
package dev.rmq.server.api.restore;

import org.jspecify.annotations.NullMarked;
