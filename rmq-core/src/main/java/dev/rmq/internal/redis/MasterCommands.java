package dev.rmq.internal.redis;

import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.codec.CompositeCodec;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.Codec;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.RedisCommand;
import org.redisson.client.protocol.RedisCommands;
import org.redisson.client.protocol.ScoredEntry;
import org.redisson.command.CommandAsyncExecutor;
import org.redisson.command.CommandBatchService;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The plain commands rmq sends outside its scripts (reads of a slot's head, a pause flag, a dead queue's size, a
 * cancel's mark, and the wake key a head read sets), sent to each key's master whatever read mode the client was
 * built with.
 *
 * <p>Redisson reads from replicas by default on Cluster and Sentinel ({@code ReadMode.SLAVE}). A replica lags its
 * master, so a read there can miss what rmq's own scripts just wrote on the master: a purged dead queue would still
 * count its messages, a pause would report "running", and a consumer would choose its slots by heads that are already
 * gone. Redisson has no per-call read mode, so these reads go through its command executor as writes do, which routes
 * by the master alone. A client that is not Redisson's own falls back to its configured read mode, with one warning.
 */
public final class MasterCommands {

    private static final Logger log = LoggerFactory.getLogger(MasterCommands.class);
    /** Hash fields as text, their values as bytes (an envelope). */
    private static final Codec BYTES = new CompositeCodec(StringCodec.INSTANCE, ByteArrayCodec.INSTANCE,
            ByteArrayCodec.INSTANCE);

    private final RedissonClient redisson;
    private final @Nullable CommandAsyncExecutor executor;
    private final KeyMigration migration;

    public MasterCommands(RedissonClient redisson) {
        this(redisson, KeyMigration.NONE);
    }

    /** @param migration what every batch waits for before it goes out: the move of the keys from older names */
    public MasterCommands(RedissonClient redisson, KeyMigration migration) {
        this.redisson = redisson;
        this.migration = migration;
        this.executor = redisson instanceof Redisson own ? own.getCommandExecutor() : null;
        if (executor == null && hasReplicas(redisson.getConfig())) {
            log.warn("the RedissonClient given to rmq is not Redisson's own, so rmq's plain reads follow its read"
                    + " mode: from replicas, counts, pause states and slot heads may lag what was just written;"
                    + " build it with readMode MASTER");
        }
    }

    /** Starts a batch: its commands go out together, one round trip per master. */
    public Batch batch() {
        return executor != null ? new Batch(new CommandBatchService(executor, BatchOptions.defaults()), null, migration)
                : new Batch(null, redisson.createBatch(BatchOptions.defaults()), migration);
    }

    /** The score of {@code member} in the sorted set at {@code key}, or null when it is not there. */
    public CompletableFuture<@Nullable Double> zscore(String key, String member) {
        Batch batch = batch();
        CompletableFuture<@Nullable Double> score = batch.zscore(key, member);
        return batch.execute().thenCompose(done -> score);
    }

    private static boolean hasReplicas(Config config) {
        return !config.isSingleConfig();
    }

    /** Commands queued to go out together; each answer completes once {@link #execute} has run. */
    public static final class Batch {

        private final @Nullable CommandBatchService master;
        private final @Nullable RBatch configured;
        private final KeyMigration migration;

        private Batch(@Nullable CommandBatchService master, @Nullable RBatch configured, KeyMigration migration) {
            this.master = master;
            this.configured = configured;
            this.migration = migration;
        }

        /** The scores of the first {@code n} members of a sorted set: its highest first when {@code highest}. */
        public CompletableFuture<List<Double>> scores(String key, boolean highest, int n) {
            CompletableFuture<Collection<ScoredEntry<String>>> entries;
            if (master != null) {
                RedisCommand<?> command = highest ? RedisCommands.ZREVRANGE_ENTRY : RedisCommands.ZRANGE_ENTRY;
                entries = this.<Collection<ScoredEntry<String>>>send(key, command, key, 0, n - 1, "WITHSCORES");
            } else {
                var set = configured().<String>getScoredSortedSet(key, StringCodec.INSTANCE);
                entries = (highest ? set.entryRangeReversedAsync(0, n - 1) : set.entryRangeAsync(0, n - 1))
                        .toCompletableFuture();
            }
            return entries.thenApply(list -> list.stream().map(ScoredEntry::getScore).toList());
        }

        /** Up to {@code n} members of a sorted set whose scores are at most {@code max}, the lowest first. */
        public CompletableFuture<List<String>> membersUpTo(String key, long max, int n) {
            if (master != null) {
                return this.<List<Object>>send(key, RedisCommands.ZRANGEBYSCORE_LIST, key, "-inf", max, "LIMIT", 0, n)
                        .thenApply(members -> members.stream().map(String::valueOf).toList());
            }
            return configured().<String>getScoredSortedSet(key, StringCodec.INSTANCE)
                    .valueRangeAsync(Double.NEGATIVE_INFINITY, true, max, true, 0, n).toCompletableFuture()
                    .thenApply(List::copyOf);
        }

        /** The values of {@code fields} of a hash, as bytes, each null where the field is not there. */
        public CompletableFuture<List<byte @Nullable []>> hashBytes(String key, List<String> fields) {
            if (master != null) {
                Object[] params = new Object[fields.size() + 1];
                params[0] = key;
                for (int i = 0; i < fields.size(); i++) {
                    params[i + 1] = fields.get(i);
                }
                RFuture<List<Object>> values = master().writeAsync(key, BYTES, RedisCommands.HMGET, params);
                return values.toCompletableFuture().thenApply(list -> list.stream().map(value -> (byte[]) value)
                        .toList());
            }
            return configured().<String, byte[]>getMap(key, BYTES).getAllAsync(new HashSet<>(fields))
                    .toCompletableFuture().thenApply(found -> fields.stream().map(found::get).toList());
        }

        /** The size of a sorted set. */
        public CompletableFuture<Long> zcard(String key) {
            return master != null ? send(key, RedisCommands.ZCARD, key)
                    : configured().getScoredSortedSet(key, StringCodec.INSTANCE).sizeAsync().toCompletableFuture()
                            .thenApply(Integer::longValue);
        }

        /** The score of a member of a sorted set, or null. */
        public CompletableFuture<@Nullable Double> zscore(String key, String member) {
            return master != null ? send(key, RedisCommands.ZSCORE, key, member)
                    : configured().<String>getScoredSortedSet(key, StringCodec.INSTANCE).getScoreAsync(member)
                            .toCompletableFuture();
        }

        /** The string at {@code key}, or null. */
        public CompletableFuture<@Nullable String> get(String key) {
            return master != null ? send(key, RedisCommands.GET, key)
                    : configured().<String>getBucket(key, StringCodec.INSTANCE).getAsync().toCompletableFuture();
        }

        /** Sets the string at {@code key}. */
        public CompletableFuture<Void> set(String key, String value) {
            return master != null ? this.<Void>send(key, RedisCommands.SET, key, value)
                    : configured().<String>getBucket(key, StringCodec.INSTANCE).setAsync(value).toCompletableFuture();
        }

        /** Whether {@code key} exists. */
        public CompletableFuture<Boolean> exists(String key) {
            return master != null ? send(key, RedisCommands.EXISTS, key)
                    : configured().getBucket(key, StringCodec.INSTANCE).isExistsAsync().toCompletableFuture();
        }

        /** How many of {@code keys}, which share one hash tag, exist. */
        public CompletableFuture<Long> countExisting(List<String> keys) {
            return master != null ? send(keys.get(0), RedisCommands.EXISTS_LONG, keys.toArray())
                    : configured().getKeys().countExistsAsync(keys.toArray(String[]::new)).toCompletableFuture();
        }

        /** Sends the queued commands; completes when every answer has come. */
        public CompletableFuture<Void> execute() {
            CompletableFuture<Void> moved = migration.ready();
            if (moved.isDone() && !moved.isCompletedExceptionally()) {
                // the keys moved long ago: the reads of a slot's heads pay for no stage of their own
                return send();
            }
            return moved.thenCompose(ready -> send());
        }

        private CompletableFuture<Void> send() {
            RFuture<?> sent = master != null ? master.executeAsync() : configured().executeAsync();
            return sent.toCompletableFuture().thenApply(done -> null);
        }

        private <R> CompletableFuture<R> send(String key, RedisCommand<?> command, Object... params) {
            RFuture<R> answer = master().writeAsync(key, StringCodec.INSTANCE, command, params);
            return answer.toCompletableFuture();
        }

        private CommandBatchService master() {
            if (master == null) {
                throw new IllegalStateException("no master batch");
            }
            return master;
        }

        private RBatch configured() {
            if (configured == null) {
                throw new IllegalStateException("no configured batch");
            }
            return configured;
        }
    }
}
