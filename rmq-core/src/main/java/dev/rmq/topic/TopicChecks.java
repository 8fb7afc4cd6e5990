package dev.rmq.topic;

import org.jspecify.annotations.Nullable;

import java.time.Duration;

import static dev.rmq.topic.TopicDefinition.MAX_LATE_TOLERANCE;
import static dev.rmq.topic.TopicDefinition.MAX_RATE_LIMIT;
import static dev.rmq.topic.TopicDefinition.MAX_SLOTS;

/** The bounds of a topic definition's numbers, each refused with the topic's name, what is allowed and what was given. */
final class TopicChecks {

    private TopicChecks() {
    }

    /** A count in 0..{@code max}; {@code allowed} says so in words. */
    static int count(String topic, String what, int value, int max, String allowed) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(what + " of topic '" + topic + "' must be " + allowed + ", was " + value);
        }
        return value;
    }

    /** A value the definition needs; refused as missing with {@code whenMissing} in words. */
    static <T> T given(String topic, String what, @Nullable T value, String whenMissing) {
        if (value == null) {
            throw new NullPointerException(what + " of topic '" + topic + "' " + whenMissing);
        }
        return value;
    }

    static TopicType type(String topic, @Nullable TopicType type) {
        if (type == null) {
            throw new IllegalArgumentException("topic '" + topic + "' needs a type: RANGE_MERGE, PRIORITY or FIXED_TIME");
        }
        return type;
    }

    /** One of the topic's slots, 0 to {@code slotAmount} - 1. */
    static int slot(String topic, int slotAmount, int slot) {
        if (slot < 0 || slot >= slotAmount) {
            throw new IllegalArgumentException("slot of topic '" + topic + "' must be in 0.." + (slotAmount - 1)
                    + ", was " + slot);
        }
        return slot;
    }

    static int slotAmount(String topic, int slotAmount) {
        if (slotAmount < 1 || slotAmount > MAX_SLOTS || Integer.bitCount(slotAmount) != 1) {
            throw new IllegalArgumentException("slotAmount of topic '" + topic + "' must be a power of two in 1.."
                    + MAX_SLOTS + " (1, 2, 4, 8, ...), was " + slotAmount);
        }
        return slotAmount;
    }

    static double rateLimit(String topic, double rateLimit) {
        if (!(rateLimit >= 0 && rateLimit <= MAX_RATE_LIMIT)) {
            throw new IllegalArgumentException("rateLimit of topic '" + topic + "' must be 0 (no limit) or a number of"
                    + " messages per second up to " + (long) MAX_RATE_LIMIT + ", was " + rateLimit);
        }
        return rateLimit;
    }

    static Duration lateTolerance(String topic, @Nullable Duration lateTolerance) {
        if (lateTolerance == null || lateTolerance.isNegative() || lateTolerance.compareTo(MAX_LATE_TOLERANCE) > 0) {
            throw new IllegalArgumentException("lateTolerance of topic '" + topic + "' must be between 0 and "
                    + MAX_LATE_TOLERANCE + ", was " + lateTolerance);
        }
        return lateTolerance;
    }
}
