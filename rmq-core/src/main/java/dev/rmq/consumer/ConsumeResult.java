package dev.rmq.consumer;

/** What a handler decided about a message. */
public final class ConsumeResult {

    /** What happens to the message. */
    public enum Outcome {
        /** Commit: the message is done. */
        SUCCESS,
        /** Roll back: retry after backoff, or dead once the retries are spent. */
        RETRY,
        /** Dead at once, without further retries. */
        DEAD
    }

    private static final ConsumeResult SUCCESS = new ConsumeResult(Outcome.SUCCESS, "");

    private final Outcome outcome;
    private final String reason;

    private ConsumeResult(Outcome outcome, String reason) {
        this.outcome = outcome;
        this.reason = reason;
    }

    public static ConsumeResult success() {
        return SUCCESS;
    }

    public static ConsumeResult retry(String reason) {
        return new ConsumeResult(Outcome.RETRY, reason == null ? "" : reason);
    }

    public static ConsumeResult dead(String reason) {
        return new ConsumeResult(Outcome.DEAD, reason == null ? "" : reason);
    }

    public Outcome outcome() {
        return outcome;
    }

    /** Why the message failed; empty on success. */
    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return reason.isEmpty() ? outcome.name() : outcome + "(" + reason + ")";
    }
}
