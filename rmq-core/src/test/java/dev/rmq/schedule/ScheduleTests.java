package dev.rmq.schedule;

import dev.rmq.RmqClient;
import dev.rmq.StandaloneRedisTest;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.metrics.MicrometerRmqMetrics;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Recurring schedules on a real Redis, declared by several applications (clients) at once: each tick once, what a
 * misfire policy does after every application stopped, overlap, and the operations.
 */
class ScheduleTests extends StandaloneRedisTest {

    private static final Duration SECOND = Duration.ofSeconds(1);

    private final List<AutoCloseable> closing = new ArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    /** Each tick's deliveries, by the tick header. */
    private final Map<Instant, AtomicInteger> delivered = new ConcurrentHashMap<>();
    private final List<Instant> dueTimes = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private static TopicDefinition timers(String name) {
        return TopicDefinition.builder(name, TopicType.FIXED_TIME).slotAmount(4).build();
    }

    /** An application: a client of its own, which declares {@code schedules}. */
    private RmqClient application(TopicDefinition topic, RecurringSchedule... schedules) {
        RmqClient client = RmqClient.builder(redisson).topic(topic).metrics(new MicrometerRmqMetrics(meters)).build();
        closing.add(client);
        for (RecurringSchedule schedule : schedules) {
            client.schedules().upsert(schedule);
        }
        return client;
    }

    /** A consumer that counts each tick's deliveries; returns how many run at once at most. */
    private AtomicInteger consume(RmqClient client, String topic, Duration work) {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        RmqConsumerContainer<String> container = client.container(topic, String.class, (RmqMessage<String> m) -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                delivered.computeIfAbsent(Instant.parse(m.headers().get(RecurringSchedule.TICK_HEADER)),
                        t -> new AtomicInteger()).incrementAndGet();
                m.dueTime().ifPresent(dueTimes::add);
                if (!work.isZero()) {
                    await().pollDelay(work).atMost(work.plusSeconds(1)).until(() -> true);
                }
                return ConsumeResult.success();
            } finally {
                running.decrementAndGet();
            }
        }).settings(ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(200)).withConcurrency(4)).build();
        container.start();
        closing.add(() -> container.stop(Duration.ofSeconds(5)));
        return most;
    }

    private double count(String name, String... tags) {
        Counter counter = meters.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    @Test
    void threeApplicationsDeclaringOneScheduleSendEachTickOnceEvenWhenOneStops() {
        TopicDefinition topic = timers("beats");
        RecurringSchedule beat = RecurringSchedule.builder("beat", "beats", TickRule.every(SECOND)).payload("tick")
                .build();
        RmqClient first = application(topic, beat);
        application(topic, beat);
        RmqClient third = application(topic, beat);
        consume(first, "beats", Duration.ZERO);

        Instant start = Instant.now();
        await().atMost(Duration.ofSeconds(40)).until(() -> Instant.now().isAfter(start.plusSeconds(15)));
        third.close();
        await().atMost(Duration.ofSeconds(40)).until(() -> Instant.now().isAfter(start.plusSeconds(30)));
        Instant end = Instant.now().minusSeconds(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> delivered.keySet().stream().anyMatch(t -> t.isAfter(end)));

        List<Instant> ticks = delivered.keySet().stream().filter(t -> !t.isAfter(end)).sorted().toList();
        assertThat(ticks.size()).isGreaterThanOrEqualTo(27);
        for (int i = 1; i < ticks.size(); i++) {
            assertThat(Duration.between(ticks.get(i - 1), ticks.get(i))).as("no tick missing after %s", ticks.get(i - 1))
                    .isEqualTo(SECOND);
        }
        assertThat(delivered.values()).allSatisfy(times -> assertThat(times).as("each tick once").hasValue(1));
        assertThat(count("rmq.schedule.ticks", "schedule", "beat")).as("sent: those delivered, and those sent ahead")
                .isBetween((double) delivered.size(), delivered.size() + 2.0);
    }

    /**
     * Runs {@code beat} in one application for two ticks, then stops it and lets five ticks fall unsent: those of
     * the seven seconds after the stop, but for the tick sent ahead (a second) and the grace (a second).
     */
    private Instant runThenStopForFiveTicks(TopicDefinition topic, RecurringSchedule beat) {
        RmqClient before = application(topic, beat);
        consume(before, topic.name(), Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> delivered.size() >= 2);
        before.close();
        Instant stopped = Instant.now();
        await().atMost(Duration.ofSeconds(20)).until(() -> Instant.now().isAfter(stopped.plusMillis(7_500)));
        return stopped;
    }

    @Test
    void afterEveryApplicationStoppedFireOnceSendsOneMessageForTheMissedTicks() {
        TopicDefinition topic = timers("once");
        RecurringSchedule beat = RecurringSchedule.builder("once-beat", "once", TickRule.every(SECOND)).build();
        runThenStopForFiveTicks(topic, beat);
        int before = delivered.size();

        RmqClient after = application(topic, beat);
        consume(after, "once", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> delivered.size() >= before + 3);

        assertThat(count("rmq.schedule.misfires", "schedule", "once-beat", "policy", "FIRE_ONCE"))
                .isGreaterThanOrEqualTo(4);
        List<Instant> ticks = delivered.keySet().stream().sorted().toList();
        // the ticks sent ahead before the stop, then one for all that were missed, then on time again
        long gaps = 0;
        for (int i = 1; i < ticks.size(); i++) {
            gaps += Duration.between(ticks.get(i - 1), ticks.get(i)).compareTo(SECOND) > 0 ? 1 : 0;
        }
        assertThat(gaps).as("one jump over the missed ticks").isEqualTo(1);
        assertThat(delivered.values()).allSatisfy(times -> assertThat(times).hasValue(1));
    }

    @Test
    void afterEveryApplicationStoppedSkipSendsNoneOfTheMissedTicksAndFireAllSendsEach() {
        TopicDefinition skipping = timers("skipping");
        RecurringSchedule skip = RecurringSchedule.builder("skip-beat", "skipping", TickRule.every(SECOND))
                .misfire(Misfire.SKIP).build();
        Instant stopped = runThenStopForFiveTicks(skipping, skip);
        RmqClient after = application(skipping, skip);
        consume(after, "skipping", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> delivered.keySet().stream()
                .filter(t -> t.isAfter(stopped.plusSeconds(7))).count() >= 2);
        assertThat(delivered.keySet()).as("nothing of the stop")
                .noneMatch(t -> t.isAfter(stopped.plusSeconds(2)) && t.isBefore(stopped.plusSeconds(6)));
        assertThat(count("rmq.schedule.misfires", "schedule", "skip-beat", "policy", "SKIP")).isGreaterThanOrEqualTo(4);

        delivered.clear();
        TopicDefinition all = timers("catching");
        RecurringSchedule every = RecurringSchedule.builder("all-beat", "catching", TickRule.every(SECOND))
                .misfire(Misfire.fireAll(100)).build();
        Instant halted = runThenStopForFiveTicks(all, every);
        RmqClient resumed = application(all, every);
        consume(resumed, "catching", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> delivered.keySet().stream()
                .filter(t -> t.isAfter(halted.plusSeconds(8))).count() >= 1);
        List<Instant> ticks = delivered.keySet().stream().sorted().toList();
        for (int i = 1; i < ticks.size(); i++) {
            assertThat(Duration.between(ticks.get(i - 1), ticks.get(i))).as("every missed tick sent").isEqualTo(SECOND);
        }
    }

    @Test
    void withOverlapSkipATickThatComesWhileThePreviousRunsIsDroppedAndCounted() {
        TopicDefinition topic = timers("slow");
        RecurringSchedule slow = RecurringSchedule.builder("slow-beat", "slow", TickRule.every(SECOND))
                .overlap(Overlap.SKIP).build();
        RmqClient client = application(topic, slow);
        AtomicInteger most = consume(client, "slow", Duration.ofMillis(2_500));

        await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() >= 3);
        assertThat(most).as("never two ticks at once").hasValue(1);
        assertThat(count("rmq.schedule.skipped", "schedule", "slow-beat")).isGreaterThanOrEqualTo(3);
        List<Instant> ticks = delivered.keySet().stream().sorted().toList();
        assertThat(Duration.between(ticks.get(0), ticks.get(1))).as("the ticks during a run are dropped")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aPauseStopsTicksInEveryApplicationAndAResumeStartsFromTheNext() {
        TopicDefinition topic = timers("paused");
        RecurringSchedule beat = RecurringSchedule.builder("paused-beat", "paused", TickRule.every(SECOND))
                .payload(Map.of("job", "report")).header("tenant", "acme").build();
        RmqClient one = application(topic, beat);
        RmqClient other = application(topic, beat);
        consume(one, "paused", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> delivered.size() >= 2);

        other.schedules().pause("paused-beat");
        Instant paused = Instant.now();
        assertThat(one.schedules().list()).singleElement().satisfies(status -> {
            assertThat(status.paused()).isTrue();
            assertThat(status.nextTick()).isNull();
            assertThat(status.rule()).isEqualTo("every PT1S");
        });
        await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> true);
        assertThat(delivered.keySet()).as("no tick after the pause").noneMatch(t -> t.isAfter(paused.plusMillis(200)));

        one.schedules().trigger("paused-beat");
        await().atMost(Duration.ofSeconds(5)).until(() -> delivered.keySet().stream().anyMatch(t -> t.isAfter(paused)));
        one.schedules().resume("paused-beat");
        Instant resumed = Instant.now();
        await().atMost(Duration.ofSeconds(10)).until(() -> delivered.keySet().stream()
                .filter(t -> t.isAfter(resumed)).count() >= 2);
        assertThat(count("rmq.schedule.misfires", "schedule", "paused-beat", "policy", "FIRE_ONCE"))
                .as("the pause's ticks are not misfires").isZero();
        assertThat(one.schedules().list().get(0).nextTick()).isAfter(resumed);

        one.schedules().remove("paused-beat");
        other.schedules().remove("paused-beat");
        assertThat(one.schedules().list()).isEmpty();
    }

    @Test
    void aScheduleOnATopicThatCannotTakeItIsRefusedSayingWhy() {
        RmqClient client = application(TopicDefinition.builder("jobs", TopicType.PRIORITY).build());
        RecurringSchedule onPriority = RecurringSchedule.builder("x", "jobs", TickRule.every(SECOND)).build();
        assertThatIllegalArgumentException().isThrownBy(() -> client.schedules().upsert(onPriority))
                .withMessageContaining("schedules take FIXED_TIME topics");
        RecurringSchedule nowhere = RecurringSchedule.builder("x", "nowhere", TickRule.every(SECOND)).build();
        assertThatIllegalArgumentException().isThrownBy(() -> client.schedules().upsert(nowhere))
                .withMessageContaining("does not define");
        assertThatIllegalArgumentException().isThrownBy(() -> client.schedules().pause("unknown"))
                .withMessageContaining("not declared in this application");
        assertThatIllegalArgumentException().isThrownBy(() -> RecurringSchedule.builder("bad name!", "jobs",
                TickRule.every(SECOND)).build()).withMessageContaining("schedule name");
    }
}
