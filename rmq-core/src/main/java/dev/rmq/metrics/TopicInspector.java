package dev.rmq.metrics;

import java.util.List;

/** Reads backlog, in-flight and dead sizes per slot. Obtained from {@code RmqClient.inspector()}; thread-safe. */
public interface TopicInspector {

    /** Every slot of a topic, in one round trip per Redis node. */
    List<SlotStats> slots(String topic);

    /** The sizes of one slot, without reading the others. */
    SlotStats slot(String topic, int slot);

    /** The sums over all slots of a topic. */
    default SlotStats totals(String topic) {
        return SlotStats.sum(slots(topic));
    }
}
