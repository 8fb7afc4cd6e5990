/**
 * Restoring over HTTP: what Redis lost is put back from the JDBC journal, when the server has one.
 */
package dev.rmq.server.api.restore;
