/**
 * The embedded default: {@link dev.rmq.server.embedded.EmbeddedInfrastructure} starts a local redis-server and an
 * in-process ZooKeeper, from rmq-embedded, when the configuration names none, and stops them after everything that
 * uses them. For trying the server; production points it at servers of its own.
 */
@NullMarked
package dev.rmq.server.embedded;

import org.jspecify.annotations.NullMarked;
