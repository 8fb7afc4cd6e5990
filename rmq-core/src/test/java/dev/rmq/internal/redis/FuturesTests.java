package dev.rmq.internal.redis;

import dev.rmq.exceptions.RmqUnavailableException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FuturesTests {

    @Test
    void aCallTheClientNeverCompletesEndsAtTheLimitAsRedisUnavailable() {
        assertThatThrownBy(() -> Futures.joinWithin(new CompletableFuture<>(), Duration.ofMillis(50)))
                .isInstanceOf(RmqUnavailableException.class)
                .hasMessage("the Redis client did not complete a call within PT0.05S");
    }

    @Test
    void aFailedCallRethrowsItsCauseUnwrapped() {
        IllegalStateException cause = new IllegalStateException("boom");
        assertThatThrownBy(() -> Futures.joinWithin(CompletableFuture.failedFuture(cause), Duration.ofSeconds(1)))
                .isSameAs(cause);
        assertThat(Futures.joinBounded(CompletableFuture.completedFuture("ok"))).isEqualTo("ok");
    }
}
