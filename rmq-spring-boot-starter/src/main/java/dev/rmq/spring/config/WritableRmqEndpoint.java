package dev.rmq.spring.config;

import dev.rmq.RmqClient;
import dev.rmq.coordination.RmqCoordinator;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code rmq} endpoint with the write operations, used only when
 * {@code rmq.endpoint.write-operations-enabled=true}:
 * <ul>
 * <li>{@code POST /actuator/rmq/{topic}} with {@code {"action": "pause"}} or {@code {"action": "resume"}}: pause
 * or resume the topic for every consumer in every application;</li>
 * <li>{@code POST /actuator/rmq/{topic}} with no action, or {@code {"action": "requeue"}}: requeue every dead
 * message of the topic;</li>
 * <li>{@code POST /actuator/rmq/{topic}/{slot}} with {@code {"key": "..."}}: requeue one;</li>
 * <li>{@code DELETE /actuator/rmq/{topic}}: purge the topic's dead messages;</li>
 * <li>{@code DELETE /actuator/rmq/{topic}/{slot}?key=...}: delete one.</li>
 * </ul>
 * A requeued message starts again from attempt 0: due now, or at its priority.
 */
@Endpoint(id = "rmq")
public class WritableRmqEndpoint extends RmqEndpoint {

    public WritableRmqEndpoint(RmqClient client, @Nullable RmqListenerEndpointRegistry registry,
                               @Nullable RmqCoordinator coordinator, String assignmentMode) {
        super(client, registry, coordinator, assignmentMode);
    }

    /**
     * What a write operation did: {@code messages} requeued, deleted or purged, and the topic's pause state
     * ({@code running}, {@code paused} or {@code partly paused (n of m slots)}) after a pause or resume.
     */
    public record Change(String topic, @Nullable Integer slot, @Nullable String key, String operation, long messages,
                         @Nullable String state) {
    }

    /** Pauses, resumes, or (without an action) requeues every dead message of the topic. */
    @WriteOperation
    public @Nullable Change change(@Selector String topic, @Nullable String action) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        String what = action == null ? "requeue" : action;
        return switch (what) {
            case "requeue" -> new Change(topic, null, null, "requeue", client.deadQueue().requeueAll(topic), null);
            case "pause" -> new Change(topic, null, null, "pause", 0, client.admin().pause(topic).describe());
            case "resume" -> new Change(topic, null, null, "resume", 0, client.admin().resume(topic).describe());
            default -> throw new InvalidEndpointRequestException("action must be pause, resume or requeue, was '"
                    + action + "'", "bad action");
        };
    }

    @WriteOperation
    public @Nullable Change requeue(@Selector String topic, @Selector int slot, String key) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        checkSlot(topic, slot);
        return new Change(topic, slot, key, "requeue", client.deadQueue().requeue(topic, slot, key) ? 1 : 0, null);
    }

    @DeleteOperation
    public @Nullable Change purge(@Selector String topic) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        return new Change(topic, null, null, "purge", client.deadQueue().purge(topic), null);
    }

    @DeleteOperation
    public @Nullable Change delete(@Selector String topic, @Selector int slot, String key) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        checkSlot(topic, slot);
        return new Change(topic, slot, key, "delete", client.deadQueue().delete(topic, slot, key) ? 1 : 0, null);
    }

    @Override
    protected boolean writeOperationsEnabled() {
        return true;
    }
}
