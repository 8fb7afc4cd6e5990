package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.DeadReason;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.BackoffPolicy;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Handing a message back: due again at once at its place, not an attempt, and bounded by the topic's releases. */
class ReleaseTests extends ControlsTest {

    private static final TopicDefinition JOBS = TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1)
            .maxRetries(1).maxReleases(2).backoff(BackoffPolicy.fixed(Duration.ofMinutes(1))).build();
    private static final TopicDefinition ORDERS = TopicDefinition.builder("orders", TopicType.FIXED_TIME)
            .slotAmount(1).leaseTimeout(Duration.ofMillis(300)).build();
    /** Its lease of 30 s keeps an idle consumer from polling again before it runs out. */
    private static final TopicDefinition TIMED = TopicDefinition.builder("timed", TopicType.FIXED_TIME)
            .slotAmount(1).build();

    private RmqClient rmq;
    private RmqPuller<String> puller;

    private RmqPuller<String> puller(String topic) {
        rmq = closedAfterTest(client(JOBS, ORDERS, TIMED));
        puller = startPuller(rmq, topic);
        return puller;
    }

    private PulledMessage<String> pollOne(String topic) {
        List<PulledMessage<String>> got = puller.poll(1, Duration.ofSeconds(2), topic);
        assertThat(got).hasSize(1);
        return got.get(0);
    }

    @Test
    void aReleasedMessageComesBackAtOnceAtItsPlaceWithoutSpendingAnAttempt() {
        puller("jobs");
        rmq.producer().send(OutgoingMessage.priority("jobs", "urgent", 90).withKey("urgent"));
        PulledMessage<String> first = pollOne("jobs");
        // sent while the urgent one is out, and less urgent: the released one must come before it
        rmq.producer().send(OutgoingMessage.priority("jobs", "later", 20).withKey("later"));

        assertThat(first.release()).isEqualTo(AckOutcome.RELEASED);
        assertThat(first.isSettled()).isTrue();

        PulledMessage<String> again = pollOne("jobs");
        assertThat(again.key()).isEqualTo("urgent");
        assertThat(again.attempt()).as("a release is not an attempt").isEqualTo(1);
        assertThat(again.releases()).isEqualTo(1);
        assertThat(again.ack()).isEqualTo(AckOutcome.COMMITTED);
        assertThat(pollOne("jobs").key()).isEqualTo("later");
        assertThat(count("rmq.released", "topic", "jobs")).isEqualTo(1);
    }

    @Test
    void theReleaseAfterTheLastAllowedOneSendsTheMessageDeadWithItsOwnReason() {
        puller("jobs");
        rmq.producer().send(OutgoingMessage.priority("jobs", "j", 50).withKey("j"));

        assertThat(pollOne("jobs").release()).isEqualTo(AckOutcome.RELEASED);
        // extend(ZERO) is the same hand-back
        pollOne("jobs").extend(Duration.ZERO);
        PulledMessage<String> third = pollOne("jobs");
        assertThat(third.releases()).isEqualTo(2);
        assertThat(third.attempt()).isEqualTo(1);
        assertThat(third.release()).isEqualTo(AckOutcome.DEAD);

        List<DeadMessage> dead = rmq.deadQueue().list("jobs", 0, 0, 10);
        assertThat(dead).singleElement().satisfies(message -> {
            assertThat(message.reason()).isEqualTo(DeadReason.RELEASES_SPENT);
            assertThat(message.attempts()).isEqualTo(0);
        });
        assertThat(puller.poll(1, Duration.ofMillis(300), "jobs")).isEmpty();

        // requeued, it starts over, its releases included
        assertThat(rmq.deadQueue().requeue("jobs", 0, "j")).isTrue();
        PulledMessage<String> requeued = pollOne("jobs");
        assertThat(requeued.releases()).isZero();
        assertThat(requeued.release()).isEqualTo(AckOutcome.RELEASED);
    }

    @Test
    void aReleaseOnATimedTopicWakesAnIdleConsumerRatherThanWaitingForItsNextPoll() {
        puller("timed");
        rmq.producer().send(OutgoingMessage.fixedTime("timed", "o", Instant.ofEpochMilli(redisTimeMs()))
                .withKey("o"));
        PulledMessage<String> taken = pollOne("timed");
        List<String> seen = new CopyOnWriteArrayList<>();
        long calls = scriptCalls();
        // a listener that would poll again only after a minute: only a wake brings it the message in time
        RmqConsumerContainer<String> listener = start(rmq, "timed", String.class, m -> {
            seen.add(m.key() + "/" + m.releases());
            return ConsumeResult.success();
        }, ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMinutes(1)));
        // it has made its first poll, which found the message in flight, and the topic's wake channel is subscribed
        // (the client's one subscription, which the puller opened and the listener joins as it starts)
        await().atMost(Duration.ofSeconds(10)).until(() -> scriptCalls() > calls && wakeSubscribers() > 0);

        assertThat(taken.release()).isEqualTo(AckOutcome.RELEASED);
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.equals(List.of("o/1")));
        listener.stop(Duration.ofSeconds(5));
    }

    /** How many subscribers the timed topic's wake channel has. */
    private static long wakeSubscribers() {
        long count = 0;
        List<?> channels = (List<?>) Objects.requireNonNull(redis.command("PUBSUB", "CHANNELS", "*timed*"));
        for (Object channel : channels) {
            List<?> reply = (List<?>) Objects.requireNonNull(redis.command("PUBSUB", "NUMSUB", String.valueOf(channel)));
            count += (Long) reply.get(1);
        }
        return count;
    }

    @Test
    void aReleaseOfAKeyThatANewerSendWaitsForGivesWayToIt() {
        puller("jobs");
        rmq.producer().send(OutgoingMessage.priority("jobs", "old", 50).withKey("k"));
        PulledMessage<String> old = pollOne("jobs");
        rmq.producer().send(OutgoingMessage.priority("jobs", "new", 50).withKey("k"));

        assertThat(old.release()).isEqualTo(AckOutcome.MERGED);
        PulledMessage<String> next = pollOne("jobs");
        assertThat(next.payload()).isEqualTo("new");
        assertThat(next.releases()).isZero();
    }

    @Test
    void aReleaseThatComesAfterTheLeaseRanOutDoesNothing() {
        puller("orders");
        rmq.producer().send(OutgoingMessage.fixedTime("orders", "o", Instant.ofEpochMilli(redisTimeMs()))
                .withKey("o"));
        PulledMessage<String> taken = pollOne("orders");
        awaitRedisClockPast(taken.leaseDeadline().toEpochMilli(), 50);

        assertThatThrownBy(taken::release).isInstanceOf(LeaseExpiredException.class);
        // recovered as a failed attempt, as any delivery whose lease ran out
        PulledMessage<String> again = pollOne("orders");
        assertThat(again.attempt()).isEqualTo(2);
        assertThat(again.releases()).isZero();
    }

    @Test
    void aHandlerReleasesAMessageItCannotTakeNowAndGetsItBackAsTheSameAttempt() {
        // a client of its own, left open: the container stops after the test, before its client may close
        RmqClient listening = client(JOBS, ORDERS);
        listening.producer().send(OutgoingMessage.priority("jobs", "j", 50).withKey("j"));
        List<String> seen = new CopyOnWriteArrayList<>();
        start(listening, "jobs", String.class, m -> {
            seen.add(m.attempt() + "/" + m.releases());
            return m.releases() == 0 ? ConsumeResult.release("downstream busy") : ConsumeResult.success();
        });

        await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 2);
        assertThat(seen).containsExactly("1/0", "1/1");
        holdsFor(Duration.ofMillis(300), () -> assertThat(seen).hasSize(2));
        assertThat(count("rmq.released", "topic", "jobs")).isEqualTo(1);
        assertThat(listening.deadQueue().count("jobs")).isZero();
    }
}
