package dev.rmq.internal.redis;

import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Moves a client's topics from the key names without a prefix ({@link LegacyKeys}) before the client's first call to
 * Redis, once: every script call and plain command waits for {@link #ready()}, which costs one volatile read once
 * the move is done. Nothing happens when the client is built, so a client can be built while Redis is down, as
 * before.
 *
 * <p>While Redis cannot be reached, each call that waits fails as it would have anyway, and the next one tries
 * again. A move that Redis refuses for another reason is logged once at WARN; calls go on meanwhile (what is still
 * under the old names waits there), and it is tried again {@link #RETRY_AFTER} later.
 */
public final class KeyMigration {

    /** A client whose keys never had other names: its calls never wait. */
    public static final KeyMigration NONE = new KeyMigration(null, List.of());
    static final Duration RETRY_AFTER = Duration.ofSeconds(30);

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

    /** @param keys the move to make, or null for none */
    public KeyMigration(@Nullable LegacyKeys keys, List<TopicDefinition> topics) {
        this.keys = keys;
        this.topics = List.copyOf(topics);
        this.done = keys == null || topics.isEmpty();
    }

    /** Completes once the move is done, or may be left for later; fails when Redis could not be reached for it. */
    public CompletableFuture<Void> ready() {
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
}
