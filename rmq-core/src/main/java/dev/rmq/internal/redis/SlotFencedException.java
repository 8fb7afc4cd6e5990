package dev.rmq.internal.redis;

import dev.rmq.exceptions.RmqException;
import org.jspecify.annotations.Nullable;

/** A worker tried to use a slot whose ownership moved to another worker; it must stop using the slot. */
public class SlotFencedException extends RmqException {

    private static final long serialVersionUID = 1L;

    public SlotFencedException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
