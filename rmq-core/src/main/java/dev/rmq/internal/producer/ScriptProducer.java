package dev.rmq.internal.producer;

import dev.rmq.codec.MessageKeys;
import dev.rmq.exceptions.RmqUnavailableException;
import dev.rmq.internal.payload.Payloads;
import dev.rmq.internal.redis.Envelope;
import dev.rmq.internal.redis.Futures;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.OutageWatch;
import dev.rmq.internal.redis.RedisFailures;
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
import dev.rmq.producer.PreparedMessage;
import dev.rmq.producer.PayloadTooLargeException;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendOutcome;
import dev.rmq.producer.SendReceipt;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.RepeatedKey;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * The producer on send.lua: a batch's {@link SendCall}s, planned by {@link SendPlan} (per slot on a Cluster, else
 * shared by a topic's slots; up to {@value #MESSAGES_PER_CALL} messages each), in one pipeline. Single sends share a
 * call when they come together ({@link SendCoalescer}). Operations by key go through {@link MessageOperations}.
 */
public final class ScriptProducer implements RmqProducer {

    /** Messages per script call in a batch, so that one call never blocks Redis for long. */
    static final int MESSAGES_PER_CALL = 256;

    private final TopicRegistry topics;
    private final KeyLayout keys;
    private final ScriptRunner scripts;
    private final Payloads payloads;
    private final int maxPayloadBytes;
    private final RmqMetrics metrics;
    private final Durability durability;
    private final MessageOperations operations;
    /** Whether sends reach Redis: one WARN when they have not for the threshold, one INFO when they do again. */
    private final OutageWatch outage;
    /** The zone this producer sends from, null for none: a zoned topic routes its messages to that zone's slots. */
    private final @Nullable String zone;
    /**
     * Single sends that do not wait for replicas, one dispatch in flight per slot, or per topic where a topic's slots
     * may share calls; shared by this producer's copies.
     */
    private final SendCoalescer coalescer;
    private final SendPlan plan;

    public ScriptProducer(TopicRegistry topics, KeyLayout keys, ScriptRunner scripts, Payloads payloads,
                          SendLimits limits, RmqMetrics metrics, Durability durability, OutageWatch outage,
                          @Nullable String zone) {
        this(topics, keys, scripts, payloads, limits.maxPayloadBytes(), metrics, durability, outage, zone,
                new SendCoalescer(new SendCalls(new SendPlan(keys, scripts::slotsShareCalls), scripts, outage),
                        scripts.slotsMayShareCalls(), limits.bufferBytes()));
    }

    private ScriptProducer(TopicRegistry topics, KeyLayout keys, ScriptRunner scripts, Payloads payloads,
                           int maxPayloadBytes, RmqMetrics metrics, Durability durability, OutageWatch outage,
                           @Nullable String zone, SendCoalescer coalescer) {
        this.outage = outage;
        this.zone = zone;
        this.topics = topics;
        this.keys = keys;
        this.scripts = scripts;
        this.payloads = payloads;
        this.maxPayloadBytes = maxPayloadBytes;
        this.metrics = metrics;
        this.durability = durability;
        this.operations = new MessageOperations(topics, keys, scripts, zone);
        this.plan = new SendPlan(keys, scripts::slotsShareCalls);
        this.coalescer = coalescer;
    }

    @Override
    public RmqProducer withDurability(Durability value) {
        if (value == null) {
            throw new IllegalArgumentException("durability must not be null; use Durability.MASTER_ONLY");
        }
        return new ScriptProducer(topics, keys, scripts, payloads, maxPayloadBytes, metrics, value, outage, zone, coalescer);
    }

    @Override
    public Durability durability() {
        return durability;
    }

    @Override
    public CompletionStage<SendReceipt> sendAsync(OutgoingMessage message) {
        PreparedSend send = prepare(message);
        if (durability.waitsForReplicas()) {
            // a pipeline of one: its account's one outcome is this send's failure, as a single send reports it
            return sendPrepared(List.of(send)).handle((receipts, error) -> {
                if (error == null) {
                    return receipts.get(0);
                }
                if (RedisFailures.unwrap(error) instanceof BatchSendException batch
                        && batch.outcomes().get(0).error() != null) {
                    throw batch.outcomes().get(0).error();
                }
                throw Futures.rethrowable(error);
            });
        }
        long start = System.nanoTime();
        // the lane's dispatch tells the outage watch how its call went (see SendCalls)
        return coalescer.send(new SendPlan.Item(send.topic(), send.keys(), send.message()))
                .thenApply(result -> {
                    report(send.topic(), result);
                    if (result.outcome().refused()) {
                        throw send.refusal(result);
                    }
                    return send.receipt(result);
                })
                .whenComplete((receipt, error) -> metrics.sent(send.topic(), 1,
                        receipt != null && receipt.merged() ? 1 : 0, System.nanoTime() - start,
                        // a refusal for a full backlog is counted as one (report), not as a failed send
                        RedisFailures.unwrap(error) instanceof BacklogFullException ? null : error));
    }

    /** Counts what the metrics count per message: refusals for a full backlog, duplicates, and late fixed times. */
    private void report(TopicDefinition topic, SendCall.Result result) {
        switch (result.outcome()) {
            case BACKLOG_FULL -> metrics.refused(topic, 1);
            case KEPT -> metrics.duplicate(topic, SendReceipt.Outcome.KEPT);
            case THROTTLED -> metrics.duplicate(topic, SendReceipt.Outcome.THROTTLED);
            case ADDED, BEHIND, MERGED -> {
                if (result.lateMs() > 0) {
                    metrics.sentLate(topic, result.lateMs());
                }
            }
            case TOO_LATE -> {
                // the sender is told by its exception
            }
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

    /**
     * Sends a batch as one pipeline of the calls {@link SendPlan} makes. Each call's reply is taken on its own: a
     * call that failed leaves its messages with an unknown outcome, without hiding what the other calls stored.
     */
    private CompletionStage<List<SendReceipt>> sendPrepared(List<PreparedSend> sends) {
        List<SendPlan.Item> items = new ArrayList<>(sends.size());
        for (PreparedSend send : sends) {
            items.add(new SendPlan.Item(send.topic(), send.keys(), send.message()));
        }
        BatchState state = new BatchState(sends.size());
        ScriptRunner.Pipeline pipeline = scripts.pipeline(durability.replicas(), durability.timeout());
        List<List<Integer>> chunks = new ArrayList<>();
        for (SendPlan.Call call : plan.calls(items)) {
            chunks.add(call.indexes());
            sendChunk(pipeline, call, sends, state);
        }
        long start = System.nanoTime();
        long watched = outage.begin();
        return pipeline.execute()
                .handle((synced, error) -> {
                    // a pipeline that failed before sending some calls leaves them unanswered: unknown as well
                    for (List<Integer> chunk : chunks) {
                        state.failUnanswered(chunk, error);
                    }
                    return synced == null ? 0 : synced;
                })
                .thenApply(synced -> state.receipts(sends, synced))
                .whenComplete((all, error) -> {
                    // a batch that left messages unknown for want of Redis counts as an outage; one that Redis
                    // answered, even with refusals, does not (the batch's exception comes wrapped by the stage)
                    Throwable failure = error != null && RedisFailures.unwrap(error) instanceof BatchSendException batch
                            ? OutageWatch.firstUnreachable(batch.outcomes(),
                                    outcome -> outcome.status() == SendOutcome.Status.UNKNOWN ? outcome.error() : null)
                            : error;
                    outage.settle(watched, failure);
                    reportBatch(sends, state, System.nanoTime() - start, error);
                });
    }

    private void sendChunk(ScriptRunner.Pipeline pipeline, SendPlan.Call call, List<PreparedSend> sends,
                           BatchState state) {
        List<Integer> chunk = call.indexes();
        TopicDefinition topic = sends.get(chunk.get(0)).topic();
        pipeline.add(call.slots(), call.call()).whenComplete((outcomes, error) -> {
            if (error != null) {
                state.fail(chunk, error);
                return;
            }
            state.store(chunk, outcomes);
            outcomes.forEach(outcome -> report(topic, outcome));
        });
    }

    /** What each message of a batch came to: a reply of its call, or the failure that left it unknown. */
    private final class BatchState {

        final SendCall.Result[] results;
        final RuntimeException[] failures;

        BatchState(int size) {
            this.results = new SendCall.Result[size];
            this.failures = new RuntimeException[size];
        }

        synchronized void store(List<Integer> chunk, List<SendCall.Result> outcomes) {
            for (int i = 0; i < chunk.size(); i++) {
                results[chunk.get(i)] = outcomes.get(i);
            }
        }

        synchronized void fail(List<Integer> chunk, Throwable error) {
            RuntimeException cause = Futures.rethrowable(error);
            for (int index : chunk) {
                failures[index] = cause;
            }
        }

        synchronized void failUnanswered(List<Integer> chunk, @Nullable Throwable error) {
            if (results[chunk.get(0)] == null && failures[chunk.get(0)] == null) {
                fail(chunk, error != null ? error
                        : new RmqUnavailableException("the pipeline ended without a reply for this call", null));
            }
        }

        /**
         * The receipts in the input order; when any message was refused or is of unknown outcome, the account as an
         * exception. A duplicate (kept, throttled) has its receipt: its send was answered.
         */
        synchronized List<SendReceipt> receipts(List<PreparedSend> sends, int synced) {
            List<SendReceipt> receipts = new ArrayList<>(sends.size());
            boolean complete = true;
            for (int i = 0; i < sends.size(); i++) {
                boolean answered = results[i] != null && !results[i].outcome().refused();
                complete &= answered;
                receipts.add(answered ? sends.get(i).receipt(results[i]) : null);
            }
            if (complete) {
                NotReplicatedException notReplicated = notReplicated(synced, sends.size());
                if (notReplicated != null) {
                    throw notReplicated;
                }
                return receipts;
            }
            // the stored ones of a batch that did not reach its replicas are stored on the master only: their
            // account says so, as the whole batch's would
            NotReplicatedException notReplicated =
                    notReplicated(synced, (int) receipts.stream().filter(Objects::nonNull).count());
            List<SendOutcome> outcomes = new ArrayList<>(sends.size());
            for (int i = 0; i < sends.size(); i++) {
                PreparedSend send = sends.get(i);
                outcomes.add(receipts.get(i) != null ? (notReplicated == null
                        ? SendOutcome.of(send.original(), receipts.get(i))
                        : SendOutcome.unknown(send.original(), notReplicated))
                        : results[i] != null ? SendOutcome.refused(send.original(), send.refusal(results[i]))
                        : SendOutcome.unknown(send.original(), failures[i]));
            }
            throw new BatchSendException(outcomes);
        }
    }


    /** Why {@code messages} written may be on the master only, when fewer replicas than required acknowledged. */
    private @Nullable NotReplicatedException notReplicated(int synced, int messages) {
        // a batch of nothing wrote nothing that replicas could have missed
        if (messages > 0 && durability.waitsForReplicas() && synced < durability.replicas()) {
            return new NotReplicatedException(messages + " message(s) were written to the master but acknowledged by "
                    + synced + " of the " + durability.replicas() + " required replica(s) within "
                    + durability.timeout() + "; they may be lost if the master fails before replicating them");
        }
        return null;
    }

    private void reportBatch(List<PreparedSend> sends, BatchState state, long nanos, @Nullable Throwable error) {
        SendCall.Result[] results;
        synchronized (state) {
            results = state.results.clone();
        }
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

    /** {@code message} checked and encoded as a send does it, not sent: see {@code RmqClient.prepare}. */
    public PreparedMessage checked(OutgoingMessage message) {
        PreparedSend send = prepare(message);
        return new PreparedMessage(send.topic().name(), send.keys().slot(), send.message().key(),
                payloads.versioned(send.topic(), message.headers()), send.payload());
    }

    private PreparedSend prepare(OutgoingMessage message) {
        if (message == null) {
            throw new IllegalArgumentException("message must not be null");
        }
        TopicDefinition topic = topics.require(message.topic(), message.type());
        byte[] payload = payloads.encode(message.payload());
        // the key comes from the plain bytes, so that equal payloads merge whatever their compression or encryption
        String key = message.key() != null ? message.key() : MessageKeys.derive(payload);
        Payloads.Sealed sealed = payloads.seal(topic, key, message.headers(), payload);
        int size = sealed.bytes().length + Envelope.overhead(sealed.headers());
        if (size > maxPayloadBytes) {
            throw new PayloadTooLargeException(topic.name(), size, maxPayloadBytes);
        }
        String basis = message.slotBasis() != null ? message.slotBasis() : key;
        SlotKeys slot = keys.slot(topic.name(), topic.slotOf(basis, zone));
        Duration ttl = message.ttl() != null ? message.ttl() : topic.ttl();
        long notBefore = message.notBeforeTime().map(Instant::toEpochMilli)
                .orElseGet(() -> message.delay().map(delay -> -delay.toMillis()).orElse(0L));
        byte[] envelope = Envelope.encodeNew(sealed.headers(), sealed.bytes(),
                Envelope.sentScore(topic.type(), message.value()), ttl.toMillis(), notBefore);
        RepeatedKey repeated = message.repeatedKey() != null
                ? message.repeatedKey().checkFor(topic.name(), topic.type()) : topic.repeatedKey();
        return new PreparedSend(topic, slot, message, new SendCall.Message(key, message.value(), envelope, repeated),
                payload);
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
}
