package dev.rmq.benchmarks;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CallTimerTests {

    private static final RedisProbe.Cost NO_COST = new RedisProbe.Cost(0, 0, Map.of(), 0, 0);

    @Test
    void isDoneAtTheCountThCallAndNotBefore() {
        CallTimer timer = new CallTimer(3);
        timer.call();
        timer.call();

        assertThat(timer.await(0)).isFalse();

        timer.call();

        assertThat(timer.await(0)).isTrue();
        assertThat(timer.calls()).isEqualTo(3);
    }

    @Test
    void countsTheMessagesAfterTheFirstCallWhichStartsTheClock() {
        CallTimer timer = new CallTimer(4);
        for (int i = 0; i < 4; i++) {
            timer.call();
        }

        Measured measured = timer.measured(NO_COST);

        assertThat(measured.messages()).isEqualTo(3);
        assertThat(measured.seconds()).isGreaterThanOrEqualTo(0);
    }
}
