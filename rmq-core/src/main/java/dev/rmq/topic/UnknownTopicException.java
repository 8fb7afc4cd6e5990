package dev.rmq.topic;

import java.util.Collection;
import java.util.TreeSet;

/** Thrown when a message names a topic that the application does not define. */
public class UnknownTopicException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String topic;

    public UnknownTopicException(String topic, Collection<String> known) {
        super("unknown topic '" + topic + "'; defined topics are " + new TreeSet<>(known));
        this.topic = topic;
    }

    public String topic() {
        return topic;
    }
}
