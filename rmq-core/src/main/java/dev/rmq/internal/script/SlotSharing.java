package dev.rmq.internal.script;

import dev.rmq.internal.redis.RedisFailures;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.RedisCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;

/**
 * Whether one script call may carry the keys of several slots. Not on a Cluster, which keeps the slots' hash tags
 * apart. Nor on a sharded Redis that a client reaches at one address (a proxy, or a Redis Enterprise database's
 * endpoint), which refuses keys of several hash slots in one call (CROSSSLOT): so before the first call the client
 * asks, with a script that touches nothing, over keys of {@value #TAGS} hash tags. Until Redis has answered, calls
 * carry one slot each. A Redis that cannot be reached is asked again with the next call; one that answers with an
 * error (a CROSSSLOT, or an ACL that forbids the keys) is taken at its word for the client's life. The keys start
 * with {@code rmq:}, the default key prefix, so that an ACL that lets a user reach rmq's keys lets it ask.
 */
final class SlotSharing {

    private static final Logger log = LoggerFactory.getLogger(SlotSharing.class);
    private static final CompletableFuture<Void> KNOWN = CompletableFuture.completedFuture(null);
    /** Hash tags the question spans: a proxy that puts them all on one shard by chance is unlikely. */
    private static final int TAGS = 16;

    private final RedissonClient redisson;
    private volatile boolean shared;
    private volatile boolean known;
    /** The question while it is out; guarded by this. */
    private @Nullable CompletableFuture<Void> asking;

    SlotSharing(RedissonClient redisson) {
        this.redisson = redisson;
        this.known = redisson.getConfig().isClusterConfig();
    }

    /** Whether calls may carry several slots: false until Redis has said so. */
    boolean shared() {
        return shared;
    }

    /** Completes, never exceptionally, once Redis has answered the question, or failed to for want of a link. */
    CompletableFuture<Void> known() {
        if (known) {
            return KNOWN;
        }
        synchronized (this) {
            if (known) {
                return KNOWN;
            }
            if (asking == null) {
                asking = ask();
            }
            return asking;
        }
    }

    private CompletableFuture<Void> ask() {
        if (!(redisson instanceof Redisson own)) {
            // a client that is not Redisson's own cannot send a plain EVAL: its sends go slot by slot
            known = true;
            return KNOWN;
        }
        Object[] params = new Object[TAGS + 2];
        params[0] = "return #KEYS";
        params[1] = TAGS;
        for (int tag = 0; tag < TAGS; tag++) {
            params[tag + 2] = "rmq:slot-sharing{" + tag + "}";
        }
        CompletableFuture<Long> reply;
        try {
            // a plain EVAL: Redisson's own eval tries EVALSHA first, which a Redis that never ran the script counts
            // as an error reply (NOSCRIPT); and written, so that the master answers, which the sends will reach
            reply = own.getCommandExecutor().<Long, Long>writeAsync((String) params[2], StringCodec.INSTANCE,
                    RedisCommands.EVAL_LONG, params).toCompletableFuture();
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        return reply.handle((count, error) -> {
            synchronized (this) {
                if (error == null) {
                    shared = true;
                    known = true;
                } else if (RedisFailures.unreachableCause(error) == null) {
                    known = true;
                    log.info("Redis refused a script call over keys of several hash slots ({}): sends go to Redis"
                            + " one slot a call", RedisFailures.unwrap(error).getMessage());
                }
                asking = null;
            }
            return null;
        });
    }
}
