package dev.rmq.spring.config;

import dev.rmq.RmqClient;
import dev.rmq.coordination.RmqCoordinator;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code rmq} endpoint with the dead-queue write operations, used only when
 * {@code rmq.endpoint.write-operations-enabled=true}:
 * <ul>
 * <li>{@code POST /actuator/rmq/{topic}}: requeue every dead message of the topic;</li>
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

    /** What a write operation did. */
    public record Change(String topic, @Nullable Integer slot, @Nullable String key, String operation, long messages) {
    }

    @WriteOperation
    public @Nullable Change requeueAll(@Selector String topic) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        return new Change(topic, null, null, "requeue", client.deadQueue().requeueAll(topic));
    }

    @WriteOperation
    public @Nullable Change requeue(@Selector String topic, @Selector int slot, String key) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        checkSlot(topic, slot);
        return new Change(topic, slot, key, "requeue", client.deadQueue().requeue(topic, slot, key) ? 1 : 0);
    }

    @DeleteOperation
    public @Nullable Change purge(@Selector String topic) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        return new Change(topic, null, null, "purge", client.deadQueue().purge(topic));
    }

    @DeleteOperation
    public @Nullable Change delete(@Selector String topic, @Selector int slot, String key) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        checkSlot(topic, slot);
        return new Change(topic, slot, key, "delete", client.deadQueue().delete(topic, slot, key) ? 1 : 0);
    }

    @Override
    protected boolean writeOperationsEnabled() {
        return true;
    }
}
