package dev.rmq.internal.journal;

import dev.rmq.internal.payload.Payloads;
import dev.rmq.internal.redis.RedisFailures;
import dev.rmq.journal.JournaledChange;
import dev.rmq.journal.JournaledSend;
import dev.rmq.journal.MessageJournal;
import dev.rmq.producer.BatchSendException;
import dev.rmq.producer.Durability;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendOutcome;
import dev.rmq.producer.SendReceipt;
import dev.rmq.producer.StoredMessage;
import dev.rmq.topic.RepeatedKey;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import dev.rmq.topic.TopicType;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A producer that tells a {@link MessageJournal} what Redis stored, after Redis stored it: a send completes once
 * the journal's stage does. A batch that Redis stored in part journals the part, then fails as it would have. A
 * send whose outcome is unknown is not journaled: the sender is told to send it again, which journals it.
 */
public final class JournaledProducer implements RmqProducer {

    private final RmqProducer producer;
    private final MessageJournal journal;
    private final TopicRegistry topics;
    private final Payloads payloads;

    public JournaledProducer(RmqProducer producer, MessageJournal journal, TopicRegistry topics, Payloads payloads) {
        this.producer = producer;
        this.journal = journal;
        this.topics = topics;
        this.payloads = payloads;
    }

    @Override
    public RmqProducer withDurability(Durability value) {
        return new JournaledProducer(producer.withDurability(value), journal, topics, payloads);
    }

    @Override
    public Durability durability() {
        return producer.durability();
    }

    @Override
    public CompletionStage<SendReceipt> sendAsync(OutgoingMessage outgoing) {
        Instant sentAt = Instant.now();
        OutgoingMessage message = identified(outgoing);
        // a send its repeated-key rule left out (kept, throttled) changed nothing: nothing to journal
        return producer.sendAsync(message).thenCompose(receipt -> !receipt.written()
                ? CompletableFuture.completedFuture(receipt) : journal.sent(List.of(entry(message, receipt, sentAt))).thenApply(done -> receipt));
    }

    @Override
    public CompletionStage<List<SendReceipt>> sendAllAsync(List<OutgoingMessage> outgoing) {
        Instant sentAt = Instant.now();
        if (outgoing == null) {
            // refused by the producer, as bad input is
            return producer.sendAllAsync(outgoing);
        }
        List<OutgoingMessage> messages = outgoing.stream().map(this::identified).toList();
        return producer.sendAllAsync(messages).handle((receipts, error) -> {
            if (error == null) {
                List<JournaledSend> entries = new ArrayList<>(receipts.size());
                for (int i = 0; i < receipts.size(); i++) {
                    if (receipts.get(i).written()) {
                        entries.add(entry(messages.get(i), receipts.get(i), sentAt));
                    }
                }
                return journal.sent(entries).thenApply(done -> receipts);
            }
            if (RedisFailures.unwrap(error) instanceof BatchSendException batch) {
                List<JournaledSend> entries = new ArrayList<>();
                for (SendOutcome outcome : batch.outcomes()) {
                    if (outcome.status() == SendOutcome.Status.STORED) {
                        entries.add(entry(outcome.message(), Objects.requireNonNull(outcome.receipt(),
                                "a stored send has its receipt"), sentAt));
                    }
                }
                if (!entries.isEmpty()) {
                    return journal.sent(entries).<List<SendReceipt>>thenApply(done -> {
                        throw new CompletionException(batch);
                    });
                }
            }
            return CompletableFuture.<List<SendReceipt>>failedFuture(error);
        }).thenCompose(stage -> stage);
    }

    /**
     * The message with a send id of its own, on a journaled topic: the journal matches a consumer's delivery to the
     * send it carries by it (see {@link MessageJournal#SEND_ID_HEADER}); a message with no topic is left for the
     * producer to refuse.
     */
    private OutgoingMessage identified(OutgoingMessage message) {
        if (message == null || !journal.journals(message.topic())) {
            return message;
        }
        return message.withHeader(MessageJournal.SEND_ID_HEADER, SendIds.next());
    }

    private JournaledSend entry(OutgoingMessage message, SendReceipt receipt, Instant sentAt) {
        TopicDefinition topic = topics.require(message.topic(), message.type());
        Duration ttl = message.ttl() != null ? message.ttl() : topic.ttl();
        Instant notBefore = message.notBeforeTime().orElseGet(() -> message.delay().map(sentAt::plus).orElse(null));
        // a range's due time is counted from Redis's clock as the script ran; counted from now, after the reply, a
        // restored message can be late by a round trip but never early
        long score = message.type() == TopicType.RANGE_MERGE ? System.currentTimeMillis() + message.value()
                : message.value();
        // the journal keeps the payload as Redis does, compressed and encrypted as its topic's form says
        Payloads.Sealed sealed = payloads.seal(topic, receipt.key(), message.headers(),
                payloads.encode(message.payload()));
        return new JournaledSend(topic.name(), topic.type(), receipt.slot(), receipt.key(), receipt.merged(),
                receipt.merged() && debounced(message, topic), receipt.behindDelivery(), score,
                notBefore, ttl.isZero() ? null : sentAt.plus(ttl), sealed.headers(), sealed.bytes(), sentAt);
    }

    /** Whether the message's rule, its own or its topic's, is DEBOUNCE: a merge moved its due time. */
    private static boolean debounced(OutgoingMessage message, TopicDefinition topic) {
        RepeatedKey rule = message.repeatedKey() != null ? message.repeatedKey() : topic.repeatedKey();
        return rule.kind() == RepeatedKey.Kind.DEBOUNCE;
    }

    @Override
    public CompletionStage<Boolean> cancelAsync(MessageRef ref) {
        return producer.cancelAsync(ref).thenApply(done -> changed(done, ref, JournaledChange.Kind.CANCELLED, 0));
    }

    @Override
    public CompletionStage<Boolean> rescheduleAsync(MessageRef ref, Instant dueTime) {
        boolean priority = ref != null && topics.contains(ref.topic())
                && topics.require(ref.topic()).type() == TopicType.PRIORITY;
        // a priority message's reschedule sets its not-before time, which the journal keeps apart from its priority
        return producer.rescheduleAsync(ref, dueTime).thenApply(done -> priority
                ? changed(done, ref, JournaledChange.Kind.DELAYED, dueTime.isAfter(Instant.now()) ? dueTime.toEpochMilli() : 0)
                : changed(done, ref, JournaledChange.Kind.RESCHEDULED, dueTime.toEpochMilli()));
    }

    @Override
    public CompletionStage<Boolean> reprioritizeAsync(MessageRef ref, long priority) {
        return producer.reprioritizeAsync(ref, priority)
                .thenApply(done -> changed(done, ref, JournaledChange.Kind.REPRIORITIZED, priority));
    }

    private boolean changed(boolean done, MessageRef ref, JournaledChange.Kind kind, long score) {
        if (done) {
            journal.changed(new JournaledChange(ref.topic(), ref.key(), kind, score, Instant.now()));
        }
        return done;
    }

    @Override
    public CompletionStage<Optional<StoredMessage>> getAsync(MessageRef ref) {
        return producer.getAsync(ref);
    }
}
