package dev.rmq.producer;

import dev.rmq.exceptions.RmqException;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A batch not all of whose messages are known to be stored. It says, message by message and in the order given,
 * which were stored or left out as duplicates (with their receipts), which were refused and why, and which have an
 * unknown outcome
 * because Redis did not answer for them. It never claims more than rmq knows: a message is
 * {@link SendOutcome.Status#STORED stored} only when its script call replied.
 *
 * <p>To finish the batch, send {@link #toResend()} again: the refused and the unknown messages. A resend of a
 * message that was in fact stored and still waits merges into it, whatever the topic's type; once it has been
 * consumed, a resend is a new message.
 */
public class BatchSendException extends RmqException {

    private static final long serialVersionUID = 1L;

    private final transient List<SendOutcome> outcomes;

    public BatchSendException(List<SendOutcome> outcomes) {
        super(describe(outcomes), firstError(outcomes));
        this.outcomes = List.copyOf(outcomes);
    }

    /** One outcome per message of the batch, in the order given. */
    public List<SendOutcome> outcomes() {
        return outcomes;
    }

    /** The receipts of the messages that were stored. */
    public List<SendReceipt> stored() {
        return outcomes.stream().filter(o -> o.status() == SendOutcome.Status.STORED).map(SendOutcome::receipt).toList();
    }

    /** The messages that were refused. */
    public List<OutgoingMessage> refused() {
        return messages(SendOutcome.Status.REFUSED);
    }

    /** The messages whose outcome is unknown: they may be stored. */
    public List<OutgoingMessage> unknown() {
        return messages(SendOutcome.Status.UNKNOWN);
    }

    /** The receipts of the messages their repeated-key rule left out (kept, throttled). */
    public List<SendReceipt> duplicates() {
        return outcomes.stream().filter(o -> o.status() == SendOutcome.Status.DUPLICATE).map(SendOutcome::receipt)
                .toList();
    }

    /** Every message refused or of unknown outcome, in the order given: what a resend should send. */
    public List<OutgoingMessage> toResend() {
        return outcomes.stream().filter(o -> o.receipt() == null).map(SendOutcome::message).toList();
    }

    private List<OutgoingMessage> messages(SendOutcome.Status status) {
        return outcomes.stream().filter(o -> o.status() == status).map(SendOutcome::message).toList();
    }

    private static String describe(List<SendOutcome> outcomes) {
        Map<SendOutcome.Status, Long> counts = outcomes.stream()
                .collect(Collectors.groupingBy(SendOutcome::status, TreeMap::new, Collectors.counting()));
        RuntimeException first = firstError(outcomes);
        long unknown = counts.getOrDefault(SendOutcome.Status.UNKNOWN, 0L);
        long duplicates = counts.getOrDefault(SendOutcome.Status.DUPLICATE, 0L);
        return "batch of " + outcomes.size() + " message(s): " + counts.getOrDefault(SendOutcome.Status.STORED, 0L)
                + " stored, " + (duplicates > 0 ? duplicates + " duplicate(s), " : "")
                + counts.getOrDefault(SendOutcome.Status.REFUSED, 0L) + " refused, " + unknown + " unknown"
                + (unknown > 0 ? " (Redis did not answer for them: they may be stored)" : "")
                + "; toResend() gives the messages to send again"
                + (first == null ? "" : ". The first error: " + first.getMessage());
    }

    private static @Nullable RuntimeException firstError(List<SendOutcome> outcomes) {
        return outcomes.stream().map(SendOutcome::error).filter(e -> e != null).findFirst().orElse(null);
    }
}
