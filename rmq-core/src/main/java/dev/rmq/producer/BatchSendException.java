package dev.rmq.producer;

import dev.rmq.exceptions.RmqException;

import java.util.List;

/**
 * A batch some of whose messages were not stored. It says, message by message and in the order given, which
 * were stored and which were refused and why: nothing else of the batch was lost, and the refused messages can
 * be sent again as they are.
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

    /** The messages that were refused, to send again. */
    public List<OutgoingMessage> refused() {
        return outcomes.stream().filter(o -> o.status() == SendOutcome.Status.REFUSED).map(SendOutcome::message).toList();
    }

    private static String describe(List<SendOutcome> outcomes) {
        long refused = outcomes.stream().filter(o -> o.status() == SendOutcome.Status.REFUSED).count();
        RmqException first = firstError(outcomes);
        return refused + " of the batch's " + outcomes.size() + " message(s) were refused and the others stored"
                + (first == null ? "" : "; the first refusal: " + first.getMessage());
    }

    private static RmqException firstError(List<SendOutcome> outcomes) {
        return outcomes.stream().map(SendOutcome::error).filter(e -> e != null).findFirst().orElse(null);
    }
}
