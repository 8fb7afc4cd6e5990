package dev.rmq.journal;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * After Redis lost its data and a restore put the messages back, a puller of the same application delivers them
 * again at once: it forgets the deliveries Redis lost instead of waiting out their leases, and the restore wakes it
 * although the poll it had planned went with the data.
 */
class RestoreAfterFlushTests extends StandaloneRedisTest {

    private static final TopicDefinition TASKS = TopicDefinition.builder("flushed", TopicType.PRIORITY).slotAmount(4)
            .leaseTimeout(Duration.ofSeconds(60)).build();

    private RmqClient rmq;

    @AfterEach
    void close() {
        if (rmq != null) {
            rmq.close();
        }
    }

    @Test
    void aPullerDeliversRestoredMessagesAtOnceInsteadOfWaitingOutTheLostLeases() {
        rmq = RmqClient.builder(redisson).topics(List.of(TASKS)).build();
        for (int i = 0; i < 8; i++) {
            rmq.producer().send(OutgoingMessage.priority(TASKS.name(), "task-" + i, 100 + i).withKey("k" + i));
        }
        // an idle poll longer than the test: only a wake-up or an ending can make the puller poll
        try (RmqPuller<String> puller = rmq.puller(String.class).topics(TASKS.name()).idlePoll(Duration.ofMinutes(1))
                .build()) {
            puller.start();
            List<PulledMessage<String>> held = new ArrayList<>();
            while (held.size() < 8) {
                List<PulledMessage<String>> got = puller.poll(8, Duration.ofSeconds(5));
                assertThat(got).as("pulled before the flush: %s", held.size()).isNotEmpty();
                held.addAll(got);
            }

            redis.command("FLUSHALL");
            List<RestoredMessage> lost = new ArrayList<>();
            for (PulledMessage<String> message : held) {
                lost.add(new RestoredMessage(message.key(), TASKS.slotOf(message.key(), null),
                        message.priority().orElseThrow(), 0, 0, 1, Map.of(),
                        ("\"" + message.payload() + "\"").getBytes(StandardCharsets.UTF_8)));
            }
            assertThat(rmq.restorer().restore(TASKS.name(), lost)).containsOnly(RmqRestorer.Outcome.RESTORED);

            long started = System.nanoTime();
            Set<String> again = new HashSet<>();
            while (again.size() < 8 && System.nanoTime() - started < Duration.ofSeconds(20).toNanos()) {
                for (PulledMessage<String> message : puller.poll(8, Duration.ofSeconds(5))) {
                    assertThat(message.attempt()).isEqualTo(2);
                    assertThat(message.ack()).isEqualTo(AckOutcome.COMMITTED);
                    again.add(message.key());
                }
            }
            assertThat(again).as("delivered again well within the lost leases' 60 s").hasSize(8);
            assertThatThrownBy(() -> held.get(0).ack()).isInstanceOf(LeaseExpiredException.class);
        }
    }
}
