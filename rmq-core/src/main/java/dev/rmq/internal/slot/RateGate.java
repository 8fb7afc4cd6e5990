package dev.rmq.internal.slot;

import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.script.RateCall;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;

import java.util.concurrent.TimeUnit;

/**
 * A topic's rate limit as the workers of one container meet it: tokens from the topic's bucket in Redis (one
 * bucket for every consumer of the topic in every application), taken before a poll and given back when the
 * poll found fewer messages. When the bucket is empty the gate stays shut, without asking Redis, until the
 * next token is due, so a rate-limited worker waits instead of polling.
 */
public final class RateGate {

    /** A gate that never limits: for topics without a rate limit. */
    static final RateGate OPEN = new RateGate(null);

    /** The topic's bucket in Redis and how it fills; null for {@link #OPEN}. */
    private final @Nullable Bucket bucket;
    private volatile long shutUntilNanos = System.nanoTime();

    private RateGate(@Nullable Bucket bucket) {
        this.bucket = bucket;
    }

    private record Bucket(ScriptRunner scripts, String key, double rate, long burst) {
    }

    /**
     * The gate of {@code topic}'s bucket. The bucket holds a tenth of a second's tokens, at least one: enough that
     * a poll takes several messages at once, little enough that any ten seconds stay within 1 % of the limit.
     */
    public static RateGate of(TopicDefinition topic, ScriptRunner scripts, String bucket) {
        if (topic.rateLimit() == 0) {
            return OPEN;
        }
        return new RateGate(new Bucket(scripts, bucket, topic.rateLimit(),
                Math.max(1, (long) Math.ceil(topic.rateLimit() / 10))));
    }

    /**
     * Up to {@code want} tokens; 0 while the bucket is empty, until {@link #shutUntilNanos()}: when a batch's worth
     * (at most a full bucket) will have come, so that waiting workers come back for a batch, not for each token.
     */
    public int take(int want) {
        Bucket limit = bucket;
        if (limit == null) {
            return want;
        }
        long now = System.nanoTime();
        if (now - shutUntilNanos < 0) {
            return 0;
        }
        RateCall.Granted granted = Futures.joinBounded(limit.scripts().run(limit.key(),
                new RateCall(limit.rate(), limit.burst(), want)));
        if (granted.tokens() == 0) {
            shutUntilNanos = now + TimeUnit.MILLISECONDS.toNanos(granted.waitMs());
        }
        return (int) granted.tokens();
    }

    /** Gives back tokens a poll did not use, without waiting; a give-back that fails only lowers the rate a little. */
    public void giveBack(int unused) {
        Bucket limit = bucket;
        if (limit != null && unused > 0) {
            limit.scripts().run(limit.key(), new RateCall(limit.rate(), limit.burst(), -unused));
        }
    }

    /** When the next token is due, on this JVM's nano clock. */
    public long shutUntilNanos() {
        return shutUntilNanos;
    }
}
