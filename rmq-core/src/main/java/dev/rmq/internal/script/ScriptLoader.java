package dev.rmq.internal.script;

import dev.rmq.internal.redis.RedisFailures;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RFunctionAsync;
import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.RedisCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Loads every script on every master: as Function libraries where Redis has them (Redis 7 and later), else into
 * the script cache, and so tells how calls run. Redis 6.2, or a user not allowed to load functions, is answered
 * by EVALSHA for the client's life. A library is defined once per load, where an EVAL script defines lib.lua's
 * functions again on every call: that is most of what a call that handles one message costs before it does any
 * work.
 */
final class ScriptLoader {

    private static final Logger log = LoggerFactory.getLogger(ScriptLoader.class);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    /** Redis 7.0.0 as {@code redis.REDIS_VERSION_NUM} gives it: the first version with Functions. */
    private static final long REDIS_7 = 0x070000;
    private static final String VERSION_SCRIPT = "return redis.REDIS_VERSION_NUM";

    private final RedissonClient redisson;
    /** Whether to load the scripts as Functions where Redis can, or always use EVALSHA. */
    private final boolean functionsWanted;
    /** Whether calls run by FCALL: null until a load tells (calls meanwhile use EVALSHA, which every Redis has). */
    private volatile @Nullable Boolean functions;
    /** Whether every master is believed to have the scripts; a reply that a script is unknown resets it. */
    private volatile boolean scriptsLoaded;
    /** The load under way, which callers that need the scripts share. */
    private final AtomicReference<@Nullable CompletableFuture<Void>> loading = new AtomicReference<>();

    ScriptLoader(RedissonClient redisson, boolean functionsWanted) {
        this.redisson = redisson;
        this.functionsWanted = functionsWanted;
    }

    /** Whether calls run by FCALL; false while that is not known, or after EVALSHA was chosen. */
    boolean usesFunctions() {
        return Boolean.TRUE.equals(functions);
    }

    /** A call found a script missing on a master: load them all again before the next call. */
    void forget() {
        scriptsLoaded = false;
    }

    /**
     * Loads every script on every master, once, and again after a call found one missing: a pipelined call that
     * meets an unknown script can only be repeated one call at a time, which would cost a pipeline its single
     * round trip per node and a durable one its WAIT. Never fails: a load that Redis does not answer leaves the
     * scripts to be loaded before the next call, and the calls to fail on their own.
     */
    CompletableFuture<Void> ensureLoaded() {
        while (!scriptsLoaded) {
            CompletableFuture<Void> current = loading.get();
            if (current != null) {
                return current;
            }
            CompletableFuture<Void> mine = new CompletableFuture<>();
            if (loading.compareAndSet(null, mine)) {
                CompletableFuture<Void> load;
                try {
                    load = load();
                } catch (RuntimeException e) {
                    // Redisson throws rather than fails a command sent to all masters when it cannot connect
                    load = DONE;
                }
                load.whenComplete((v, error) -> {
                    loading.set(null);
                    mine.complete(null);
                });
                return mine;
            }
        }
        return DONE;
    }

    private CompletableFuture<Void> load() {
        if (!functionsWanted || Boolean.FALSE.equals(functions)) {
            if (!functionsWanted && functions == null) {
                functions = false;
                log.info("rmq runs its scripts by EVALSHA, as its script mode says");
            }
            return loadScripts();
        }
        if (functions == null) {
            // asked first, so that a Redis without Functions is not made to answer an unknown command on every master
            return redisVersion().handle((version, error) -> {
                if (error != null) {
                    return DONE;
                }
                if (version == null || version < REDIS_7) {
                    functions = false;
                    log.info("Redis has no Functions before version 7: rmq runs its scripts by EVALSHA");
                    return loadScripts();
                }
                return loadFunctions();
            }).thenCompose(next -> next);
        }
        return loadFunctions();
    }

    /**
     * Redis's version number, asked by a script sent whole, as EVAL. Not by {@code RScript.eval}: where its script
     * cache is on (its default) Redisson sends that as EVALSHA first, and a node that never ran the script answers
     * NOSCRIPT, an error reply that the node counts and its operators' monitoring shows, at every start of a client.
     * A client that is not Redisson's own has no command executor to send EVAL by, and goes that way all the same.
     */
    private CompletableFuture<@Nullable Long> redisVersion() {
        RFuture<@Nullable Long> version = redisson instanceof Redisson own
                ? own.getCommandExecutor().readRandomAsync(StringCodec.INSTANCE, RedisCommands.EVAL_LONG, VERSION_SCRIPT, 0)
                : redisson.getScript(StringCodec.INSTANCE).evalAsync(RScript.Mode.READ_ONLY, VERSION_SCRIPT,
                        RScript.ReturnType.LONG);
        return version.toCompletableFuture();
    }

    private CompletableFuture<Void> loadFunctions() {
        RFunctionAsync library = redisson.getFunction(StringCodec.INSTANCE);
        return oneAfterAnother(script -> library.loadAndReplaceAsync(script.functionName(), script.functionCode()))
                .handle((v, error) -> {
            if (error == null) {
                if (functions == null) {
                    log.info("rmq runs its scripts as Redis Functions, loaded on every master");
                }
                functions = true;
                scriptsLoaded = true;
                return DONE;
            }
            if (ScriptErrors.isFunctionsRefused(error)) {
                log.info("Redis refused to load rmq's scripts as Functions ({}): rmq runs them by EVALSHA",
                        ScriptErrors.redisAnswer(error));
                functions = false;
                return loadScripts();
            }
            if (RedisFailures.unreachableCause(error) == null) {
                // FUNCTION LOAD is refused while Redis's memory is full, where SCRIPT LOAD is not: the calls that
                // free memory must run all the same. Functions are tried again at the next load.
                log.warn("Redis did not load rmq's scripts as Functions ({}): until a later load does, rmq runs them"
                        + " by EVALSHA", ScriptErrors.redisAnswer(error));
                functions = null;
                return loadScripts();
            }
            return DONE;
        }).thenCompose(next -> next);
    }

    private CompletableFuture<Void> loadScripts() {
        RScriptAsync async = redisson.getScript(StringCodec.INSTANCE);
        return oneAfterAnother(script -> async.scriptLoadAsync(script.source())).handle((v, error) -> {
            scriptsLoaded = error == null;
            return null;
        });
    }

    /**
     * Loads the scripts one after another, each on every master at once. Loads sent together would each take a
     * pooled connection of their own for the moment, and a batch that fails on several masters (a Redis without
     * Functions) makes Redisson log an error of its own; one after another, the first refusal ends the load.
     */
    private static CompletableFuture<Void> oneAfterAnother(Function<Script, RFuture<?>> load) {
        CompletableFuture<?> chain = DONE;
        for (Script script : Script.values()) {
            chain = chain.thenCompose(v -> load.apply(script).toCompletableFuture());
        }
        return chain.thenApply(v -> null);
    }
}
