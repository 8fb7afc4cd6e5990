package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.admin.PauseState;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import dev.rmq.topic.UnknownTopicException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Two applications, each with its own Redis connection and container on the same topic and without ZooKeeper (so
 * both poll every slot): a pause holds for both within a second and survives their restart; a resume lets both go
 * on within a second.
 */
class PauseTests extends ControlsTest {

    private static final TopicDefinition JOBS = TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(4).build();
    private final Applications applications = new Applications(redis, JOBS, ConsumerSettings.DEFAULTS.withBatchSize(4));
    /** Handler starts, in this JVM's nano clock. */
    private final Queue<Long> starts = applications.starts;

    @AfterEach
    void stopApplications() {
        applications.close();
    }

    /** One application: a connection of its own, and a container with the default 1 s idle poll. */
    private RmqClient application() {
        return applications.add(true);
    }

    private void send(RmqClient rmq, int count) {
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batch.add(OutgoingMessage.priority("jobs", "m" + System.nanoTime() + "-" + i, 50));
        }
        rmq.producer().sendAll(batch);
    }

    @Test
    void aPauseHoldsForEveryConsumerOfEveryApplicationAndSurvivesTheirRestart() throws Exception {
        RmqClient first = application();
        application();
        send(first, 20);
        await().atMost(Duration.ofSeconds(5)).until(() -> starts.size() == 20);

        PauseState paused = first.admin().pause("jobs");
        long pausedAt = System.nanoTime();
        assertThat(paused.paused()).isTrue();
        assertThat(paused.describe()).isEqualTo("paused");

        // sends are still taken while paused; no consumer takes them
        send(first, 30);
        long callsBefore = scriptCalls();
        holdsFor(Duration.ofMillis(1_500),
                () -> assertThat(starts).allSatisfy(at -> assertThat(at).isLessThan(pausedAt + 1_000_000_000L)));
        // a paused slot is polled once per idle poll: 8 slot sessions, about 12 polls in 1.5 s, not one per millisecond
        assertThat(scriptCalls() - callsBefore).as("script calls while paused").isLessThan(100);
        assertThat(first.inspector().totals("jobs").backlog()).isEqualTo(30);
        assertThat(first.inspector().totals("jobs").paused()).isTrue();
        // the counts say the same, slot by slot
        assertThat(PauseState.of(first.inspector().counts("jobs"))).isEqualTo(paused);

        // both applications restart: the pause is in Redis and still holds
        applications.close();
        RmqClient restarted = application();
        application();
        holdsFor(Duration.ofMillis(1_500), () -> assertThat(starts).hasSize(20));
        assertThat(restarted.admin().pauseState("jobs").paused()).isTrue();

        long resumedAt = System.nanoTime();
        assertThat(restarted.admin().resume("jobs").describe()).isEqualTo("running");
        await().atMost(Duration.ofSeconds(5)).until(() -> starts.size() == 50);
        long firstAfter = starts.stream().skip(20).mapToLong(Long::longValue).min().orElseThrow();
        assertThat(firstAfter - resumedAt).as("ns from the resume to the first delivery").isLessThan(1_000_000_000L);
        assertThat(restarted.inspector().totals("jobs").paused()).isFalse();
        assertThat(PauseState.of(restarted.inspector().counts("jobs")).describe()).isEqualTo("running");
    }

    @Test
    void pausingAnUnknownTopicIsRefused() {
        RmqClient rmq = client(JOBS);
        assertThatThrownBy(() -> rmq.admin().pause("nope")).isInstanceOf(UnknownTopicException.class);
    }
}
