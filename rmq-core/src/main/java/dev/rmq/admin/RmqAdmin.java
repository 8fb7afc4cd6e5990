package dev.rmq.admin;

import dev.rmq.internal.redis.Futures;
import dev.rmq.schedule.RmqSchedules;

import java.util.concurrent.CompletionStage;

/**
 * Pauses, resumes and clears topics for every consumer in every application at once, and declares and operates
 * recurring schedules ({@link #schedules()}). The state is kept in Redis, one
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

    /**
     * Removes every waiting message of the topic (due now or later, or waiting out a not-before time or a retry's
     * backoff) and every parked one. Each slot is cleared in one atomic step, the slots one after another: a
     * message sent during the clear is removed when it reached its slot before that slot's step, and kept when it
     * came after. Deliveries in flight end as usual (a commit, a retry, or a lease that runs out), and dead messages
     * stay unless the scope says otherwise. A journal, when there is one, records each removed message as
     * cancelled, so that a restore does not bring it back. Logs one INFO line with what was removed.
     *
     * @param scope what else goes: the dead queue too, or not
     */
    CompletionStage<ClearReport> clearAsync(String topic, ClearScope scope);

    default ClearReport clear(String topic, ClearScope scope) {
        return Futures.join(clearAsync(topic, scope));
    }

    /** {@link #clear(String, ClearScope)} of the waiting and parked messages: the dead queue stays. */
    default ClearReport clear(String topic) {
        return clear(topic, ClearScope.WAITING);
    }

    /**
     * The recurring messages this application declares: each tick of a schedule becomes one message, however many
     * applications declare it. Declared at run time here; the client's close stops sending ticks.
     */
    RmqSchedules schedules();
}
