package dev.rmq.consumer;

import dev.rmq.topic.TopicDefinition;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * The fencing token of each slot, kept in Redis next to the slot's messages, which every poll, acknowledgement
 * and lease extension of the slot checks. A {@link SlotAssignment} that gives each slot to one worker of a
 * cluster takes the slot's token before it assigns the slot, and gives it back when the worker let it go; a
 * worker that lost its slot without knowing it (a pause, a partition) can then neither poll nor acknowledge.
 * Obtained from {@code RmqClient.slotFencing()}.
 * <p>
 * A token may end with {@code #} and sixteen hex digits: the order of the claim that made it, which grows from one
 * claim of a slot to the next within one ZooKeeper ensemble (the creation zxid of the slot's owner znode). A take
 * whose order is below that of the token the slot holds writes nothing: a claim whose take was delayed past the end
 * of its own claim does not fence out the owner that claimed the slot after it.
 */
public interface SlotFencing {

    /**
     * What taking a slot found.
     *
     * @param previousToken the token of an owner that never gave the slot back; empty after a clean release; when
     *                      superseded, the token of the later claim that holds the slot
     * @param holdOff       how long the latest lease in the slot still runs: a new owner waits that long
     *                      before its first poll, so a cut-off owner's handler never runs beside its own
     * @param superseded    whether a later claim holds the slot, so that the take wrote nothing and the slot is
     *                      not the caller's
     */
    record Taken(String previousToken, Duration holdOff, boolean superseded) {

        /** A take that wrote its token. */
        public Taken(String previousToken, Duration holdOff) {
            this(previousToken, holdOff, false);
        }
    }

    /**
     * Writes {@code token} as the slot's owner, which fences out whoever held it before, unless a later claim holds
     * the slot ({@link Taken#superseded()}).
     */
    CompletionStage<Taken> take(TopicDefinition topic, int slot, String token);

    /** Clears the owner, unless another owner took the slot meanwhile; yields whether it was cleared. */
    CompletionStage<Boolean> give(TopicDefinition topic, int slot, String token);
}
