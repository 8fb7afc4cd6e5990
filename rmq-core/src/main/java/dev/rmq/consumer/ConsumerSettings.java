package dev.rmq.consumer;

import java.time.Duration;
import java.util.Arrays;

/**
 * How a container consumes.
 *
 * @param concurrency     worker threads; each polls its own slots one after another
 * @param batchSize       the most messages one poll moves into prepare (1..1000)
 * @param idlePoll        the longest an idle slot waits between polls; sends wake it earlier
 * @param shutdownTimeout the longest a graceful stop takes: handlers finish, acknowledgements, slots given back
 * @param recoverLimit    the most expired leases one poll recovers
 * @param slotOrder       how a worker that holds several slots chooses the one it polls next
 */
public record ConsumerSettings(int concurrency, int batchSize, Duration idlePoll, Duration shutdownTimeout,
                               int recoverLimit, SlotOrder slotOrder) {

    public static final int MAX_BATCH_SIZE = 1000;

    public static final ConsumerSettings DEFAULTS =
            new ConsumerSettings(1, 64, Duration.ofSeconds(1), Duration.ofSeconds(10), 100, SlotOrder.MOST_URGENT);

    public ConsumerSettings {
        if (concurrency < 1 || concurrency > 1024) {
            throw new IllegalArgumentException("concurrency must be in 1..1024, was " + concurrency);
        }
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("batchSize must be in 1.." + MAX_BATCH_SIZE + ", was " + batchSize);
        }
        if (idlePoll == null || idlePoll.compareTo(Duration.ofMinutes(1)) > 0 || idlePoll.toMillis() < 1) {
            throw new IllegalArgumentException("idlePoll must be between 1 ms and 1 min, was " + idlePoll);
        }
        if (shutdownTimeout == null || shutdownTimeout.isNegative()) {
            throw new IllegalArgumentException("shutdownTimeout must be zero or positive, was " + shutdownTimeout);
        }
        if (recoverLimit < 1 || recoverLimit > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException("recoverLimit must be in 1.." + MAX_BATCH_SIZE + ", was " + recoverLimit);
        }
        if (slotOrder == null) {
            throw new IllegalArgumentException("slotOrder must be one of " + Arrays.toString(SlotOrder.values())
                    + ", was null");
        }
    }

    /** Settings that choose slots {@link SlotOrder#MOST_URGENT most urgent} first. */
    public ConsumerSettings(int concurrency, int batchSize, Duration idlePoll, Duration shutdownTimeout,
                            int recoverLimit) {
        this(concurrency, batchSize, idlePoll, shutdownTimeout, recoverLimit, SlotOrder.MOST_URGENT);
    }

    public ConsumerSettings withConcurrency(int value) {
        return new ConsumerSettings(value, batchSize, idlePoll, shutdownTimeout, recoverLimit, slotOrder);
    }

    public ConsumerSettings withBatchSize(int value) {
        return new ConsumerSettings(concurrency, value, idlePoll, shutdownTimeout, recoverLimit, slotOrder);
    }

    public ConsumerSettings withIdlePoll(Duration value) {
        return new ConsumerSettings(concurrency, batchSize, value, shutdownTimeout, recoverLimit, slotOrder);
    }

    public ConsumerSettings withShutdownTimeout(Duration value) {
        return new ConsumerSettings(concurrency, batchSize, idlePoll, value, recoverLimit, slotOrder);
    }

    public ConsumerSettings withSlotOrder(SlotOrder value) {
        return new ConsumerSettings(concurrency, batchSize, idlePoll, shutdownTimeout, recoverLimit, value);
    }
}
