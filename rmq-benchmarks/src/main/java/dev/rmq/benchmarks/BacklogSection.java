package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.Locale;

import static dev.rmq.benchmarks.Report.Unit.BYTES;
import static dev.rmq.benchmarks.Report.Unit.MICROS;
import static dev.rmq.benchmarks.Report.Unit.RATE;

/**
 * The backlog section: consume rate against the backlog. Every size is measured alike: each repetition
 * consumes the same {@code window} messages from the head of a queue that holds the backlog behind them, plus
 * head room for the batches the container has polled but not yet handled; before each repetition the queue is
 * topped up at its tail. So no case drains its queue to empty (with its slow tail of nearly empty slots), and
 * the 10k case is read from a queue as ready as the 1M one. The first fill of each size, into an empty Redis, gives
 * its memory per message and its fill rate.
 */
final class BacklogSection {

    private final Context context;
    private final RmqCases rmq;
    private final Plan.ConsumeSetting setting;

    BacklogSection(Context context, RmqCases rmq, Plan.ConsumeSetting setting) {
        this.context = context;
        this.rmq = rmq;
        this.setting = setting;
    }

    void run() {
        Plan plan = context.plan();
        RedisProbe probe = context.probe();
        Report report = context.report();
        ConsumerSettings settings = setting.consumerSettings();
        TopicDefinition topic = RmqCases.topic("backlog", TopicType.RANGE_MERGE, setting.slots());
        RmqClient client = rmq.client(topic);
        int reps = Math.max(context.reps(), 5);
        long window = plan.backlogWindow();
        long headRoom = (long) setting.threads() * setting.batch();
        ArrayNode list = report.array();
        String section = String.format(Locale.ROOT, "Backlog scaling (each repetition consumes %,d messages from the head;"
                + " at least the backlog stays queued behind them; %s)", window, setting);
        for (long size : plan.backlogs()) {
            probe.flushAll();
            long empty = probe.usedMemory();
            long queue = size + window + headRoom;
            Log.info("backlog %,d: filling %,d (the backlog, the %,d measured and %,d head room)", size, queue, window,
                    headRoom);
            long filledNanos = 0;
            double bytesPerMessage = 0;
            for (int rep = 1; rep <= reps; rep++) {
                long queued = rmq.backlog(client, topic.name());
                if (queued < queue) {
                    long start = System.nanoTime();
                    rmq.fill(client, queue - queued, RmqCases.dueNow(topic.name()));
                    if (rep == 1) {
                        // the whole queue, sent into an empty Redis: what a message costs it, and how long it takes
                        filledNanos = System.nanoTime() - start;
                        bytesPerMessage = (probe.usedMemory() - empty) / (double) queue;
                        Log.info("backlog %,d: filled in %.1f s, %.0f B of Redis memory per message", size,
                                filledNanos / 1e9, bytesPerMessage);
                    }
                }
                Waits.sleep(5);
                Measured m = rmq.consume(client, topic.name(), window, settings);
                context.samples().add("backlog." + size, m.rate());
                context.samples().add("backlog." + size + ".cpu", m.cpuMicrosPerMessage());
            }
            Figure rate = context.samples().figure("backlog." + size);
            Figure cpu = context.samples().figure("backlog." + size + ".cpu");
            report.row(section, String.format(Locale.ROOT, "backlog %,d", size), rate, RATE, "");
            report.row(section, "  Redis CPU", cpu, MICROS, "");
            report.row(section, "  Redis memory", Figure.of(bytesPerMessage), BYTES, String.format(Locale.ROOT,
                    "%.0f beyond the %d-byte payload, %.2f GB in all; filled at %,.0f msgs/s",
                    bytesPerMessage - Payloads.SIZE, Payloads.SIZE, bytesPerMessage * queue / 1e9,
                    queue / (filledNanos / 1e9)));
            ObjectNode node = list.addObject();
            describe(node, size, rate, cpu, reps);
            node.put("memory_bytes_per_msg", Math.round(bytesPerMessage));
            node.put("memory_bytes_beyond_payload", Math.round(bytesPerMessage - Payloads.SIZE));
            node.put("fill_msgs_per_s", Math.round(queue / (filledNanos / 1e9)));
        }
        probe.flushAll();
        report.value("backlog", list);
        report.value("backlog_window", window);
        report.value("backlog_setting", setting.toString());
        report.value("backlog_method", String.format(Locale.ROOT, "each repetition consumes the %,d oldest messages of a"
                + " queue topped up (at its tail) to the backlog + %,d + %,d head room for polled batches, so at least the"
                + " backlog stays queued behind the measured messages and no case drains its queue", window, window,
                headRoom));
    }

    private static void describe(ObjectNode node, long size, Figure rate, Figure cpu, int reps) {
        node.put("size", size);
        node.put("consume_msgs_per_s", Math.round(rate.median()));
        node.putArray("consume_msgs_per_s_range").add(Math.round(rate.min())).add(Math.round(rate.max()));
        node.put("redis_cpu_us_per_msg", Math.round(cpu.median() * 1000) / 1000.0);
        node.putArray("redis_cpu_us_per_msg_range").add(Math.round(cpu.min() * 1000) / 1000.0)
                .add(Math.round(cpu.max() * 1000) / 1000.0);
        node.put("repetitions", reps);
    }
}
