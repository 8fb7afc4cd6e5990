package dev.rmq.internal.validation;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** Argument checks for what a message carries: priorities, times, keys and slot bases. */
public final class MessageArguments {

    /** Priorities up to this value are reserved; a priority must be above it. */
    public static final long RESERVED_PRIORITY_MAX = 16;
    /** The largest priority, the largest integer a Redis score holds exactly. */
    public static final long MAX_PRIORITY = 1L << 53;
    /** The longest explicit key or slot basis, in UTF-8 bytes. */
    public static final int MAX_KEY_BYTES = 1024;

    private MessageArguments() {
    }

    public static long checkPriority(long priority) {
        if (priority <= RESERVED_PRIORITY_MAX || priority > MAX_PRIORITY) {
            throw new IllegalArgumentException("priority must be in " + (RESERVED_PRIORITY_MAX + 1) + ".." + MAX_PRIORITY
                    + " (values up to " + RESERVED_PRIORITY_MAX + " are reserved), was " + priority);
        }
        return priority;
    }

    /** The time in epoch ms, which must be exact as a Redis score. */
    public static long checkTime(String what, Instant time) {
        if (time == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        // an instant past the range of epoch milliseconds would make toEpochMilli throw ArithmeticException
        long ms = time.isAfter(Instant.ofEpochMilli(MAX_PRIORITY)) ? Long.MAX_VALUE : time.toEpochMilli();
        if (ms <= 0 || ms > MAX_PRIORITY) {
            throw new IllegalArgumentException(what + " must be after 1970-01-01T00:00:00Z and within a Redis score's"
                    + " exact range, was " + time);
        }
        return ms;
    }

    public static String checkKey(String what, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be null or empty");
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_KEY_BYTES) {
            throw new IllegalArgumentException(what + " is " + bytes + " bytes in UTF-8; the limit is " + MAX_KEY_BYTES);
        }
        return value;
    }
}
