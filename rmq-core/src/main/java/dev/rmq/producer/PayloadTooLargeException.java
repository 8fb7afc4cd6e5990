package dev.rmq.producer;

/** A message whose payload and headers exceed the configured limit; nothing was sent. */
public class PayloadTooLargeException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public PayloadTooLargeException(String topic, int size, int limit) {
        super("message to topic '" + topic + "' is " + size + " bytes with its headers; the limit is " + limit
                + " bytes (RmqClient maxPayloadBytes)");
    }
}
