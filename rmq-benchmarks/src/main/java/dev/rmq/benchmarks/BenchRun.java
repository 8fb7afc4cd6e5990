package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

import java.nio.file.Path;

/**
 * One run of the benchmark against one Redis: a warm-up, the sections the options ask for, the targets, then
 * the JSON, the chart and the table. The sections after the throughput one run with the settings its grid
 * search chose.
 */
final class BenchRun {

    private final Context context;
    private final RmqCases rmq;
    private final StarterCases starter;
    private final PeerCases peers;
    /** Null when no redis-benchmark was found: the limit is skipped. */
    private final @Nullable LimitCases limit;

    BenchRun(Options options, RedisProbe probe, RedissonClient redisson) {
        this.context = Context.of(options, probe);
        this.rmq = new RmqCases(redisson, probe);
        this.starter = new StarterCases(rmq, probe);
        this.peers = new PeerCases(redisson, probe);
        this.limit = LimitCases.find(probe).orElse(null);
    }

    /** Runs the sections and writes the results; false when one of the outputs could not be written. */
    boolean run(long started) {
        Options options = context.options();
        RedisProbe probe = context.probe();
        Meta.start(context);
        Log.info("rmq benchmark, %s run, %d repetitions per case, redis-server %s on port %d (pid %d)",
                options.quick() ? "quick" : "full", options.reps(), probe.server().version(), probe.server().port(),
                probe.server().pid());
        if (limit == null) {
            Log.info("redis-benchmark was not found next to redis-server nor on PATH: the limit is skipped");
        }
        BestSettings best = BestSettings.DEFAULTS;
        warmUp(best);
        if (options.runs("throughput")) {
            best = new SettingSearch(context, rmq, peers).find();
            new ThroughputSection(context, rmq, starter, peers, limit, best).run();
        }
        if (options.runs("memory")) {
            new MemorySection(context, rmq).run();
        }
        if (options.runs("backlog")) {
            new BacklogSection(context, rmq, best.consume()).run();
        }
        LatenessSection.Pooled lateness = LatenessSection.Pooled.NONE;
        if (options.runs("lateness")) {
            lateness = new LatenessSection(context, rmq, peers, best.delayed()).run();
        }
        if (options.runs("order")) {
            new OrderSection(context, rmq).run();
        }
        if (options.runs("schedules")) {
            new ScheduleSection(context, rmq).run();
        }
        if (options.runs("single")) {
            new SingleSendSection(context, rmq).run();
        }
        if (options.runs("fixed")) {
            new FixedCostSection(context, rmq, limit).run();
        }
        if (options.runs("rebalance")) {
            new RebalanceSection(context, rmq).run();
        }
        if (options.runs("payloads")) {
            new PayloadSection(context, rmq).run();
        }
        new Targets(context.report()).judge(context.samples(), context.plan().backlogs());
        Meta.end(context, started);
        return write(lateness, started);
    }

    /** Runs every kind of case once, unmeasured, so that the JIT and the connections are warm for the first. */
    private void warmUp(BestSettings best) {
        Log.info("warm-up (not measured)");
        RedisProbe probe = context.probe();
        TopicDefinition topic = RmqCases.topic("warm", TopicType.RANGE_MERGE, 16);
        RmqClient client = rmq.client(topic);
        rmq.fillDue(client, topic.name(), 50_000);
        rmq.consume(client, topic.name(), 50_000, ConsumerSettings.DEFAULTS.withConcurrency(4).withBatchSize(256));
        rmq.produceSingle(client, 10_000, ProduceRound.SINGLE_IN_FLIGHT, RmqCases.waiting(topic));
        probe.flushAll();
        starter.consume(50_000, best.consume());
        probe.flushAll();
        peers.streamProduce("warm-stream", 50_000, PeerRound.STREAM_BATCH, PeerRound.STREAM_IN_FLIGHT);
        peers.streamGroup("warm-stream");
        peers.streamConsume("warm-stream", 50_000, 2, 256);
        peers.delayedProduce("warm-delayed", 10_000, best.delayedInFlight());
        probe.flushAll();
    }

    /** Writes the JSON and the chart, then prints the table; false when the chart could not be written. */
    private boolean write(LatenessSection.Pooled lateness, long started) {
        Options options = context.options();
        Report report = context.report();
        report.writeJson(options.out());
        Path chart = options.chart();
        boolean chartWritten = true;
        try {
            Charts.write(chart, report, lateness.rmq(), lateness.delayed());
        } catch (RuntimeException | LinkageError e) {
            chartWritten = false;
            System.err.println("could not write the chart " + chart.toAbsolutePath() + ": " + e);
            e.printStackTrace();
        }
        System.out.println(report.table());
        if (!chartWritten) {
            Log.info("JSON: %s; the chart %s could NOT be written (see above), so the run fails", options.out().toAbsolutePath(),
                    chart.toAbsolutePath());
            return false;
        }
        Log.info("JSON: %s, chart: %s, %.0f s in all", options.out().toAbsolutePath(), chart.toAbsolutePath(),
                (System.nanoTime() - started) / 1e9);
        return true;
    }
}
