package dev.rmq.internal.admin;

import dev.rmq.admin.ClearReport;
import dev.rmq.admin.ClearScope;
import dev.rmq.admin.PauseState;
import dev.rmq.admin.RmqAdmin;
import dev.rmq.schedule.RmqSchedules;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.MasterCommands;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.ClearCall;
import dev.rmq.internal.script.DeadPurgeCall;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.journal.MessageJournal;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import org.jspecify.annotations.Nullable;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Pause and resume on the slots' {@code paused} keys, each a batch of one command per slot (one round trip per
 * Redis node). A resume also publishes every slot on the topic's wake channel, so that idle consumers poll at once.
 * A clear is a call of clear.lua per slot, and of dead_purge.lua when the dead go too, all at once.
 */
public final class RedisAdmin implements RmqAdmin {

    private static final Logger log = LoggerFactory.getLogger(RedisAdmin.class);

    private final RedissonClient redisson;
    private final TopicRegistry topics;
    private final KeyLayout keys;
    private final ScriptRunner scripts;
    /** Told of each message a clear removes, so that a restore does not bring it back; null without a journal. */
    private final @Nullable MessageJournal journal;
    private final RmqSchedules schedules;

    public RedisAdmin(RedissonClient redisson, TopicRegistry topics, KeyLayout keys, ScriptRunner scripts,
                      @Nullable MessageJournal journal, RmqSchedules schedules) {
        this.redisson = redisson;
        this.topics = topics;
        this.keys = keys;
        this.scripts = scripts;
        this.journal = journal;
        this.schedules = schedules;
    }

    @Override
    public RmqSchedules schedules() {
        return schedules;
    }

    @Override
    public CompletionStage<PauseState> pauseAsync(String topic) {
        TopicDefinition definition = topics.require(topic);
        RBatch batch = redisson.createBatch(BatchOptions.defaults());
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            batch.getBucket(slotKeys(definition, slot).paused(), StringCodec.INSTANCE).setAsync("1");
        }
        return scripts.keysReady().thenCompose(ready -> batch.executeAsync())
                .thenCompose(done -> pauseStateAsync(topic))
                .whenComplete((state, error) -> logChange("paused", definition, state, error));
    }

    @Override
    public CompletionStage<PauseState> resumeAsync(String topic) {
        TopicDefinition definition = topics.require(topic);
        RBatch batch = redisson.createBatch(BatchOptions.defaults());
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            batch.getBucket(slotKeys(definition, slot).paused(), StringCodec.INSTANCE).deleteAsync();
        }
        // the wakes go after every flag is gone: in one batch, a wake could reach a consumer before another node
        // deleted its slot's flag, and that slot would sleep out its idle poll still paused
        return scripts.keysReady().thenCompose(ready -> batch.executeAsync()).thenCompose(done -> {
            RBatch wakes = redisson.createBatch(BatchOptions.defaults());
            for (int slot = 0; slot < definition.slotAmount(); slot++) {
                wakes.getTopic(keys.wakeChannel(definition.name()), StringCodec.INSTANCE).publishAsync(String.valueOf(slot));
            }
            return wakes.executeAsync();
        }).thenCompose(done -> pauseStateAsync(topic))
                .whenComplete((state, error) -> logChange("resumed", definition, state, error));
    }

    @Override
    public CompletionStage<PauseState> pauseStateAsync(String topic) {
        TopicDefinition definition = topics.require(topic);
        MasterCommands.Batch batch = scripts.master().batch();
        List<CompletableFuture<Boolean>> flags = new ArrayList<>(definition.slotAmount());
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            flags.add(batch.exists(slotKeys(definition, slot).paused()));
        }
        return batch.execute().thenApply(done -> {
            int paused = 0;
            for (CompletableFuture<Boolean> flag : flags) {
                paused += flag.join() ? 1 : 0;
            }
            return new PauseState(definition.name(), paused, definition.slotAmount());
        });
    }

    @Override
    public CompletionStage<ClearReport> clearAsync(String topic, ClearScope scope) {
        if (scope == null) {
            throw new IllegalArgumentException("scope must not be null: use ClearScope.WAITING, or WAITING_AND_DEAD to"
                    + " empty the dead queue as well");
        }
        TopicDefinition definition = topics.require(topic);
        boolean listKeys = journal != null && journal.journals(definition.name());
        // a call per slot, not a pipeline: a pipeline keeps each reply in Redis for a replay, every key listed
        List<CompletableFuture<ClearCall.Cleared>> cleared = new ArrayList<>(definition.slotAmount());
        List<CompletableFuture<Long>> purged = new ArrayList<>();
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            SlotKeys slotKeys = slotKeys(definition, slot);
            cleared.add(scripts.run(slotKeys, new ClearCall(listKeys)));
            if (scope == ClearScope.WAITING_AND_DEAD) {
                purged.add(scripts.run(slotKeys, new DeadPurgeCall()));
            }
        }
        List<CompletableFuture<?>> all = new ArrayList<>(cleared);
        all.addAll(purged);
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).handle((done, error) -> null)
                .thenComposeAsync(done -> account(definition, cleared, purged, listKeys))
                .whenComplete((report, error) -> {
                    if (error != null) {
                        log.warn("topic {} could not be cleared completely; repeat the call: {}", definition.name(),
                                error.toString());
                    } else {
                        log.info("topic {} cleared: {} waiting, {} parked and {} dead message(s) removed from {}"
                                + " slot(s); deliveries in flight end as usual", definition.name(), report.waiting(),
                                report.parked(), report.dead(), definition.slotAmount());
                    }
                });
    }

    /**
     * Sums what every slot removed, has the journal record the keys, and then fails when a slot could not be cleared,
     * with what the others removed: the slots that were cleared are journaled all the same.
     */
    private CompletionStage<ClearReport> account(TopicDefinition definition,
                                                 List<CompletableFuture<ClearCall.Cleared>> cleared,
                                                 List<CompletableFuture<Long>> purged, boolean listKeys) {
        long waiting = 0;
        long parked = 0;
        long dead = 0;
        SlotFailures failures = new SlotFailures();
        List<String> keys = new ArrayList<>();
        for (CompletableFuture<ClearCall.Cleared> slot : cleared) {
            ClearCall.Cleared one = failures.valueOf(slot);
            if (one != null) {
                waiting += one.waiting();
                parked += one.parked();
                keys.addAll(one.keys());
            }
        }
        for (CompletableFuture<Long> slot : purged) {
            Long one = failures.valueOf(slot);
            dead += one != null ? one : 0;
        }
        ClearReport report = new ClearReport(definition.name(), waiting, parked, dead);
        CompletionStage<Void> journaled = listKeys && journal != null && !keys.isEmpty()
                ? journal.cleared(definition.name(), keys, Instant.now()) : CompletableFuture.completedFuture(null);
        return journaled.thenApply(done -> {
            Throwable first = failures.first;
            if (first != null) {
                throw new RmqUnavailableException("topic '" + definition.name() + "' was cleared in part: "
                        + failures.count + " slot call(s) failed (" + first + "); the others removed "
                        + report.waiting() + " waiting, " + report.parked() + " parked and " + report.dead()
                        + " dead message(s). Repeat the call", first);
            }
            return report;
        });
    }

    /** The slot calls of a clear that failed: how many, and the first one's error (null while none did). */
    private static final class SlotFailures {
        int count;
        @Nullable Throwable first;

        /** The call's result, or null when it failed, which is counted. */
        <T> @Nullable T valueOf(CompletableFuture<T> call) {
            if (!call.isCompletedExceptionally()) {
                return call.join();
            }
            count++;
            first = first != null ? first : call.handle((value, error) -> error).join();
            return null;
        }
    }

    private SlotKeys slotKeys(TopicDefinition topic, int slot) {
        return keys.slot(topic.name(), slot);
    }

    private static void logChange(String what, TopicDefinition topic, PauseState state, @Nullable Throwable error) {
        if (error != null) {
            log.warn("topic {} could not be {} completely; pause state unknown, repeat the call: {}", topic.name(), what,
                    error.toString());
        } else if (state.partly()) {
            log.warn("topic {} {} only in part: {}; repeat the call", topic.name(), what, state.describe());
        } else {
            log.info("topic {} {} for every consumer ({} slots)", topic.name(), what, topic.slotAmount());
        }
    }
}
