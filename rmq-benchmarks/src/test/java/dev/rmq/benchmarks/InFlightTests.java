package dev.rmq.benchmarks;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class InFlightTests {

    @Test
    void makesACallOnlyOnceItHasAPlaceInTheWindow() throws Exception {
        InFlight window = new InFlight(2);
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        window.submit(() -> add(calls));
        window.submit(() -> add(calls));

        Thread third = new Thread(() -> window.submit(() -> add(calls)));
        third.start();
        third.join(200);

        assertThat(third.isAlive()).isTrue();
        assertThat(calls).hasSize(2);

        calls.get(0).complete(null);
        third.join(5_000);

        assertThat(calls).hasSize(3);
    }

    @Test
    void rethrowsTheFirstFailureOnceEveryCallHasCompleted() {
        InFlight window = new InFlight(4);
        window.submit(() -> CompletableFuture.completedFuture(null));
        window.submit(() -> CompletableFuture.failedFuture(new IllegalArgumentException("first")));
        window.submit(() -> CompletableFuture.failedFuture(new IllegalArgumentException("second")));

        window.awaitAll();

        assertThat(window.failed()).isTrue();
        assertThatIllegalStateException().isThrownBy(() -> window.rethrow("a send failed"))
                .withMessageStartingWith("a send failed: ").withMessageContaining("first")
                .withCauseInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void rethrowsNothingWhenNoCallFailed() {
        InFlight window = new InFlight(1);
        window.submit(() -> CompletableFuture.completedFuture(null));
        window.awaitAll();

        window.rethrow("a send failed");

        assertThat(window.failed()).isFalse();
    }

    private static CompletableFuture<Void> add(List<CompletableFuture<Void>> calls) {
        CompletableFuture<Void> call = new CompletableFuture<>();
        synchronized (calls) {
            calls.add(call);
        }
        return call;
    }
}
