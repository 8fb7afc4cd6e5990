package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.internal.script.PrepareCall;
import dev.rmq.internal.script.RetryPolicy;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import static dev.rmq.benchmarks.Report.Unit.MICROS;

/**
 * The fixed-cost section: what one script call costs Redis when it handles one message or none, from
 * {@code INFO commandstats} (the EVALSHA time over its calls), with {@code redis-benchmark} making the calls so that
 * no client sits between. A poll of an empty slot is what an idle consumer pays every idle poll; a poll that takes
 * one message and a send of one are what a message pays at light load. Needs {@code redis-benchmark}; without it
 * the section is skipped.
 */
final class FixedCostSection {

    private static final long CALLS = 50_000;
    private static final long LEASE_MS = 30_000;
    private static final long IDLE_MS = 1_000;
    private static final int RECOVER_LIMIT = 100;

    private final Context context;
    private final RmqCases rmq;
    private final @Nullable LimitCases limit;

    FixedCostSection(Context context, RmqCases rmq, @Nullable LimitCases limit) {
        this.context = context;
        this.rmq = rmq;
        this.limit = limit;
    }

    void run() {
        if (limit == null) {
            Log.info("fixed cost: skipped, redis-benchmark was not found");
            return;
        }
        TopicDefinition priority = RmqCases.topic("fixed-p", TopicType.PRIORITY, 1);
        TopicDefinition range = RmqCases.topic("fixed-r", TopicType.RANGE_MERGE, 1);
        RmqClient client = rmq.client(priority);
        int reps = Math.max(context.reps(), 3);
        for (int rep = 1; rep <= reps; rep++) {
            context.probe().flushAll();
            sample("send_one", limit.sendScript(CALLS, 1));
            context.probe().flushAll();
            sample("prepare_empty_priority", limit.scriptCall(CALLS, priority.name(), poll(priority)));
            context.probe().flushAll();
            sample("prepare_empty_range_merge", limit.scriptCall(CALLS, range.name(), poll(range)));
            context.probe().flushAll();
            rmq.fill(client, CALLS + 1_000, i -> OutgoingMessage.priority(priority.name(), Payloads.next(),
                    17 + ThreadLocalRandom.current().nextInt(1_000_000)));
            sample("prepare_one_priority", limit.scriptCall(CALLS, priority.name(), poll(priority)));
        }
        context.probe().flushAll();
        Report report = context.report();
        String section = String.format(Locale.ROOT, "Fixed cost of a script call (Redis CPU per EVALSHA, INFO"
                + " commandstats; %,d calls by redis-benchmark per case, one slot)", CALLS);
        row(report, section, "send_one", "send.lua, one message", "as a single send makes it");
        row(report, section, "prepare_one_priority", "prepare.lua, taking one message", "a priority slot with a backlog, polls of 1");
        row(report, section, "prepare_empty_priority", "prepare.lua, empty priority slot", "an idle consumer's poll");
        row(report, section, "prepare_empty_range_merge", "prepare.lua, empty range-merge slot", "");
    }

    /** A container worker's poll of one message, leased, unfenced. */
    private static PrepareCall poll(TopicDefinition topic) {
        return new PrepareCall(RetryPolicy.of(topic), 1, LEASE_MS, "", IDLE_MS, RECOVER_LIMIT, false, null);
    }

    private void sample(String name, Measured m) {
        context.samples().add("fixed_cost." + name, m.cost().usecPer("evalsha", m.messages()));
    }

    private void row(Report report, String section, String name, String label, String note) {
        report.figure("scripts.fixed_cost_us." + name, context.samples().figure("fixed_cost." + name), MICROS, section,
                label, note);
    }
}
