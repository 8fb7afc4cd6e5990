package dev.rmq.internal.redis;

import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Moves a client's topics from the key names without a prefix ({@link LegacyKeys}) before the client's first call to
 * Redis: every script call and plain command waits for {@link #ready()}, which costs two volatile reads once the
 * move is done. Nothing happens when the client is built, so a client can be built while Redis is down, as before.
 *
 * <p>While Redis cannot be reached, each call that waits fails as it would have anyway, and the next one tries
 * again. A move that Redis refuses for another reason is logged once at WARN; calls go on meanwhile (what is still
 * under the old names waits there), and it is tried again {@link #RETRY_AFTER} later.
 *
 * <p>Once done, the move is made again every {@link #DEFAULT_RECHECK} (one {@code EXISTS} per slot), started by a
 * call and not waited for: during a rolling upgrade, clients of the earlier version go on sending under the old
 * names after the new ones started, and what they send moves within a minute instead of waiting for the next start.
 */
public final class KeyMigration {

    static final Duration RETRY_AFTER = Duration.ofSeconds(30);
    /** How often a client looks again for what clients of an earlier version sent under the old names. */
    public static final Duration DEFAULT_RECHECK = Duration.ofMinutes(1);
    /** A client whose keys never had other names: its calls never wait. (After the durations it is built with.) */
    public static final KeyMigration NONE = new KeyMigration(null, List.of());

    private static final Logger log = LoggerFactory.getLogger(KeyMigration.class);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final @Nullable LegacyKeys keys;
    private final List<TopicDefinition> topics;
    private volatile boolean done;
    /** The move under way, which the calls waiting for it share. */
    private final AtomicReference<@Nullable CompletableFuture<Void>> moving = new AtomicReference<>();
    /** After a refused move: when to try again (System.nanoTime); calls go on until then. */
    private volatile long retryAt;
    private volatile boolean refused;
    private final long recheckNanos;
    /** When the next call starts a move again (System.nanoTime), once the first is done. */
    private volatile long recheckAt;
    private final AtomicBoolean rechecking = new AtomicBoolean();

    /** @param keys the move to make, or null for none */
    public KeyMigration(@Nullable LegacyKeys keys, List<TopicDefinition> topics) {
        this(keys, topics, DEFAULT_RECHECK);
    }

    /**
     * @param keys    the move to make, or null for none
     * @param recheck how long after a move is done a call starts the next
     */
    public KeyMigration(@Nullable LegacyKeys keys, List<TopicDefinition> topics, Duration recheck) {
        this.keys = keys;
        this.topics = List.copyOf(topics);
        this.done = keys == null || topics.isEmpty();
        this.recheckNanos = recheck.toNanos();
    }

    /** Completes once the move is done, or may be left for later; fails when Redis could not be reached for it. */
    public CompletableFuture<Void> ready() {
        if (done) {
            if (keys != null && System.nanoTime() - recheckAt >= 0) {
                recheck();
            }
            return DONE;
        }
        while (!done) {
            CompletableFuture<Void> current = moving.get();
            if (current != null) {
                return current;
            }
            if (refused && System.nanoTime() - retryAt < 0) {
                return DONE;
            }
            CompletableFuture<Void> mine = new CompletableFuture<>();
            if (moving.compareAndSet(null, mine)) {
                start(mine);
                return mine;
            }
        }
        return DONE;
    }

    private void start(CompletableFuture<Void> mine) {
        CompletableFuture<?> move;
        try {
            move = keys == null ? DONE : keys.migrate(topics);
        } catch (RuntimeException e) {
            // Redisson throws, rather than fails a future, for a batch it cannot connect for
            move = CompletableFuture.failedFuture(e);
        }
        move.whenComplete((outcomes, error) -> {
            if (error == null) {
                recheckAt = System.nanoTime() + recheckNanos;
                done = true;
                moving.set(null);
                mine.complete(null);
                return;
            }
            moving.set(null);
            if (RedisFailures.unreachableCause(error) != null) {
                mine.completeExceptionally(RedisFailures.unwrap(error));
                return;
            }
            if (!refused) {
                log.warn("rmq could not move its topics' keys from the names without a prefix ({}); what is still"
                        + " under those names waits there, and the move is tried again every {} s",
                        RedisFailures.unwrap(error).toString(), RETRY_AFTER.toSeconds());
            }
            refused = true;
            retryAt = System.nanoTime() + RETRY_AFTER.toNanos();
            mine.complete(null);
        });
    }

    /** Starts a move again, unless one runs; the call that starts it does not wait for it. */
    private void recheck() {
        if (keys == null || !rechecking.compareAndSet(false, true)) {
            return;
        }
        recheckAt = System.nanoTime() + recheckNanos;
        CompletableFuture<?> move;
        try {
            move = keys.migrate(topics);
        } catch (RuntimeException e) {
            move = CompletableFuture.failedFuture(e);
        }
        move.whenComplete((outcomes, error) -> {
            rechecking.set(false);
            if (error != null) {
                // an outage is the calls' to report; the next recheck tries again
                log.debug("rmq could not look again for keys under the names without a prefix: {}",
                        RedisFailures.unwrap(error).toString());
            }
        });
    }
}
