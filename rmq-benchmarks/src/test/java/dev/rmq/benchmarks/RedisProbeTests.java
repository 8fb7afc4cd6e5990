package dev.rmq.benchmarks;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class RedisProbeTests {

    @Test
    void allocationIsComparedThreadByThread() {
        RedisProbe.Snapshot before = snapshot(Map.of(1L, 1_000L, 2L, 5_000L));
        // thread 1 allocated 300 more, thread 2 ended, thread 3 started and allocated 700
        RedisProbe.Snapshot after = snapshot(Map.of(1L, 1_300L, 3L, 700L));

        assertThat(after.since(before).jvmAllocatedBytes()).isEqualTo(1_000);
    }

    @Test
    void allocationIsUnknownWhereThePlatformDoesNotTell() {
        assertThat(snapshot(null).since(snapshot(Map.of(1L, 1L))).jvmAllocatedBytes()).isNaN();
    }

    private static RedisProbe.Snapshot snapshot(Map<Long, Long> allocated) {
        return new RedisProbe.Snapshot(0, 0, Map.of(), 0, allocated);
    }
}
