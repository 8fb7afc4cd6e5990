package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.schedule.RecurringSchedule;
import dev.rmq.schedule.TickRule;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;

import static dev.rmq.benchmarks.Report.Unit.MICROS;
import static dev.rmq.benchmarks.Report.Unit.MILLIS;

/**
 * The schedules section: what a recurring schedule's tick costs Redis, and how late it is handled. Two clients (two
 * instances of an application) both declare the same schedules, each ticking every second, for a while: first with
 * no consumer, for what sending the ticks costs (both instances plan each tick; one sends it); then with one
 * container consuming them, for the lateness of each tick (its consume start minus its instant) and the Redis CPU
 * of sending and consuming together.
 */
final class ScheduleSection {

    private static final int SCHEDULES = 100;
    private static final Duration RUN = Duration.ofSeconds(6);

    private final Context context;
    private final RmqCases rmq;

    ScheduleSection(Context context, RmqCases rmq) {
        this.context = context;
        this.rmq = rmq;
    }

    void run() {
        TopicDefinition topic = RmqCases.topic("ticks", TopicType.FIXED_TIME, 16);
        int reps = Math.max(context.reps(), 3);
        for (int rep = 1; rep <= reps; rep++) {
            Log.info("schedules, repetition %d of %d", rep, reps);
            sendOnly(topic, rep);
            sendAndConsume(topic, rep);
        }
        Report report = context.report();
        String section = String.format(Locale.ROOT, "Recurring schedules (%d schedules of a tick a second, declared by"
                + " two clients, %d s per case)", SCHEDULES, RUN.toSeconds());
        report.figure("schedules.send.redis_cpu_us_per_tick", context.samples().figure("schedules.send.cpu"), MICROS,
                section, "send the ticks, Redis CPU per tick", "both clients plan each tick, one sends it");
        report.figure("schedules.both.redis_cpu_us_per_tick", context.samples().figure("schedules.both.cpu"), MICROS,
                section, "send and consume, Redis CPU per tick", "one container, default settings");
        report.figure("schedules.lateness_p50_ms", context.samples().figure("schedules.lateness.p50"), MILLIS,
                section, "tick lateness p50", "consume start minus the tick's instant");
        report.figure("schedules.lateness_p99_ms", context.samples().figure("schedules.lateness.p99"), MILLIS,
                section, "tick lateness p99", "");
        context.probe().flushAll();
    }

    private List<RmqClient> declare(TopicDefinition topic, String prefix) {
        List<RmqClient> clients = List.of(rmq.client(topic), rmq.client(topic));
        for (RmqClient client : clients) {
            for (int i = 0; i < SCHEDULES; i++) {
                client.admin().schedules().upsert(RecurringSchedule.builder(prefix + i, topic.name(),
                        TickRule.every(Duration.ofSeconds(1))).payload("tick").build());
            }
        }
        return clients;
    }

    private void sendOnly(TopicDefinition topic, int rep) {
        context.probe().flushAll();
        List<RmqClient> clients = declare(topic, "s" + rep + "-");
        Waits.sleep(2_000);
        RedisProbe.Snapshot before = context.probe().snapshot();
        long waitingBefore = waiting(clients.get(0), topic);
        Waits.sleep(RUN.toMillis());
        long sent = waiting(clients.get(0), topic) - waitingBefore;
        RedisProbe.Cost cost = context.probe().snapshot().since(before);
        clients.forEach(RmqClient::close);
        context.samples().add("schedules.send.cpu", cost.cpuMicrosPer(Math.max(1, sent)));
    }

    private static long waiting(RmqClient client, TopicDefinition topic) {
        return client.inspector().totals(topic.name()).backlog();
    }

    private void sendAndConsume(TopicDefinition topic, int rep) {
        context.probe().flushAll();
        ConcurrentLinkedQueue<Long> lateness = new ConcurrentLinkedQueue<>();
        List<RmqClient> clients = declare(topic, "c" + rep + "-");
        RmqConsumerContainer<String> container = clients.get(0).container(topic.name(), String.class, m -> {
            Instant tick = Instant.parse(m.headers().get(RecurringSchedule.TICK_HEADER));
            lateness.add(Duration.between(tick, Instant.now()).toMillis());
            return ConsumeResult.success();
        }).settings(ConsumerSettings.DEFAULTS).build();
        container.start();
        Waits.sleep(2_000);
        lateness.clear();
        RedisProbe.Snapshot before = context.probe().snapshot();
        Waits.sleep(RUN.toMillis());
        RedisProbe.Cost cost = context.probe().snapshot().since(before);
        long[] late = lateness.stream().mapToLong(Long::longValue).sorted().toArray();
        container.stop(Duration.ofSeconds(5));
        clients.forEach(RmqClient::close);
        context.samples().add("schedules.both.cpu", cost.cpuMicrosPer(Math.max(1, late.length)));
        context.samples().add("schedules.lateness.p50", percentile(late, 0.50));
        context.samples().add("schedules.lateness.p99", percentile(late, 0.99));
    }

    private static double percentile(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }
}
