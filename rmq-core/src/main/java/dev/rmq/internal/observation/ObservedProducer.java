package dev.rmq.internal.observation;

import dev.rmq.internal.redis.RedisFailures;
import dev.rmq.producer.BatchSendException;
import dev.rmq.producer.Durability;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendOutcome;
import dev.rmq.producer.SendReceipt;
import dev.rmq.producer.StoredMessage;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A producer whose sends are observed ({@link Observations#send}); everything else goes to the producer it wraps.
 * A failed batch's outcomes name the messages as the caller gave them, without the trace headers added here.
 */
public final class ObservedProducer implements RmqProducer {

    private final RmqProducer producer;
    private final Observations observations;

    public ObservedProducer(RmqProducer producer, Observations observations) {
        this.producer = producer;
        this.observations = observations;
    }

    @Override
    public RmqProducer withDurability(Durability value) {
        return new ObservedProducer(producer.withDurability(value), observations);
    }

    @Override
    public Durability durability() {
        return producer.durability();
    }

    @Override
    public CompletionStage<SendReceipt> sendAsync(OutgoingMessage message) {
        if (message == null) {
            // passed on as given: the wrapped producer refuses it
            return producer.sendAsync(message);
        }
        return observations.send(List.of(message), message.topic(), traced -> producer.sendAsync(traced.get(0)));
    }

    @Override
    public CompletionStage<List<SendReceipt>> sendAllAsync(List<OutgoingMessage> messages) {
        if (messages == null || messages.isEmpty() || messages.stream().anyMatch(message -> message == null)) {
            return producer.sendAllAsync(messages);
        }
        String topics = String.join(",", messages.stream().map(OutgoingMessage::topic).distinct().sorted().toList());
        return observations.send(messages, topics, producer::sendAllAsync).handle((receipts, error) -> {
            if (error == null) {
                return receipts;
            }
            Throwable cause = RedisFailures.unwrap(error);
            if (cause instanceof BatchSendException batch && batch.outcomes().size() == messages.size()) {
                List<SendOutcome> given = new ArrayList<>(messages.size());
                for (int i = 0; i < messages.size(); i++) {
                    SendOutcome outcome = batch.outcomes().get(i);
                    given.add(new SendOutcome(messages.get(i), outcome.status(), outcome.receipt(), outcome.error()));
                }
                throw new CompletionException(new BatchSendException(given));
            }
            throw error instanceof CompletionException completion ? completion : new CompletionException(error);
        });
    }

    @Override
    public CompletionStage<Boolean> cancelAsync(MessageRef ref) {
        return producer.cancelAsync(ref);
    }

    @Override
    public CompletionStage<Boolean> rescheduleAsync(MessageRef ref, Instant dueTime) {
        return producer.rescheduleAsync(ref, dueTime);
    }

    @Override
    public CompletionStage<Boolean> reprioritizeAsync(MessageRef ref, long priority) {
        return producer.reprioritizeAsync(ref, priority);
    }

    @Override
    public CompletionStage<Optional<StoredMessage>> getAsync(MessageRef ref) {
        return producer.getAsync(ref);
    }
}
