package dev.rmq.internal.script;

import dev.rmq.exceptions.RmqException;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.KeyMigration;
import dev.rmq.internal.redis.MasterCommands;
import dev.rmq.internal.redis.SlotKeys;
import org.jspecify.annotations.Nullable;
import org.redisson.api.BatchOptions;
import org.redisson.api.FunctionMode;
import org.redisson.api.FunctionResult;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Runs script calls, routed by the slot's hash tag: by FCALL where Redis has Functions (Redis 7 and later), else by
 * EVALSHA, as its {@link ScriptLoader} found at the first load. When a server does not know a script (after a
 * restart without persistence, a failover to a replica that was not sent it, or a flush) the scripts are loaded
 * again and the call repeated once. Failures are translated by {@link ScriptErrors}. Beside
 * the scripts it makes the plain reads consumers need, of the slots' heads ({@link #tops}) and of a cancel's mark
 * ({@link #cancelMark}): a script call's fixed cost would be many times that of the read. They go to the masters,
 * as the scripts do ({@link MasterCommands}), so they see what the scripts just wrote.
 */
public final class ScriptRunner {

    private final RedissonClient redisson;
    private final ScriptLoader loader;
    private final MasterCommands master;
    private final SlotHeads heads;
    private final KeyMigration migration;
    /** Whether a call may carry keys of several slots: asked of Redis before the first call. */
    private final SlotSharing sharing;
    private final ScriptInvoker invoker;

    /** A runner that uses Redis Functions where the server has them. */
    public ScriptRunner(RedissonClient redisson) {
        this(redisson, true);
    }

    /**
     * A runner for keys of the default prefix and no namespace.
     *
     * @param functionsWanted false to run every call by EVALSHA, even where Redis has Functions
     */
    public ScriptRunner(RedissonClient redisson, boolean functionsWanted) {
        this(redisson, functionsWanted, KeyMigration.NONE, new KeyLayout(""));
    }

    /**
     * @param functionsWanted false to run every call by EVALSHA, even where Redis has Functions
     * @param migration       what every call waits for first: the move of the client's keys from older names
     * @param keys            the client's key names, after which the question whether a call may carry several slots
     *                        names its keys (see {@link SlotSharing})
     */
    public ScriptRunner(RedissonClient redisson, boolean functionsWanted, KeyMigration migration, KeyLayout keys) {
        if (redisson == null) {
            throw new IllegalArgumentException("a RedissonClient is required");
        }
        if (keys == null) {
            throw new IllegalArgumentException("a key layout is required");
        }
        this.redisson = redisson;
        this.invoker = new ScriptInvoker(redisson);
        this.sharing = new SlotSharing(redisson, keys, invoker);
        this.loader = new ScriptLoader(redisson, functionsWanted);
        this.migration = migration;
        this.master = new MasterCommands(redisson, migration);
        this.heads = new SlotHeads(master);
    }

    /**
     * Completes once the client's keys are where its calls look for them (see {@link KeyMigration}): for the plain
     * commands sent beside the runner, as the runner's own calls and {@link #master()} wait for it.
     */
    public CompletableFuture<Void> keysReady() {
        return migration.ready();
    }

    /**
     * Completes once the scripts are loaded, the keys moved (see {@link KeyMigration}) and Redis asked whether a
     * call may carry several slots ({@link SlotSharing}). Once all are, it is the loader's completed future itself: a
     * call pays for no stage of its own.
     */
    private CompletableFuture<Void> ready() {
        CompletableFuture<Void> moved = migration.ready();
        CompletableFuture<Void> loaded = loader.ensureLoaded();
        CompletableFuture<Void> asked = sharing.known();
        if (asked.isDone() && moved.isDone() && !moved.isCompletedExceptionally()) {
            return loaded;
        }
        return moved.thenCompose(v -> asked).thenCompose(v -> loaded);
    }

    /** Runs one call on its own, on a slot's keys. */
    public <R> CompletableFuture<R> run(SlotKeys keys, ScriptCall<R> call) {
        requireScope(call, true);
        return run(keys.store(), keys.asScriptKeys(call.script().keys()), keys.hashTag(), call);
    }

    /**
     * Runs one call on the keys of several slots, a block per slot in this order: a script that takes such calls
     * (send.lua), where Redis takes them ({@link #slotsShareCalls()}).
     */
    public <R> CompletableFuture<R> run(List<SlotKeys> slots, ScriptCall<R> call) {
        if (slots.size() == 1) {
            return run(slots.get(0), call);
        }
        requireSeveral(slots, call);
        return sharing.watched(run(slots.get(0).store(), SlotKeys.asScriptKeys(slots, call.script().keys(), null),
                slots.get(0).hashTag() + " and " + (slots.size() - 1) + " other slot(s)", call));
    }

    /**
     * Whether one call may carry the keys of several slots, so that several slots' sends share its fixed cost:
     * where Redis is not a Cluster, and has answered such a call (see {@link SlotSharing}); false until it has.
     */
    public boolean slotsShareCalls() {
        return sharing.shared();
    }

    /**
     * Whether calls might come to carry several slots: false on a Cluster, which keeps their keys apart, and with a
     * client that is not Redisson's own. Known before any call, where {@link #slotsShareCalls()} is only once Redis
     * has answered.
     */
    public boolean slotsMayShareCalls() {
        return sharing.possible();
    }

    /** Refuses a call of several slots on a Cluster; a sharded Redis behind one address refuses it itself. */
    private void requireSeveral(List<SlotKeys> slots, ScriptCall<?> call) {
        requireScope(call, true);
        if (!slotsMayShareCalls()) {
            throw new IllegalStateException("a call of " + slots.size() + " slots needs a Redis that takes keys of"
                    + " several hash slots in one call, not a Cluster");
        }
    }

    /** Runs one call of a topic's script on its key of its own (such as the rate-limit bucket). */
    public <R> CompletableFuture<R> run(String key, ScriptCall<R> call) {
        requireScope(call, false);
        return run(key, List.of(key), key, call);
    }

    /** The plain commands beside the scripts, sent to the masters as the scripts are. */
    public MasterCommands master() {
        return master;
    }

    /** Whether calls now run by FCALL, as Redis Functions; false while that is not known, or after EVALSHA was chosen. */
    public boolean usesFunctions() {
        return loader.usesFunctions();
    }

    private <R> CompletableFuture<R> run(String route, List<Object> scriptKeys, String where, ScriptCall<R> call) {
        Script script = call.script();
        byte[][] args = call.argv();
        return ready().thenCompose(v -> invoke(route, scriptKeys, script, args))
                .exceptionallyCompose(error -> {
                    if (!ScriptErrors.isNotLoaded(error)) {
                        return CompletableFuture.failedFuture(ScriptErrors.translate(error, script, where));
                    }
                    loader.forget();
                    return loader.ensureLoaded().thenCompose(v -> invoke(route, scriptKeys, script, args))
                            .exceptionallyCompose(again -> CompletableFuture.failedFuture(
                                    ScriptErrors.translate(again, script, where)));
                })
                .thenApply(call::decode);
    }

    private CompletableFuture<Object> invoke(String route, List<Object> scriptKeys, Script script, byte[][] args) {
        return usesFunctions() ? invoker.fcall(route, script.functionName(), scriptKeys, args)
                : invoker.evalSha(route, script.sha(), scriptKeys, args);
    }

    private static void requireScope(ScriptCall<?> call, boolean ofSlot) {
        if (call.script().ofSlot() != ofSlot) {
            throw new IllegalArgumentException(call.script().file() + " runs on " + (call.script().ofSlot()
                    ? "a slot's keys" : "a topic key of its own") + ", not on what it was given");
        }
    }

    /**
     * The scores of the {@code n} most urgent waiting messages of each slot, most urgent first, read in one round
     * trip per Redis node, with the wake keys a priority topic's order needs (see {@link SlotHeads}).
     */
    public CompletableFuture<List<SlotHeads.Heads>> tops(List<SlotKeys> slots, boolean highest, int n) {
        return heads.tops(slots, highest, n);
    }

    /** The priorities of each slot's delayed messages due by {@code nowMs}; see {@link SlotHeads#duePriorities}. */
    public CompletableFuture<List<List<Long>>> duePriorities(List<SlotKeys> slots, long nowMs, int n) {
        return heads.duePriorities(slots, nowMs, n);
    }

    /**
     * The lease deadline a cancel marked for the delivery of {@code key} (see cancel.lua), or null: a plain read,
     * for a handler that asks whether it was cancelled.
     */
    public CompletableFuture<@Nullable Double> cancelMark(SlotKeys keys, String key) {
        return master.zscore(keys.cancelled(), key);
    }

    /** Starts a pipeline: its calls go out together, one round trip per Redis node. */
    public Pipeline pipeline() {
        return new Pipeline(BatchOptions.defaults(), true, false);
    }

    /**
     * Starts a pipeline of calls that only read: they carry no call key, since running one twice is harmless and
     * keeping its reply for a replay would cost a write of it.
     */
    public Pipeline readPipeline() {
        return new Pipeline(BatchOptions.defaults(), false, false);
    }

    /**
     * Starts a pipeline after which every master it wrote to waits for {@code replicas} replicas (WAIT);
     * {@link Pipeline#execute()} then yields how many acknowledged on the master where fewest did.
     */
    public Pipeline pipeline(int replicas, Duration timeout) {
        return new Pipeline(replicas > 0 ? BatchOptions.defaults().sync(replicas, timeout) : BatchOptions.defaults(),
                true, replicas > 0);
    }

    /**
     * Script calls sent together, one round trip per Redis node. Each call carries a call key, so when a
     * batch fails as a whole (Redisson fails every reply of a multi-node batch when one node fails, for
     * example with NOSCRIPT after a failover) the failed calls can be sent again: those that had run
     * return their first reply instead of running twice (see replay.lua).
     */
    public final class Pipeline {

        private static final int ROUNDS = 3;

        private final BatchOptions options;
        /** Whether calls carry a call key, so that a call sent again replays its first reply. */
        private final boolean replayable;
        /**
         * Whether the pipeline waits for replicas: it then goes to each master in a batch of its own, since a batch
         * over several masters reports the replicas that acknowledged summed over them, and one master's may hide
         * another's that did not.
         */
        private final boolean waits;
        private final List<Pending<?>> calls = new ArrayList<>();

        private record Pending<R>(ScriptCall<R> call, SlotKeys keys, List<Object> scriptKeys, Object[] args,
                                  CompletableFuture<R> result) {

            void complete(Object reply) {
                try {
                    result.complete(call.decode(reply));
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            }

            void fail(Throwable error) {
                result.completeExceptionally(ScriptErrors.translate(error, call.script(), keys.hashTag()));
            }
        }

        private Pipeline(BatchOptions options, boolean replayable, boolean waits) {
            this.options = options;
            this.replayable = replayable;
            this.waits = waits;
        }

        /** Adds a call; its stage completes when the pipeline's reply for it is read. */
        public <R> CompletableFuture<R> add(SlotKeys keys, ScriptCall<R> call) {
            return add(List.of(keys), call);
        }

        /** Adds a call on the keys of several slots, as {@link ScriptRunner#run(List, ScriptCall)} runs one. */
        public <R> CompletableFuture<R> add(List<SlotKeys> slots, ScriptCall<R> call) {
            if (slots.size() == 1) {
                requireScope(call, true);
            } else {
                requireSeveral(slots, call);
            }
            List<Object> scriptKeys = SlotKeys.asScriptKeys(slots, call.script().keys(),
                    replayable ? UUID.randomUUID().toString() : null);
            Pending<R> pending = new Pending<>(call, slots.get(0), scriptKeys, ArgumentCodec.wrap(call.argv()),
                    new CompletableFuture<>());
            calls.add(pending);
            return slots.size() > 1 ? sharing.watched(pending.result) : pending.result;
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
            List<List<Pending<?>>> byMaster = waits ? byMaster() : List.of(calls);
            return ready().thenCompose(v -> {
                List<CompletableFuture<Integer>> synced = byMaster.stream().map(group -> send(group, 1)).toList();
                return CompletableFuture.allOf(synced.toArray(CompletableFuture[]::new)).thenApply(done ->
                        synced.stream().mapToInt(CompletableFuture::join).min().orElse(0));
            });
        }

        /** The calls grouped by the master that serves them, in the order first met; one group when unknown. */
        private List<List<Pending<?>>> byMaster() {
            Map<Object, List<Pending<?>>> groups = new LinkedHashMap<>();
            for (Pending<?> p : calls) {
                Object master = invoker.masterOf(p.keys.store());
                groups.computeIfAbsent(master == null ? this : master, m -> new ArrayList<>()).add(p);
            }
            return List.copyOf(groups.values());
        }

        private CompletableFuture<Integer> send(List<Pending<?>> pending, int round) {
            RBatch batch = redisson.createBatch(options);
            List<RFuture<Object>> replies = new ArrayList<>(pending.size());
            boolean byFunction = usesFunctions();
            for (Pending<?> p : pending) {
                Script script = p.call.script();
                replies.add(byFunction
                        ? batch.getFunction(ArgumentCodec.INSTANCE).callAsync(p.keys.store(), FunctionMode.WRITE,
                                script.functionName(), FunctionResult.LIST, p.scriptKeys, p.args)
                        : batch.getScript(ArgumentCodec.INSTANCE).evalShaAsync(p.keys.store(),
                                RScript.Mode.READ_WRITE, script.sha(), RScript.ReturnType.LIST, p.scriptKeys, p.args));
            }
            return batch.executeAsync().toCompletableFuture().handle((result, batchError) -> {
                List<Pending<?>> failed = new ArrayList<>();
                List<Throwable> errors = new ArrayList<>();
                for (int i = 0; i < pending.size(); i++) {
                    CompletableFuture<Object> reply = replies.get(i).toCompletableFuture();
                    Throwable error = !reply.isDone() ? batchError : reply.handle((r, e) -> e).join();
                    Pending<?> p = pending.get(i);
                    if (error == null && reply.isDone()) {
                        p.complete(reply.join());
                    } else if (reply.isDone() && ScriptErrors.isScriptsOwnError(error)) {
                        // the script refused the call (RMQ_ENVELOPE, ...): it would refuse it again in every round
                        p.fail(error);
                    } else if (!p.result.isDone()) {
                        failed.add(p);
                        errors.add(error != null ? error : new RmqException("pipelined call did not complete", null));
                    }
                }
                int synced = result == null ? 0 : result.getSyncedSlaves();
                if (failed.isEmpty()) {
                    return CompletableFuture.completedFuture(synced);
                }
                if (round >= ROUNDS) {
                    for (int i = 0; i < failed.size(); i++) {
                        failed.get(i).fail(errors.get(i));
                    }
                    return CompletableFuture.completedFuture(synced);
                }
                if (errors.stream().anyMatch(ScriptErrors::isNotLoaded)) {
                    loader.forget();
                }
                // Everything goes again, not only what failed: calls that ran replay their reply and refresh
                // their call key, so this round's WAIT also covers the writes of the round that failed.
                List<Pending<?>> again = pending.stream().filter(p -> !p.result.isCompletedExceptionally()).toList();
                return loader.ensureLoaded().thenCompose(v -> send(again, round + 1));
            }).thenCompose(next -> next);
        }
    }
}
