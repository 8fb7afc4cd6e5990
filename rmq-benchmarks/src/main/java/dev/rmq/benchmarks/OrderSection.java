package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.SlotOrder;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import tools.jackson.databind.node.ArrayNode;

import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import static dev.rmq.benchmarks.Report.Unit.CALLS;
import static dev.rmq.benchmarks.Report.Unit.MICROS;
import static dev.rmq.benchmarks.Report.Unit.RATE;

/**
 * The order section: what taking the most urgent slot first costs against taking the slots in turn. One worker
 * holds every slot of a 16-slot priority topic and consumes a backlog with polls of 1, 10 and 100, each way in turn
 * in every repetition: of distinct random priorities, the worst case, and of ten priority levels, the usual one.
 * Priority is where the order cuts polls short: a poll takes nothing less urgent than another slot's next message,
 * and messages of the next slot's own level are still taken.
 */
final class OrderSection {

    private static final int SLOTS = 16;
    private static final int[] POLLS = {1, 10, 100};
    /** How many priority levels a backlog spreads over: random ones (a million), or ten. */
    private static final int[] LEVELS = {1_000_000, 10};

    private final Context context;
    private final RmqCases rmq;

    OrderSection(Context context, RmqCases rmq) {
        this.context = context;
        this.rmq = rmq;
    }

    void run() {
        TopicDefinition topic = RmqCases.topic("order", TopicType.PRIORITY, SLOTS);
        RmqClient client = rmq.client(topic);
        Report report = context.report();
        int reps = Math.max(context.reps(), 3);
        long window = context.plan().consume() / 10;
        ArrayNode list = report.array();
        for (int levels : LEVELS) {
            String section = String.format(Locale.ROOT, "Order across slots (one worker holding %d slots consumes %,d"
                    + " messages of %,d priority levels per case)", SLOTS, window, levels);
            measure(client, topic, window, reps, levels, section, list);
        }
        context.probe().flushAll();
        report.value("order", list);
    }

    private void measure(RmqClient client, TopicDefinition topic, long window, int reps, int levels, String section,
                         ArrayNode list) {
        Report report = context.report();
        for (int poll : POLLS) {
            for (int rep = 1; rep <= reps; rep++) {
                for (SlotOrder order : SlotOrder.values()) {
                    context.probe().flushAll();
                    rmq.fill(client, window, i -> OutgoingMessage.priority(topic.name(), Payloads.next(),
                            17 + ThreadLocalRandom.current().nextInt(levels)));
                    ConsumerSettings settings = ConsumerSettings.DEFAULTS.withBatchSize(poll).withSlotOrder(order);
                    Measured m = rmq.consume(client, topic.name(), window, settings);
                    String name = "order." + levels + "." + order + "." + poll;
                    context.samples().add(name, m.rate());
                    context.samples().add(name + ".cpu", m.cpuMicrosPerMessage());
                    context.samples().add(name + ".scripts", m.callsPerMessage(RedisProbe.SCRIPTS));
                }
            }
            for (SlotOrder order : SlotOrder.values()) {
                String name = "order." + levels + "." + order + "." + poll;
                String label = String.format(Locale.ROOT, "%s, polls of %d", order, poll);
                Figure rate = context.samples().figure(name);
                Figure cpu = context.samples().figure(name + ".cpu");
                Figure calls = context.samples().figure(name + ".scripts");
                report.row(section, label, rate, RATE, "");
                report.row(section, "  Redis CPU", cpu, MICROS, "");
                report.row(section, "  script calls", calls, CALLS, "");
                list.addObject().put("levels", levels).put("order", order.name()).put("poll", poll)
                        .put("consume_msgs_per_s", Math.round(rate.median()))
                        .put("redis_cpu_us_per_msg", Math.round(cpu.median() * 1000) / 1000.0)
                        .put("script_calls_per_msg", Math.round(calls.median() * 10_000) / 10_000.0);
            }
        }
    }
}
