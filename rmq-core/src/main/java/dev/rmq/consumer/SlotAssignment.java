package dev.rmq.consumer;

import dev.rmq.topic.TopicDefinition;

import java.time.Duration;
import java.util.List;

/**
 * Decides which worker polls which slot of a topic. The container calls {@link #start} once with its
 * workers and {@link #close(Duration)} when it stops; the assignment calls {@link SlotOwner#assign} and
 * {@link SlotOwner#revoke} as ownership changes.
 */
public interface SlotAssignment extends AutoCloseable {

    void start(TopicDefinition topic, List<? extends SlotOwner> workers);

    /**
     * The container begins to stop: its workers are about to let their slots go, and {@link #close(Duration)}
     * follows once they have. An assignment stops taking and giving back slots here, so that {@code close} gives
     * back, and accounts for, every slot it holds. Nothing by default.
     */
    default void stopping() {
    }

    /** Stops assigning and gives the slots back, as {@link #close(Duration)} with a bound of the implementation's. */
    @Override
    void close();

    /**
     * Stops assigning and gives back every slot once its worker has let it go, within {@code bound}: what is not
     * given back by then (Redis or ZooKeeper did not answer) is left to expire, and the report says what. The
     * container calls it after its workers stopped. By default it calls {@link #close()} and reports nothing.
     */
    default StopReport close(Duration bound) {
        close();
        return StopReport.NOTHING;
    }
}
