package dev.rmq.internal.producer;

import dev.rmq.codec.MessageKeys;
import dev.rmq.codec.PayloadCodec;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.ScriptRunner;
import dev.rmq.internal.script.SendCall;
import dev.rmq.metrics.RmqMetrics;
import dev.rmq.producer.BacklogFullException;
import dev.rmq.producer.BatchSendException;
import dev.rmq.producer.Durability;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.NotReplicatedException;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.PayloadTooLargeException;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendOutcome;
import dev.rmq.producer.SendReceipt;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The producer on send.lua: one {@link SendCall} per slot and per {@value #MESSAGES_PER_CALL} messages, a
 * batch's calls in one pipeline. Operations by key go through {@link MessageOperations}.
 */
public final class ScriptProducer implements RmqProducer {

    /** Messages per script call in a batch, so that one call never blocks Redis for long. */
    static final int MESSAGES_PER_CALL = 256;

    private final TopicRegistry topics;
    private final KeyLayout keys;
    private final ScriptRunner scripts;
    private final PayloadCodec codec;
    private final int maxPayloadBytes;
    private final RmqMetrics metrics;
    private final Durability durability;
    private final MessageOperations operations;

    public ScriptProducer(TopicRegistry topics, KeyLayout keys, ScriptRunner scripts, PayloadCodec codec,
                          int maxPayloadBytes, RmqMetrics metrics, Durability durability) {
        this.topics = topics;
        this.keys = keys;
        this.scripts = scripts;
        this.codec = codec;
        this.maxPayloadBytes = maxPayloadBytes;
        this.metrics = metrics;
        this.durability = durability;
        this.operations = new MessageOperations(topics, keys, scripts);
    }

    @Override
    public RmqProducer withDurability(Durability value) {
        if (value == null) {
            throw new IllegalArgumentException("durability must not be null; use Durability.MASTER_ONLY");
        }
        return new ScriptProducer(topics, keys, scripts, codec, maxPayloadBytes, metrics, value);
    }

    @Override
    public Durability durability() {
        return durability;
    }

    @Override
    public CompletionStage<SendReceipt> sendAsync(OutgoingMessage message) {
        PreparedSend send = prepare(message);
        if (durability.waitsForReplicas()) {
            return sendPrepared(List.of(send)).thenApply(receipts -> receipts.get(0));
        }
        long start = System.nanoTime();
        return scripts.run(send.keys(), call(send.topic(), send.keys(), List.of(send.message())))
                .thenApply(results -> {
                    SendCall.Result result = results.get(0);
                    report(send.topic(), result);
                    if (result.outcome() == SendCall.Outcome.REFUSED) {
                        throw send.refusal();
                    }
                    return send.receipt(result);
                })
                .whenComplete((receipt, error) -> metrics.sent(send.topic(), 1,
                        receipt != null && receipt.merged() ? 1 : 0, System.nanoTime() - start,
                        error instanceof BacklogFullException ? null : error));
    }

    private SendCall call(TopicDefinition topic, SlotKeys slot, List<SendCall.Message> messages) {
        return new SendCall(topic.type(), keys.wakeChannel(topic.name()), slot.slot(), topic.maxBacklogPerSlot(),
                topic.lateTolerance().toMillis(), messages);
    }

    /** Counts what the metrics count per message: refusals and late fixed times. */
    private void report(TopicDefinition topic, SendCall.Result result) {
        if (result.outcome() == SendCall.Outcome.REFUSED) {
            metrics.refused(topic, 1);
        } else if (result.lateMs() > 0) {
            metrics.sentLate(topic, result.lateMs());
        }
    }

    @Override
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
            bySlot.computeIfAbsent(sends.get(i).keys(), k -> new ArrayList<>()).add(i);
        }
        SendCall.Result[] results = new SendCall.Result[sends.size()];
        ScriptRunner.Pipeline pipeline = scripts.pipeline(durability.replicas(), durability.timeout());
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (Map.Entry<SlotKeys, List<Integer>> group : bySlot.entrySet()) {
            List<Integer> indexes = group.getValue();
            for (int from = 0; from < indexes.size(); from += MESSAGES_PER_CALL) {
                List<Integer> chunk = indexes.subList(from, Math.min(indexes.size(), from + MESSAGES_PER_CALL));
                calls.add(sendChunk(pipeline, group.getKey(), sends, chunk, results));
            }
        }
        long start = System.nanoTime();
        return pipeline.execute()
                .thenCompose(synced -> CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                        .thenApply(v -> checkReplicated(synced, sends.size())))
                .thenApply(v -> receipts(sends, results))
                .whenComplete((all, error) -> reportBatch(sends, results, System.nanoTime() - start,
                        error instanceof BatchSendException ? null : error));
    }

    /** The receipts in the input order; when some messages were refused, the whole account as an exception. */
    private List<SendReceipt> receipts(List<PreparedSend> sends, SendCall.Result[] results) {
        List<SendReceipt> receipts = new ArrayList<>(sends.size());
        boolean refused = false;
        for (int i = 0; i < sends.size(); i++) {
            refused |= results[i].outcome() == SendCall.Outcome.REFUSED;
            receipts.add(results[i].outcome() == SendCall.Outcome.REFUSED ? null : sends.get(i).receipt(results[i]));
        }
        if (!refused) {
            return receipts;
        }
        List<SendOutcome> outcomes = new ArrayList<>(sends.size());
        for (int i = 0; i < sends.size(); i++) {
            PreparedSend send = sends.get(i);
            outcomes.add(receipts.get(i) != null ? new SendOutcome(send.original(), receipts.get(i), null)
                    : new SendOutcome(send.original(), null, send.refusal()));
        }
        throw new BatchSendException(outcomes);
    }

    private CompletableFuture<Void> sendChunk(ScriptRunner.Pipeline pipeline, SlotKeys slot, List<PreparedSend> sends,
                                              List<Integer> chunk, SendCall.Result[] results) {
        List<SendCall.Message> messages = new ArrayList<>(chunk.size());
        for (int index : chunk) {
            messages.add(sends.get(index).message());
        }
        TopicDefinition topic = sends.get(chunk.get(0)).topic();
        return pipeline.add(slot, call(topic, slot, messages)).thenAccept(outcomes -> {
            for (int i = 0; i < chunk.size(); i++) {
                results[chunk.get(i)] = outcomes.get(i);
                report(topic, outcomes.get(i));
            }
        });
    }

    private Void checkReplicated(int synced, int messages) {
        if (durability.waitsForReplicas() && synced < durability.replicas()) {
            throw new NotReplicatedException(messages + " message(s) were written to the master but acknowledged by "
                    + synced + " of the " + durability.replicas() + " required replica(s) within "
                    + durability.timeout() + "; they may be lost if the master fails before replicating them");
        }
        return null;
    }

    private void reportBatch(List<PreparedSend> sends, SendCall.Result[] results, long nanos, Throwable error) {
        Map<TopicDefinition, int[]> byTopic = new LinkedHashMap<>();
        for (int i = 0; i < sends.size(); i++) {
            int[] counts = byTopic.computeIfAbsent(sends.get(i).topic(), t -> new int[2]);
            counts[0]++;
            if (results[i] != null && results[i].outcome() == SendCall.Outcome.MERGED) {
                counts[1]++;
            }
        }
        byTopic.forEach((topic, counts) -> metrics.sent(topic, counts[0], counts[1], nanos, error));
    }

    private PreparedSend prepare(OutgoingMessage message) {
        if (message == null) {
            throw new IllegalArgumentException("message must not be null");
        }
        TopicDefinition topic = topics.require(message.topic(), message.type());
        byte[] payload = codec.encode(message.payload());
        int size = payload.length + Envelope.overhead(message.headers());
        if (size > maxPayloadBytes) {
            throw new PayloadTooLargeException(topic.name(), size, maxPayloadBytes);
        }
        String key = message.key() != null ? message.key() : MessageKeys.derive(payload);
        String basis = message.slotBasis() != null ? message.slotBasis() : key;
        SlotKeys slot = keys.slot(topic.name(), topic.slotOf(basis));
        byte[] content = Envelope.encodeContent(message.headers(), payload);
        Duration ttl = message.ttl() != null ? message.ttl() : topic.ttl();
        long notBefore = message.notBeforeTime().map(Instant::toEpochMilli)
                .orElseGet(() -> message.delay().map(delay -> -delay.toMillis()).orElse(0L));
        return new PreparedSend(topic, slot, message,
                new SendCall.Message(key, message.value(), ttl.toMillis(), notBefore, content));
    }

    // ---- operations by key ------------------------------------------------------------------------

    @Override
    public CompletionStage<Boolean> cancelAsync(MessageRef ref) {
        return operations.cancel(ref);
    }

    @Override
    public CompletionStage<Boolean> rescheduleAsync(MessageRef ref, Instant dueTime) {
        return operations.reschedule(ref, dueTime);
    }

    @Override
    public CompletionStage<Boolean> reprioritizeAsync(MessageRef ref, long priority) {
        return operations.reprioritize(ref, priority);
    }

    @Override
    public CompletionStage<Optional<StoredMessage>> getAsync(MessageRef ref) {
        return operations.get(ref);
    }

    /** A message checked and encoded, with its slot. */
    private record PreparedSend(TopicDefinition topic, SlotKeys keys, OutgoingMessage original, SendCall.Message message) {

        SendReceipt receipt(SendCall.Result result) {
            return new SendReceipt(topic.name(), keys.slot(), message.key(), result.outcome() == SendCall.Outcome.MERGED,
                    Duration.ofMillis(result.lateMs()));
        }

        BacklogFullException refusal() {
            return new BacklogFullException(topic.name(), keys.slot(), message.key(), topic.maxBacklogPerSlot(),
                    topic.maxBacklog(), topic.slotAmount());
        }
    }
}
