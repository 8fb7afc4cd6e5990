package dev.rmq.admin;

import dev.rmq.internal.redis.Futures;

import java.util.concurrent.CompletionStage;

/**
 * Pauses and resumes topics for every consumer in every application at once. The state is kept in Redis, one
 * flag per slot that the poll script reads, so a paused slot takes nothing from the next poll on, whoever polls
 * it, and the state survives restarts of the applications. Sends are still accepted while a topic is paused;
 * expired leases are still recovered and expired messages removed. Obtained from {@code RmqClient.admin()};
 * thread-safe.
 */
public interface RmqAdmin {

    /**
     * Stops every consumer of the topic from taking new messages: from each slot's next poll, within the idle poll
     * (1 s by default). Deliveries in flight finish as usual.
     */
    CompletionStage<PauseState> pauseAsync(String topic);

    default PauseState pause(String topic) {
        return Futures.join(pauseAsync(topic));
    }

    /** Lets the consumers take messages again, and wakes every slot so that they start at once. */
    CompletionStage<PauseState> resumeAsync(String topic);

    default PauseState resume(String topic) {
        return Futures.join(resumeAsync(topic));
    }

    /** How many of the topic's slots are paused now. */
    CompletionStage<PauseState> pauseStateAsync(String topic);

    default PauseState pauseState(String topic) {
        return Futures.join(pauseStateAsync(topic));
    }
}
