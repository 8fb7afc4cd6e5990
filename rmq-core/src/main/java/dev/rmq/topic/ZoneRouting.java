package dev.rmq.topic;

/** Where a producer sends the messages of a topic whose slots are spread over zones. */
public enum ZoneRouting {
    /**
     * To the slots of the producer's own zone, the slot basis picking one among them: the order of one basis holds
     * within a zone, and consumers of that zone take them first. A key sent from two zones lands in two slots, so
     * it merges only with what was sent from its own zone. A producer with no zone, or one of a zone the topic does
     * not have, routes by the basis alone.
     */
    SENDER_ZONE,
    /**
     * By the slot basis alone, over every slot, as without zones: one merge per key wherever it is sent from. The
     * zones still decide which consumers take which slots.
     */
    BASIS
}
