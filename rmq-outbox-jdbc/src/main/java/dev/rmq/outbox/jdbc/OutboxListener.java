package dev.rmq.outbox.jdbc;

import java.time.Duration;
import java.util.List;

/** Hears what the relay does, for metrics; called on the relay's thread, so it must be quick. */
public interface OutboxListener {

    /** A listener that hears nothing. */
    OutboxListener NONE = new OutboxListener() {
    };

    /** Tells each of {@code listeners} of everything, in turn. */
    static OutboxListener all(List<OutboxListener> listeners) {
        List<OutboxListener> each = List.copyOf(listeners);
        return new OutboxListener() {
            @Override
            public void relayed(String topic, Duration lag) {
                each.forEach(listener -> listener.relayed(topic, lag));
            }

            @Override
            public void refused(String topic, String key, String reason) {
                each.forEach(listener -> listener.refused(topic, key, reason));
            }
        };
    }

    /** A row reached Redis, {@code lag} after its transaction wrote it. */
    default void relayed(String topic, Duration lag) {
    }

    /** Redis refused a row (a full backlog, a fixed time too far past): it stays, and is tried again later. */
    default void refused(String topic, String key, String reason) {
    }
}
