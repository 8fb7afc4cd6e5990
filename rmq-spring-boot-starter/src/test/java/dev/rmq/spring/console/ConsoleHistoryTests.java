package dev.rmq.spring.console;

import dev.rmq.RmqClient;
import dev.rmq.embedded.RedisServer;
import dev.rmq.spring.TestRedisson;
import dev.rmq.spring.actuate.SlotOwners;
import dev.rmq.testsupport.RedisExtension;
import dev.rmq.testsupport.TcpProxy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.redisson.api.RedissonClient;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@ExtendWith({RedisExtension.class, OutputCaptureExtension.class})
class ConsoleHistoryTests {

    private static final String THREAD = "rmq-console-history";

    @Test
    void aSampleCutShortByTheCloseIsNotReportedAsAFailure(RedisServer redis, CapturedOutput output) {
        TcpProxy link = TcpProxy.to(redis.host(), redis.port());
        RedissonClient viaLink = TestRedisson.impatient(link.redisAddress(), 10_000);
        try {
            RmqClient client = RmqClient.builder(viaLink)
                    .topic(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(2).build()).build();
            ConsoleHistory history = new ConsoleHistory(new ConsoleData(client, new SlotOwners(null, null),
                    Duration.ofSeconds(1)), ConsoleMeters.NONE, Duration.ofSeconds(1), Duration.ofMinutes(1));
            link.stall();
            history.start();
            // the first sample waits for a Redis that the link holds silent, as one does at an application's stop
            await().atMost(Duration.ofSeconds(10)).until(() -> samplerWaiting() != null);
            Thread sampler = samplerWaiting();
            history.close();
            await().atMost(Duration.ofSeconds(10)).until(() -> !sampler.isAlive());
            assertThat(output).doesNotContain("could not sample topic");
        } finally {
            link.close();
            viaLink.shutdown();
        }
    }

    /** The history's thread while it waits inside a sample, or null. */
    private static Thread samplerWaiting() {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(entry -> entry.getKey().getName().equals(THREAD))
                .filter(entry -> entry.getKey().getState() != Thread.State.RUNNABLE)
                .filter(entry -> Arrays.stream(entry.getValue())
                        .anyMatch(frame -> frame.getMethodName().equals("sampleAll")))
                .map(Map.Entry::getKey).findFirst().orElse(null);
    }
}
