package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.topic.TopicType;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import static dev.rmq.benchmarks.Report.Unit.BYTES;
import static dev.rmq.benchmarks.Report.Unit.CALLS;
import static dev.rmq.benchmarks.Report.Unit.MICROS;
import static dev.rmq.benchmarks.Report.Unit.RATE;
import static dev.rmq.benchmarks.Report.Unit.RATIO;

/**
 * rmq's produce in the throughput rounds: batched sends to a topic of every type and single sends, then the
 * table's "Produce" section.
 */
final class ProduceRound {

    /** rmq's batched produce: the slots of the produce topics, messages per sendAllAsync and calls in flight. */
    static final int SLOTS = 16;
    static final int BATCH = 1000;
    static final int IN_FLIGHT = 4;
    /** The most messages rmq's producer puts in one send-script call. */
    static final int CALL_CAPACITY = 256;
    /**
     * Messages per send-script call of rmq's batched produce: on the bench's one Redis a batch's slots share calls
     * of up to {@value #CALL_CAPACITY} messages, so a batch of 1000 over 16 slots makes four calls of 250 on
     * average, each with the shares of four or five slots. The limit runs the script with this many messages of
     * one slot, so that the target compares the same work per call.
     */
    static final int PER_CALL = Math.round((float) BATCH / ((BATCH + CALL_CAPACITY - 1) / CALL_CAPACITY));
    static final int SINGLE_IN_FLIGHT = 100;

    private final Context context;
    private final RmqCases rmq;
    private final Map<TopicType, RmqClient> clients = new EnumMap<>(TopicType.class);

    ProduceRound(Context context, RmqCases rmq) {
        this.context = context;
        this.rmq = rmq;
        for (TopicType type : TopicType.values()) {
            clients.put(type, rmq.client(RmqCases.topic(topicName(type), type, SLOTS)));
        }
    }

    void measure() {
        Samples samples = context.samples();
        for (TopicType type : TopicType.values()) {
            Measured m = rmq.produceBatched(client(type), context.plan().produce(), BATCH, IN_FLIGHT, waiting(type));
            samples.add("produce." + type, m);
            samples.add("produce." + type + ".scripts", m.callsPerMessage(RedisProbe.SCRIPTS));
            if (type == TopicType.RANGE_MERGE) {
                CommandProfile.sample(samples, "produce", m);
            }
            context.probe().flushAll();
        }
        Measured m = rmq.produceSingle(client(TopicType.RANGE_MERGE), context.plan().produceSingle(), SINGLE_IN_FLIGHT,
                waiting(TopicType.RANGE_MERGE));
        samples.add("produce_single", m);
        samples.add("produce_single.scripts", m.callsPerMessage(RedisProbe.SCRIPTS));
        context.probe().flushAll();
    }

    void report() {
        Report report = context.report();
        Samples samples = context.samples();
        String section = "Produce (64-byte unique payloads, " + SLOTS + " slots)";
        String api = "sendAllAsync, " + BATCH + " msgs/call, " + IN_FLIGHT + " in flight";
        report.figure("produce.msgs_per_s", samples.figure("produce.RANGE_MERGE"), RATE, section,
                "batched, range-merge (headline)", api);
        report.figure("produce.redis_cpu_us_per_msg", samples.figure("produce.RANGE_MERGE.cpu"), MICROS, section,
                "  Redis CPU", "INFO cpu delta");
        report.figure("produce.client_cpu_us_per_msg", samples.figure("produce.RANGE_MERGE.jvm"), MICROS, section,
                "  client (JVM) CPU", "all threads of the benchmark JVM");
        report.figure("produce.client_alloc_bytes_per_msg", samples.figure("produce.RANGE_MERGE.alloc"), BYTES,
                section, "  client allocation", "all of the JVM's threads; repeats from run to run, as CPU does not");
        Figure calls = samples.figure("produce.RANGE_MERGE.scripts");
        report.figure("produce.script_calls_per_msg", calls, CALLS, null, null, null);
        report.value("produce.script_msgs_per_call", calls.isPresent() && calls.median() > 0 ? 1 / calls.median() : null);
        report.figure("produce.limit_ratio", samples.figure("produce.limit_ratio"), RATIO, section,
                "  / the limit, same call shape", "per round; script x" + PER_CALL + " (the target's base)");
        report.value("produce.api", api);
        report.value("produce.round_trips_per_msg", 1.0 / BATCH);
        CommandProfile.report(report, samples, "produce");
        for (TopicType type : TopicType.values()) {
            String key = type.name().toLowerCase(Locale.ROOT);
            report.figure("produce_by_type." + key + ".msgs_per_s", samples.figure("produce." + type), RATE, section,
                    "batched, " + key, "");
            report.figure("produce_by_type." + key + ".redis_cpu_us_per_msg", samples.figure("produce." + type + ".cpu"),
                    MICROS, section, "  Redis CPU", "");
        }
        report.figure("produce_single.msgs_per_s", samples.figure("produce_single"), RATE, section,
                "single sendAsync, " + SINGLE_IN_FLIGHT + " in flight", "range-merge");
        report.figure("produce_single.redis_cpu_us_per_msg", samples.figure("produce_single.cpu"), MICROS, section,
                "  Redis CPU", "");
        report.figure("produce_single.client_cpu_us_per_msg", samples.figure("produce_single.jvm"), MICROS, section,
                "  client (JVM) CPU", "");
        report.figure("produce_single.client_alloc_bytes_per_msg", samples.figure("produce_single.alloc"), BYTES,
                section, "  client allocation", "all of the JVM's threads; repeats from run to run, as CPU does not");
        report.figure("produce_single.limit_ratio", samples.figure("produce_single.limit_ratio"), RATIO, section,
                "  / the limit, same call shape", "per round; script x1");
        report.figure("produce_single.script_calls_per_msg", samples.figure("produce_single.scripts"), CALLS, section,
                "  script calls", "sends that wait for their lane's call in flight go together in the next");
        report.value("produce_single.in_flight", SINGLE_IN_FLIGHT);
    }

    /** Messages for the type's topic that stay queued: nothing consumes during produce. */
    private RmqCases.Messages waiting(TopicType type) {
        return RmqCases.waiting(client(type).topics().require(topicName(type)));
    }

    /** The type's client: the constructor makes one for every type. */
    private RmqClient client(TopicType type) {
        return Objects.requireNonNull(clients.get(type), "no client for " + type);
    }

    private static String topicName(TopicType type) {
        return "p-" + type.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
