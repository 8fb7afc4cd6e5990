package dev.rmq.test;

import dev.rmq.RmqClient;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendReceipt;
import dev.rmq.producer.StoredMessage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What a test of rmq listeners waits for: one message delivered, a topic drained, the dead queue's contents. Every
 * wait polls Redis through the inspector and fails with an {@link AssertionError} that says where the message or
 * the backlog is, so a test that times out explains itself. A bean in every {@link EmbeddedRmq} test; built from an
 * {@link RmqClient} elsewhere.
 */
public class RmqTester {

    /** How long {@link #sendAndAwait(OutgoingMessage)} and {@link #awaitDrained(String)} wait. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final RmqClient client;

    public RmqTester(RmqClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** What became of a message sent by {@link #sendAndAwait}. */
    public record Outcome(SendReceipt receipt, Optional<StoredMessage> dead) {

        /** Whether a listener acknowledged it. */
        public boolean consumed() {
            return dead.isEmpty();
        }
    }

    /** {@link #sendAndAwait(OutgoingMessage, Duration)} within {@link #DEFAULT_TIMEOUT}. */
    public Outcome sendAndAwait(OutgoingMessage message) {
        return sendAndAwait(message, DEFAULT_TIMEOUT);
    }

    /**
     * Sends {@code message} and waits until a listener has acknowledged it or it has gone to the dead queue. A
     * range-merge or fixed-time message is waited for past its due time, so the timeout must cover it. A message
     * that merged into one already waiting is done when that one is.
     *
     * @throws AssertionError when it is still queued after {@code timeout}, saying where it is
     */
    public Outcome sendAndAwait(OutgoingMessage message, Duration timeout) {
        Objects.requireNonNull(message, "message");
        checkTimeout(timeout);
        long sentAt = System.currentTimeMillis();
        SendReceipt receipt = client.producer().send(message);
        MessageRef ref = new MessageRef(receipt.topic(), receipt.key(), message.slotBasis());
        // a dead copy from before this send is not this message's outcome
        Optional<StoredMessage> last = poll(timeout, () -> client.inspector().find(ref),
                stored -> stored.isEmpty() || (stored.get().state() == MessageState.DEAD
                        && stored.get().score() >= sentAt),
                stored -> ref.topic() + "/" + ref.key() + " was neither consumed nor dead within " + timeout
                        + ": it is " + stored.get().state() + " in slot " + stored.get().slot() + " after "
                        + stored.get().attempts() + " attempt(s)" + (stored.get().lastError().isEmpty() ? ""
                        : ", last error: " + stored.get().lastError())
                        + ". Is a listener of the topic running, and is the message due?");
        return new Outcome(receipt, last);
    }

    /** {@link #awaitDrained(String, Duration)} within {@link #DEFAULT_TIMEOUT}. */
    public void awaitDrained(String topic) {
        awaitDrained(topic, DEFAULT_TIMEOUT);
    }

    /**
     * Waits until nothing of {@code topic} is waiting, delayed, retrying, parked or in flight: every message sent so
     * far has been acknowledged or has died. Dead messages do not count; read them with {@link #deadMessages}.
     *
     * @throws AssertionError when something is still queued after {@code timeout}, with the counts
     */
    public void awaitDrained(String topic, Duration timeout) {
        requireTopic(topic);
        checkTimeout(timeout);
        poll(timeout, () -> client.inspector().counts(topic).total(),
                total -> total.waiting() + total.inFlight() == 0,
                total -> "topic '" + topic + "' was not drained within " + timeout + ": " + total.dueNow()
                        + " due now, " + total.later() + " due later, " + total.retrying() + " retrying, "
                        + total.parked() + " parked, " + total.inFlight() + " in flight"
                        + (total.paused() ? "; the topic is paused" : "")
                        + ". Is a listener of the topic running, and is everything due?");
    }

    /** The dead messages of {@code topic}, slot by slot, at most {@link RmqDeadQueue#MAX_PAGE} per slot. */
    public List<DeadMessage> deadMessages(String topic) {
        int slots = requireTopic(topic);
        RmqDeadQueue dead = client.deadQueue();
        List<DeadMessage> messages = new ArrayList<>();
        for (int slot = 0; slot < slots; slot++) {
            messages.addAll(dead.list(topic, slot, 0, RmqDeadQueue.MAX_PAGE));
        }
        return messages;
    }

    /** Empties {@code topic}'s dead queue, so that the next test starts without the last one's failures. */
    public long purgeDead(String topic) {
        requireTopic(topic);
        return client.deadQueue().purge(topic);
    }

    private int requireTopic(String topic) {
        return client.topics().require(topic).slotAmount();
    }

    private static void checkTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
    }

    /**
     * Reads {@code state} until {@code done} holds of it, and returns that state.
     *
     * @throws AssertionError past {@code timeout}, with {@code stuck}'s account of the last state read
     */
    private static <S> S poll(Duration timeout, Supplier<S> state, Predicate<S> done, Function<S, String> stuck) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            S now = state.get();
            if (done.test(now)) {
                return now;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(stuck.apply(now));
            }
            pause();
        }
    }

    private static void pause() {
        LockSupport.parkNanos(POLL_NANOS);
        if (Thread.currentThread().isInterrupted()) {
            throw new AssertionError("interrupted while waiting for rmq");
        }
    }
}
