package dev.rmq.faults;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.assertj.core.api.Assertions.assertThat;

class ConsumerTailTests {

    private static String delivered(String worker, String key, long micros) {
        return "{\"event\":\"delivered\",\"micros\":" + micros + ",\"incarnation\":\"c1-1\",\"worker\":\"" + worker
                + "\",\"topic\":\"faults-fixed-v\",\"slot\":2,\"key\":\"" + key + "\",\"seq\":1,\"probe\":"
                + key.startsWith(Workload.PROBE_PREFIX) + ",\"attempt\":1,\"redisNowMs\":1,\"dueMs\":1,\"fixedMs\":0,"
                + "\"leaseMs\":3001,\"workMs\":5,\"callMicros\":" + micros + "}\n";
    }

    private static String handled(String worker, String key, long micros) {
        return "{\"event\":\"handled\",\"micros\":" + micros + ",\"incarnation\":\"c1-1\",\"worker\":\"" + worker
                + "\",\"topic\":\"faults-fixed-v\",\"slot\":2,\"key\":\"" + key + "\",\"seq\":1,\"attempt\":1,"
                + "\"outcome\":\"ok\"}\n";
    }

    @Test
    void followsALogWrittenFasterThanOneReadTakesWithLinesCutBetweenReads(@TempDir Path dir) throws IOException {
        Path log = dir.resolve("consumer-c1-1.events");
        StringBuilder backlog = new StringBuilder();
        // about 20 MB: several of the tail's 4 MB reads, each ending inside a line
        for (int i = 0; i < 60_000; i++) {
            backlog.append(delivered("w0", "k" + i, 1_000L + i)).append(handled("w0", "k" + i, 1_001L + i));
        }
        backlog.append(delivered("w1", "still-running", 90_000));
        String probe = Workload.PROBE_PREFIX + "7.faults-fixed-v.2";
        backlog.append(delivered("w0", probe, 100_000));
        String probeEnd = handled("w0", probe, 100_005);
        backlog.append(probeEnd, 0, 40);
        Files.writeString(log, backlog, StandardCharsets.UTF_8);

        try (ConsumerTail tail = new ConsumerTail()) {
            tail.follow("c1-1", log);
            for (int read = 0; read < 10 && !tail.openHandlers("c1-1").containsKey("w1"); read++) {
                assertThat(read).as("reads of at most 4 MB each to reach the end of 20 MB").isLessThan(9);
            }
            assertThat(tail.openHandlers("c1-1")).containsOnlyKeys("w0", "w1");
            assertThat(tail.probeDone(probe)).as("its ending is half written").isNull();

            Files.writeString(log, probeEnd.substring(40), StandardCharsets.UTF_8, StandardOpenOption.APPEND);
            assertThat(tail.openHandlers("c1-1")).containsOnlyKeys("w1");
            assertThat(tail.openHandlers("c1-1").get("w1").key()).isEqualTo("still-running");
            assertThat(tail.probeDone(probe)).isEqualTo(100_005L);
        }
    }
}
