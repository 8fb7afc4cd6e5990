package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.admin.ClearReport;
import dev.rmq.admin.ClearScope;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.inspect.SlotCounts;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import dev.rmq.topic.UnknownTopicException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A clear empties a topic of what waits, in every state a message waits in, and leaves what is in flight to end
 * as usual and the dead queue to its own purge, unless asked to take the dead as well.
 */
class ClearTests extends ControlsTest {

    private static final TopicDefinition JOBS = TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(4)
            .maxRetries(5).backoff(BackoffPolicy.fixed(Duration.ofHours(1))).build();
    private static final TopicDefinition OTHER = TopicDefinition.builder("other", TopicType.PRIORITY).slotAmount(4)
            .build();

    private RmqClient rmq;
    private RmqPuller<String> puller;

    @AfterEach
    void close() {
        if (puller != null) {
            puller.close();
        }
    }

    private List<PulledMessage<String>> take(int count) {
        List<PulledMessage<String>> taken = new ArrayList<>();
        while (taken.size() < count) {
            taken.addAll(puller.poll(count - taken.size(), Duration.ofSeconds(2)));
        }
        return taken;
    }

    @Test
    void aClearRemovesEveryWaitingStateAndLeavesInFlightAndDead() {
        rmq = client(JOBS, OTHER);
        puller = rmq.puller(String.class).topics(JOBS.name()).build();
        puller.start();
        // one to stay in flight, one to fail into a retry's backoff, one to die
        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "held", 900).withKey("held"));
        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "retried", 800).withKey("retried"));
        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "died", 700).withKey("died"));
        List<PulledMessage<String>> taken = take(3);
        PulledMessage<String> held = taken.stream().filter(m -> m.key().equals("held")).findFirst().orElseThrow();
        taken.stream().filter(m -> m.key().equals("retried")).findFirst().orElseThrow().retry("later");
        taken.stream().filter(m -> m.key().equals("died")).findFirst().orElseThrow().dead("no use");
        // a send of the key in flight waits, and the next poll parks it; twenty wait due now, five behind a
        // not-before time
        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "held again", 900).withKey("held"));
        try (RmqPuller<String> other = rmq.puller(String.class).topics(JOBS.name()).build()) {
            other.start();
            assertThat(other.poll(10, Duration.ofMillis(300))).isEmpty();
        }
        assertThat(rmq.inspector().counts(JOBS.name()).total().parked()).isEqualTo(1);
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            batch.add(OutgoingMessage.priority(JOBS.name(), "w" + i, 100 + i).withKey("w" + i));
        }
        for (int i = 0; i < 5; i++) {
            batch.add(OutgoingMessage.priority(JOBS.name(), "d" + i, 100).withKey("d" + i).withDelay(Duration.ofHours(1)));
        }
        rmq.producer().sendAll(batch);
        rmq.producer().send(OutgoingMessage.priority(OTHER.name(), "untouched", 100).withKey("o"));

        ClearReport report = rmq.admin().clear(JOBS.name());

        assertThat(report).isEqualTo(new ClearReport(JOBS.name(), 26, 1, 0));
        SlotCounts after = rmq.inspector().counts(JOBS.name()).total();
        assertThat(after.dueNow() + after.later() + after.retrying() + after.parked()).isZero();
        assertThat(after.inFlight()).isEqualTo(1);
        assertThat(after.dead()).isEqualTo(1);
        assertThat(rmq.producer().get(MessageRef.of(OTHER.name(), "o"))).as("another topic").isPresent();
        // the delivery in flight ends as usual, and its parked send is gone with the rest
        assertThat(held.ack()).isEqualTo(AckOutcome.COMMITTED);
        assertThat(puller.poll(10, Duration.ofMillis(300))).isEmpty();
        assertThat(rmq.producer().get(MessageRef.of(JOBS.name(), "held"))).isEmpty();

        ClearReport withDead = rmq.admin().clear(JOBS.name(), ClearScope.WAITING_AND_DEAD);
        assertThat(withDead).isEqualTo(new ClearReport(JOBS.name(), 0, 0, 1));
        assertThat(rmq.inspector().counts(JOBS.name()).total().dead()).isZero();
    }

    @Test
    void aClearedTopicTakesNewSendsAsBefore() {
        rmq = client(JOBS);
        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "old", 100).withKey("k"));
        assertThat(rmq.admin().clear(JOBS.name()).total()).isEqualTo(1);

        assertThat(rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "new", 100).withKey("k")).merged())
                .as("nothing left to merge into").isFalse();
        puller = rmq.puller(String.class).topics(JOBS.name()).build();
        puller.start();
        PulledMessage<String> taken = take(1).get(0);
        assertThat(taken.payload()).isEqualTo("new");
        assertThat(taken.ack()).isEqualTo(AckOutcome.COMMITTED);
    }

    @Test
    void badArgumentsFailBeforeAnythingIsRemoved() {
        rmq = client(JOBS);
        rmq.producer().send(OutgoingMessage.priority(JOBS.name(), "kept", 100).withKey("k"));

        assertThatThrownBy(() -> rmq.admin().clear("nope")).isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> rmq.admin().clear(JOBS.name(), null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ClearScope.WAITING");
        assertThat(rmq.producer().get(MessageRef.of(JOBS.name(), "k"))).isPresent();
    }
}
