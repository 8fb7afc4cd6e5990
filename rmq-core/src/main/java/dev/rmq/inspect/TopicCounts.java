package dev.rmq.inspect;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A topic's counts: every slot's, their sum, and the sum of each zone's slots.
 *
 * @param topic the topic
 * @param total the sums over every slot
 * @param slots each slot's counts, by slot index
 * @param zones the sums over each zone's slots, by zone name in the topic's order; empty without zones
 */
public record TopicCounts(String topic, SlotCounts total, List<SlotCounts> slots, Map<String, SlotCounts> zones) {

    public TopicCounts {
        slots = List.copyOf(slots);
        zones = Collections.unmodifiableMap(new LinkedHashMap<>(zones));
    }
}
