package dev.rmq.internal.slot;

import dev.rmq.internal.script.AckCall;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Objects;

/**
 * How one delivery ends: what becomes of its message, and why. The lease token is read when the ending is sent,
 * since a renewal may replace it meanwhile.
 *
 * @param op       what becomes of the message
 * @param key      the message's key
 * @param delivery the delivery; null for a message that could not even be decoded, whose token is {@code token}
 * @param token    the token of a message without a delivery; ignored otherwise
 * @param reason   the failure's reason, kept with the message; empty for a commit or a release
 * @param cause    what the handler threw, null when it returned its outcome or the program ended the delivery
 */
public record Ending(AckCall.Op op, String key, @Nullable Delivery<?> delivery, long token, String reason,
                     @Nullable Throwable cause) {

    /** How {@code delivery} ends; a null reason is kept as empty. */
    public static Ending of(AckCall.Op op, Delivery<?> delivery, @Nullable String reason, @Nullable Throwable cause) {
        return new Ending(op, delivery.key(), delivery, 0, reason == null ? "" : reason, cause);
    }

    /** A message that could not be decoded: it goes to the dead queue with the reason. */
    static Ending undecodable(String key, long token, String reason) {
        return new Ending(AckCall.Op.UNDECODABLE, key, null, token, reason, null);
    }

    /** A message whose payload cannot be decrypted: it goes to the dead queue with the reason. */
    static Ending undecryptable(String key, long token, String reason) {
        return new Ending(AckCall.Op.UNDECRYPTABLE, key, null, token, reason, null);
    }

    /** Whether the lease of one of the deliveries that {@code endings} end ends before {@code nanos}. */
    static boolean anyLeaseEndsBefore(List<Ending> endings, long nanos) {
        for (Ending ending : endings) {
            Delivery<?> d = ending.delivery();
            if (d != null && d.leaseEndsBefore(nanos)) {
                return true;
            }
        }
        return false;
    }

    /** The delivery, which every ending but that of an unreadable message has. */
    Delivery<?> decoded() {
        return Objects.requireNonNull(delivery, () -> "the " + op + " of message '" + key + "' has no delivery");
    }

    /** The acknowledgement to send, quoting the token as it is now. */
    AckCall.Ack ack() {
        return new AckCall.Ack(op, key, delivery != null ? delivery.token() : token, reason);
    }

    /** Whether the message failed: a retry, now or later, or the dead queue. */
    boolean failed() {
        return op == AckCall.Op.ROLL_BACK || op == AckCall.Op.RETRY_NOW || op == AckCall.Op.DEAD;
    }

    /** Whether the message could not be read, so that it goes to the dead queue without a delivery. */
    boolean unreadable() {
        return op == AckCall.Op.UNDECODABLE || op == AckCall.Op.UNDECRYPTABLE;
    }
}
