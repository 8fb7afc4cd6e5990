package dev.rmq.consumer;

import dev.rmq.topic.TopicDefinition;

import java.time.Duration;
import java.util.List;

/**
 * Splits a topic's slots among the workers of one container: worker {@code i} of {@code w} polls the
 * slots {@code s} with {@code s mod w == i}. Without coordination, every application instance does the
 * same, so at-least-once holds but two instances may consume one slot at the same time.
 */
public final class LocalSlotAssignment implements SlotAssignment {

    private volatile int assigned;

    @Override
    public void start(TopicDefinition topic, List<? extends SlotOwner> workers) {
        for (int slot = 0; slot < topic.slotAmount(); slot++) {
            workers.get(slot % workers.size()).assign(slot, "");
        }
        assigned = topic.slotAmount();
    }

    @Override
    public void close() {
        // nothing to release: the slots were never claimed anywhere
    }

    @Override
    public StopReport close(Duration bound) {
        return new StopReport(Duration.ZERO, assigned, 0, 0, 0, List.of());
    }
}
