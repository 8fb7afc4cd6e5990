/**
 * The rmq server application: {@link dev.rmq.server.RmqServerApplication}. Its parts, one concern per package:
 * {@code embedded} (the local Redis and ZooKeeper of the default set-up), {@code security} (API keys, and loopback
 * only without them), {@code pull} (the server's puller and its table of delivery tokens), {@code journal} (the
 * database behind a restore), and {@code api} with one subpackage per group of endpoints.
 */
@NullMarked
package dev.rmq.server;

import org.jspecify.annotations.NullMarked;
