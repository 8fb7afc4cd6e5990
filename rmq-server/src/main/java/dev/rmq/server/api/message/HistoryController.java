package dev.rmq.server.api.message;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rmq.RmqClient;
import dev.rmq.journal.MessageHistory;
import dev.rmq.server.api.Api;
import dev.rmq.server.api.Payloads;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What the journal recorded of a key's messages: each with its content, last state and every change of its state,
 * the latest first, while it waits or runs and for the journal's retention after it ended.
 */
@RestController
@RequestMapping(Api.V1 + "/topics/{topic}")
public class HistoryController {

    private final RmqClient client;
    private final Payloads payloads;

    public HistoryController(RmqClient client, Payloads payloads) {
        this.client = client;
        this.payloads = payloads;
    }

    @GetMapping("/messages/{key}/history")
    public HistoryView history(@PathVariable String topic, @PathVariable String key) {
        List<MessageHistory> found = client.inspector().history(topic, key);
        return new HistoryView(topic, key, found.stream().map(this::view).toList());
    }

    private HistoryEntry view(MessageHistory message) {
        Payloads.Rendered payload = payloads.render(message.headers(), message.payload());
        boolean priority = message.type() == TopicType.PRIORITY;
        return new HistoryEntry(message.slot(), message.type().name(), message.state(), message.finished(),
                message.attempts(), priority ? null : Instant.ofEpochMilli(message.score()).toString(),
                priority ? message.score() : null, message.sentAt().toString(), message.updatedAt().toString(),
                message.headers(), payload.payload(), payload.format(), message.transitions().stream()
                .map(t -> new TransitionView(t.state(), t.attempt(), t.at().toString(), t.worker(), t.host(),
                        t.detail())).toList());
    }

    /** @param messages the key's messages, the latest first; empty when the journal holds none */
    public record HistoryView(String topic, String key, List<HistoryEntry> messages) {
    }

    /**
     * One message of the key.
     *
     * @param dueTime  its due time, for range-merge and fixed-time topics
     * @param priority its priority, for priority topics
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record HistoryEntry(int slot, String type, String state, boolean finished, int attempts,
                               @Nullable String dueTime, @Nullable Long priority, String sentAt, String updatedAt,
                               Map<String, String> headers, JsonNode payload, String payloadFormat,
                               List<TransitionView> transitions) {
    }

    /** One change of state: who made it, where, and what went wrong if anything did. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TransitionView(String state, int attempt, String at, @Nullable String worker, @Nullable String host,
                                 @Nullable String detail) {
    }
}
