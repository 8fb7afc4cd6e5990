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
 */
public interface SlotFencing {

    /**
     * What taking a slot found.
     *
     * @param previousToken the token of an owner that never gave the slot back; empty after a clean release
     * @param holdOff       how long the latest lease in the slot still runs: a new owner waits that long
     *                      before its first poll, so a cut-off owner's handler never runs beside its own
     */
    record Taken(String previousToken, Duration holdOff) {
    }

    /** Writes {@code token} as the slot's owner, which fences out whoever held it before. */
    CompletionStage<Taken> take(TopicDefinition topic, int slot, String token);

    /** Clears the owner, unless another owner took the slot meanwhile; yields whether it was cleared. */
    CompletionStage<Boolean> give(TopicDefinition topic, int slot, String token);
}
