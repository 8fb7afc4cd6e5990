package dev.rmq.internal.redis;

import org.junit.jupiter.api.Test;
import org.redisson.client.RedisException;
import org.redisson.client.RedisTimeoutException;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An outage is declared once, when calls have waited past the threshold, and ends with a reply. The waits here are
 * the point: the watch judges how long calls have waited, on the JVM's clock.
 */
class OutageWatchTests {

    private static final Duration THRESHOLD = Duration.ofMillis(200);

    private final List<Duration> ended = new CopyOnWriteArrayList<>();
    private final OutageWatch watch = new OutageWatch("container c of topic t", "it polls again", THRESHOLD,
            LoggerFactory.getLogger(OutageWatchTests.class), ended::add);

    @Test
    void aCallThatBeganDuringAnOutageAndAnswersLateIsPartOfItNotANewOne() {
        long stuck = watch.begin();
        pastTheThreshold();
        watch.check(System.nanoTime());
        assertThat(watch.outage()).as("declared once the call waited past the threshold").isPresent();

        // a second call begins while Redis is still silent; then the first reply arrives
        long leftover = watch.begin();
        watch.succeeded(stuck);
        assertThat(watch.outage()).isEmpty();
        assertThat(ended).hasSize(1);

        // the leftover's reply is on its way: its wait past the threshold is not a new outage
        pastTheThreshold();
        watch.check(System.nanoTime());
        assertThat(watch.outage()).isEmpty();
        watch.succeeded(leftover);
        assertThat(ended).hasSize(1);
    }

    @Test
    void aCallWhosePartsRedisRefusedIsAnsweredAndOneWithAPartUnansweredIsNot() {
        RedisException refused = new RedisException("ERR RMQ_ENVELOPE refused");
        RedisTimeoutException silent = new RedisTimeoutException("no reply in 3000 ms");
        assertThat(OutageWatch.firstUnreachable(Arrays.asList(null, refused), Function.identity())).isNull();
        assertThat(OutageWatch.firstUnreachable(Arrays.asList(refused, null, new CompletionException(silent)),
                Function.identity())).hasCause(silent);
        assertThat(OutageWatch.firstUnreachable(List.of(), Function.identity())).isNull();
    }

    @Test
    void aCallThatBeganAfterTheOutageEndedAndWaitsPastTheThresholdIsANewOutage() {
        long first = watch.begin();
        pastTheThreshold();
        watch.check(System.nanoTime());
        watch.succeeded(first);

        long second = watch.begin();
        pastTheThreshold();
        watch.check(System.nanoTime());
        assertThat(watch.outage()).isPresent();
        watch.succeeded(second);
        assertThat(ended).hasSize(2);
    }

    private static void pastTheThreshold() {
        long until = System.nanoTime() + THRESHOLD.toNanos() + TimeUnit.MILLISECONDS.toNanos(50);
        while (System.nanoTime() - until < 0) {
            LockSupport.parkNanos(until - System.nanoTime());
        }
    }
}
