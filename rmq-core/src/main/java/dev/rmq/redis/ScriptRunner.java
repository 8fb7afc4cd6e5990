package dev.rmq.redis;

import dev.rmq.RmqException;
import dev.rmq.RmqUnavailableException;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RedissonClient;
import org.redisson.RedissonShutdownException;
import org.redisson.client.RedisConnectionException;
import org.redisson.client.RedisTimeoutException;
import org.redisson.client.codec.ByteArrayCodec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.UUID;
import java.util.concurrent.CompletionStage;

/**
 * Runs rmq's scripts by EVALSHA, routed by the slot's hash tag. When a server does not know a script
 * (after a restart or a failover) the call is repeated once with EVAL, which also caches it there.
 * Script errors that carry an {@code RMQ_} code become the matching Java exception.
 */
public final class ScriptRunner {

    private final RedissonClient redisson;
    /** Whether every master is believed to have the scripts; a NOSCRIPT reply resets it. */
    private volatile boolean scriptsLoaded;

    public ScriptRunner(RedissonClient redisson) {
        if (redisson == null) {
            throw new IllegalArgumentException("a RedissonClient is required");
        }
        this.redisson = redisson;
    }

    /** Runs a script whose reply is a Lua table. */
    public CompletableFuture<List<Object>> list(Script script, SlotKeys keys, Object... args) {
        return run(redisson.getScript(ByteArrayCodec.INSTANCE), script, keys, RScript.ReturnType.LIST, encode(args));
    }

    /** Runs a script whose reply is a number. */
    public CompletableFuture<Long> integer(Script script, SlotKeys keys, Object... args) {
        return run(redisson.getScript(ByteArrayCodec.INSTANCE), script, keys, RScript.ReturnType.LONG, encode(args));
    }

    /** Starts a pipeline: its calls go out together, one round trip per Redis node. */
    public Pipeline pipeline() {
        return new Pipeline(BatchOptions.defaults());
    }

    /**
     * Starts a pipeline after which every node it wrote to waits for {@code replicas} replicas (WAIT);
     * {@link Pipeline#execute()} then yields how many acknowledged.
     */
    public Pipeline pipeline(int replicas, java.time.Duration timeout) {
        return new Pipeline(replicas > 0 ? BatchOptions.defaults().sync(replicas, timeout) : BatchOptions.defaults());
    }

    private <R> CompletableFuture<R> run(RScriptAsync async, Script script, SlotKeys keys, RScript.ReturnType type,
                                         Object[] args) {
        CompletionStage<R> first = async.<R>evalShaAsync(keys.store(), RScript.Mode.READ_WRITE, script.sha(), type,
                keys.asScriptKeys(), args);
        return first.toCompletableFuture()
                .exceptionallyCompose(error -> isNoScript(error)
                        ? evalSource(script, keys, type, args)
                        : CompletableFuture.failedFuture(translate(error, script, keys)));
    }

    private <R> CompletableFuture<R> evalSource(Script script, SlotKeys keys, RScript.ReturnType type, Object[] args) {
        RScriptAsync async = redisson.getScript(ByteArrayCodec.INSTANCE);
        CompletionStage<R> retry = async.<R>evalAsync(keys.store(), RScript.Mode.READ_WRITE, script.source(), type,
                keys.asScriptKeys(), args);
        return retry.toCompletableFuture()
                .exceptionallyCompose(error -> CompletableFuture.failedFuture(translate(error, script, keys)));
    }

    /**
     * Loads every script on every master before a pipeline: a pipelined EVALSHA that meets NOSCRIPT can
     * only be repeated one call at a time, which would cost a pipeline its single round trip per node and
     * a durable one its WAIT.
     */
    private CompletableFuture<Void> ensureLoaded() {
        if (scriptsLoaded) {
            return CompletableFuture.completedFuture(null);
        }
        RScriptAsync async = redisson.getScript(org.redisson.client.codec.StringCodec.INSTANCE);
        CompletableFuture<?>[] loads = java.util.Arrays.stream(Script.values())
                .map(script -> async.scriptLoadAsync(script.source()).toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(loads).handle((v, error) -> {
            scriptsLoaded = error == null;
            return null;
        });
    }

    private boolean isNoScript(Throwable error) {
        Throwable cause = unwrap(error);
        boolean noScript = cause.getMessage() != null && cause.getMessage().contains("NOSCRIPT");
        if (noScript) {
            scriptsLoaded = false;
        }
        return noScript;
    }

    /** Whether a script reported an {@code RMQ_} error code itself, rather than Redis failing to run it. */
    private static boolean isScriptsOwnError(Throwable error) {
        if (error == null || unreachableCause(error) != null) {
            return false;
        }
        String message = unwrap(error).getMessage();
        return message != null && message.contains("RMQ_");
    }

    /** The failure in the chain that says Redis could not be reached or did not answer in time, if any. */
    private static Throwable unreachableCause(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof RedisConnectionException || t instanceof RedisTimeoutException
                    || t instanceof RedissonShutdownException || t instanceof java.io.IOException) {
                return t;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /**
     * Maps a script's {@code RMQ_} error code to an exception, and a Redis that does not answer to
     * {@link RmqUnavailableException}; anything else is passed on as it is.
     */
    static Throwable translate(Throwable error, Script script, SlotKeys keys) {
        Throwable cause = unwrap(error);
        String message = cause.getMessage() == null ? "" : cause.getMessage();
        Throwable unreachable = unreachableCause(cause);
        if (unreachable != null) {
            return new RmqUnavailableException("Redis did not answer " + script + " on " + keys.hashTag() + ": "
                    + unreachable.getClass().getSimpleName() + ": " + unreachable.getMessage(), cause);
        }
        int at = message.indexOf("RMQ_");
        if (at < 0) {
            return cause instanceof RuntimeException ? cause : new RmqException(message, cause);
        }
        int space = message.indexOf(' ', at);
        String code = space < 0 ? message.substring(at) : message.substring(at, space);
        String text = space < 0 ? code : message.substring(space + 1);
        int redissonSuffix = text.indexOf(". channel:");
        if (redissonSuffix >= 0) {
            text = text.substring(0, redissonSuffix);
        }
        return switch (code) {
            case "RMQ_PAST" -> new IllegalArgumentException(text, cause);
            case "RMQ_FENCED" -> new SlotFencedException(text, cause);
            default -> new RmqException(code + " " + text, cause);
        };
    }

    private static Object[] encode(Object[] args) {
        Object[] encoded = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            encoded[i] = bytes(args[i]);
        }
        return encoded;
    }

    private static byte[] bytes(Object arg) {
        if (arg instanceof byte[] raw) {
            return raw;
        }
        if (arg instanceof String || arg instanceof Long || arg instanceof Integer || arg instanceof Double) {
            return String.valueOf(arg).getBytes(StandardCharsets.UTF_8);
        }
        throw new IllegalArgumentException("script arguments are byte[], String or numbers, not " + arg);
    }

    /**
     * Script calls sent together, one round trip per Redis node. Each call carries a call key, so when a
     * batch fails as a whole (Redisson fails every reply of a multi-node batch when one node fails, for
     * example with NOSCRIPT after a failover) the failed calls can be sent again: those that had run
     * return their first reply instead of running twice.
     */
    public final class Pipeline {

        private static final int ROUNDS = 3;

        private final BatchOptions options;
        private final List<Call> calls = new ArrayList<>();

        private record Call(Script script, SlotKeys keys, RScript.ReturnType type, List<Object> scriptKeys,
                            Object[] args, CompletableFuture<Object> result) {
        }

        private Pipeline(BatchOptions options) {
            this.options = options;
        }

        /** Adds a call whose reply is a Lua table. */
        @SuppressWarnings("unchecked")
        public CompletableFuture<List<Object>> list(Script script, SlotKeys keys, Object... args) {
            return add(script, keys, RScript.ReturnType.LIST, args).thenApply(r -> (List<Object>) r);
        }

        /** Adds a call whose reply is a number. */
        public CompletableFuture<Long> integer(Script script, SlotKeys keys, Object... args) {
            return add(script, keys, RScript.ReturnType.LONG, args).thenApply(r -> (Long) r);
        }

        private CompletableFuture<Object> add(Script script, SlotKeys keys, RScript.ReturnType type, Object[] args) {
            Call call = new Call(script, keys, type, keys.asScriptKeys(UUID.randomUUID().toString()), encode(args),
                    new CompletableFuture<>());
            calls.add(call);
            return call.result;
        }

        public boolean isEmpty() {
            return calls.isEmpty();
        }

        /**
         * Sends the calls. Yields the number of replicas that acknowledged when the pipeline waits for
         * replicas, else 0.
         */
        public CompletableFuture<Integer> execute() {
            if (calls.isEmpty()) {
                return CompletableFuture.completedFuture(0);
            }
            return ensureLoaded().thenCompose(v -> send(calls, 1));
        }

        private CompletableFuture<Integer> send(List<Call> pending, int round) {
            RBatch batch = redisson.createBatch(options);
            List<RFuture<Object>> replies = new ArrayList<>(pending.size());
            for (Call call : pending) {
                replies.add(batch.getScript(ByteArrayCodec.INSTANCE).evalShaAsync(call.keys.store(),
                        RScript.Mode.READ_WRITE, call.script.sha(), call.type, call.scriptKeys, call.args));
            }
            return batch.executeAsync().toCompletableFuture().handle((result, batchError) -> {
                List<Call> failed = new ArrayList<>();
                List<Throwable> errors = new ArrayList<>();
                for (int i = 0; i < pending.size(); i++) {
                    CompletableFuture<Object> reply = replies.get(i).toCompletableFuture();
                    Throwable error = !reply.isDone() ? batchError : reply.handle((r, e) -> e).join();
                    Call call = pending.get(i);
                    if (error == null && reply.isDone()) {
                        call.result.complete(reply.join());
                    } else if (reply.isDone() && isScriptsOwnError(error)) {
                        // the script refused the call (RMQ_PAST, ...): it would refuse it again in every round
                        call.result.completeExceptionally(translate(error, call.script, call.keys));
                    } else if (!call.result.isDone()) {
                        failed.add(call);
                        errors.add(error != null ? error : new RmqException("pipelined call did not complete", null));
                    }
                }
                int synced = result == null ? 0 : result.getSyncedSlaves();
                if (failed.isEmpty()) {
                    return CompletableFuture.completedFuture(synced);
                }
                if (round >= ROUNDS) {
                    for (int i = 0; i < failed.size(); i++) {
                        Call call = failed.get(i);
                        call.result.completeExceptionally(translate(errors.get(i), call.script, call.keys));
                    }
                    return CompletableFuture.completedFuture(synced);
                }
                errors.forEach(ScriptRunner.this::isNoScript);
                // Everything goes again, not only what failed: calls that ran replay their reply and refresh
                // their call key, so this round's WAIT also covers the writes of the round that failed.
                List<Call> again = pending.stream().filter(call -> !call.result.isCompletedExceptionally()).toList();
                return ensureLoaded().thenCompose(v -> send(again, round + 1));
            }).thenCompose(next -> next);
        }
    }
}
