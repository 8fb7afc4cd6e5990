package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import static dev.rmq.benchmarks.Report.Unit.CALLS;
import static dev.rmq.benchmarks.Report.Unit.MILLIS;
import static dev.rmq.benchmarks.Report.Unit.MICROS;
import static dev.rmq.benchmarks.Report.Unit.RATE;

/**
 * The single-send section: {@code sendAsync} one message per call from 1, 16 and 100 callers, each caller
 * keeping one send outstanding, as request threads of a service do. It reports the rate, the latency of a send
 * (p50, p99) and what a message costs Redis, on a topic of one slot, where every caller meets every other, and
 * of 16 slots, where they spread.
 */
final class SingleSendSection {

    private static final int[] CALLERS = {1, 16, 100};
    private static final int[] SLOTS = {1, 16};

    private final Context context;
    private final RmqCases rmq;

    SingleSendSection(Context context, RmqCases rmq) {
        this.context = context;
        this.rmq = rmq;
    }

    void run() {
        Report report = context.report();
        int reps = Math.max(context.reps(), 3);
        long count = context.plan().produceSingle();
        for (int slots : SLOTS) {
            TopicDefinition topic = RmqCases.topic("single-" + slots, TopicType.RANGE_MERGE, slots);
            RmqClient client = rmq.client(topic);
            RmqCases.Messages messages = RmqCases.waiting(topic);
            String section = String.format(Locale.ROOT, "Single sends (sendAsync of 64-byte unique payloads, %,d per"
                    + " case, to a topic of %d slot%s)", count, slots, slots == 1 ? "" : "s");
            for (int callers : CALLERS) {
                String name = "single_send." + slots + "_slots." + callers + "_callers";
                for (int rep = 1; rep <= reps; rep++) {
                    context.probe().flushAll();
                    Latencies latencies = new Latencies(count);
                    Measured m = ProduceLoop.run(context.probe(), count, 1, callers, "a send failed", (first, n) -> {
                        OutgoingMessage message = messages.apply(first);
                        return latencies.timed(() -> client.producer().sendAsync(message));
                    });
                    context.samples().add(name, m);
                    context.samples().add(name + ".scripts", m.callsPerMessage(RedisProbe.SCRIPTS));
                    context.samples().add(name + ".p50", latencies.percentile(0.50));
                    context.samples().add(name + ".p99", latencies.percentile(0.99));
                }
                String label = callers + (callers == 1 ? " caller" : " callers");
                report.figure(name + ".msgs_per_s", context.samples().figure(name), RATE, section, label, "");
                report.figure(name + ".latency_p50_ms", context.samples().figure(name + ".p50"), MILLIS, section,
                        "  latency p50", "call to receipt");
                report.figure(name + ".latency_p99_ms", context.samples().figure(name + ".p99"), MILLIS, section,
                        "  latency p99", "");
                report.figure(name + ".redis_cpu_us_per_msg", context.samples().figure(name + ".cpu"), MICROS, section,
                        "  Redis CPU", "INFO cpu delta");
                report.figure(name + ".script_calls_per_msg", context.samples().figure(name + ".scripts"), CALLS,
                        section, "  script calls", "");
            }
        }
        context.probe().flushAll();
    }

    /** Each send's time from the call to its receipt, in ms. */
    private static final class Latencies {

        private final double[] millis;
        private final AtomicLong next = new AtomicLong();

        Latencies(long count) {
            this.millis = new double[Math.toIntExact(count)];
        }

        Supplier<CompletionStage<?>> timed(Supplier<? extends CompletionStage<?>> send) {
            return () -> {
                long start = System.nanoTime();
                return send.get().whenComplete((receipt, error) ->
                        millis[(int) next.getAndIncrement()] = (System.nanoTime() - start) / 1e6);
            };
        }

        double percentile(double p) {
            double[] sorted = Arrays.copyOf(millis, (int) Math.min(next.get(), millis.length));
            Arrays.sort(sorted);
            return sorted.length == 0 ? Double.NaN : sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
        }
    }
}
