package dev.rmq.producer;

import dev.rmq.exceptions.RmqException;

/**
 * A send held until the end of a transaction (see {@link SendHold}) was dropped because the transaction rolled
 * back: nothing was sent, as nothing of the transaction happened.
 */
public class SendDroppedException extends RmqException {

    private final String topic;

    public SendDroppedException(String topic, String key) {
        super("the send of '" + key + "' to " + topic + " was held until its transaction committed, and the"
                + " transaction rolled back: nothing was sent", null);
        this.topic = topic;
    }

    public String topic() {
        return topic;
    }
}
