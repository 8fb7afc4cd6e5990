package dev.rmq.controls;

import dev.rmq.RmqClient;
import dev.rmq.consumer.AckOutcome;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.Progress;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.exceptions.MessageCancelledException;
import dev.rmq.producer.MessageRef;
import dev.rmq.producer.MessageState;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.StoredMessage;
import dev.rmq.pull.DeliveryRef;
import dev.rmq.pull.LeaseExpiredException;
import dev.rmq.pull.PulledMessage;
import dev.rmq.pull.RmqPuller;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A handler's progress reports: kept beside the delivery in Redis while it is in flight, shown by the inspector with
 * the lease deadline, able to extend the lease, and gone with the delivery however it ends.
 */
class ProgressTests extends ControlsTest {

    private static final TopicDefinition JOBS = TopicDefinition.builder("jobs", TopicType.PRIORITY).slotAmount(1)
            .leaseTimeout(Duration.ofSeconds(1)).build();
    /** A lease long enough that nothing runs out while a test holds a delivery. */
    private static final TopicDefinition LONG = TopicDefinition.builder("long-jobs", TopicType.PRIORITY).slotAmount(1)
            .leaseTimeout(Duration.ofSeconds(60)).build();
    private static final TopicDefinition ONCE = TopicDefinition.builder("once", TopicType.PRIORITY).slotAmount(1)
            .delivery(DeliveryGuarantee.AT_MOST_ONCE).build();

    private RmqClient rmq;
    private RmqPuller<String> puller;

    private PulledMessage<String> held(String key) {
        rmq = closedAfterTest(client(JOBS, ONCE));
        puller = startPuller(rmq, "jobs");
        rmq.producer().send(OutgoingMessage.priority("jobs", "p", 50).withKey(key));
        List<PulledMessage<String>> got = puller.poll(1, Duration.ofSeconds(2), "jobs");
        assertThat(got).hasSize(1);
        return got.get(0);
    }

    private StoredMessage stored(String key) {
        return rmq.producer().get(MessageRef.of("jobs", key)).orElseThrow();
    }

    /** What the slot holds of its deliveries: envelopes, and the progress of those that reported any. */
    private long inflightFields() {
        return (Long) redis.command("HLEN", "rmq:inflight{jobs_0}") + progressFields();
    }

    private long progressFields() {
        return (Long) redis.command("HLEN", "rmq:progress{jobs_0}");
    }

    @Test
    void aReportIsShownBesideTheLeaseDeadlineAndGoesWithTheAck() {
        PulledMessage<String> message = held("order-4711");
        long before = redisTimeMs();
        assertThat(stored("order-4711").progress()).as("before any report").isEmpty();

        assertThat(message.reportProgress(40, "rows 400 of 1000")).isTrue();

        StoredMessage inFlight = stored("order-4711");
        assertThat(inFlight.state()).isEqualTo(MessageState.IN_FLIGHT);
        Progress progress = inFlight.progress().orElseThrow();
        assertThat(progress.percent()).isEqualTo(40);
        assertThat(progress.note()).isEqualTo("rows 400 of 1000");
        assertThat(progress.reportedAt()).isBetween(Instant.ofEpochMilli(before), Instant.ofEpochMilli(redisTimeMs()));
        assertThat(inFlight.leaseDeadline()).as("a report alone keeps the lease").contains(message.leaseDeadline());
        assertThat(rmq.inspector().inFlight("jobs", 0, 10)).singleElement()
                .satisfies(page -> assertThat(page.progress()).contains(progress));

        message.reportProgress(90, "");
        assertThat(stored("order-4711").progress()).map(Progress::percent).as("the latest report").contains(90);

        assertThat(message.ack()).isEqualTo(AckOutcome.COMMITTED);
        assertThat(inflightFields()).as("the progress went with the delivery").isZero();
    }

    @Test
    void aReportCanExtendTheLeaseInTheSameCall() {
        PulledMessage<String> message = held("k");
        Instant first = message.leaseDeadline();

        message.reportProgress(10, "started", Duration.ofSeconds(30));

        assertThat(message.leaseDeadline()).isAfter(first.plusSeconds(25));
        assertThat(stored("k").leaseDeadline()).contains(message.leaseDeadline());
        // the lease of a second would have run out by now, and a poll would have recovered it
        awaitRedisClockPast(redisTimeMs(), 1_200);
        assertThat(puller.poll(1, Duration.ofMillis(300), "jobs")).isEmpty();
        assertThat(stored("k").state()).isEqualTo(MessageState.IN_FLIGHT);
        assertThat(message.ack()).isEqualTo(AckOutcome.COMMITTED);
    }

    @Test
    void aLeaseThatRunsOutTakesTheProgressWithItAndTheReportAfterItFails() {
        PulledMessage<String> message = held("k");
        message.reportProgress(50, "half");
        assertThat(inflightFields()).isEqualTo(2);

        awaitRedisClockPast(redisTimeMs(), 1_100);
        List<PulledMessage<String>> again = puller.poll(1, Duration.ofSeconds(3), "jobs");
        assertThat(again).as("delivered again once its lease was recovered").hasSize(1);

        assertThat(stored("k").progress()).as("the new delivery reported nothing").isEmpty();
        assertThat(inflightFields()).as("only the new delivery's envelope").isEqualTo(1);
        assertThatThrownBy(() -> message.reportProgress(60, "late")).isInstanceOf(LeaseExpiredException.class);
        assertThat(again.get(0).ack()).isEqualTo(AckOutcome.COMMITTED);
        assertThat(inflightFields()).isZero();
    }

    @Test
    void aCancelledDeliveryRefusesReportsAndItsProgressIsGone() {
        PulledMessage<String> message = held("k");
        message.reportProgress(50, "half");

        assertThat(rmq.producer().cancel(MessageRef.of("jobs", "k"))).isTrue();

        assertThat(inflightFields()).isZero();
        assertThatThrownBy(() -> message.reportProgress(60, "on"))
                .isInstanceOf(MessageCancelledException.class).hasMessageContaining("no progress is recorded");
        assertThat(message.ack()).isEqualTo(AckOutcome.CANCELLED);
    }

    @Test
    void aRetryOrADeathTakesTheProgressWithIt() {
        PulledMessage<String> message = held("k");
        message.reportProgress(70, "nearly");
        assertThat(message.retryNow("try again")).isEqualTo(AckOutcome.RETRY);
        assertThat(inflightFields()).isZero();

        PulledMessage<String> second = puller.poll(1, Duration.ofSeconds(2), "jobs").get(0);
        second.reportProgress(10, "again");
        assertThat(second.dead("give up")).isEqualTo(AckOutcome.DEAD);
        assertThat(inflightFields()).isZero();
    }

    @Test
    void anotherPullerReportsByReferenceAndItsExtensionReachesTheHolder() {
        PulledMessage<String> message = held("k");
        RmqPuller<String> other = startPuller(closedAfterTest(client(JOBS, ONCE)), "jobs");
        DeliveryRef before = message.ref();

        DeliveryRef extended = other.reportProgress(before, 25, "by reference", Duration.ofSeconds(30));

        assertThat(stored("k").progress()).map(Progress::note).contains("by reference");
        assertThat(extended.lease()).isGreaterThan(before.lease());
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(message.ref()).isEqualTo(extended));
        DeliveryRef kept = other.reportProgress(extended, 30, "keeps the lease", null);
        assertThat(kept).isEqualTo(extended);
        assertThat(message.ack()).isEqualTo(AckOutcome.COMMITTED);
        assertThatThrownBy(() -> other.reportProgress(extended, 40, "too late", null))
                .isInstanceOf(LeaseExpiredException.class);
    }

    /** One ack of a whole batch of one slot removes every envelope and every progress, in more than one HDEL. */
    @Test
    void anAckOfAThousandDeliveriesOfOneSlotTakesEveryProgressWithIt() {
        rmq = closedAfterTest(client(JOBS, ONCE));
        puller = startPuller(rmq, "jobs");
        List<dev.rmq.producer.OutgoingMessage> batch = new java.util.ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            batch.add(OutgoingMessage.priority("jobs", "p" + i, 50).withKey("k" + i));
        }
        rmq.producer().sendAll(batch);
        List<PulledMessage<String>> held = puller.poll(1_000, Duration.ofSeconds(5), "jobs");
        assertThat(held).hasSize(1_000);
        for (int i = 0; i < held.size(); i += 100) {
            held.get(i).reportProgress(50, "half", Duration.ofSeconds(30));
        }
        assertThat(inflightFields()).isEqualTo(1_010);

        assertThat(puller.ackAll(held)).containsOnly(AckOutcome.COMMITTED);

        assertThat(inflightFields()).isZero();
    }

    /**
     * A container's endings go with its next poll of the slot when that poll comes at once: polls of two through six
     * messages carry the endings of the first four (k5 and k4, then k3, which reported, and k2), the last two go in an
     * ack of their own. Either way the progress of those that reported goes with them, and the next deliveries of the
     * same keys start with none.
     */
    @Test
    void endingsCarriedByAPollTakeTheProgressOfThoseThatReportedWithThem() throws Exception {
        rmq = closedAfterTest(client(JOBS, ONCE));
        for (int i = 0; i < 6; i++) {
            rmq.producer().send(OutgoingMessage.priority("jobs", "first", 50).withKey("k" + i));
        }
        CountDownLatch firstRound = new CountDownLatch(6);
        CountDownLatch secondRound = new CountDownLatch(6);
        List<Progress> seenAgain = new CopyOnWriteArrayList<>();
        start(rmq, "jobs", String.class, (RmqMessage<String> message) -> {
            if (message.payload().equals("first")) {
                if (message.key().endsWith("0") || message.key().endsWith("3")) {
                    message.reportProgress(60, "part way");
                }
                firstRound.countDown();
            } else {
                stored(message.key()).progress().ifPresent(seenAgain::add);
                secondRound.countDown();
            }
            return ConsumeResult.success();
        }, ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(200)).withBatchSize(2));
        assertThat(firstRound.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> inflightFields() == 0);
        assertThat(redis.command("EXISTS", "rmq:progress{jobs_0}")).as("gone with its last field").isEqualTo(0L);

        for (int i = 0; i < 6; i++) {
            rmq.producer().send(OutgoingMessage.priority("jobs", "second", 50).withKey("k" + i));
        }
        assertThat(secondRound.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seenAgain).as("no delivery of the second round reported anything").isEmpty();
    }

    /**
     * Versions before the slot's progress hash kept a report in the inflight hash, under byte 255 then the key. A
     * delivery that fails or whose lease runs out takes such a report with it.
     */
    @Test
    void aReportKeptWhereEarlierVersionsKeptItGoesWhenTheDeliveryFails() {
        PulledMessage<String> message = held("k");
        // byte 255 is no character of a Java string that Redis would be sent as one byte: Lua writes it
        redis.command("EVAL", "return redis.call('HSET', KEYS[1], '\\255' .. ARGV[1], ARGV[2])", "1",
                "rmq:inflight{jobs_0}", "k", "40:" + redisTimeMs() + ":earlier");
        assertThat(inflightFields()).isEqualTo(2);

        assertThat(message.retryNow("again")).isEqualTo(AckOutcome.RETRY);

        assertThat(inflightFields()).isZero();
    }

    /**
     * During a rolling upgrade a version that kept reports in the inflight hash may end a delivery that a report of
     * this version is about, and leave the report behind. The next delivery of its key starts without it, and a poll
     * that finds nothing else in flight removes every report left.
     */
    @Test
    void aReportLeftBehindByAnotherVersionsEndingIsNotTheNextDeliverysAndGoesOnceNothingIsInFlight() {
        rmq = closedAfterTest(client(LONG));
        puller = startPuller(rmq, "long-jobs");
        rmq.producer().send(OutgoingMessage.priority("long-jobs", "p", 50).withKey("held"));
        rmq.producer().send(OutgoingMessage.priority("long-jobs", "p", 40).withKey("again"));
        PulledMessage<String> held = puller.poll(1, Duration.ofSeconds(2), "long-jobs").get(0);
        assertThat(held.key()).isEqualTo("held");
        // as such an ending leaves them: reports of deliveries no longer in flight
        redis.command("HSET", "rmq:progress{long-jobs_0}", "again", "40:1:left", "never", "70:1:left");

        // a puller polls a slot again only once what it took there ended: another one takes the next
        RmqPuller<String> other = startPuller(closedAfterTest(client(LONG)), "long-jobs");
        PulledMessage<String> again = other.poll(1, Duration.ofSeconds(2), "long-jobs").get(0);
        assertThat(again.key()).isEqualTo("again");
        assertThat(rmq.producer().get(MessageRef.of("long-jobs", "again")).orElseThrow().progress())
                .as("the new delivery reported nothing").isEmpty();
        assertThat(redis.command("HKEYS", "rmq:progress{long-jobs_0}")).as("the other delivery was in flight")
                .isEqualTo(List.of("never"));

        assertThat(held.ack()).isEqualTo(AckOutcome.COMMITTED);
        assertThat(again.ack()).isEqualTo(AckOutcome.COMMITTED);
        rmq.producer().send(OutgoingMessage.priority("long-jobs", "p", 50).withKey("next"));
        assertThat(puller.poll(1, Duration.ofSeconds(2), "long-jobs")).singleElement()
                .satisfies(next -> assertThat(next.ack()).isEqualTo(AckOutcome.COMMITTED));
        assertThat(redis.command("EXISTS", "rmq:progress{long-jobs_0}")).isEqualTo(0L);
    }

    @Test
    void aHandlerOfAContainerReportsAndTheInspectorSeesItWhileItRuns() throws Exception {
        rmq = closedAfterTest(client(JOBS, ONCE));
        CountDownLatch reported = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        start(rmq, "jobs", String.class, (RmqMessage<String> message) -> {
            message.reportProgress(75, "three of four steps", Duration.ofSeconds(20));
            reported.countDown();
            assertThat(finish.await(10, TimeUnit.SECONDS)).isTrue();
            return ConsumeResult.success();
        });
        rmq.producer().send(OutgoingMessage.priority("jobs", "p", 50).withKey("k"));
        assertThat(reported.await(10, TimeUnit.SECONDS)).isTrue();

        StoredMessage running = stored("k");
        assertThat(running.progress()).map(Progress::percent).contains(75);
        assertThat(running.leaseDeadline().orElseThrow()).as("extended by the report")
                .isAfter(Instant.ofEpochMilli(redisTimeMs()).plusSeconds(15));

        finish.countDown();
        await().atMost(Duration.ofSeconds(10)).until(() -> rmq.producer().get(MessageRef.of("jobs", "k")).isEmpty());
        assertThat(inflightFields()).isZero();
    }

    @Test
    void anAtMostOnceDeliveryHasNothingToAttachAReportTo() {
        rmq = closedAfterTest(client(JOBS, ONCE));
        RmqPuller<String> once = startPuller(rmq, "once");
        rmq.producer().send(OutgoingMessage.priority("once", "p", 50).withKey("k"));
        PulledMessage<String> message = once.poll(1, Duration.ofSeconds(2), "once").get(0);

        assertThat(message.reportProgress(50, "half")).isFalse();
        assertThat(message.ack()).isEqualTo(AckOutcome.COMMITTED);
    }

    @Test
    void aReportOutOfBoundsIsRefusedBeforeItReachesRedis() {
        PulledMessage<String> message = held("k");
        assertThatThrownBy(() -> message.reportProgress(101, "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0 to 100, was 101");
        assertThatThrownBy(() -> message.reportProgress(-1, "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> message.reportProgress(5, null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be null");
        assertThatThrownBy(() -> message.reportProgress(5, "x".repeat(Progress.MAX_NOTE + 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 500 characters");
        assertThatThrownBy(() -> message.reportProgress(5, "", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 ms");
        assertThat(stored("k").progress()).isEmpty();
        assertThat(message.ack()).isEqualTo(AckOutcome.COMMITTED);
    }
}
