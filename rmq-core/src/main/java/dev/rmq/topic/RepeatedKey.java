package dev.rmq.topic;

import dev.rmq.internal.validation.Durations;
import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * What a send does when its key is already known to its slot: set per topic
 * ({@code TopicBuilder#repeatedKey}) and, overriding it, per send ({@code OutgoingMessage#withRepeatedKey}).
 * A send's receipt says which way it went ({@code SendReceipt#outcome}).
 *
 * <ul>
 *   <li>{@link #REPLACE}, the default: a send of a waiting key merges into it, the latest content winning (see the
 *       merge rules of each type);</li>
 *   <li>{@link #KEEP_FIRST}: a send of a key that waits, or is parked behind its delivery in flight, changes
 *       nothing, and its receipt says {@code KEPT};</li>
 *   <li>{@link #DEBOUNCE}: as {@code REPLACE}, but every send moves the due time to its own: a range-merge message is
 *       due a time range after the latest send, not the first; a fixed-time message takes the latest time, as it
 *       does under {@code REPLACE}. Priority messages have no due time, so a priority topic refuses it;</li>
 *   <li>{@link #throttle(Duration)}: a key accepted once is refused, with the receipt {@code THROTTLED}, until the
 *       window has passed since it was accepted, even when the message has been consumed in between. A send that
 *       is accepted otherwise behaves as {@code REPLACE}.</li>
 * </ul>
 *
 * @param kind   which of the four
 * @param window for {@code THROTTLE}, how long a key accepted stays refused; zero for the others
 */
public record RepeatedKey(Kind kind, Duration window) {

    /** The four behaviours. */
    public enum Kind {
        REPLACE, KEEP_FIRST, DEBOUNCE, THROTTLE
    }

    public static final RepeatedKey REPLACE = new RepeatedKey(Kind.REPLACE, Duration.ZERO);
    public static final RepeatedKey KEEP_FIRST = new RepeatedKey(Kind.KEEP_FIRST, Duration.ZERO);
    public static final RepeatedKey DEBOUNCE = new RepeatedKey(Kind.DEBOUNCE, Duration.ZERO);

    public RepeatedKey {
        if (kind == null) {
            throw new IllegalArgumentException("the kind of a repeated-key rule must be REPLACE, KEEP_FIRST, DEBOUNCE"
                    + " or THROTTLE, was null");
        }
        if (kind == Kind.THROTTLE) {
            Durations.requirePositive("the throttle window", window);
        } else if (window == null || !window.isZero()) {
            throw new IllegalArgumentException("only THROTTLE has a window; " + kind + " was given " + window);
        }
    }

    /** A key accepted once is refused for {@code window} (at least 1 ms) after it was accepted. */
    public static RepeatedKey throttle(Duration window) {
        return new RepeatedKey(Kind.THROTTLE, window);
    }

    /**
     * The rule of a kind, with its window for {@code THROTTLE} (required there, refused elsewhere): the form in
     * which configuration and HTTP give it.
     */
    public static RepeatedKey of(Kind kind, @Nullable Duration window) {
        if (kind == Kind.THROTTLE) {
            if (window == null) {
                throw new IllegalArgumentException("THROTTLE needs its window: how long a key accepted stays refused");
            }
            return throttle(window);
        }
        return new RepeatedKey(kind, window == null ? Duration.ZERO : window);
    }

    /** Refuses a rule that a topic of this type cannot follow: {@code DEBOUNCE} on a priority topic. */
    public RepeatedKey checkFor(String topic, TopicType type) {
        if (kind == Kind.DEBOUNCE && type == TopicType.PRIORITY) {
            throw new IllegalArgumentException("DEBOUNCE moves a due time, which priority topic '" + topic
                    + "' does not have; use REPLACE, KEEP_FIRST or THROTTLE");
        }
        return this;
    }

    @Override
    public String toString() {
        return kind == Kind.THROTTLE ? "THROTTLE(" + window + ")" : kind.name();
    }
}
