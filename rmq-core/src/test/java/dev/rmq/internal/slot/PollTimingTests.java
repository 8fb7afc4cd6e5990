package dev.rmq.internal.slot;

import dev.rmq.internal.script.PrepareCall;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A slot's head read apart from a poll stands for the slot until a wake-up; a wake-up that arrives while the read is
 * on its way may tell of a message the read did not see, so the head it brings back does not stand. The same holds
 * for a poll's reply, and for the wait it planned or the backoff after it failed.
 */
class PollTimingTests {

    @Test
    void aHeadReadStandsUntilAWakeUp() {
        PollTiming timing = new PollTiming(System.nanoTime());
        timing.urgency(-1_000.0, null, timing.wakes());
        assertThat(timing.urgency()).isEqualTo(-1_000.0);

        timing.wake(0);
        assertThat(timing.urgency()).isNaN();
    }

    @Test
    void aHeadReadThatAWakeUpOvertookDoesNotStand() {
        PollTiming timing = new PollTiming(System.nanoTime());
        long before = timing.wakes();
        // the read is on its way when a send's wake-up arrives
        timing.wake(0);
        timing.urgency(-1_000.0, null, before);
        assertThat(timing.urgency()).as("the read's head, older than the wake-up").isNaN();

        timing.urgency(-900.0, null, timing.wakes());
        assertThat(timing.urgency()).as("a read begun after it").isEqualTo(-900.0);
    }

    @Test
    void aPollsPlannedWaitStandsUnlessAWakeUpCameWhileItWasOnItsWay() {
        long idle = TimeUnit.SECONDS.toNanos(1);
        PollTiming timing = new PollTiming(System.nanoTime());
        timing.polling();
        long sent = System.nanoTime();
        timing.polled(waitingFor(10_000_000L), TopicType.FIXED_TIME, idle, sent);
        assertThat(timing.nextPollNanos() - sent).as("the wait the script planned")
                .isEqualTo(TimeUnit.SECONDS.toNanos(10));
        assertThat(timing.urgency()).as("the head the wait runs to").isEqualTo(-5_000.0);

        wokenDuringAPoll(timing, 0, 10_000_000L);
        assertThat(timing.come(System.nanoTime())).as("the slot is polled again at once").isTrue();
        assertThat(timing.urgency()).as("the reply's head, older than the wake-up").isNaN();
    }

    /**
     * A poll whose reply planned a wait of {@code waitMicros}, and a send's wake-up, with a grace of
     * {@code graceNanos}, that arrived while the poll was on its way.
     */
    private static void wokenDuringAPoll(PollTiming timing, long graceNanos, long waitMicros) {
        timing.polling();
        long sent = System.nanoTime();
        timing.wake(graceNanos);
        timing.polled(waitingFor(waitMicros), TopicType.FIXED_TIME, TimeUnit.SECONDS.toNanos(1), sent);
    }

    /** A reply that took nothing and planned a wait of {@code micros}, which runs to a head due at 5,000 ms. */
    private static PrepareCall.Polled waitingFor(long micros) {
        return new PrepareCall.Polled(1_000L, micros, List.of(), 0, false, null, 5_000L, null, List.of(), List.of());
    }

    @Test
    void aWakeUpDuringAFailedPollStandsOverItsBackoff() {
        PollTiming timing = new PollTiming(System.nanoTime());
        timing.polling();
        timing.backOff();
        assertThat(timing.come(System.nanoTime())).as("a failed poll backs off").isFalse();

        timing.polling();
        // a send's wake-up arrives while the poll is on its way, and the poll then fails
        timing.wake(0);
        timing.backOff();
        assertThat(timing.come(System.nanoTime())).as("the slot is polled again at once").isTrue();
        assertThat(timing.failuresInARow()).isEqualTo(2);
    }

    @Test
    void aWakeUpDuringAPollOfAForeignZonesSlotStillWaitsItsGrace() {
        long grace = TimeUnit.SECONDS.toNanos(5);
        PollTiming timing = new PollTiming(System.nanoTime());
        wokenDuringAPoll(timing, grace, 60_000_000L);
        long now = System.nanoTime();
        assertThat(timing.come(now)).as("not before the grace").isFalse();
        assertThat(timing.nextPollNanos() - now).as("the grace, not the planned wait of a minute")
                .isLessThanOrEqualTo(grace);
    }

    @Test
    void aPrioritySlotWhoseDelayedMessageComesDueGoesFirstSinceOnlyItsPollMovesThatMessage() {
        PollTiming timing = new PollTiming(System.nanoTime());
        timing.polling();
        // messages due at priority 20, and a delayed one due 100 ms after the poll ran
        timing.polled(new PrepareCall.Polled(1_000L, 0, List.of(), 0, false, 20L, null, 100_000L, List.of(),
                List.of()), TopicType.PRIORITY, 0, System.nanoTime());
        assertThat(timing.urgency()).isEqualTo(20.0);
        await().atMost(Duration.ofSeconds(2)).until(() -> timing.urgency() == Double.POSITIVE_INFINITY);

        timing.polling();
        timing.polled(waitingFor(0), TopicType.PRIORITY, 0, System.nanoTime());
        assertThat(timing.urgency()).as("the poll that moved it read the slot anew").isNotEqualTo(Double.POSITIVE_INFINITY);
    }
}
