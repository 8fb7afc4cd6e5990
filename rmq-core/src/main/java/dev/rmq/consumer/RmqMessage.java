package dev.rmq.consumer;

import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** A delivered message: its payload and what rmq knows of it. */
public interface RmqMessage<T> {

    String topic();

    int slot();

    /** The merge key. */
    String key();

    /** Which delivery this is: 1 the first time, 2 on the first retry, and so on. */
    int attempt();

    /**
     * How many times it was handed back without an attempt ({@link ConsumeResult#release(String)}); 0 for a
     * message never released.
     */
    default int releases() {
        return 0;
    }

    /** For range-merge and fixed-time messages, when the message was due (by the Redis clock). */
    Optional<Instant> dueTime();

    /** For priority messages, the priority. */
    OptionalLong priority();

    /** The reason of the previous failed attempt, empty on a first delivery. */
    String lastError();

    Map<String, String> headers();

    T payload();

    /** When the current lease ends, by the Redis clock; after it the message may be delivered again. */
    Instant leaseDeadline();

    /**
     * Whether the message was cancelled while this delivery was in flight ({@code RmqProducer.cancel}): a handler
     * with long work can ask between its steps and stop early, since its ending will change nothing. Asks Redis
     * (one read) until it learns that the delivery was cancelled; a renewal of the lease may also have learnt it.
     * Always false where no lease is held (at most once), since the message left Redis when it was taken.
     */
    default boolean cancelled() {
        return false;
    }

    /**
     * Extends the lease to {@code duration} from now (by the Redis clock), for a handler that needs longer.
     *
     * @throws dev.rmq.exceptions.RmqException when the lease was already lost: the message may be redelivered elsewhere
     * @throws dev.rmq.exceptions.MessageCancelledException when the message was cancelled while in flight
     */
    void extendLease(Duration duration);

    /**
     * Records how far the handler has come, for the inspector, the actuator endpoint and rmq-server to show beside
     * the lease deadline, until the delivery ends. One script call; a handler that reports nothing pays nothing.
     * A report replaces the one before.
     *
     * @param percent 0 to 100
     * @param note    what to say of it, at most {@value Progress#MAX_NOTE} characters; "" for nothing
     * @return true when recorded; false where no lease is held (at most once), since the message left Redis when
     *         it was taken and there is nothing in flight to attach it to
     * @throws IllegalArgumentException when the percentage or the note is out of bounds
     * @throws dev.rmq.exceptions.RmqException when the lease was already lost: the message may be redelivered elsewhere
     * @throws dev.rmq.exceptions.MessageCancelledException when the message was cancelled while in flight
     */
    default boolean reportProgress(int percent, String note) {
        return reportProgress(percent, note, null);
    }

    /**
     * As {@link #reportProgress(int, String)}, and extends the lease to {@code extendLease} from now in the same
     * call, as {@link #extendLease(Duration)} would; null keeps the lease as it is.
     */
    boolean reportProgress(int percent, String note, @Nullable Duration extendLease);
}
