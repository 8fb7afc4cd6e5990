package dev.rmq.events;

/**
 * Receives what rmq's consumers did, event by event, with times, slots, workers and message keys: for tools
 * that must account for every message (an audit trail, a journal, a fault checker). Metrics are the
 * aggregate view ({@link dev.rmq.metrics.RmqMetrics}); logs are for people.
 *
 * <p>Events arrive on rmq's worker and coordination threads as things happen, so a listener must be fast,
 * thread-safe and must not block; a listener that throws is logged and otherwise ignored.
 */
@FunctionalInterface
public interface RmqEventListener {

    /** Receives nothing. */
    RmqEventListener NONE = event -> {
    };

    void onEvent(RmqEvent event);

    /** Each event to {@code first}, then to {@code then}, which hears it even when {@code first} throws. */
    static RmqEventListener both(RmqEventListener first, RmqEventListener then) {
        if (first == NONE) {
            return then;
        }
        return event -> {
            try {
                first.onEvent(event);
            } finally {
                then.onEvent(event);
            }
        };
    }
}
