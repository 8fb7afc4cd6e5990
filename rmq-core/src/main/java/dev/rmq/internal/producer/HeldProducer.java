package dev.rmq.internal.producer;

import dev.rmq.codec.EncodedPayload;
import dev.rmq.internal.redis.Futures;
import dev.rmq.producer.BatchSendException;
import dev.rmq.producer.Durability;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.PreparedMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendDroppedException;
import dev.rmq.producer.SendHold;
import dev.rmq.producer.SendReceipt;
import dev.rmq.producer.StoredMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A producer whose sends wait for the unit of work around them ({@link SendHold}): checked at once, so that bad input
 * fails where it was sent, then sent when that work commits, or dropped when it rolls back. Outside such work, and
 * for every operation by key, it is the producer it wraps.
 *
 * <p>A blocking send inside held work answers at once, with a {@link SendReceipt.Outcome#DEFERRED} receipt: waiting
 * for a commit that can only come after it returns would never end. The asynchronous send's stage completes once the
 * message was really sent, with its outcome, or fails with {@link SendDroppedException} on a rollback.
 */
public final class HeldProducer implements RmqProducer {

    private static final Logger log = LoggerFactory.getLogger(HeldProducer.class);

    private final RmqProducer sends;
    private final ScriptProducer checks;
    private final SendHold hold;

    /**
     * @param sends  what sends, at once or once the work commits
     * @param checks what checks a held message and tells its slot and key
     * @param hold   where sends wait
     */
    public HeldProducer(RmqProducer sends, ScriptProducer checks, SendHold hold) {
        this.sends = sends;
        this.checks = checks;
        this.hold = hold;
    }

    @Override
    public RmqProducer atOnce() {
        return sends;
    }

    @Override
    public RmqProducer withDurability(Durability value) {
        return new HeldProducer(sends.withDurability(value), checks, hold);
    }

    @Override
    public Durability durability() {
        return sends.durability();
    }

    @Override
    public CompletionStage<SendReceipt> sendAsync(OutgoingMessage message) {
        if (!hold.active()) {
            return sends.sendAsync(message);
        }
        Held checked = held(message);
        SendReceipt deferred = checked.receipt();
        CompletableFuture<SendReceipt> sent = new CompletableFuture<>();
        boolean held = hold.hold(() -> started(() -> relay(sends.sendAsync(checked.message()), sent, deferred), sent),
                () -> sent.completeExceptionally(new SendDroppedException(deferred.topic(), deferred.key())));
        return held ? sent : sends.sendAsync(message);
    }

    @Override
    public SendReceipt send(OutgoingMessage message) {
        if (!hold.active()) {
            return sends.send(message);
        }
        Held checked = held(message);
        SendReceipt deferred = checked.receipt();
        CompletableFuture<SendReceipt> sent = new CompletableFuture<>();
        boolean held = hold.hold(() -> started(() -> relay(sends.sendAsync(checked.message()), sent, deferred), sent),
                () -> log.debug("the send of '{}' to {} was dropped: its transaction rolled back", deferred.key(),
                        deferred.topic()));
        return held ? deferred : sends.send(message);
    }

    @Override
    public CompletionStage<List<SendReceipt>> sendAllAsync(List<OutgoingMessage> messages) {
        if (!hold.active() || messages == null || messages.isEmpty()) {
            return sends.sendAllAsync(messages);
        }
        List<Held> checked = heldAll(messages);
        List<SendReceipt> deferred = receipts(checked);
        CompletableFuture<List<SendReceipt>> sent = new CompletableFuture<>();
        boolean held = hold.hold(() -> started(() -> relayAll(messagesOf(checked), sent, deferred), sent),
                () -> sent.completeExceptionally(new SendDroppedException(deferred.get(0).topic(), deferred.size()
                        + " message(s) from '" + deferred.get(0).key() + "'")));
        return held ? sent : sends.sendAllAsync(messages);
    }

    @Override
    public List<SendReceipt> sendAll(List<OutgoingMessage> messages) {
        if (!hold.active() || messages == null || messages.isEmpty()) {
            return sends.sendAll(messages);
        }
        List<Held> checked = heldAll(messages);
        List<SendReceipt> deferred = receipts(checked);
        CompletableFuture<List<SendReceipt>> sent = new CompletableFuture<>();
        boolean held = hold.hold(() -> started(() -> relayAll(messagesOf(checked), sent, deferred), sent),
                () -> log.debug("a batch of {} message(s) was dropped: its transaction rolled back", deferred.size()));
        return held ? deferred : sends.sendAll(messages);
    }

    /**
     * Starts a send the commit released; one that cannot even start (the client closed meanwhile) fails
     * {@code into} at once, so that no caller waits on it for ever, and is thrown for the hold to log. The send
     * buffer does not refuse it: the message is committed, and no one would send it again.
     */
    private static <R> CompletableFuture<R> started(Supplier<CompletableFuture<R>> send, CompletableFuture<R> into) {
        try {
            return SendCoalescer.unrefused(send);
        } catch (RuntimeException e) {
            into.completeExceptionally(e);
            throw e;
        }
    }

    /**
     * A send held until the work commits: the message to send then, and the receipt that the send answers now.
     * Its payload is encoded now and its key settled, so that the message sent is the one sent now, whatever
     * becomes of the payload object meanwhile, and has the key the receipt names.
     */
    private record Held(OutgoingMessage message, SendReceipt receipt) {
    }

    /**
     * {@code message} checked and encoded as a send is, so that bad input fails inside the work, with the slot and
     * key it will have; nothing is sent.
     */
    private Held held(OutgoingMessage message) {
        PreparedMessage checked = checks.checked(message);
        return new Held(message.withPayload(new EncodedPayload(checked.payload())).withKey(checked.key()),
                new SendReceipt(checked.topic(), checked.slot(), checked.key(), SendReceipt.Outcome.DEFERRED,
                        Duration.ZERO));
    }

    /** Each message held, in order: a copy, so that a list the caller reuses meanwhile changes nothing. */
    private List<Held> heldAll(List<OutgoingMessage> messages) {
        List<Held> held = new ArrayList<>(messages.size());
        messages.forEach(message -> held.add(held(message)));
        return held;
    }

    private static List<SendReceipt> receipts(List<Held> held) {
        return held.stream().map(Held::receipt).toList();
    }

    private static List<OutgoingMessage> messagesOf(List<Held> held) {
        return held.stream().map(Held::message).toList();
    }

    /**
     * Completes {@code into} with what the send that the commit released came to. A failure is logged, since after
     * a commit there may be no one left to see it: the transaction's work is done, and the message is not queued.
     */
    private static CompletableFuture<SendReceipt> relay(CompletionStage<SendReceipt> send,
                                                        CompletableFuture<SendReceipt> into, SendReceipt deferred) {
        send.whenComplete((receipt, failure) -> {
            if (failure != null) {
                log.warn("a send held until its transaction committed failed after the commit: '{}' to {} (slot {})"
                        + " is not queued: {}", deferred.key(), deferred.topic(), deferred.slot(),
                        Futures.rethrowable(failure).toString());
                into.completeExceptionally(Futures.rethrowable(failure));
            } else {
                into.complete(receipt);
            }
        });
        return into;
    }

    private CompletableFuture<List<SendReceipt>> relayAll(List<OutgoingMessage> messages,
                                                          CompletableFuture<List<SendReceipt>> into,
                                                          List<SendReceipt> deferred) {
        sends.sendAllAsync(messages).whenComplete((receipts, failure) -> {
            if (failure != null) {
                Throwable cause = Futures.rethrowable(failure);
                String which = cause instanceof BatchSendException batch ? batch.getMessage() : cause.toString();
                log.warn("a batch of {} message(s) held until its transaction committed failed after the commit,"
                        + " from '{}' to {}: {}", deferred.size(), deferred.get(0).key(), deferred.get(0).topic(),
                        which);
                into.completeExceptionally(cause);
            } else {
                into.complete(receipts);
            }
        });
        return into;
    }

    // ---- operations by key: at once, as they read or change what is already queued ----------------------------

    @Override
    public CompletionStage<Boolean> cancelAsync(MessageRef ref) {
        return sends.cancelAsync(ref);
    }

    @Override
    public CompletionStage<Boolean> rescheduleAsync(MessageRef ref, Instant dueTime) {
        return sends.rescheduleAsync(ref, dueTime);
    }

    @Override
    public CompletionStage<Boolean> reprioritizeAsync(MessageRef ref, long priority) {
        return sends.reprioritizeAsync(ref, priority);
    }

    @Override
    public CompletionStage<Optional<StoredMessage>> getAsync(MessageRef ref) {
        return sends.getAsync(ref);
    }
}
