package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.util.List;

import static dev.rmq.benchmarks.Report.Unit.BYTES;
import static dev.rmq.benchmarks.Report.Unit.CALLS;
import static dev.rmq.benchmarks.Report.Unit.MICROS;
import static dev.rmq.benchmarks.Report.Unit.MILLIS;
import static dev.rmq.benchmarks.Report.Unit.RATE;
import static dev.rmq.benchmarks.Report.Unit.RATIO;
import static dev.rmq.benchmarks.Report.Unit.SECONDS;

/**
 * rmq's consume in the throughput rounds, with the best setting the search found: through the core container
 * and through the Spring Boot starter, then the table's "Consume" section.
 */
final class ConsumeRound {

    /** The batch sizes of the batch-listener lines. */
    private static final int[] BATCHES = {1, 10, 100};

    private final Context context;
    private final RmqCases rmq;
    private final StarterCases starter;
    private final Plan.ConsumeSetting setting;
    private final TopicDefinition topic;
    private final RmqClient client;
    /** Null until the first round has run the starter. */
    private @Nullable String starterSlotAssignment;

    ConsumeRound(Context context, RmqCases rmq, StarterCases starter, Plan.ConsumeSetting setting) {
        this.context = context;
        this.rmq = rmq;
        this.starter = starter;
        this.setting = setting;
        this.topic = RmqCases.topic("consume", TopicType.RANGE_MERGE, setting.slots());
        this.client = rmq.client(topic);
    }

    void measure() {
        Samples samples = context.samples();
        long count = context.plan().consume();
        rmq.fillDue(client, topic.name(), count);
        Measured m = rmq.consume(client, topic.name(), count, setting.consumerSettings());
        samples.add("consume", m);
        samples.add("consume.scripts", m.callsPerMessage(RedisProbe.SCRIPTS));
        CommandProfile.sample(samples, "consume", m);
        context.probe().flushAll();

        for (int batch : BATCHES) {
            // a poll's fixed cost dominates small batches: fewer messages keep their runs as long as the others'
            long messages = Math.max(Math.min(count, 10_000), count * batch / 100);
            ConsumerSettings polls = setting.consumerSettings().withBatchSize(batch);
            rmq.fillDue(client, topic.name(), messages);
            Measured single = rmq.consume(client, topic.name(), messages, polls);
            samples.add("consume_single_" + batch, single);
            samples.add("consume_single_" + batch + ".scripts", single.callsPerMessage(RedisProbe.SCRIPTS));
            CommandProfile.sample(samples, "consume_single_" + batch, single);
            context.probe().flushAll();
            rmq.fillDue(client, topic.name(), messages);
            samples.add("consume_batch_" + batch, rmq.consumeBatches(client, topic.name(), messages, polls, batch));
            samples.addRatio("consume_batch_" + batch + ".single_ratio", "consume_batch_" + batch,
                    "consume_single_" + batch);
            context.probe().flushAll();
        }
        rmq.fillDue(client, topic.name(), count);
        samples.add("consume_async", rmq.consumeAsync(client, topic.name(), count, setting.consumerSettings()));
        samples.addRatio("consume_async.single_ratio", "consume_async", "consume");
        context.probe().flushAll();

        rmq.fillDue(client, topic.name(), count);
        samples.add("pull", rmq.pull(client, topic.name(), count));
        samples.addRatio("pull.container_ratio", "pull", "consume");
        context.probe().flushAll();
        try {
            List<Double> wakes = rmq.pullWakeMillis(client, topic.name(), 100);
            wakes.sort(null);
            samples.add("pull.wake_ms.p50", wakes.get(wakes.size() / 2));
            samples.add("pull.wake_ms.p99", wakes.get(wakes.size() * 99 / 100));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while measuring the long poll's wake-up", e);
        }
        context.probe().flushAll();

        StarterCases.Run run = starter.consume(count, setting);
        samples.add("consume_starter", run.measured());
        samples.add("consume_starter.start", run.startSeconds());
        starterSlotAssignment = run.slotAssignment();
        context.probe().flushAll();
    }

    void report() {
        Report report = context.report();
        Samples samples = context.samples();
        String section = "Consume (prepare -> no-op handler -> commit, real container)";
        report.figure("consume.msgs_per_s", samples.figure("consume"), RATE, section, "best setting", setting.toString());
        report.figure("consume.redis_cpu_us_per_msg", samples.figure("consume.cpu"), MICROS, section, "  Redis CPU", "");
        report.figure("consume.client_cpu_us_per_msg", samples.figure("consume.jvm"), MICROS, section,
                "  client (JVM) CPU", "");
        report.figure("consume.client_alloc_bytes_per_msg", samples.figure("consume.alloc"), BYTES, section,
                "  client allocation", "all of the JVM's threads; repeats from run to run, as CPU does not");
        report.figure("consume.script_calls_per_msg", samples.figure("consume.scripts"), CALLS, section,
                "  script calls (= round trips)", "prepare + ack per batch");
        report.figure("consume.rstream_ratio", samples.figure("consume.rstream_ratio"), RATIO, section,
                "  / Redisson RStream group", "per round; the target's base");
        String shapes = "Consume by listener shape (no-op handlers, the best setting's slots and threads)";
        for (int batch : BATCHES) {
            String single = "consume_single_" + batch;
            report.figure(single + ".msgs_per_s", samples.figure(single), RATE, shapes,
                    "one message at a time, polls of " + batch, "");
            report.figure(single + ".redis_cpu_us_per_msg", samples.figure(single + ".cpu"), MICROS, shapes,
                    "  Redis CPU", "");
            report.figure(single + ".script_calls_per_msg", samples.figure(single + ".scripts"), CALLS, shapes,
                    "  script calls", "");
            CommandProfile.report(report, samples, single);
            String name = "consume_batch_" + batch;
            report.figure(name + ".msgs_per_s", samples.figure(name), RATE, shapes, "batch listener of " + batch,
                    "batch size " + batch);
            report.figure(name + ".redis_cpu_us_per_msg", samples.figure(name + ".cpu"), MICROS, shapes,
                    "  Redis CPU", "");
            report.figure(name + ".single_ratio", samples.figure(name + ".single_ratio"), RATIO, shapes,
                    "  / one message at a time, same polls", "per round");
        }
        report.figure("consume_async.msgs_per_s", samples.figure("consume_async"), RATE, shapes,
                "asynchronous listener", "each result completed by another thread");
        report.figure("consume_async.redis_cpu_us_per_msg", samples.figure("consume_async.cpu"), MICROS, shapes,
                "  Redis CPU", "");
        report.figure("consume_async.single_ratio", samples.figure("consume_async.single_ratio"), RATIO, shapes,
                "  / one message at a time", "per round, at the best setting");
        report.value("consume.setting.slots", setting.slots());
        report.value("consume.setting.threads", setting.threads());
        report.value("consume.setting.batch", setting.batch());
        report.value("consume.messages", context.plan().consume());
        CommandProfile.report(report, samples, "consume");
        String pull = "Pull (poll(1000, 1 s) from one thread, then ackAll: one ack call per slot)";
        report.figure("pull.msgs_per_s", samples.figure("pull"), RATE, pull, "RmqPuller", "the consume case's topic");
        report.figure("pull.redis_cpu_us_per_msg", samples.figure("pull.cpu"), MICROS, pull, "  Redis CPU", "");
        report.figure("pull.container_ratio", samples.figure("pull.container_ratio"), RATIO, pull,
                "  / the container's consume", "per round");
        report.figure("pull.wake_ms.p50", samples.figure("pull.wake_ms.p50"), MILLIS, pull,
                "  a long poll's wake-up after a send, p50", "100 sends per round to an idle puller; includes the 1 ms time range");
        report.figure("pull.wake_ms.p99", samples.figure("pull.wake_ms.p99"), MILLIS, pull, "  ... p99", "");
        report.figure("consume_starter.msgs_per_s", samples.figure("consume_starter"), RATE, section,
                "through the Spring Boot starter", "@RmqListener(byte[]), same setting, no ZooKeeper");
        report.figure("consume_starter.redis_cpu_us_per_msg", samples.figure("consume_starter.cpu"), MICROS, section,
                "  Redis CPU", "");
        report.figure("consume_starter.client_cpu_us_per_msg", samples.figure("consume_starter.jvm"), MICROS, section,
                "  client (JVM) CPU", "with the application's start");
        report.figure("consume_starter.core_ratio", samples.figure("consume_starter.core_ratio"), RATIO, section,
                "  / the core container", "per round");
        report.figure("consume_starter.context_start_s", samples.figure("consume_starter.start"), SECONDS, section,
                "  application start-up (not in the rate)", "");
        report.value("consume_starter.setting", setting.toString());
        report.value("consume_starter.slot_assignment", starterSlotAssignment);
        report.value("consume_starter.method", "a Spring Boot application without a web server or ZooKeeper: the"
                + " starter's auto-configuration, its own Redisson client from rmq.redis.address, the topic from"
                + " rmq.topics, and one bean with a no-op @RmqListener method taking the byte[] payload; "
                + context.plan().consume() + " messages preloaded, timed from the first listener call to the last");
    }
}
