package dev.rmq.benchmarks;

import java.time.Instant;

/** The local wall clock in microseconds. */
final class Clocks {

    private Clocks() {
    }

    static long micros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }
}
