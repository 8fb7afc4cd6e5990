/**
 * Pulling over HTTP: {@link dev.rmq.server.pull.ServerPuller} holds the server's one puller over every topic and
 * the table of the messages clients hold, by random token, until they settle them or their lease passes.
 * Nothing here knows of HTTP; the {@code api.delivery} package serves it.
 */
@NullMarked
package dev.rmq.server.pull;

import org.jspecify.annotations.NullMarked;
