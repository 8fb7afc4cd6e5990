/**
 * Producing over HTTP: sending one message or a batch to a topic, and looking up, cancelling and rescheduling a
 * message by key.
 */
@NullMarked
package dev.rmq.server.api.message;

import org.jspecify.annotations.NullMarked;
