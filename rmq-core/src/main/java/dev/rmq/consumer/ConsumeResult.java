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
        DEAD,
        /** Handed back: due again at once at its place, not counted as an attempt; see {@link #release(String)}. */
        RELEASE
    }

    private static final ConsumeResult SUCCESS = new ConsumeResult(Outcome.SUCCESS, "", false);

    private final Outcome outcome;
    private final String reason;
    private final boolean immediate;

    private ConsumeResult(Outcome outcome, String reason, boolean immediate) {
        this.outcome = outcome;
        this.reason = reason;
        this.immediate = immediate;
    }

    public static ConsumeResult success() {
        return SUCCESS;
    }

    /** Roll back: the message is delivered again after the topic's backoff, or goes dead once its retries are spent. */
    public static ConsumeResult retry(String reason) {
        return new ConsumeResult(Outcome.RETRY, reason == null ? "" : reason, false);
    }

    /**
     * Roll back without the backoff: the message is due again at once (a priority message at its priority and
     * place). It is an attempt all the same, so the topic's maximum retries still send it dead in the end.
     */
    public static ConsumeResult retryNow(String reason) {
        return new ConsumeResult(Outcome.RETRY, reason == null ? "" : reason, true);
    }

    /**
     * Hand the message back without handling it: it is due again at once, at its place (a priority message at its
     * priority, a timed one at its due time), for this consumer or another. It is not an attempt, so a consumer
     * that cannot take work now (shutting down, a downstream that refuses) does not spend the message's retries.
     * Releases are counted apart, and the topic's {@code maxReleases} sends a message released too often to the
     * dead queue (reason {@code releases_spent}).
     *
     * @param reason why it was handed back, kept as its last error if the release sends it dead; may be empty
     */
    public static ConsumeResult release(String reason) {
        return new ConsumeResult(Outcome.RELEASE, reason == null ? "" : reason, false);
    }

    public static ConsumeResult dead(String reason) {
        return new ConsumeResult(Outcome.DEAD, reason == null ? "" : reason, false);
    }

    public Outcome outcome() {
        return outcome;
    }

    /** Why the message failed; empty on success. */
    public String reason() {
        return reason;
    }

    /** For a retry, whether it skips the backoff ({@link #retryNow(String)}). */
    public boolean immediate() {
        return immediate;
    }

    @Override
    public String toString() {
        String name = immediate ? "RETRY_NOW" : outcome.name();
        return reason.isEmpty() ? name : name + "(" + reason + ")";
    }
}
