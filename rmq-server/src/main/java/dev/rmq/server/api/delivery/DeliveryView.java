package dev.rmq.server.api.delivery;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rmq.pull.PulledMessage;
import dev.rmq.server.pull.Delivery;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.Map;

/**
 * A pulled message, under the token that settles it.
 *
 * @param attempt       1 on the first delivery, 2 on the first retry, and so on
 * @param dueTime       for range-merge and fixed-time messages, when it was due
 * @param priority      for priority messages, its priority
 * @param lastError     the reason of the previous failed attempt, absent on a first delivery
 * @param leaseDeadline until when the token settles the message; after it the message is delivered again
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record DeliveryView(String token, String topic, String key, int slot, int attempt, @Nullable String dueTime,
                           @Nullable Long priority, @Nullable String lastError, Map<String, String> headers,
                           JsonNode payload, String leaseDeadline) {

    static DeliveryView of(Delivery delivery) {
        PulledMessage<JsonNode> message = delivery.message();
        String lastError = message.lastError();
        return new DeliveryView(delivery.token(), message.topic(), message.key(), message.slot(), message.attempt(),
                message.dueTime().map(Instant::toString).orElse(null),
                message.priority().isPresent() ? message.priority().getAsLong() : null,
                lastError == null || lastError.isEmpty() ? null : lastError, message.headers(), message.payload(),
                delivery.leaseDeadline().toString());
    }
}
