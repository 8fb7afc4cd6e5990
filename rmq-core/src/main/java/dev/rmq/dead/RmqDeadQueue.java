package dev.rmq.dead;

import dev.rmq.RmqContext;
import dev.rmq.redis.Envelope;
import dev.rmq.redis.Futures;
import dev.rmq.redis.MalformedEnvelopeException;
import dev.rmq.redis.Script;
import dev.rmq.redis.ScriptRunner;
import dev.rmq.redis.SlotKeys;
import dev.rmq.topic.TopicDefinition;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Inspects and operates the dead queue of each topic, slot by slot or over all slots. */
public final class RmqDeadQueue {

    /** Messages moved per script call by {@link #requeueAll}, so one call never blocks Redis for long. */
    static final int REQUEUE_CHUNK = 500;
    /** The largest page {@link #list} returns. */
    public static final int MAX_PAGE = 1000;

    private final RmqContext context;

    public RmqDeadQueue(RmqContext context) {
        this.context = context;
    }

    /** A page of one slot's dead messages, oldest first. */
    public List<DeadMessage> list(String topic, int slot, long offset, int limit) {
        TopicDefinition definition = context.topics().require(topic);
        SlotKeys keys = keys(definition, slot);
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative, was " + offset);
        }
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("limit must be in 1.." + MAX_PAGE + ", was " + limit);
        }
        List<Object> reply = Futures.join(context.scripts().list(Script.DEAD, keys, args(definition, keys, "list", offset, limit)));
        List<DeadMessage> page = new ArrayList<>(reply.size() / 3);
        for (int i = 0; i + 2 < reply.size(); i += 3) {
            String key = new String((byte[]) reply.get(i), StandardCharsets.UTF_8);
            long diedAt = Long.parseLong(new String((byte[]) reply.get(i + 1), StandardCharsets.UTF_8));
            page.add(toDeadMessage(definition.name(), slot, key, Instant.ofEpochMilli(diedAt), (byte[]) reply.get(i + 2)));
        }
        return page;
    }

    /** Dead messages in one slot. */
    public long count(String topic, int slot) {
        TopicDefinition definition = context.topics().require(topic);
        SlotKeys keys = keys(definition, slot);
        return Futures.join(context.scripts().integer(Script.DEAD, keys, args(definition, keys, "count")));
    }

    /** Dead messages in all slots of a topic, counted in one pipeline. */
    public long count(String topic) {
        return sumOverSlots(topic, "count");
    }

    /**
     * Puts a dead message back to be consumed again, from attempt 0: due now, or at its priority.
     *
     * @return true when it was dead and now waits again (or a newer message with its key already waited)
     */
    public boolean requeue(String topic, int slot, String key) {
        TopicDefinition definition = context.topics().require(topic);
        SlotKeys keys = keys(definition, slot);
        return Futures.join(context.scripts().integer(Script.DEAD, keys, args(definition, keys, "requeue", checkKey(key)))) > 0;
    }

    /** Requeues every dead message of a topic; returns how many were moved. */
    public long requeueAll(String topic) {
        TopicDefinition definition = context.topics().require(topic);
        long moved = 0;
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            SlotKeys keys = keys(definition, slot);
            long chunk;
            do {
                chunk = Futures.join(context.scripts().integer(Script.DEAD, keys,
                        args(definition, keys, "requeue-all", REQUEUE_CHUNK)));
                moved += chunk;
            } while (chunk == REQUEUE_CHUNK);
        }
        return moved;
    }

    /** Removes one dead message for good. */
    public boolean delete(String topic, int slot, String key) {
        TopicDefinition definition = context.topics().require(topic);
        SlotKeys keys = keys(definition, slot);
        return Futures.join(context.scripts().integer(Script.DEAD, keys, args(definition, keys, "delete", checkKey(key)))) > 0;
    }

    /** Removes every dead message of a topic; returns how many. */
    public long purge(String topic) {
        return sumOverSlots(topic, "purge");
    }

    private long sumOverSlots(String topic, String op) {
        TopicDefinition definition = context.topics().require(topic);
        ScriptRunner.Pipeline pipeline = context.scripts().pipeline();
        List<CompletableFuture<Long>> calls = new ArrayList<>();
        for (int slot = 0; slot < definition.slotAmount(); slot++) {
            SlotKeys keys = keys(definition, slot);
            calls.add(pipeline.integer(Script.DEAD, keys, args(definition, keys, op)));
        }
        Futures.join(pipeline.execute());
        long total = 0;
        for (CompletableFuture<Long> call : calls) {
            total += Futures.join(call);
        }
        return total;
    }

    private SlotKeys keys(TopicDefinition definition, int slot) {
        return context.keys().slot(definition.name(), definition.requireSlot(slot));
    }

    private Object[] args(TopicDefinition definition, SlotKeys keys, String op, Object... rest) {
        Object[] args = new Object[4 + rest.length];
        args[0] = op;
        args[1] = definition.type().scriptCode();
        args[2] = context.keys().wakeChannel(definition.name());
        args[3] = keys.slot();
        System.arraycopy(rest, 0, args, 4, rest.length);
        return args;
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
            return new DeadMessage(topic, slot, key, diedAt, envelope.attempts(), envelope.lastError(),
                    envelope.headers(), envelope.payload());
        } catch (MalformedEnvelopeException e) {
            return new DeadMessage(topic, slot, key, diedAt, 0, "undecodable: " + e.getMessage(), Map.of(), raw);
        }
    }
}
