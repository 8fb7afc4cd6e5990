package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import static dev.rmq.benchmarks.Report.Unit.CALLS;
import static dev.rmq.benchmarks.Report.Unit.MICROS;
import static dev.rmq.benchmarks.Report.Unit.MILLIS;

/**
 * The lateness section: messages due over the next 10 s, sent at a steady rate while consumers run, through
 * rmq and through RDelayedQueue in turn each repetition; how long after its due time each is consumed.
 */
final class LatenessSection {

    /** The rmq consumer: a fixed-time topic of 16 slots, 2 threads, polls of up to 64. */
    static final int SLOTS = 16;
    static final ConsumerSettings SETTINGS = ConsumerSettings.DEFAULTS
            .withConcurrency(Integer.getInteger("bench.latenessThreads", 2)).withBatchSize(64)
            .withIdlePoll(Duration.ofMillis(Long.getLong("bench.idlePollMs", 1000)));

    /** Every repetition's lateness pooled, for the chart; null where the section did not run. */
    record Pooled(@Nullable Lateness rmq, @Nullable Lateness delayed) {
        static final Pooled NONE = new Pooled(null, null);
    }

    private final Context context;
    private final RmqCases rmq;
    private final PeerCases peers;
    private final Plan.DelayedSetting delayedSetting;

    LatenessSection(Context context, RmqCases rmq, PeerCases peers, Plan.DelayedSetting delayedSetting) {
        this.context = context;
        this.rmq = rmq;
        this.peers = peers;
        this.delayedSetting = delayedSetting;
    }

    Pooled run() {
        Plan plan = context.plan();
        RedisProbe probe = context.probe();
        TopicDefinition topic = RmqCases.topic("late", TopicType.FIXED_TIME, SLOTS);
        RmqClient client = rmq.client(topic);
        Duration produceFor = Duration.ofMillis(plan.latenessMillis());
        Duration spread = Duration.ofMillis(Plan.LATENESS_SPREAD_MS);
        List<Lateness> runs = new ArrayList<>();
        List<Lateness> delayedRuns = new ArrayList<>();
        for (int rep = 1; rep <= context.reps(); rep++) {
            Log.info("lateness repetition %d of %d: rmq", rep, context.reps());
            probe.flushAll();
            Lateness run = rmq.lateness(client, topic.name(), Plan.LATENESS_RATE, produceFor, spread, SETTINGS);
            runs.add(run);
            sample("late", run);
            RedisProbe.Cost cost = Objects.requireNonNull(run.cost(), "a single run has its cost");
            CommandProfile.sample(context.samples(), "lateness_ms", new Measured(run.sent(), cost.seconds(), cost));
            Log.info("  %s, clock offset %.3f ms", run.summary(), run.clockOffsetMs());
            if (run.sendErrors() > 0) {
                Log.info("  %d sends failed, the first with %s", run.sendErrors(), run.firstError());
            }
            Log.info("lateness repetition %d of %d: RDelayedQueue", rep, context.reps());
            probe.flushAll();
            Lateness delayed = peers.delayedLateness("late-delayed", Plan.LATENESS_RATE, plan.latenessMillis(),
                    Plan.LATENESS_SPREAD_MS, delayedSetting.threads(), delayedSetting.drain());
            delayedRuns.add(delayed);
            sample("delayed.late", delayed);
            Log.info("  %s", delayed.summary());
        }
        probe.flushAll();
        String section = section();
        reportRmq(section, runs);
        reportDelayed(section);
        return new Pooled(Lateness.pool(runs), Lateness.pool(delayedRuns));
    }

    private void sample(String prefix, Lateness run) {
        Samples samples = context.samples();
        samples.add(prefix + ".p50", run.percentile(50));
        samples.add(prefix + ".p99", run.percentile(99));
        samples.add(prefix + ".p999", run.percentile(99.9));
        samples.add(prefix + ".max", run.percentile(100));
        samples.add(prefix + ".early", run.early());
        samples.add(prefix + ".lost", run.sent() - run.consumed() - run.sendErrors());
        samples.add(prefix + ".sendErrors", run.sendErrors());
        RedisProbe.Cost cost = Objects.requireNonNull(run.cost(), "a single run has its cost");
        samples.add(prefix + ".cpu", cost.cpuMicrosPer(run.sent()));
        samples.add(prefix + ".jvm", cost.jvmCpuMicrosPer(run.sent()));
        samples.add(prefix + ".scripts", cost.callsPer(RedisProbe.SCRIPTS, run.sent()));
        // what Redis spent running scripts, against all it spent: the rest is reading, writing and waking
        samples.add(prefix + ".scripts.usec", cost.usecPer(RedisProbe.SCRIPTS, run.sent()));
    }

    /** The section's title, with a note on the quick run's shorter production. */
    private String section() {
        Plan plan = context.plan();
        int perRun = (int) (Plan.LATENESS_RATE * plan.latenessMillis() / 1000);
        String section = String.format(Locale.ROOT, "Lateness (consume start - due, Redis clock; %d msgs/s for %d s, due"
                + " 0.1..%d s after send; %,d msgs per repetition)", Plan.LATENESS_RATE, plan.latenessMillis() / 1000,
                Plan.LATENESS_SPREAD_MS / 1000, perRun);
        if (plan.latenessMillis() < Plan.full().latenessMillis()) {
            section += String.format(Locale.ROOT, "%n  NOTE: this quick run produces for %d s, not the full run's %d s, to"
                    + " stay within about 3 minutes: each percentile rests on %,d messages per repetition (p99.9 is the"
                    + " %dth-latest of them), so read the tail figures as rough", plan.latenessMillis() / 1000,
                    Plan.full().latenessMillis() / 1000, perRun, perRun / 1000);
        }
        return section;
    }

    private void reportRmq(String section, List<Lateness> runs) {
        Plan plan = context.plan();
        Report report = context.report();
        Samples samples = context.samples();
        report.value("lateness_ms.produce_seconds", plan.latenessMillis() / 1000);
        report.value("lateness_ms.rate_msgs_per_s", Plan.LATENESS_RATE);
        report.value("lateness_ms.due_spread_s", Plan.LATENESS_SPREAD_MS / 1000);
        report.figure("lateness_ms.p50", samples.figure("late.p50"), MILLIS, section, "rmq p50", SLOTS
                + " slots, " + SETTINGS.concurrency() + " threads, batch " + SETTINGS.batchSize());
        report.figure("lateness_ms.p99", samples.figure("late.p99"), MILLIS, section, "rmq p99", "");
        report.figure("lateness_ms.p999", samples.figure("late.p999"), MILLIS, section, "rmq p99.9", "");
        report.figure("lateness_ms.max", samples.figure("late.max"), MILLIS, section, "rmq max", "");
        report.total("lateness_ms.early", samples.figure("late.early"), section, "rmq early deliveries",
                "sum over all repetitions");
        report.total("lateness_ms.lost", samples.figure("late.lost"), section, "rmq messages never consumed",
                "sum over all repetitions");
        report.total("lateness_ms.send_errors", samples.figure("late.sendErrors"), section,
                "rmq sends refused (fixed time already past)", "sum over all repetitions");
        report.figure("lateness_ms.script_calls_per_msg", samples.figure("late.scripts"), CALLS, section,
                "rmq script calls per message", "sends + polls + acks");
        report.figure("lateness_ms.redis_cpu_us_per_msg", samples.figure("late.cpu"), MICROS, section,
                "rmq Redis CPU", "send + consume");
        report.figure("lateness_ms.redis_script_us_per_msg", samples.figure("late.scripts.usec"), MICROS, section,
                "  of which running scripts", "INFO commandstats; the rest: I/O, pub/sub, other commands");
        CommandProfile.report(report, samples, "lateness_ms");
        report.figure("lateness_ms.client_cpu_us_per_msg", samples.figure("late.jvm"), MICROS, section,
                "rmq client (JVM) CPU", "send + consume");
        report.value("lateness_ms.messages_per_run", runs.isEmpty() ? 0 : runs.get(0).sent());
    }

    private void reportDelayed(String section) {
        Report report = context.report();
        Samples samples = context.samples();
        report.figure("peers.redisson_delayed_queue.lateness_p50_ms", samples.figure("delayed.late.p50"), MILLIS, section,
                "RDelayedQueue p50", delayedSetting.toString());
        report.figure("peers.redisson_delayed_queue.lateness_p99_ms", samples.figure("delayed.late.p99"), MILLIS, section,
                "RDelayedQueue p99", "");
        report.figure("peers.redisson_delayed_queue.lateness_p999_ms", samples.figure("delayed.late.p999"), MILLIS,
                section, "RDelayedQueue p99.9", "");
        report.figure("peers.redisson_delayed_queue.lateness_max_ms", samples.figure("delayed.late.max"), MILLIS, section,
                "RDelayedQueue max", "");
        report.total("peers.redisson_delayed_queue.lateness_early", samples.figure("delayed.late.early"), section,
                "RDelayedQueue early deliveries", "sum over all repetitions");
        report.total("peers.redisson_delayed_queue.lateness_lost", samples.figure("delayed.late.lost"), section,
                "RDelayedQueue messages never consumed", "sum over all repetitions");
        report.figure("peers.redisson_delayed_queue.lateness_redis_cpu_us_per_msg", samples.figure("delayed.late.cpu"),
                MICROS, section, "RDelayedQueue Redis CPU", "offer + transfer + pop");
        report.figure("peers.redisson_delayed_queue.lateness_client_cpu_us_per_msg", samples.figure("delayed.late.jvm"),
                MICROS, section, "RDelayedQueue client (JVM) CPU", "");
    }
}
