package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.util.List;
import java.util.Locale;

import static dev.rmq.benchmarks.Report.Unit.BYTES;

/**
 * The memory section: Redis's {@code used_memory} growth per queued message of each type, and for range-merge
 * without the payload too.
 */
final class MemorySection {

    private final Context context;
    private final RmqCases rmq;

    MemorySection(Context context, RmqCases rmq) {
        this.context = context;
        this.rmq = rmq;
    }

    void run() {
        Plan plan = context.plan();
        RedisProbe probe = context.probe();
        Samples samples = context.samples();
        String section = "Redis memory per queued message (" + plan.memory() + " messages, " + ProduceRound.SLOTS + " slots)";
        // memory hardly varies between repetitions, and a full run's million messages take a while to send
        int reps = Math.min(context.reps(), 3);
        for (TopicType type : TopicType.values()) {
            String name = "memory-" + type.name().toLowerCase(Locale.ROOT).replace('_', '-');
            TopicDefinition topic = RmqCases.topic(name, type, ProduceRound.SLOTS);
            RmqClient client = rmq.client(topic);
            for (int rep = 1; rep <= reps; rep++) {
                Log.info("memory, %s, repetition %d of %d", type, rep, reps);
                probe.flushAll();
                long before = probe.usedMemory();
                rmq.fill(client, plan.memory(), RmqCases.waiting(topic));
                probe.deleteReplayKeys();
                long after = probe.usedMemory();
                samples.add(sampleName(type), (after - before) / (double) plan.memory());
            }
        }
        probe.flushAll();
        Report report = context.report();
        Figure perMessage = samples.figure(sampleName(TopicType.RANGE_MERGE));
        report.figure("memory_bytes_per_msg", perMessage, BYTES, section, "range-merge, whole message", "");
        report.figure("memory_bytes_beyond_payload", shift(perMessage, -Payloads.SIZE), BYTES, section,
                "  beyond the 64-byte payload", "");
        for (TopicType type : List.of(TopicType.PRIORITY, TopicType.FIXED_TIME)) {
            String label = type.name().toLowerCase(Locale.ROOT);
            report.figure("memory_bytes_per_msg_" + label, samples.figure(sampleName(type)), BYTES, section,
                    label.replace('_', '-') + ", whole message", "");
        }
        report.value("memory_messages", plan.memory());
    }

    /** The range-merge samples keep the name the targets read. */
    private static String sampleName(TopicType type) {
        return type == TopicType.RANGE_MERGE ? "memory" : "memory." + type.name().toLowerCase(Locale.ROOT);
    }

    private static Figure shift(Figure f, double by) {
        if (!f.isPresent()) {
            return f;
        }
        double[] s = f.samples().clone();
        for (int i = 0; i < s.length; i++) {
            s[i] += by;
        }
        return Figure.of(s);
    }
}
