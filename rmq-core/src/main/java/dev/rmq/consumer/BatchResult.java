package dev.rmq.consumer;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a {@link RmqBatchHandler} decided about each message of its batch: commit all of them
 * ({@link #success()}), or one {@link ConsumeResult} per message, in the batch's order ({@link #of(List)}).
 */
public final class BatchResult {

    private static final BatchResult SUCCESS = new BatchResult(null);

    /** One outcome per message; null when all of them succeeded. */
    private final @Nullable List<ConsumeResult> outcomes;

    private BatchResult(@Nullable List<ConsumeResult> outcomes) {
        this.outcomes = outcomes;
    }

    /** Every message of the batch succeeded: all are committed in one call. */
    public static BatchResult success() {
        return SUCCESS;
    }

    /**
     * One outcome per message, in the order the handler received them: commit, retry, retry now or dead. A list
     * whose size is not the batch's fails the whole batch, which is retried.
     */
    public static BatchResult of(List<ConsumeResult> outcomes) {
        if (outcomes == null || outcomes.stream().anyMatch(outcome -> outcome == null)) {
            throw new IllegalArgumentException("a batch result needs an outcome for every message, and no null"
                    + " among them; use ConsumeResult.success() for the messages that succeeded");
        }
        return new BatchResult(Collections.unmodifiableList(new ArrayList<>(outcomes)));
    }

    /** Whether every message succeeded. */
    public boolean allSucceeded() {
        return outcomes == null || outcomes.stream().allMatch(r -> r.outcome() == ConsumeResult.Outcome.SUCCESS);
    }

    /** The outcome of each message, or empty when the result is {@link #success()}. */
    public List<ConsumeResult> outcomes() {
        return outcomes == null ? List.of() : outcomes;
    }

    /** The outcome of message {@code index} of the batch. */
    public ConsumeResult outcome(int index) {
        return outcomes == null ? ConsumeResult.success() : outcomes.get(index);
    }

    /** Whether this result fits a batch of {@code size}. */
    public boolean fits(int size) {
        return outcomes == null || outcomes.size() == size;
    }

    @Override
    public String toString() {
        return outcomes == null ? "SUCCESS" : outcomes.toString();
    }
}
