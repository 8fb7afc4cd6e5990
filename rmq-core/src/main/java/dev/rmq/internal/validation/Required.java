package dev.rmq.internal.validation;

import org.jspecify.annotations.Nullable;

/** Arguments that must not be null. */
public final class Required {

    private Required() {
    }

    /** {@code value}, unless it is null: then the refusal, which says what to pass instead. */
    public static <T> T required(@Nullable T value, String refusal) {
        if (value == null) {
            throw new IllegalArgumentException(refusal);
        }
        return value;
    }
}
