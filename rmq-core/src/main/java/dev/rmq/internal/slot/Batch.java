package dev.rmq.internal.slot;

import org.jspecify.annotations.Nullable;

import java.util.List;

/**
 * What one poll of a slot session gave.
 *
 * @param deliveries    the messages taken and decoded, in the slot's order
 * @param redisNowMs    the Redis clock when the poll ran, in ms
 * @param receivedNanos when its reply arrived, on this JVM's nano clock
 * @param mayHaveMore   whether the poll took all it was allowed and the slot may have more due at once
 * @param failure       why the poll failed, null when it did not
 */
public record Batch<T>(List<Delivery<T>> deliveries, long redisNowMs, long receivedNanos, boolean mayHaveMore,
                       @Nullable RuntimeException failure) {

    static <T> Batch<T> none() {
        return new Batch<>(List.of(), 0, 0, false, null);
    }

    static <T> Batch<T> failed(RuntimeException failure) {
        return new Batch<>(List.of(), 0, 0, false, failure);
    }
}
