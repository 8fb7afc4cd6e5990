package dev.rmq.consumer;

/**
 * How a consumer that holds several slots of a topic chooses the slot it takes from next. Each slot keeps its own
 * order whatever the choice; this decides the order across the slots one consumer holds. Slots held by different
 * consumers are consumed side by side, each by its own consumer.
 */
public enum SlotOrder {

    /**
     * The slot whose next message is the most urgent: the highest priority, or the earliest due time. On a priority
     * topic a poll takes no message less urgent than the next one of another slot the consumer holds, so across its
     * slots a consumer takes messages in the topic's order; under a backlog spread over many slots, polls then take
     * fewer messages each. On a time-based topic a poll takes a whole batch, the earliest due first. The default.
     */
    MOST_URGENT,

    /**
     * Each slot that has messages due in turn, a whole poll each: the fewest calls to Redis under a backlog spread
     * over many slots, with order kept within each slot only.
     */
    ROUND_ROBIN
}
