package dev.rmq.consumer;

import dev.rmq.topic.TopicDefinition;

import java.util.List;

/**
 * Decides which worker polls which slot of a topic. The container calls {@link #start} once with its
 * workers and {@link #close} when it stops; the assignment calls {@link SlotOwner#assign} and
 * {@link SlotOwner#revoke} as ownership changes.
 */
public interface SlotAssignment extends AutoCloseable {

    void start(TopicDefinition topic, List<? extends SlotOwner> workers);

    /** Stops assigning. The container revokes its workers' slots itself when it stops. */
    @Override
    void close();
}
