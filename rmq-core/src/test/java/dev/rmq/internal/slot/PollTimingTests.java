package dev.rmq.internal.slot;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A slot's head read apart from a poll stands for the slot until a wake-up; a wake-up that arrives while the read is
 * on its way may tell of a message the read did not see, so the head it brings back does not stand.
 */
class PollTimingTests {

    @Test
    void aHeadReadStandsUntilAWakeUp() {
        PollTiming timing = new PollTiming(System.nanoTime());
        timing.urgency(-1_000.0, timing.wakes());
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
        timing.urgency(-1_000.0, before);
        assertThat(timing.urgency()).as("the read's head, older than the wake-up").isNaN();

        timing.urgency(-900.0, timing.wakes());
        assertThat(timing.urgency()).as("a read begun after it").isEqualTo(-900.0);
    }
}
