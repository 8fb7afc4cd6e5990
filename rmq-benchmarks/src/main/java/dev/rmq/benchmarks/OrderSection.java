package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.SlotOrder;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import tools.jackson.databind.node.ArrayNode;

import java.util.Locale;

import static dev.rmq.benchmarks.Report.Unit.CALLS;
import static dev.rmq.benchmarks.Report.Unit.MICROS;
import static dev.rmq.benchmarks.Report.Unit.RATE;

/**
 * The order section: what taking the most urgent slot first costs against taking the slots in turn. One worker
 * holds every slot of a 16-slot priority topic and consumes a backlog of random priorities with polls of 1, 10 and
 * 100, each way in turn in every repetition. Priority is where the order cuts polls short: a poll takes nothing
 * less urgent than another slot's next message.
 */
final class OrderSection {

    private static final int SLOTS = 16;
    private static final int[] POLLS = {1, 10, 100};

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
        String section = String.format(Locale.ROOT, "Order across slots (one worker holding %d slots consumes %,d"
                + " messages of random priorities per case)", SLOTS, window);
        ArrayNode list = report.array();
        for (int poll : POLLS) {
            for (int rep = 1; rep <= reps; rep++) {
                for (SlotOrder order : SlotOrder.values()) {
                    context.probe().flushAll();
                    rmq.fill(client, window, RmqCases.waiting(topic));
                    ConsumerSettings settings = ConsumerSettings.DEFAULTS.withBatchSize(poll).withSlotOrder(order);
                    Measured m = rmq.consume(client, topic.name(), window, settings);
                    String name = "order." + order + "." + poll;
                    context.samples().add(name, m.rate());
                    context.samples().add(name + ".cpu", m.cpuMicrosPerMessage());
                    context.samples().add(name + ".evalsha", m.callsPerMessage("evalsha"));
                }
            }
            for (SlotOrder order : SlotOrder.values()) {
                String name = "order." + order + "." + poll;
                String label = String.format(Locale.ROOT, "%s, polls of %d", order, poll);
                Figure rate = context.samples().figure(name);
                Figure cpu = context.samples().figure(name + ".cpu");
                Figure calls = context.samples().figure(name + ".evalsha");
                report.row(section, label, rate, RATE, "");
                report.row(section, "  Redis CPU", cpu, MICROS, "");
                report.row(section, "  script calls", calls, CALLS, "");
                list.addObject().put("order", order.name()).put("poll", poll)
                        .put("consume_msgs_per_s", Math.round(rate.median()))
                        .put("redis_cpu_us_per_msg", Math.round(cpu.median() * 1000) / 1000.0)
                        .put("script_calls_per_msg", Math.round(calls.median() * 10_000) / 10_000.0);
            }
        }
        context.probe().flushAll();
        report.value("order", list);
    }
}
