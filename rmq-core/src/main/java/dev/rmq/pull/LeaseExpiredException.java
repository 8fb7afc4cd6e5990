package dev.rmq.pull;

import dev.rmq.exceptions.RmqException;

/**
 * A pulled message was ended after its lease ran out, or after its slot was taken over by another consumer:
 * nothing was done to it, and it will be (or was already) delivered again.
 */
public class LeaseExpiredException extends RmqException {

    public LeaseExpiredException(String message) {
        super(message, null);
    }
}
