package dev.rmq.internal.admin;

import dev.rmq.admin.ClearReport;
import dev.rmq.admin.ClearScope;
import dev.rmq.admin.PauseState;
import dev.rmq.admin.RmqAdmin;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.ClearCall;
import dev.rmq.internal.script.DeadPurgeCall;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.journal.JournaledChange;
import dev.rmq.journal.MessageJournal;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
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
 * A clear is one pipeline of clear.lua per slot, and of dead_purge.lua when the dead go too.
 */
public final class RedisAdmin implements RmqAdmin {

    private static final Logger log = LoggerFactory.getLogger(RedisAdmin.class);

    private final RedissonClient redisson;
    private final TopicRegistry topics;
    private final KeyLayout keys;
    private final ScriptRunner scripts;
    /** Told of each message a clear removes, so that a restore does not bring it back; null without a journal. */
    private final MessageJournal journal;

    public RedisAdmin(RedissonClient redisson, TopicRegistry topics, KeyLayout keys, ScriptRunner scripts,
                      MessageJournal journal) {
        this.redisson = redisson;
        this.topics = topics;
        this.keys = keys;
        this.scripts = scripts;
        this.journal = journal;
    }

    @Override
    public CompletionStage<PauseState> pauseAsync(String topic) {
        TopicDefinition definition = topics.require(topic);
        RBatch batch = redisson.createBatch(BatchOptions.defaults());
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            batch.getBucket(slotKeys(definition, slot).paused(), StringCodec.INSTANCE).setAsync("1");
        }
        return batch.executeAsync().thenCompose(done -> pauseStateAsync(topic))
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
        return batch.executeAsync().thenCompose(done -> {
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
        RBatch batch = redisson.createBatch(BatchOptions.defaults());
        List<RFuture<Boolean>> flags = new ArrayList<>(definition.slotAmount());
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            flags.add(batch.getBucket(slotKeys(definition, slot).paused(), StringCodec.INSTANCE).isExistsAsync());
        }
        return batch.executeAsync().thenApply(done -> {
            int paused = 0;
            for (RFuture<Boolean> flag : flags) {
                paused += flag.toCompletableFuture().join() ? 1 : 0;
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
        ScriptRunner.Pipeline pipeline = scripts.pipeline();
        List<CompletableFuture<ClearCall.Cleared>> cleared = new ArrayList<>(definition.slotAmount());
        List<CompletableFuture<Long>> purged = new ArrayList<>();
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            SlotKeys slotKeys = slotKeys(definition, slot);
            cleared.add(pipeline.add(slotKeys, new ClearCall(journal != null)));
            if (scope == ClearScope.WAITING_AND_DEAD) {
                purged.add(pipeline.add(slotKeys, new DeadPurgeCall()));
            }
        }
        return pipeline.execute().thenApply(done -> {
            long waiting = 0;
            long parked = 0;
            long dead = 0;
            Instant now = Instant.now();
            for (CompletableFuture<ClearCall.Cleared> slot : cleared) {
                ClearCall.Cleared one = slot.join();
                waiting += one.waiting();
                parked += one.parked();
                if (journal != null) {
                    one.keys().forEach(key -> journal.changed(new JournaledChange(definition.name(), key,
                            JournaledChange.Kind.CANCELLED, 0, now)));
                }
            }
            for (CompletableFuture<Long> slot : purged) {
                dead += slot.join();
            }
            return new ClearReport(definition.name(), waiting, parked, dead);
        }).whenComplete((report, error) -> {
            if (error != null) {
                log.warn("topic {} could not be cleared completely; some slots may still hold messages, repeat the"
                        + " call: {}", definition.name(), error.toString());
            } else {
                log.info("topic {} cleared: {} waiting, {} parked and {} dead message(s) removed from {} slot(s);"
                        + " deliveries in flight end as usual", definition.name(), report.waiting(), report.parked(),
                        report.dead(), definition.slotAmount());
            }
        });
    }

    private SlotKeys slotKeys(TopicDefinition topic, int slot) {
        return keys.slot(topic.name(), slot);
    }

    private static void logChange(String what, TopicDefinition topic, PauseState state, Throwable error) {
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
