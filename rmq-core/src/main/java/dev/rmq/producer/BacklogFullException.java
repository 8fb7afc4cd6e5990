package dev.rmq.producer;

import dev.rmq.exceptions.RmqException;

/**
 * A send that would have added a new message to a slot already holding its share of the topic's
 * {@code maxBacklog}. Nothing of it was written; a send that merges into a waiting message is never refused.
 */
public class BacklogFullException extends RmqException {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final int slot;
    private final int slotCap;
    private final int maxBacklog;

    public BacklogFullException(String topic, int slot, String key, int slotCap, int maxBacklog, int slotAmount) {
        super("topic '" + topic + "' slot " + slot + " already holds " + slotCap + " waiting messages, its share of"
                + " maxBacklog " + maxBacklog + " over " + slotAmount + " slot(s); the message with key '" + key
                + "' was refused. Consume faster, raise the topic's maxBacklog, or send it again later", null);
        this.topic = topic;
        this.slot = slot;
        this.slotCap = slotCap;
        this.maxBacklog = maxBacklog;
    }

    public String topic() {
        return topic;
    }

    public int slot() {
        return slot;
    }

    /** The most messages that may wait in one slot: the topic's cap divided among its slots, rounded up. */
    public int slotCap() {
        return slotCap;
    }

    /** The topic's cap. */
    public int maxBacklog() {
        return maxBacklog;
    }
}
