package dev.rmq.pull;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.RmqMessage;

import java.time.Duration;

/**
 * A message an {@link RmqPuller} handed over, under a lease ({@link #leaseDeadline()}). The program ends it once,
 * with one of the methods below; each is one call to Redis and says what Redis did. On an at-most-once topic the
 * message left Redis when it was taken: {@link #ack()} needs no call, and a retry or a burial cannot bring it back
 * ({@link AckOutcome#GONE}, logged). A message cancelled while it was held answers {@link AckOutcome#CANCELLED}
 * to any of them, and changes nothing.
 *
 * @param <T> the payload type
 */
public interface PulledMessage<T> extends RmqMessage<T> {

    /**
     * Done: the message leaves Redis.
     *
     * @throws LeaseExpiredException when its lease ran out first: it will be delivered again
     * @throws IllegalStateException when it was already ended
     */
    AckOutcome ack();

    /** Failed: retried after the topic's backoff, or dead once its retries are spent. Throws as {@link #ack()}. */
    AckOutcome retry(String reason);

    /** Failed: retried at once, skipping the backoff; it still counts as an attempt. Throws as {@link #ack()}. */
    AckOutcome retryNow(String reason);

    /** Failed for good: moved to the dead queue with {@code reason}. Throws as {@link #ack()}. */
    AckOutcome dead(String reason);

    /**
     * Hands it back without handling it: due again at once at its place, not counted as an attempt
     * ({@link dev.rmq.consumer.ConsumeResult#release(String)} says more). Returns {@link AckOutcome#RELEASED}, or
     * {@link AckOutcome#DEAD} when it was released more often than its topic's {@code maxReleases} allow, or
     * {@link AckOutcome#MERGED} when a newer send of its key already waits. On an at-most-once topic the message is
     * put back as it was taken, uncounted and not capped, and the answer is {@link AckOutcome#RELEASED}. Throws as
     * {@link #ack()}.
     */
    AckOutcome release();

    /**
     * Extends the lease to {@code duration} from now, by the Redis clock. {@code Duration.ZERO} hands the message
     * back at once, as {@link #release()}.
     *
     * @throws LeaseExpiredException when the lease already ran out
     */
    void extend(Duration duration);

    /** Whether the message was ended by this program (or handed back by a close, or settled by its reference). */
    boolean isSettled();

    /**
     * What identifies this delivery wherever it is settled ({@link RmqPuller#settle}); it changes with each
     * extension of the lease.
     *
     * @throws IllegalStateException for a message of an at-most-once topic, which holds no lease
     */
    DeliveryRef ref();
}
