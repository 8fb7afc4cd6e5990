package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import static dev.rmq.benchmarks.Report.Unit.BYTES;

/** The memory section: Redis's {@code used_memory} growth per queued message, with and without the payload. */
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
        TopicDefinition topic = RmqCases.topic("memory", TopicType.RANGE_MERGE, ProduceRound.SLOTS);
        RmqClient client = rmq.client(topic);
        for (int rep = 1; rep <= reps; rep++) {
            Log.info("memory repetition %d of %d", rep, reps);
            probe.flushAll();
            long before = probe.usedMemory();
            rmq.fill(client, plan.memory(), RmqCases.waiting(topic));
            probe.deleteReplayKeys();
            long after = probe.usedMemory();
            samples.add("memory", (after - before) / (double) plan.memory());
        }
        probe.flushAll();
        Figure perMessage = samples.figure("memory");
        Report report = context.report();
        report.figure("memory_bytes_per_msg", perMessage, BYTES, section, "range-merge, whole message", "");
        report.figure("memory_bytes_beyond_payload", shift(perMessage, -Payloads.SIZE), BYTES, section,
                "  beyond the 64-byte payload", "");
        report.value("memory_messages", plan.memory());
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
