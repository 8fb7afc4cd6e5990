package dev.rmq.controls;

import dev.rmq.consumer.AckOutcome;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.producer.BacklogFullException;
import dev.rmq.producer.BatchSendException;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendOutcome;
import dev.rmq.producer.SendReceipt;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class BacklogCapTests extends ControlsTest {

    private RmqClient capped(int maxBacklog, int slots) {
        return client(TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(slots).maxBacklog(maxBacklog).build());
    }

    @Test
    void theCapRefusesExactlyTheSendsThatWouldAddPastItAndStillTakesMerges() {
        RmqClient rmq = capped(5, 1);
        for (int i = 0; i < 5; i++) {
            rmq.producer().send(OutgoingMessage.priority("jobs", "v" + i, 50).withKey("k" + i));
        }

        assertThatThrownBy(() -> rmq.producer().send(OutgoingMessage.priority("jobs", "v5", 50).withKey("k5")))
                .isInstanceOf(BacklogFullException.class)
                .hasMessage("topic 'jobs' slot 0 already holds 5 waiting messages, its share of maxBacklog 5 over 1"
                        + " slot(s); the message with key 'k5' was refused. Consume faster, raise the topic's maxBacklog,"
                        + " or send it again later")
                .satisfies(e -> {
                    BacklogFullException full = (BacklogFullException) e;
                    assertThat(full.topic()).isEqualTo("jobs");
                    assertThat(full.slot()).isZero();
                    assertThat(full.slotCap()).isEqualTo(5);
                });
        SendReceipt merged = rmq.producer().send(OutgoingMessage.priority("jobs", "v0-again", 90).withKey("k0"));
        assertThat(merged.merged()).isTrue();
        assertThat(rmq.inspector().totals("jobs").backlog()).isEqualTo(5);
        assertThat(count("rmq.send.refused", "topic", "jobs")).isEqualTo(1);
    }

    @Test
    void aBatchSaysWhichMessagesWereRefusedAndStoresTheRest() {
        RmqClient rmq = capped(5, 1);
        rmq.producer().send(OutgoingMessage.priority("jobs", "old", 50).withKey("k0"));
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            batch.add(OutgoingMessage.priority("jobs", "v" + i, 50).withKey("k" + i));
        }

        BatchSendException refused = (BatchSendException) org.assertj.core.api.Assertions.catchThrowable(
                () -> rmq.producer().sendAll(batch));

        assertThat(refused).hasMessageStartingWith("batch of 8 message(s): 5 stored, 3 refused, 0 unknown; toResend() gives");
        assertThat(refused.outcomes()).extracting(SendOutcome::status).containsExactly(SendOutcome.Status.STORED,
                SendOutcome.Status.STORED, SendOutcome.Status.STORED, SendOutcome.Status.STORED,
                SendOutcome.Status.STORED, SendOutcome.Status.REFUSED, SendOutcome.Status.REFUSED,
                SendOutcome.Status.REFUSED);
        assertThat(refused.outcomes().get(0).receipt().merged()).isTrue();
        assertThat(refused.stored()).hasSize(5);
        assertThat(refused.refused()).extracting(OutgoingMessage::key).containsExactly("k5", "k6", "k7");
        assertThat(refused.outcomes().get(7).error()).isInstanceOf(BacklogFullException.class);
        assertThat(rmq.inspector().totals("jobs").backlog()).isEqualTo(5);
    }

    @Test
    void consumingMakesRoomAgain() {
        RmqClient rmq = capped(3, 1);
        for (int i = 0; i < 3; i++) {
            rmq.producer().send(OutgoingMessage.priority("jobs", "v" + i, 50).withKey("k" + i));
        }
        assertThatThrownBy(() -> rmq.producer().send(OutgoingMessage.priority("jobs", "x", 50).withKey("x")))
                .isInstanceOf(BacklogFullException.class);
        start(rmq, "jobs", String.class, m -> ConsumeResult.success());
        await().atMost(Duration.ofSeconds(5)).until(() -> rmq.inspector().totals("jobs").backlog() == 0);

        assertThat(rmq.producer().send(OutgoingMessage.priority("jobs", "x", 50).withKey("x")).merged()).isFalse();
    }

    @Test
    void theCapCountsWhatWaitsAndWhatIsParkedButNotWhatIsInFlight() {
        RmqClient rmq = capped(2, 1);
        rmq.producer().send(OutgoingMessage.priority("jobs", "first", 90).withKey("a"));
        rmq.producer().send(OutgoingMessage.priority("jobs", "second", 50).withKey("b"));
        RmqPuller<String> puller = rmq.puller(String.class).topics("jobs").build();
        puller.start();
        try {
            PulledMessage<String> taken = puller.poll(1, Duration.ofSeconds(5)).get(0);
            assertThat(taken.key()).isEqualTo("a");

            // 'b' waits and 'a' is in flight: a send of 'a' is parked behind its delivery, since what is in
            // flight leaves room
            assertThat(rmq.producer().send(OutgoingMessage.priority("jobs", "newer", 50).withKey("a")).merged())
                    .isFalse();
            // 'b' and the parked 'a' fill the slot
            assertThatThrownBy(() -> rmq.producer().send(OutgoingMessage.priority("jobs", "x", 50).withKey("x")))
                    .isInstanceOf(BacklogFullException.class);

            // the delivery fails: the newer send of its key takes its place, and the count stays
            assertThat(taken.retry("not now")).isEqualTo(AckOutcome.MERGED);
            assertThat(rmq.inspector().totals("jobs").backlog()).isEqualTo(2);
        } finally {
            puller.close();
        }
    }

    @Test
    void aMessageWaitingForItsRetryCounts() {
        RmqClient rmq = capped(1, 1);
        rmq.producer().send(OutgoingMessage.priority("jobs", "first", 50).withKey("a"));
        RmqPuller<String> puller = rmq.puller(String.class).topics("jobs").build();
        puller.start();
        try {
            assertThat(puller.poll(1, Duration.ofSeconds(5)).get(0).retry("not now")).isEqualTo(AckOutcome.RETRY);

            assertThatThrownBy(() -> rmq.producer().send(OutgoingMessage.priority("jobs", "x", 50).withKey("x")))
                    .isInstanceOf(BacklogFullException.class);
        } finally {
            puller.close();
        }
    }

    @Test
    void theCapIsSplitEvenlyOverTheSlotsRoundedUp() {
        RmqClient rmq = capped(10, 4);
        assertThat(rmq.topics().require("jobs").maxBacklogPerSlot()).isEqualTo(3);
        int sent = 0;
        int refused = 0;
        // keys all routed to slot 2 by their slot basis
        for (int i = 0; i < 6; i++) {
            try {
                rmq.producer().send(OutgoingMessage.priority("jobs", "v" + i, 50).withKey("k" + i).withSlotBasis("basis"));
                sent++;
            } catch (BacklogFullException e) {
                refused++;
                assertThat(e.slotCap()).isEqualTo(3);
                assertThat(e.maxBacklog()).isEqualTo(10);
            }
        }
        assertThat(sent).isEqualTo(3);
        assertThat(refused).isEqualTo(3);
    }
}
