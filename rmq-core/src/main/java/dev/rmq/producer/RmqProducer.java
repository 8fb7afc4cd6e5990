package dev.rmq.producer;

import dev.rmq.internal.redis.Futures;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Sends messages and operates on waiting ones by key. The {@code CompletionStage} methods are the
 * primitives; the blocking ones wait on them. Arguments are checked before anything reaches Redis and
 * bad ones throw at once; the due time of a range-merge message and the "future" of a fixed time are
 * judged by the Redis server's clock, inside the send script.
 *
 * <p>A batch goes in script calls of up to 256 messages, each slot's messages together, and all calls go out in
 * one pipeline, so a batch costs one round trip per Redis node. On a Cluster a call carries one slot; where Redis
 * takes keys of several hash slots in one call (standalone, Sentinel), a topic's slots share calls. Each script
 * call is atomic; a batch as a whole is not.
 *
 * <p>A message is refused when its slot's backlog is full ({@link BacklogFullException}) or its fixed time lies
 * further behind the Redis clock than the topic's late tolerance ({@link IllegalArgumentException}). A single send
 * fails with the refusal, or with {@link dev.rmq.exceptions.RmqUnavailableException} when Redis did not answer
 * and the send may or may not be stored. A batch fails with {@link BatchSendException}, which says message by
 * message what was stored, what was refused and what has an unknown outcome, and which messages to send again.
 * Sending a message again is safe while it waits: a send of a waiting key merges into it.
 *
 * <p>Obtained from {@code RmqClient.producer()}; thread-safe.
 */
public interface RmqProducer {

    /**
     * A producer whose sends complete only once {@code durability.replicas()} replicas hold them
     * (Redis WAIT after the writes), like Disque's REPLICATE. Slower: a round trip to the replicas more.
     */
    RmqProducer withDurability(Durability value);

    Durability durability();

    /**
     * A producer that sends at once, even inside a transaction that holds this producer's sends until it commits
     * ({@link SendHold}); this producer where sends are never held.
     */
    default RmqProducer atOnce() {
        return this;
    }

    /** Sends one message; fails with the refusal, or with {@code RmqUnavailableException} when Redis did not answer. */
    CompletionStage<SendReceipt> sendAsync(OutgoingMessage message);

    default SendReceipt send(OutgoingMessage message) {
        return Futures.join(sendAsync(message));
    }

    /**
     * Sends many messages in one round trip per Redis node; receipts come back in the input order. When not every
     * message is known to be stored, fails with {@link BatchSendException}, which holds every message's outcome.
     */
    CompletionStage<List<SendReceipt>> sendAllAsync(List<OutgoingMessage> messages);

    default List<SendReceipt> sendAll(List<OutgoingMessage> messages) {
        return Futures.join(sendAllAsync(messages));
    }

    /**
     * Removes the message of a key: the one that waits (or retries, or waits behind a delivery of its key), and the
     * delivery in flight, if any; dead ones are left alone. Yields whether either was there.
     *
     * <p>A handler that holds a cancelled delivery is not interrupted: it can ask {@link
     * dev.rmq.consumer.RmqMessage#cancelled()}, its lease extensions fail, and its ending reports {@link
     * dev.rmq.consumer.AckOutcome#CANCELLED} instead of committing, retrying or burying. A cancel and an ending of
     * the same delivery are ordered by Redis: the one that comes first wins, and the other says so (a cancel that
     * comes second finds nothing in flight; an ending that comes second reports {@code CANCELLED}).
     */
    CompletionStage<Boolean> cancelAsync(MessageRef ref);

    default boolean cancel(MessageRef ref) {
        return Futures.join(cancelAsync(ref));
    }

    /**
     * Moves a waiting range-merge or fixed-time message to a new due time. On a priority topic, sets a waiting
     * message's not-before time instead, its priority and payload kept: a time ahead holds it back until then (in
     * place of a retry's backoff, if it was waiting one out), and a time now or past makes it visible at once.
     * False when no message with the key waits.
     */
    CompletionStage<Boolean> rescheduleAsync(MessageRef ref, Instant dueTime);

    default boolean reschedule(MessageRef ref, Instant dueTime) {
        return Futures.join(rescheduleAsync(ref, dueTime));
    }

    /** Gives a waiting priority message a new priority; false when none waits. */
    CompletionStage<Boolean> reprioritizeAsync(MessageRef ref, long priority);

    default boolean reprioritize(MessageRef ref, long priority) {
        return Futures.join(reprioritizeAsync(ref, priority));
    }

    /** The message with this key, wherever it is (waiting, retrying, in flight or dead). */
    CompletionStage<Optional<StoredMessage>> getAsync(MessageRef ref);

    default Optional<StoredMessage> get(MessageRef ref) {
        return Futures.join(getAsync(ref));
    }

    /** Whether a message with this key waits, retries or is in flight (dead ones do not count). */
    default CompletionStage<Boolean> existsAsync(MessageRef ref) {
        return getAsync(ref).thenApply(m -> m.isPresent() && m.get().state() != MessageState.DEAD);
    }

    default boolean exists(MessageRef ref) {
        return Futures.join(existsAsync(ref));
    }
}
