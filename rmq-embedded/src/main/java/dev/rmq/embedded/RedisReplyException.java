package dev.rmq.embedded;

import java.util.Objects;

/** An error reply from Redis, e.g. {@code ERR unknown command} or {@code MOVED 866 127.0.0.1:7001}. */
public class RedisReplyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RedisReplyException(String message) {
        super(message);
    }

    /** The first word of the error, e.g. {@code ERR}, {@code MOVED}, {@code LOADING}. */
    public String code() {
        String message = Objects.requireNonNull(getMessage(), "an error reply always has a message");
        int space = message.indexOf(' ');
        return space < 0 ? message : message.substring(0, space);
    }
}
