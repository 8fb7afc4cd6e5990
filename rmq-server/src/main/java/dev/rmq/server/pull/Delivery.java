package dev.rmq.server.pull;

import dev.rmq.pull.PulledMessage;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import java.time.Instant;

/**
 * A message the server handed to a client, under the token the client settles it with.
 *
 * @param token         random and unguessable: whoever holds it can settle the message
 * @param message       the puller's message
 * @param fixedDeadline for an at-most-once message, which has no lease in Redis, until when the server keeps the
 *                      token; null for a message under lease, whose deadline is its lease's
 */
public record Delivery(String token, PulledMessage<JsonNode> message, @Nullable Instant fixedDeadline) {

    /** Until when the client may settle the message; an extension moves it. */
    public Instant leaseDeadline() {
        return fixedDeadline != null ? fixedDeadline : message.leaseDeadline();
    }
}
