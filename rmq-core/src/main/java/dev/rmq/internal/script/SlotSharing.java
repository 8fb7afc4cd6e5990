package dev.rmq.internal.script;

import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.RedisFailures;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.RedisCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Whether one script call may carry the keys of several slots. Not on a Cluster, which keeps the slots' hash tags
 * apart. Nor on a sharded Redis that a client reaches at one address (a proxy, or a Redis Enterprise database's
 * endpoint), which refuses keys of several hash slots in one call (CROSSSLOT): so before the first call the client
 * asks, with a script that touches nothing, over keys of {@value #TAGS} hash tags. Until Redis has said yes, calls
 * carry one slot each. A refusal (CROSSSLOT, or NOPERM from an ACL that forbids the keys, which are named as the
 * client's own keys are: {@link KeyLayout#slotSharingProbe}) holds for the client's life; any other failure (Redis unreachable, loading, out
 * of memory, in a failover) is asked again with a call at least a second later, and calls go on meanwhile. A call
 * of several slots that meets CROSSSLOT later (a database resharded) withdraws the yes for good.
 */
final class SlotSharing {

    private static final Logger log = LoggerFactory.getLogger(SlotSharing.class);
    private static final CompletableFuture<Void> KNOWN = CompletableFuture.completedFuture(null);
    /** Hash tags the question spans: a proxy that puts them all on one shard by chance is unlikely. */
    private static final int TAGS = 16;
    /** How long after a question that failed without an answer the next may go. */
    private static final long ASK_AGAIN_NANOS = 1_000_000_000L;

    private final @Nullable Redisson redisson;
    /** The keys the question spans, mapped as the scripts' keys are, so that an ACL written for those names fits. */
    private final List<String> probe;
    private volatile boolean shared;
    private volatile boolean known;
    /** The latest question, and when it went; guarded by this. */
    private @Nullable CompletableFuture<Void> asking;
    private long askedNanos;

    SlotSharing(RedissonClient redisson, KeyLayout keys, ScriptInvoker invoker) {
        this.probe = keys.slotSharingProbe(TAGS).stream().map(invoker::mapped).toList();
        // a client that is not Redisson's own cannot send a plain EVAL: its sends go slot by slot
        this.redisson = redisson instanceof Redisson own && !redisson.getConfig().isClusterConfig() ? own : null;
        this.known = this.redisson == null;
    }

    /** Whether calls may come to carry several slots: not on a Cluster, nor through a client rmq cannot ask with. */
    boolean possible() {
        return redisson != null;
    }

    /** Whether calls may carry several slots: false until Redis has said so. */
    boolean shared() {
        return shared;
    }

    /**
     * Completes, never exceptionally, once Redis has answered the question: at once when it has, or when a question
     * failed less than a second ago (the calls then carry one slot each); else with the answer to a new question.
     */
    CompletableFuture<Void> known() {
        if (known) {
            return KNOWN;
        }
        synchronized (this) {
            if (known) {
                return KNOWN;
            }
            if (asking == null || (asking.isDone() && System.nanoTime() - askedNanos > ASK_AGAIN_NANOS)) {
                askedNanos = System.nanoTime();
                asking = ask(Objects.requireNonNull(redisson));
            }
            return asking.isDone() ? KNOWN : asking;
        }
    }

    /**
     * {@code call}, a call of several slots, watched: a CROSSSLOT it meets withdraws the yes, for the client's life.
     */
    <R> CompletableFuture<R> watched(CompletableFuture<R> call) {
        call.whenComplete((value, error) -> {
            if (error != null && shared && isRefusal(error, "CROSSSLOT")) {
                shared = false;
                log.warn("Redis refused a script call over several slots ({}): sends go to Redis one slot a call"
                        + " from now on", RedisFailures.unwrap(error).getMessage());
            }
        });
        return call;
    }

    private CompletableFuture<Void> ask(Redisson own) {
        Object[] params = new Object[TAGS + 2];
        params[0] = "return #KEYS";
        params[1] = TAGS;
        for (int tag = 0; tag < TAGS; tag++) {
            params[tag + 2] = probe.get(tag);
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
            if (error == null) {
                shared = true;
                known = true;
            } else if (isRefusal(error, "CROSSSLOT") || isRefusal(error, "NOPERM")) {
                known = true;
                log.info("Redis refused a script call over keys of several hash slots ({}): sends go to Redis one"
                        + " slot a call", RedisFailures.unwrap(error).getMessage());
            } else {
                log.debug("whether a call may carry several slots is asked again later: {}", error.toString());
            }
            return null;
        });
    }

    private static boolean isRefusal(Throwable error, String code) {
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = t.getMessage();
            if (message != null && message.startsWith(code)) {
                return true;
            }
        }
        return false;
    }
}
