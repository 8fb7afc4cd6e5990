package dev.rmq.internal.dead;

import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.DeadReason;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.internal.payload.Payloads;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.MalformedEnvelopeException;
import dev.rmq.internal.redis.MasterCommands;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.DeadDeleteCall;
import dev.rmq.internal.script.DeadListCall;
import dev.rmq.internal.script.DeadPurgeCall;
import dev.rmq.internal.script.DeadRequeueAllCall;
import dev.rmq.internal.script.DeadRequeueCall;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.journal.MessageJournal;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The dead queue on the dead_* scripts, one slot per call; counts are plain ZCARDs in one pipeline. */
public final class RedisDeadQueue implements RmqDeadQueue {

    private static final Logger log = LoggerFactory.getLogger(RedisDeadQueue.class);

    /** Messages moved per script call by {@link #requeueAll}, so one call never blocks Redis for long. */
    static final int REQUEUE_CHUNK = 500;

    private final TopicRegistry topics;
    private final KeyLayout keys;
    private final ScriptRunner scripts;
    /** Requeues of the topics the client's journal records; null without a journal. */
    private final @Nullable JournaledRequeue journaled;

    /** @param journal the client's journal, told of every message requeued on a topic it journals; null for none */
    public RedisDeadQueue(TopicRegistry topics, KeyLayout keys, ScriptRunner scripts,
                          @Nullable MessageJournal journal) {
        this.topics = topics;
        this.keys = keys;
        this.scripts = scripts;
        this.journaled = journal == null ? null : new JournaledRequeue(keys, scripts, journal);
    }

    /** The requeues of {@code definition}, when the journal records it; null otherwise. */
    private @Nullable JournaledRequeue journaled(TopicDefinition definition) {
        return journaled != null && journaled.records(definition) ? journaled : null;
    }

    @Override
    public List<DeadMessage> list(String topic, int slot, long offset, int limit) {
        TopicDefinition definition = topics.require(topic);
        SlotKeys slotKeys = slotKeys(definition, slot);
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative, was " + offset);
        }
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("limit must be in 1.." + MAX_PAGE + ", was " + limit);
        }
        List<DeadMessage> page = new ArrayList<>();
        for (DeadListCall.Entry entry : Futures.join(scripts.run(slotKeys, new DeadListCall(offset, limit)))) {
            page.add(toDeadMessage(definition.name(), slot, entry.key(), Instant.ofEpochMilli(entry.diedAtMs()),
                    entry.envelope()));
        }
        return page;
    }

    @Override
    public long count(String topic, int slot) {
        return countSlots(topics.require(topic), slot, slot + 1);
    }

    @Override
    public long count(String topic) {
        TopicDefinition definition = topics.require(topic);
        return countSlots(definition, 0, definition.slotAmount());
    }

    @Override
    public boolean requeue(String topic, int slot, String key) {
        TopicDefinition definition = topics.require(topic);
        SlotKeys slotKeys = slotKeys(definition, slot);
        JournaledRequeue journaledRequeue = journaled(definition);
        DeadRequeueCall.Result result = journaledRequeue != null
                ? journaledRequeue.requeue(definition, slotKeys, slot, checkKey(key))
                : Futures.join(scripts.run(slotKeys, new DeadRequeueCall(definition.type(), checkKey(key),
                        keys.wakeChannel(definition.name()), slot)));
        if (result != DeadRequeueCall.Result.NOT_DEAD) {
            log.info("topic {}: dead message '{}' of slot {} {}", topic, key, slot,
                    result == DeadRequeueCall.Result.SUPERSEDED
                            ? "dropped, as a newer send of its key was already waiting or in flight" : "requeued");
        }
        return result != DeadRequeueCall.Result.NOT_DEAD;
    }

    @Override
    public long requeueAll(String topic) {
        TopicDefinition definition = topics.require(topic);
        JournaledRequeue journaledRequeue = journaled(definition);
        long moved = 0;
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            SlotKeys slotKeys = slotKeys(definition, slot);
            if (journaledRequeue != null) {
                moved += journaledRequeue.requeueAll(definition, slotKeys, slot);
                continue;
            }
            DeadRequeueAllCall call = new DeadRequeueAllCall(definition.type(), REQUEUE_CHUNK,
                    keys.wakeChannel(definition.name()), slot);
            long chunk;
            do {
                chunk = Futures.join(scripts.run(slotKeys, call));
                moved += chunk;
            } while (chunk == REQUEUE_CHUNK);
        }
        if (moved > 0) {
            log.info("topic {}: {} dead message(s) requeued", topic, moved);
        }
        return moved;
    }

    @Override
    public boolean delete(String topic, int slot, String key) {
        TopicDefinition definition = topics.require(topic);
        boolean deleted = Futures.join(scripts.run(slotKeys(definition, slot), new DeadDeleteCall(checkKey(key))));
        if (deleted) {
            log.info("topic {}: dead message '{}' of slot {} deleted", topic, key, slot);
        }
        return deleted;
    }

    @Override
    public long purge(String topic) {
        TopicDefinition definition = topics.require(topic);
        ScriptRunner.Pipeline pipeline = scripts.pipeline();
        List<CompletableFuture<Long>> calls = new ArrayList<>();
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            calls.add(pipeline.add(keys.slot(definition.name(), slot), new DeadPurgeCall()));
        }
        Futures.join(pipeline.execute());
        long total = 0;
        for (CompletableFuture<Long> call : calls) {
            total += Futures.join(call);
        }
        if (total > 0) {
            log.info("topic {}: {} dead message(s) purged", topic, total);
        }
        return total;
    }

    /** ZCARD of the dead sets of slots {@code from} (inclusive) to {@code to} (exclusive), in one pipeline. */
    private long countSlots(TopicDefinition definition, int from, int to) {
        if (to - from == 1) {
            definition.requireSlot(from);
        }
        MasterCommands.Batch batch = scripts.master().batch();
        List<CompletableFuture<Long>> sizes = new ArrayList<>(to - from);
        for (int slot = from; slot < to; slot++) {
            sizes.add(batch.zcard(keys.slot(definition.name(), slot).dead()));
        }
        Futures.join(batch.execute());
        long total = 0;
        for (CompletableFuture<Long> size : sizes) {
            total += Futures.join(size);
        }
        return total;
    }

    private SlotKeys slotKeys(TopicDefinition definition, int slot) {
        return keys.slot(definition.name(), definition.requireSlot(slot));
    }

    private static String checkKey(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("key must not be null or empty");
        }
        return key;
    }

    private static DeadMessage toDeadMessage(String topic, int slot, String key, Instant diedAt, byte[] raw) {
        try {
            Envelope envelope = Envelope.decode(raw);
            return new DeadMessage(topic, slot, key, diedAt, envelope.attempts(), DeadReason.of(envelope.deadReason()),
                    envelope.lastError(), envelope.headers(), Payloads.shown(envelope.headers(), envelope.payload()));
        } catch (MalformedEnvelopeException e) {
            return new DeadMessage(topic, slot, key, diedAt, 0, DeadReason.UNDECODABLE, "undecodable: " + e.getMessage(),
                    Map.of(), raw);
        }
    }
}
