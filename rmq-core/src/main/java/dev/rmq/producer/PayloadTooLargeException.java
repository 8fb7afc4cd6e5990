package dev.rmq.producer;

/** A message whose payload and headers exceed the configured limit; nothing was sent. */
public class PayloadTooLargeException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final int size;
    private final int limit;

    public PayloadTooLargeException(String topic, int size, int limit) {
        super("message to topic '" + topic + "' is " + size + " bytes with its headers; the limit is " + limit
                + " bytes (RmqClient maxPayloadBytes)");
        this.topic = topic;
        this.size = size;
        this.limit = limit;
    }

    public String topic() {
        return topic;
    }

    /** The message's size, payload and headers, in bytes. */
    public int size() {
        return size;
    }

    /** The most bytes a message may have. */
    public int limit() {
        return limit;
    }
}
