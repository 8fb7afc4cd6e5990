package dev.rmq.consumer;

import java.time.Instant;

/**
 * How far the handler of an in-flight delivery said it has come ({@link RmqMessage#reportProgress(int, String)}),
 * as the inspector shows it beside the delivery's lease deadline.
 *
 * @param percent    0 to 100
 * @param note       what the handler said of it, empty for nothing
 * @param reportedAt when it said so, by the Redis clock
 */
public record Progress(int percent, String note, Instant reportedAt) {

    /** The longest note, in characters: a line for a person to read, not a payload. */
    public static final int MAX_NOTE = 500;

    public Progress {
        check(percent, note);
        if (reportedAt == null) {
            throw new IllegalArgumentException("a progress report needs the time it was made, was null");
        }
    }

    /** Refuses a percentage outside 0 to 100, and a null or over-long note. */
    public static void check(int percent, String note) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("progress is a percentage from 0 to 100, was " + percent);
        }
        if (note == null) {
            throw new IllegalArgumentException("a progress note must not be null; pass \"\" for none");
        }
        if (note.length() > MAX_NOTE) {
            throw new IllegalArgumentException("a progress note is at most " + MAX_NOTE + " characters, was "
                    + note.length());
        }
    }
}
