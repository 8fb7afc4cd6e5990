package dev.rmq.server.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rmq.consumer.Progress;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.Map;

/**
 * A message as Redis holds it, as the API shows it. Of {@code dueTime}, {@code priority}, {@code visibleAt},
 * {@code leaseDeadline} and {@code diedAt}, only those that apply to its state are present: a waiting message has
 * its due time (range-merge, fixed-time) or priority; a delayed or retrying one the time it becomes visible; one in
 * flight its lease deadline, and its handler's last progress report if it made one; a dead one when it died.
 *
 * @param payloadFormat {@code json}, or {@code text} for a payload that is not JSON, shown as a string
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MessageView(String topic, int slot, String key, String state, @Nullable String dueTime,
                          @Nullable Long priority, @Nullable String visibleAt, @Nullable String leaseDeadline,
                          @Nullable Progress progress, @Nullable String diedAt, int attempts, @Nullable String lastError,
                          Map<String, String> headers, @Nullable String expiresAt, JsonNode payload,
                          String payloadFormat) {

    public static MessageView of(StoredMessage message, TopicType type, Payloads payloads) {
        Payloads.Rendered payload = payloads.render(message.headers(), message.payload());
        return new MessageView(message.topic(), message.slot(), message.key(), message.state().name(),
                text(message.dueTime(type)), message.priority(type).isPresent() ? message.priority(type).getAsLong() : null,
                text(message.visibleAt()), text(message.leaseDeadline()), message.progress().orElse(null),
                text(message.diedAt()), message.attempts(), emptyToNull(message.lastError()), message.headers(),
                message.expiresAt().map(Instant::toString).orElse(null), payload.payload(), payload.format());
    }

    private static @Nullable String text(java.util.Optional<Instant> time) {
        return time.map(Instant::toString).orElse(null);
    }

    static @Nullable String emptyToNull(@Nullable String text) {
        return text == null || text.isEmpty() ? null : text;
    }
}
