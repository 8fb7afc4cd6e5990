package dev.rmq.producer;

import dev.rmq.RmqContext;
import dev.rmq.codec.MessageKeys;
import dev.rmq.redis.Envelope;
import dev.rmq.redis.Futures;
import dev.rmq.redis.Script;
import dev.rmq.redis.ScriptRunner;
import dev.rmq.redis.SlotKeys;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Sends messages and operates on waiting ones by key. The {@code CompletionStage} methods are the
 * primitives; the blocking ones wait on them. Arguments are checked before anything reaches Redis and
 * bad ones throw at once; the due time of a range-merge message and the "future" of a fixed time are
 * judged by the Redis server's clock, inside the send script.
 *
 * <p>A batch is grouped by slot: each slot's messages go in one script call, and all calls go out in
 * one pipeline, so a batch costs one round trip per Redis node. Each script call, up to 256 messages of
 * one slot, is atomic; a batch as a whole is not.
 */
public final class RmqProducer {

    /** Messages per script call in a batch, so that one call never blocks Redis for long. */
    static final int MESSAGES_PER_CALL = 256;

    private final RmqContext context;
    private final Durability durability;

    public RmqProducer(RmqContext context) {
        this(context, Durability.MASTER_ONLY);
    }

    private RmqProducer(RmqContext context, Durability durability) {
        this.context = context;
        this.durability = durability;
    }

    /**
     * A producer whose sends complete only once {@code durability.replicas()} replicas hold them
     * (Redis WAIT after the writes), like Disque's REPLICATE. Slower: a round trip to the replicas more.
     */
    public RmqProducer withDurability(Durability value) {
        if (value == null) {
            throw new IllegalArgumentException("durability must not be null; use Durability.MASTER_ONLY");
        }
        return new RmqProducer(context, value);
    }

    public Durability durability() {
        return durability;
    }

    public CompletionStage<SendReceipt> sendAsync(OutgoingMessage message) {
        PreparedSend send = prepare(message);
        if (durability.waitsForReplicas()) {
            return sendPrepared(List.of(send)).thenApply(receipts -> receipts.get(0));
        }
        long start = System.nanoTime();
        return context.scripts().list(Script.SEND, send.keys, sendHeader(send, 1, send.argsFlat()))
                .thenApply(merged -> send.receipt(merged.get(0)))
                .whenComplete((receipt, error) -> context.metrics().sent(send.topic, 1,
                        receipt != null && receipt.merged() ? 1 : 0, System.nanoTime() - start, error));
    }

    public SendReceipt send(OutgoingMessage message) {
        return Futures.join(sendAsync(message));
    }

    /** Sends many messages in one round trip per Redis node; receipts come back in the input order. */
    public CompletionStage<List<SendReceipt>> sendAllAsync(List<OutgoingMessage> messages) {
        if (messages == null) {
            throw new IllegalArgumentException("messages must not be null");
        }
        List<PreparedSend> sends = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            if (messages.get(i) == null) {
                throw new IllegalArgumentException("messages[" + i + "] is null");
            }
            sends.add(prepare(messages.get(i)));
        }
        return sendPrepared(sends);
    }

    private CompletionStage<List<SendReceipt>> sendPrepared(List<PreparedSend> sends) {
        Map<SlotKeys, List<Integer>> bySlot = new LinkedHashMap<>();
        for (int i = 0; i < sends.size(); i++) {
            bySlot.computeIfAbsent(sends.get(i).keys, k -> new ArrayList<>()).add(i);
        }
        SendReceipt[] receipts = new SendReceipt[sends.size()];
        ScriptRunner.Pipeline pipeline = context.scripts().pipeline(durability.replicas(), durability.timeout());
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (Map.Entry<SlotKeys, List<Integer>> group : bySlot.entrySet()) {
            List<Integer> indexes = group.getValue();
            for (int from = 0; from < indexes.size(); from += MESSAGES_PER_CALL) {
                List<Integer> chunk = indexes.subList(from, Math.min(indexes.size(), from + MESSAGES_PER_CALL));
                calls.add(sendChunk(pipeline, group.getKey(), sends, chunk, receipts));
            }
        }
        long start = System.nanoTime();
        return pipeline.execute()
                .thenCompose(synced -> CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                        .thenApply(v -> checkReplicated(synced, sends.size())))
                .thenApply(v -> List.of(receipts))
                .whenComplete((all, error) -> reportBatch(sends, receipts, System.nanoTime() - start, error));
    }

    private Void checkReplicated(int synced, int messages) {
        if (durability.waitsForReplicas() && synced < durability.replicas()) {
            throw new NotReplicatedException(messages + " message(s) were written to the master but acknowledged by "
                    + synced + " of the " + durability.replicas() + " required replica(s) within "
                    + durability.timeout() + "; they may be lost if the master fails before replicating them");
        }
        return null;
    }

    private void reportBatch(List<PreparedSend> sends, SendReceipt[] receipts, long nanos, Throwable error) {
        Map<TopicDefinition, int[]> byTopic = new LinkedHashMap<>();
        for (int i = 0; i < sends.size(); i++) {
            int[] counts = byTopic.computeIfAbsent(sends.get(i).topic, t -> new int[2]);
            counts[0]++;
            if (receipts[i] != null && receipts[i].merged()) {
                counts[1]++;
            }
        }
        byTopic.forEach((topic, counts) -> context.metrics().sent(topic, counts[0], counts[1], nanos, error));
    }

    public List<SendReceipt> sendAll(List<OutgoingMessage> messages) {
        return Futures.join(sendAllAsync(messages));
    }

    private CompletableFuture<Void> sendChunk(ScriptRunner.Pipeline pipeline, SlotKeys keys, List<PreparedSend> sends,
                                              List<Integer> chunk, SendReceipt[] receipts) {
        List<Object> args = new ArrayList<>(chunk.size() * 3);
        for (int index : chunk) {
            args.addAll(Arrays.asList(sends.get(index).argsFlat()));
        }
        PreparedSend first = sends.get(chunk.get(0));
        return pipeline.list(Script.SEND, keys, sendHeader(first, chunk.size(), args.toArray())).thenAccept(merged -> {
            for (int i = 0; i < chunk.size(); i++) {
                int index = chunk.get(i);
                receipts[index] = sends.get(index).receipt(merged.get(i));
            }
        });
    }

    private Object[] sendHeader(PreparedSend send, int count, Object[] messageArgs) {
        Object[] args = new Object[4 + messageArgs.length];
        args[0] = send.topic.type().scriptCode();
        args[1] = context.keys().wakeChannel(send.topic.name());
        args[2] = send.keys.slot();
        args[3] = count;
        System.arraycopy(messageArgs, 0, args, 4, messageArgs.length);
        return args;
    }

    private PreparedSend prepare(OutgoingMessage message) {
        if (message == null) {
            throw new IllegalArgumentException("message must not be null");
        }
        TopicDefinition topic = context.topics().require(message.topic(), message.type());
        byte[] payload = context.codec().encode(message.payload());
        int size = payload.length + Envelope.overhead(message.headers());
        if (size > context.maxPayloadBytes()) {
            throw new PayloadTooLargeException(topic.name(), size, context.maxPayloadBytes());
        }
        String key = message.key() != null ? message.key() : MessageKeys.derive(payload);
        String basis = message.slotBasis() != null ? message.slotBasis() : key;
        int slot = topic.slotOf(basis);
        byte[] envelope = Envelope.encodeNew(message.headers(), payload);
        return new PreparedSend(topic, context.keys().slot(topic.name(), slot), key, message.value(), envelope);
    }

    // ---- operations by key ------------------------------------------------------------------------

    /** Removes a waiting (or retrying) message; in-flight and dead ones are left alone. */
    public CompletionStage<Boolean> cancelAsync(MessageRef ref) {
        TopicDefinition topic = context.topics().require(refOrThrow(ref).topic());
        return keyOp("cancel", topic, ref, 0).thenApply(r -> r.equals(1L));
    }

    public boolean cancel(MessageRef ref) {
        return Futures.join(cancelAsync(ref));
    }

    /** Moves a waiting range-merge or fixed-time message to a new due time; false when none waits. */
    public CompletionStage<Boolean> rescheduleAsync(MessageRef ref, Instant dueTime) {
        TopicDefinition topic = context.topics().require(refOrThrow(ref).topic());
        if (topic.type() == TopicType.PRIORITY) {
            throw new IllegalArgumentException("topic '" + topic.name() + "' is a PRIORITY topic; use reprioritize");
        }
        long at = OutgoingMessage.checkTime("dueTime", dueTime);
        return keyOp("reschedule", topic, ref, at).thenApply(r -> r.equals(1L));
    }

    public boolean reschedule(MessageRef ref, Instant dueTime) {
        return Futures.join(rescheduleAsync(ref, dueTime));
    }

    /** Gives a waiting priority message a new priority; false when none waits. */
    public CompletionStage<Boolean> reprioritizeAsync(MessageRef ref, long priority) {
        TopicDefinition topic = context.topics().require(refOrThrow(ref).topic(), TopicType.PRIORITY);
        long checked = OutgoingMessage.checkPriority(priority);
        return keyOp("reschedule", topic, ref, checked).thenApply(r -> r.equals(1L));
    }

    public boolean reprioritize(MessageRef ref, long priority) {
        return Futures.join(reprioritizeAsync(ref, priority));
    }

    /** The message with this key, wherever it is (waiting, retrying, in flight or dead). */
    public CompletionStage<Optional<StoredMessage>> getAsync(MessageRef ref) {
        TopicDefinition topic = context.topics().require(refOrThrow(ref).topic());
        SlotKeys keys = slotKeys(topic, ref);
        return context.scripts().list(Script.KEYS, keys, "get", topic.type().scriptCode(), ref.key(), 0,
                context.keys().wakeChannel(topic.name()), keys.slot()).thenApply(reply -> {
            if (reply.isEmpty()) {
                return Optional.empty();
            }
            MessageState state = MessageState.fromScript(text(reply.get(0)));
            double score = Double.parseDouble(text(reply.get(1)));
            Envelope envelope = Envelope.decode((byte[]) reply.get(2));
            return Optional.of(new StoredMessage(topic.name(), keys.slot(), ref.key(), state, score,
                    envelope.attempts(), envelope.lastError(), envelope.headers(), envelope.payload()));
        });
    }

    public Optional<StoredMessage> get(MessageRef ref) {
        return Futures.join(getAsync(ref));
    }

    /** Whether a message with this key waits, retries or is in flight (dead ones do not count). */
    public CompletionStage<Boolean> existsAsync(MessageRef ref) {
        return getAsync(ref).thenApply(m -> m.isPresent() && m.get().state() != MessageState.DEAD);
    }

    public boolean exists(MessageRef ref) {
        return Futures.join(existsAsync(ref));
    }

    private CompletableFuture<Object> keyOp(String op, TopicDefinition topic, MessageRef ref, long value) {
        SlotKeys keys = slotKeys(topic, ref);
        return context.scripts().integer(Script.KEYS, keys, op, topic.type().scriptCode(), ref.key(), value,
                context.keys().wakeChannel(topic.name()), keys.slot()).thenApply(r -> r);
    }

    private SlotKeys slotKeys(TopicDefinition topic, MessageRef ref) {
        return context.keys().slot(topic.name(), topic.slotOf(ref.effectiveSlotBasis()));
    }

    private static MessageRef refOrThrow(MessageRef ref) {
        if (ref == null) {
            throw new IllegalArgumentException("message reference must not be null");
        }
        return ref;
    }

    private static String text(Object reply) {
        return reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(reply);
    }

    private record PreparedSend(TopicDefinition topic, SlotKeys keys, String key, long value, byte[] envelope) {

        Object[] argsFlat() {
            return new Object[] {key, value, envelope};
        }

        SendReceipt receipt(Object merged) {
            return new SendReceipt(topic.name(), keys.slot(), key, Long.valueOf(1L).equals(merged));
        }
    }
}
