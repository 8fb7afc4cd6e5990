package dev.rmq.spring.annotation;

/**
 * Names of the message headers a listener method can take with {@code @Header}, next to the message's own
 * headers: {@code void on(Order order, @Header(RmqHeaders.ATTEMPT) int attempt)}.
 */
public final class RmqHeaders {

    /** The whole {@link dev.rmq.consumer.RmqMessage}. */
    public static final String MESSAGE = "rmq_message";
    /** The topic's name. */
    public static final String TOPIC = "rmq_topic";
    /** The slot index, an {@code Integer}. */
    public static final String SLOT = "rmq_slot";
    /** The merge key. */
    public static final String KEY = "rmq_key";
    /** 1 on the first delivery, 2 on the first retry, and so on; an {@code Integer}. */
    public static final String ATTEMPT = "rmq_attempt";
    /** When a range-merge or fixed-time message was due, an {@code Instant}; absent for priority messages. */
    public static final String DUE_TIME = "rmq_dueTime";
    /** A priority message's priority, a {@code Long}; absent for the time types. */
    public static final String PRIORITY = "rmq_priority";
    /** The reason of the previous failed attempt; empty on a first delivery. */
    public static final String LAST_ERROR = "rmq_lastError";

    private RmqHeaders() {
    }
}
