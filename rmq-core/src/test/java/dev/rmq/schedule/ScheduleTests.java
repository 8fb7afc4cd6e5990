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
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

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
    /** Each schedule's deliveries of each tick, by the schedule and tick headers. */
    private final Map<String, Map<Instant, AtomicInteger>> delivered = new ConcurrentHashMap<>();

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
            client.admin().schedules().upsert(schedule);
        }
        return client;
    }

    /** The ticks of one schedule delivered so far, each with how many times. */
    private Map<Instant, AtomicInteger> ticksOf(String schedule) {
        return delivered.computeIfAbsent(schedule, s -> new ConcurrentHashMap<>());
    }

    /** A consumer that counts each tick's deliveries; returns how many run at once at most. */
    private AtomicInteger consume(RmqClient client, String topic, Duration work) {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        RmqConsumerContainer<String> container = client.container(topic, String.class, (RmqMessage<String> m) -> {
            most.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                ticksOf(m.headers().get(RecurringSchedule.SCHEDULE_HEADER)).computeIfAbsent(
                        Instant.parse(m.headers().get(RecurringSchedule.TICK_HEADER)), t -> new AtomicInteger())
                        .incrementAndGet();
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

    private static long gapsIn(List<Instant> ticks) {
        long gaps = 0;
        for (int i = 1; i < ticks.size(); i++) {
            gaps += Duration.between(ticks.get(i - 1), ticks.get(i)).compareTo(SECOND) > 0 ? 1 : 0;
        }
        return gaps;
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
        Map<Instant, AtomicInteger> beats = ticksOf("beat");

        Instant start = Instant.now();
        await().atMost(Duration.ofSeconds(40)).until(() -> Instant.now().isAfter(start.plusSeconds(15)));
        third.close();
        await().atMost(Duration.ofSeconds(40)).until(() -> Instant.now().isAfter(start.plusSeconds(30)));
        Instant end = Instant.now().minusSeconds(2);
        await().atMost(Duration.ofSeconds(5)).until(() -> beats.keySet().stream().anyMatch(t -> t.isAfter(end)));

        List<Instant> ticks = beats.keySet().stream().filter(t -> !t.isAfter(end)).sorted().toList();
        assertThat(ticks.size()).isGreaterThanOrEqualTo(27);
        assertThat(gapsIn(ticks)).as("no tick missing").isZero();
        assertThat(beats.values()).allSatisfy(times -> assertThat(times).as("each tick once").hasValue(1));
        assertThat(count("rmq.schedule.ticks", "schedule", "beat")).as("sent: those delivered, and those sent ahead")
                .isBetween((double) beats.size(), beats.size() + 2.0);
    }

    /**
     * One application runs three schedules, one per misfire policy, until each has had two ticks; it stops, and
     * every schedule's next five ticks fall while nothing runs (those of the seven seconds after the stop, but for
     * the tick sent ahead and the grace, a second each). A new application then comes to the missed ticks.
     */
    @Test
    void afterEveryApplicationStoppedEachMisfirePolicyDoesWhatItSays() {
        TopicDefinition topic = timers("missed");
        RecurringSchedule once = RecurringSchedule.builder("once-beat", "missed", TickRule.every(SECOND)).build();
        RecurringSchedule skip = RecurringSchedule.builder("skip-beat", "missed", TickRule.every(SECOND))
                .misfire(Misfire.SKIP).build();
        RecurringSchedule all = RecurringSchedule.builder("all-beat", "missed", TickRule.every(SECOND))
                .misfire(Misfire.fireAll(100)).build();
        RmqClient before = application(topic, once, skip, all);
        consume(before, "missed", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> ticksOf("once-beat").size() >= 2
                && ticksOf("skip-beat").size() >= 2 && ticksOf("all-beat").size() >= 2);
        before.close();
        Instant stopped = Instant.now();
        await().atMost(Duration.ofSeconds(20)).until(() -> Instant.now().isAfter(stopped.plusMillis(7_500)));

        RmqClient after = application(topic, once, skip, all);
        consume(after, "missed", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> Stream.of("once-beat", "skip-beat", "all-beat")
                .allMatch(name -> ticksOf(name).keySet().stream().filter(t -> t.isAfter(stopped.plusSeconds(8)))
                        .count() >= 2));

        // FIRE_ONCE: the ticks sent ahead before the stop, then one for all that were missed, then on time again
        assertThat(count("rmq.schedule.misfires", "schedule", "once-beat", "policy", "FIRE_ONCE"))
                .isGreaterThanOrEqualTo(4);
        assertThat(gapsIn(ticksOf("once-beat").keySet().stream().sorted().toList()))
                .as("one jump over the missed ticks").isEqualTo(1);
        // SKIP: nothing of the stop
        assertThat(ticksOf("skip-beat").keySet()).as("nothing of the stop")
                .noneMatch(t -> t.isAfter(stopped.plusSeconds(2)) && t.isBefore(stopped.plusSeconds(6)));
        assertThat(count("rmq.schedule.misfires", "schedule", "skip-beat", "policy", "SKIP")).isGreaterThanOrEqualTo(4);
        // FIRE_ALL: every missed tick
        assertThat(gapsIn(ticksOf("all-beat").keySet().stream().sorted().toList())).as("every missed tick sent")
                .isZero();
        DistributionSummary caughtUp = meters.find("rmq.schedule.lateness").tags("schedule", "all-beat").summary();
        assertThat(caughtUp).isNotNull();
        assertThat(caughtUp.max()).as("the first missed tick is handled late by the stop, against its instant")
                .isGreaterThanOrEqualTo(4_000);
        assertThat(delivered.values()).allSatisfy(ticks -> assertThat(ticks.values())
                .allSatisfy(times -> assertThat(times).as("each tick once").hasValue(1)));
    }

    @Test
    void withOverlapSkipATickThatComesWhileThePreviousRunsIsDroppedAndCounted() {
        TopicDefinition topic = timers("slow");
        RecurringSchedule slow = RecurringSchedule.builder("slow-beat", "slow", TickRule.every(SECOND))
                .overlap(Overlap.SKIP).build();
        RmqClient client = application(topic);
        AtomicInteger most = consume(client, "slow", Duration.ofMillis(2_500));
        // declared once its consumer runs: a first tick still waiting when the next is planned is not in flight, and
        // would not make the next one skip
        client.admin().schedules().upsert(slow);

        await().atMost(Duration.ofSeconds(20)).until(() -> ticksOf("slow-beat").size() >= 3);
        assertThat(most).as("never two ticks at once").hasValue(1);
        assertThat(count("rmq.schedule.skipped", "schedule", "slow-beat")).isGreaterThanOrEqualTo(3);
        List<Instant> ticks = ticksOf("slow-beat").keySet().stream().sorted().toList();
        assertThat(Duration.between(ticks.get(0), ticks.get(1))).as("the ticks during a run are dropped")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aPayloadSupplierThatThrowsAnErrorFailsItsOwnTicksOnlyAndTheScheduleGoesOn() {
        TopicDefinition topic = timers("erring");
        AtomicInteger calls = new AtomicInteger();
        RecurringSchedule failing = RecurringSchedule.builder("erring-once", "erring", TickRule.every(SECOND))
                .payloadSupplier(() -> {
                    if (calls.getAndIncrement() == 0) {
                        throw new AssertionError("a supplier's own check");
                    }
                    return "tick";
                }).build();
        RecurringSchedule other = RecurringSchedule.builder("erring-other", "erring", TickRule.every(SECOND)).build();
        RmqClient client = application(topic, failing, other);
        consume(client, "erring", Duration.ZERO);

        await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() > 1 && ticksOf("erring-once").size() >= 2
                && ticksOf("erring-other").size() >= 2);
    }

    @Test
    void anApplicationAsksItsPayloadSupplierOnlyForTheTicksItSends() {
        TopicDefinition topic = timers("asked");
        AtomicInteger calls = new AtomicInteger();
        RecurringSchedule beat = RecurringSchedule.builder("asked-beat", "asked", TickRule.every(SECOND))
                .payloadSupplier(() -> {
                    calls.incrementAndGet();
                    return "tick";
                }).build();
        RmqClient client = application(topic, beat);
        await().atMost(Duration.ofSeconds(10)).until(() -> count("rmq.schedule.ticks", "schedule", "asked-beat") >= 2);
        // its schedules' thread ends with it, so no pass is under way past this line
        client.close();
        assertThat(calls.get()).as("payloads asked for, against the ticks sent")
                .isEqualTo((int) count("rmq.schedule.ticks", "schedule", "asked-beat"));
    }

    @Test
    void aSlowPayloadSupplierDelaysTheOtherSchedulesTicksButLosesNone() {
        TopicDefinition topic = timers("held-up");
        RecurringSchedule slow = RecurringSchedule.builder("held-up-slow", "held-up", TickRule.every(Duration.ofSeconds(3)))
                .payloadSupplier(() -> {
                    try {
                        Thread.sleep(2_500); // a supplier's query that takes seconds, on the thread of every schedule
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return "report";
                }).build();
        RecurringSchedule steady = RecurringSchedule.builder("held-up-steady", "held-up", TickRule.every(SECOND))
                .misfire(Misfire.SKIP).build();
        RmqClient client = application(topic, slow, steady);
        consume(client, "held-up", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> ticksOf("held-up-steady").size() >= 1);
        Instant from = ticksOf("held-up-steady").keySet().stream().min(Instant::compareTo).orElseThrow();

        await().atMost(Duration.ofSeconds(20)).until(() -> ticksOf("held-up-steady").keySet().stream()
                .anyMatch(tick -> !tick.isBefore(from.plusSeconds(8))));
        assertThat(ticksOf("held-up-steady").keySet().stream().filter(tick -> !tick.isAfter(from.plusSeconds(8))))
                .as("every tick of the steady schedule, some late").hasSize(9);
        assertThat(count("rmq.schedule.misfires", "schedule", "held-up-steady", "policy", "SKIP")).isZero();
    }

    @Test
    void aPauseWithdrawsTheTicksSentAheadAndKeepsOnesWhoseInstantCame() {
        TopicDefinition topic = timers("kept");
        RecurringSchedule beat = RecurringSchedule.builder("kept-beat", "kept", TickRule.every(SECOND)).build();
        RmqClient client = application(topic, beat);
        // no consumer: a tick's message waits; the next one is sent a second ahead of its instant
        await().atMost(Duration.ofSeconds(10)).until(() -> client.inspector().peek("kept", 0, 10).stream()
                .anyMatch(message -> !message.dueTime(TopicType.FIXED_TIME).orElseThrow()
                        .isAfter(Instant.ofEpochMilli(redisTimeMs()))));

        client.admin().schedules().pause("kept-beat");
        long pausedAt = redisTimeMs();

        List<Instant> left = client.inspector().peek("kept", 0, 10).stream()
                .map(message -> message.dueTime(TopicType.FIXED_TIME).orElseThrow()).toList();
        assertThat(left).as("the tick that came, waiting for a consumer").isNotEmpty()
                .allMatch(due -> !due.isAfter(Instant.ofEpochMilli(pausedAt)));
    }

    @Test
    void aPauseStopsTicksInEveryApplicationAndAResumeStartsFromTheNext() {
        TopicDefinition topic = timers("paused");
        RecurringSchedule beat = RecurringSchedule.builder("paused-beat", "paused", TickRule.every(SECOND))
                .payload(Map.of("job", "report")).header("tenant", "acme").build();
        RmqClient one = application(topic, beat);
        RmqClient other = application(topic, beat);
        consume(one, "paused", Duration.ZERO);
        await().atMost(Duration.ofSeconds(10)).until(() -> ticksOf("paused-beat").size() >= 2);

        other.admin().schedules().pause("paused-beat");
        Instant paused = Instant.now();
        assertThat(one.admin().schedules().list()).singleElement().satisfies(status -> {
            assertThat(status.paused()).isTrue();
            assertThat(status.nextTick()).isNull();
            assertThat(status.rule()).isEqualTo("every PT1S");
        });
        await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> true);
        assertThat(ticksOf("paused-beat").keySet()).as("no tick after the pause").noneMatch(t -> t.isAfter(paused.plusMillis(200)));

        one.admin().schedules().trigger("paused-beat");
        await().atMost(Duration.ofSeconds(5)).until(() -> ticksOf("paused-beat").keySet().stream().anyMatch(t -> t.isAfter(paused)));
        one.admin().schedules().resume("paused-beat");
        Instant resumed = Instant.now();
        await().atMost(Duration.ofSeconds(10)).until(() -> ticksOf("paused-beat").keySet().stream()
                .filter(t -> t.isAfter(resumed)).count() >= 2);
        assertThat(count("rmq.schedule.misfires", "schedule", "paused-beat", "policy", "FIRE_ONCE"))
                .as("the pause's ticks are not misfires").isZero();
        assertThat(one.admin().schedules().list().get(0).nextTick()).isAfter(resumed);

        one.admin().schedules().remove("paused-beat");
        other.admin().schedules().remove("paused-beat");
        assertThat(one.admin().schedules().list()).isEmpty();
    }

    /** Each trigger is a message of its own, however close the triggers come, from one application or two. */
    @Test
    void triggersOfTwoApplicationsInTheSameMillisecondsEachSendAMessage() throws Exception {
        TopicDefinition topic = timers("manual");
        RecurringSchedule report = RecurringSchedule.builder("report", "manual", TickRule.every(Duration.ofHours(6)))
                .payload("run").build();
        RmqClient one = application(topic, report);
        RmqClient other = application(topic, report);
        Set<String> keys = ConcurrentHashMap.newKeySet();
        RmqConsumerContainer<String> container = one.container("manual", String.class, (RmqMessage<String> m) -> {
            if (m.key().startsWith("report@manual-")) {
                keys.add(m.key());
            }
            return ConsumeResult.success();
        }).settings(ConsumerSettings.DEFAULTS.withIdlePoll(Duration.ofMillis(200))).build();
        container.start();
        closing.add(() -> container.stop(Duration.ofSeconds(5)));

        // ten triggers from each application at once: many fall in a millisecond another one took
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<Void>> bursts = Stream.of(one, other).map(app -> CompletableFuture.runAsync(() -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            for (int i = 0; i < 10; i++) {
                app.admin().schedules().trigger("report");
            }
        })).toList();
        go.countDown();
        CompletableFuture.allOf(bursts.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(keys).hasSize(20));
    }

    @Test
    void aScheduleOnATopicThatCannotTakeItIsRefusedSayingWhy() {
        RmqClient client = application(TopicDefinition.builder("jobs", TopicType.PRIORITY).build());
        RecurringSchedule onPriority = RecurringSchedule.builder("x", "jobs", TickRule.every(SECOND)).build();
        assertThatIllegalArgumentException().isThrownBy(() -> client.admin().schedules().upsert(onPriority))
                .withMessageContaining("schedules take FIXED_TIME topics");
        RecurringSchedule nowhere = RecurringSchedule.builder("x", "nowhere", TickRule.every(SECOND)).build();
        assertThatIllegalArgumentException().isThrownBy(() -> client.admin().schedules().upsert(nowhere))
                .withMessageContaining("does not define");
        assertThatIllegalArgumentException().isThrownBy(() -> client.admin().schedules().pause("unknown"))
                .withMessageContaining("not declared in this application");
        assertThatIllegalArgumentException().isThrownBy(() -> RecurringSchedule.builder("bad name!", "jobs",
                TickRule.every(SECOND)).build()).withMessageContaining("schedule name");
    }
}
