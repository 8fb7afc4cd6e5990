package dev.rmq.exceptions;

/**
 * A delivery's lease cannot be extended because the message was cancelled while it was in flight
 * ({@link dev.rmq.producer.RmqProducer#cancel}). The handler may stop its work: the delivery's ending reports
 * {@link dev.rmq.consumer.AckOutcome#CANCELLED} and changes nothing.
 */
public class MessageCancelledException extends RmqException {

    private static final long serialVersionUID = 1L;

    public MessageCancelledException(String message) {
        super(message, null);
    }
}
