package dev.rmq.internal.slot;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.ExpiryAction;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Logs each failed delivery of one topic once, when what happens to it is known: with the topic, slot, key and
 * attempt, what comes next (a retry, and when; the dead queue; nothing, because it expired or a newer send
 * replaces it) and the exception's stack trace. A handler that threw is a WARN; one that returned a failure is an
 * INFO, unless the message goes to the dead queue.
 *
 * <p>Repeats are rate-limited by kind (the exception's class, or the returned outcome, and whether the message went
 * dead): at most {@value #BURST} lines of a kind every {@value #WINDOW_SECONDS} s; the first line after some were held
 * back says how many. At most {@value #MAX_KINDS} kinds are tracked; beyond, the least recent is forgotten. A poison
 * flood of one error thus writes at most {@value #BURST} lines every {@value #WINDOW_SECONDS} s, whatever its rate,
 * while the metrics still count every failure. Thread-safe.
 */
public final class HandlerFailures {

    static final long WINDOW_SECONDS = 10;
    static final int BURST = 5;
    static final int MAX_KINDS = 64;
    /** The logger of every failed delivery, named so that one setting can tune them all. */
    static final String LOGGER = "dev.rmq.failures";

    private final Logger log = LoggerFactory.getLogger(LOGGER);
    private final TopicDefinition topic;
    private final Map<String, long[]> kinds = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, long[]> eldest) {
            return size() > MAX_KINDS;
        }
    };

    public HandlerFailures(TopicDefinition topic) {
        this.topic = topic;
    }

    /** A message that could not be decoded: in the dead queue now, or, at most once, gone. */
    public void undecodable(String key, int slot, String reason) {
        long skipped = admit("undecodable");
        if (skipped >= 0 && log.isWarnEnabled()) {
            log.warn("topic {}: message '{}' (slot {}) cannot be read, so it is {}: {}{}", topic.name(), key, slot,
                    topic.delivery() == DeliveryGuarantee.AT_MOST_ONCE ? "gone (the topic is at-most-once)"
                            : "moved to the dead queue", reason, skipped > 0 ? " (" + skipped + " more like it not"
                            + " logged, at most " + BURST + " every " + WINDOW_SECONDS + " s)" : "");
        }
    }

    /**
     * One failed delivery.
     *
     * @param cause     what the handler threw, null when it returned the failure
     * @param reason    the failure's reason, kept with the message
     * @param outcome   what Redis did with it
     * @param immediate whether it was a retry without the backoff
     */
    public void failed(RmqMessage<?> message, @Nullable Throwable cause, String reason, AckOutcome outcome,
                       boolean immediate) {
        boolean toDead = outcome == AckOutcome.DEAD || (outcome == AckOutcome.EXPIRED && topic.expiry() == ExpiryAction.DEAD);
        boolean warn = cause != null || toDead;
        if (warn ? !log.isWarnEnabled() : !log.isInfoEnabled()) {
            return;
        }
        long skipped = admit((cause != null ? cause.getClass().getName() : "returned") + (toDead ? " dead" : ""));
        if (skipped < 0) {
            return;
        }
        String line = "topic {}: message '{}' (slot {}, attempt {}) failed{}; {}: {}"
                + (skipped > 0 ? " (" + skipped + " more like it not logged, at most " + BURST + " every "
                + WINDOW_SECONDS + " s)" : "");
        Object[] args = {topic.name(), message.key(), message.slot(), message.attempt(),
                cause != null ? "" : " (the handler said so)", next(message, outcome, immediate), reason, cause};
        if (warn) {
            log.warn(line, args);
        } else {
            log.info(line, args);
        }
    }

    /** A message released once more than its topic allows, and so moved to the dead queue; rate-limited as failures. */
    public void releasesSpent(RmqMessage<?> message, String reason) {
        if (!log.isWarnEnabled() || admit("releases spent") < 0) {
            return;
        }
        log.warn("topic {}: message '{}' (slot {}) was handed back once more than its {} releases allow; moved to the"
                + " dead queue with reason releases_spent{}", topic.name(), message.key(), message.slot(),
                topic.maxReleases(), reason.isEmpty() ? "" : ": " + reason);
    }

    /** What happens to the message now, in words. */
    private String next(RmqMessage<?> message, AckOutcome outcome, boolean immediate) {
        int attempts = message.attempt();
        return switch (outcome) {
            case RETRY -> "attempt " + (attempts + 1) + " of " + (topic.maxRetries() + 1) + " comes "
                    + (immediate ? "at once" : "in about " + human(topic.backoff().delayAfter(attempts)));
            case DEAD -> attempts > topic.maxRetries() && !immediate
                    ? "moved to the dead queue, its " + topic.maxRetries() + " retries spent"
                    : "moved to the dead queue";
            case EXPIRED -> "its time to live ran out, so it is " + (topic.expiry() == ExpiryAction.DEAD
                    ? "moved to the dead queue" : "dropped") + " instead of retried";
            case MERGED -> "a newer send of its key already waits and takes its place";
            case STALE -> "its lease had run out before, so nothing was done: it is delivered again";
            case GONE -> topic.delivery() == DeliveryGuarantee.AT_MOST_ONCE
                    ? "the topic is at-most-once, so it is gone" : "it was no longer in flight";
            case CANCELLED -> "it was cancelled while in flight, so nothing more was done";
            case COMMITTED, RELEASED -> "it was " + outcome.scriptName();
        };
    }

    /**
     * Whether a failure of {@code kind} is logged now: -1 when not, else how many of its kind were not logged since
     * the last one that was.
     */
    private synchronized long admit(String kind) {
        long now = System.nanoTime();
        // window start, lines logged in it, lines held back since the last one logged
        long[] state = kinds.computeIfAbsent(kind, k -> new long[] {now, 0, 0});
        if (now - state[0] >= TimeUnit.SECONDS.toNanos(WINDOW_SECONDS)) {
            state[0] = now;
            state[1] = 0;
        }
        if (state[1] >= BURST) {
            state[2]++;
            return -1;
        }
        state[1]++;
        long skipped = state[2];
        state[2] = 0;
        return skipped;
    }

    private static String human(Duration duration) {
        long ms = duration.toMillis();
        if (ms < 1_000) {
            return ms + " ms";
        }
        if (ms < 120_000) {
            return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        return ms / 60_000 + " min";
    }
}
