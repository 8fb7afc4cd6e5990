package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicBuilder;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import static dev.rmq.benchmarks.Report.Unit.BYTES;

/**
 * The memory section: Redis's {@code used_memory} growth per queued message of each type, and for range-merge
 * without the payload too; then what the job controls add: a time to live, FIFO, a not-before time.
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
        for (Case c : cases()) {
            TopicDefinition topic = c.topic().slotAmount(ProduceRound.SLOTS).build();
            RmqClient client = rmq.client(topic);
            for (int rep = 1; rep <= reps; rep++) {
                Log.info("memory, %s, repetition %d of %d", c.sample(), rep, reps);
                probe.flushAll();
                long before = probe.usedMemory();
                rmq.fill(client, plan.memory(), c.messages().apply(topic));
                probe.deleteReplayKeys();
                samples.add(c.sample(), (probe.usedMemory() - before) / (double) plan.memory());
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
        String controls = "Redis memory per queued message with a job control (beside the plain type above)";
        report.figure("memory_bytes_per_msg_ttl", samples.figure("memory.ttl"), BYTES, controls,
                "range-merge, a time to live on every message", "");
        report.figure("memory_bytes_per_msg_fifo", samples.figure("memory.fifo"), BYTES, controls,
                "priority, FIFO", "");
        report.figure("memory_bytes_per_msg_delayed", samples.figure("memory.delayed"), BYTES, controls,
                "priority, each with a not-before time", "");
        report.value("memory_messages", plan.memory());
    }

    /** Each plain type, then a topic or message with one job control. */
    private static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        for (TopicType type : TopicType.values()) {
            String name = "memory-" + type.name().toLowerCase(Locale.ROOT).replace('_', '-');
            cases.add(new Case(sampleName(type), TopicDefinition.builder(name, type), RmqCases::waiting));
        }
        Instant later = Instant.now().plus(Duration.ofHours(1));
        cases.add(new Case("memory.ttl",
                TopicDefinition.builder("memory-ttl", TopicType.RANGE_MERGE).ttl(Duration.ofHours(2)), RmqCases::waiting));
        cases.add(new Case("memory.fifo",
                TopicDefinition.builder("memory-fifo", TopicType.PRIORITY).fifo(true), RmqCases::waiting));
        cases.add(new Case("memory.delayed", TopicDefinition.builder("memory-delayed", TopicType.PRIORITY),
                topic -> i -> OutgoingMessage.priority(topic.name(), Payloads.next(), 100).notBefore(later)));
        return cases;
    }

    private record Case(String sample, TopicBuilder topic,
                        Function<TopicDefinition, RmqCases.Messages> messages) {
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
