package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.DeliveryGuarantee;
import dev.rmq.topic.RepeatedKey;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.rmq.benchmarks.Report.Unit.MICROS;
import static dev.rmq.benchmarks.Report.Unit.RATE;
import static dev.rmq.benchmarks.Report.Unit.RATIO;

/**
 * What the job controls cost, in the throughput rounds: each case beside the plain case of the same round, as a
 * ratio of Redis CPU per message. A time to live on produce and consume, at-most-once consume (what it saves),
 * produce to a FIFO topic, at one priority so that the order among equals decides, and the repeated-key rules: each
 * key sent twice, so that every second send is merged, kept or throttled, beside the same sends under REPLACE.
 */
final class ControlsRound {

    /** The repeated-key rules measured, by the name of their case; REPLACE is the others' baseline. */
    private static final Map<String, RepeatedKey> RULES = new LinkedHashMap<>();

    static {
        RULES.put("replace", RepeatedKey.REPLACE);
        RULES.put("keep_first", RepeatedKey.KEEP_FIRST);
        RULES.put("debounce", RepeatedKey.DEBOUNCE);
        RULES.put("throttle", RepeatedKey.throttle(Duration.ofHours(1)));
    }

    private final Context context;
    private final RmqCases rmq;
    private final Plan.ConsumeSetting setting;
    private final RmqClient produceTtl;
    private final RmqClient produceFifo;
    private final RmqClient consumeTtl;
    private final RmqClient consumeAtMostOnce;
    /** A topic per repeated-key rule. */
    private final RmqClient repeated;

    ControlsRound(Context context, RmqCases rmq, Plan.ConsumeSetting setting) {
        this.context = context;
        this.rmq = rmq;
        this.setting = setting;
        this.produceTtl = rmq.client(TopicDefinition.builder("produce-ttl", TopicType.RANGE_MERGE)
                .slotAmount(ProduceRound.SLOTS).ttl(Duration.ofHours(2)).build());
        this.produceFifo = rmq.client(TopicDefinition.builder("produce-fifo", TopicType.PRIORITY)
                .slotAmount(ProduceRound.SLOTS).fifo(true).build());
        this.consumeTtl = rmq.client(TopicDefinition.builder("consume-ttl", TopicType.RANGE_MERGE)
                .slotAmount(setting.slots()).ttl(Duration.ofHours(1)).build());
        this.consumeAtMostOnce = rmq.client(TopicDefinition.builder("consume-amo", TopicType.RANGE_MERGE)
                .slotAmount(setting.slots()).delivery(DeliveryGuarantee.AT_MOST_ONCE).build());
        List<TopicDefinition> rules = new ArrayList<>();
        for (Map.Entry<String, RepeatedKey> rule : RULES.entrySet()) {
            rules.add(TopicDefinition.builder(topicOf(rule.getKey()), TopicType.RANGE_MERGE)
                    .slotAmount(ProduceRound.SLOTS).repeatedKey(rule.getValue()).build());
        }
        this.repeated = rmq.client(rules.toArray(TopicDefinition[]::new));
    }

    /** Each key twice in a row: every second send finds its key waiting (or throttled). */
    private static RmqCases.Messages twice(String topic) {
        return i -> OutgoingMessage.rangeMerge(topic, Payloads.next(), Duration.ofHours(1)).withKey("k" + (i >> 1));
    }

    private static String topicOf(String rule) {
        return "repeat-" + rule.replace('_', '-');
    }

    /** After the plain produce and consume of the same round, whose samples the ratios divide by. */
    void measure() {
        Samples samples = context.samples();
        long produce = context.plan().produce();
        samples.add("controls.produce_ttl", rmq.produceBatched(produceTtl, produce, ProduceRound.BATCH,
                ProduceRound.IN_FLIGHT, RmqCases.waiting(produceTtl.topics().require("produce-ttl"))));
        context.probe().flushAll();
        samples.add("controls.produce_fifo", rmq.produceBatched(produceFifo, produce, ProduceRound.BATCH,
                ProduceRound.IN_FLIGHT, i -> OutgoingMessage.priority("produce-fifo", Payloads.next(), 100)));
        context.probe().flushAll();
        long consume = context.plan().consume();
        rmq.fillDue(consumeTtl, "consume-ttl", consume);
        samples.add("controls.consume_ttl", rmq.consume(consumeTtl, "consume-ttl", consume, setting.consumerSettings()));
        context.probe().flushAll();
        rmq.fillDue(consumeAtMostOnce, "consume-amo", consume);
        samples.add("controls.consume_amo", rmq.consume(consumeAtMostOnce, "consume-amo", consume,
                setting.consumerSettings()));
        context.probe().flushAll();
        for (String rule : RULES.keySet()) {
            samples.add("controls.repeat_" + rule, rmq.produceBatched(repeated, produce, ProduceRound.BATCH,
                    ProduceRound.IN_FLIGHT, twice(topicOf(rule))));
            context.probe().flushAll();
            samples.addRatio("controls.repeat_" + rule + ".cpu_ratio", "controls.repeat_" + rule + ".cpu",
                    "controls.repeat_replace.cpu");
        }
        samples.addRatio("controls.produce_ttl.cpu_ratio", "controls.produce_ttl.cpu", "produce.RANGE_MERGE.cpu");
        samples.addRatio("controls.produce_fifo.cpu_ratio", "controls.produce_fifo.cpu", "produce.PRIORITY.cpu");
        samples.addRatio("controls.consume_ttl.cpu_ratio", "controls.consume_ttl.cpu", "consume.cpu");
        samples.addRatio("controls.consume_amo.cpu_ratio", "controls.consume_amo.cpu", "consume.cpu");
    }

    void report() {
        Report report = context.report();
        Samples samples = context.samples();
        String section = "Job controls (each beside its plain case of the same round)";
        row(report, samples, section, "produce_ttl", "produce, a time to live on every message",
                "range-merge, as the headline produce");
        row(report, samples, section, "produce_fifo", "produce, FIFO, every message at one priority",
                "priority; beside produce without FIFO at random priorities");
        row(report, samples, section, "consume_ttl", "consume, a time to live on every message",
                "as the consume case, " + setting);
        row(report, samples, section, "consume_amo", "consume, at most once", "no lease, no ack; " + setting);
        for (String rule : RULES.keySet()) {
            row(report, samples, section, "repeat_" + rule, "produce, each key twice, " + RULES.get(rule),
                    "range-merge; beside the same sends under REPLACE");
        }
    }

    private static void row(Report report, Samples samples, String section, String name, String label, String note) {
        String key = "controls." + name;
        report.figure(key + ".msgs_per_s", samples.figure(key), RATE, section, label, note);
        report.figure(key + ".redis_cpu_us_per_msg", samples.figure(key + ".cpu"), MICROS, section, "  Redis CPU", "");
        report.figure(key + ".cpu_ratio", samples.figure(key + ".cpu_ratio"), RATIO, section,
                "  / the plain case's Redis CPU", "per round");
    }
}
