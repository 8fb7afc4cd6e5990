package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.script.AckCall;
import dev.rmq.internal.script.ExtendCall;
import dev.rmq.internal.script.PrepareCall;
import dev.rmq.internal.script.RetryPolicy;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;
import org.redisson.api.FunctionMode;
import org.redisson.api.FunctionResult;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import static dev.rmq.benchmarks.Report.Unit.MICROS;

/**
 * The fixed-cost section: what one script call costs Redis when it handles one message or none, from
 * {@code INFO commandstats} (the FCALL or EVALSHA time over its calls), with {@code redis-benchmark} making the calls so that
 * no client sits between. A poll of an empty slot is what an idle consumer pays every idle poll; a poll that takes
 * one message and a send of one are what a message pays at light load. Needs {@code redis-benchmark}; without it
 * the section is skipped.
 */
final class FixedCostSection {

    private static final long CALLS = 50_000;
    /** The messages queued ahead of the polls that take one: more than the polls, so none finds the slot empty. */
    private static final long BACKLOG_BEYOND_CALLS = 1_000;
    private static final long LEASE_MS = 30_000;
    private static final long IDLE_MS = 1_000;
    private static final int RECOVER_LIMIT = 100;
    /** The pauses between single sends, from none to what a lightly loaded producer leaves. */
    private static final List<Integer> GAPS_MS = List.of(0, 1, 10);
    private static final int PACED_SENDS = 300;
    /** A Function that returns at once: the floor under any call, paced as the sends are. */
    private static final String NOOP = "rmqbench_noop";

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
        if (limit.functions()) {
            context.probe().server().command("FUNCTION", "LOAD", "REPLACE", "#!lua name=rmqbench\n"
                    + "redis.register_function('" + NOOP + "', function(keys, args) return 1 end)");
        }
        TopicDefinition priority = RmqCases.topic("fixed-p", TopicType.PRIORITY, 1);
        TopicDefinition range = RmqCases.topic("fixed-r", TopicType.RANGE_MERGE, 1);
        RmqClient client = rmq.client(priority);
        List<Case> cases = cases(context.probe(), rmq, client, priority, range);
        int reps = Math.max(context.reps(), 3);
        // as rmq calls (FCALL where Redis has Functions), and by EVALSHA beside it to show what Functions save
        List<Boolean> ways = limit.functions() ? List.of(false, true) : List.of(false);
        for (int rep = 1; rep <= reps; rep++) {
            for (boolean evalsha : ways) {
                for (Case c : cases) {
                    c.setup().before(CALLS);
                    Measured m = c.calls().make(limit, CALLS, evalsha);
                    context.samples().add("fixed_cost." + c.name() + suffix(evalsha),
                            m.cost().usecPer(RedisProbe.SCRIPTS, m.messages()));
                }
            }
            for (int gap : GAPS_MS) {
                context.probe().flushAll();
                paced("send_one_paced_" + gap + "ms", gap, () -> client.producer().send(
                        OutgoingMessage.priority(priority.name(), Payloads.next(), 100)));
                if (limit.functions()) {
                    paced("noop_paced_" + gap + "ms", gap, () -> rmq.redisson().getFunction()
                            .call(FunctionMode.WRITE, NOOP, FunctionResult.VALUE, List.of()));
                }
            }
        }
        context.probe().flushAll();
        Report report = context.report();
        String section = String.format(Locale.ROOT, "Fixed cost of a script call (Redis CPU per %s, INFO"
                + " commandstats; %,d calls by redis-benchmark per case, one slot)",
                limit.functions() ? "FCALL" : "EVALSHA", CALLS);
        for (boolean evalsha : ways) {
            for (Case c : cases) {
                row(report, section, c.name() + suffix(evalsha), c.label() + how(evalsha), c.note());
            }
        }
        String paced = String.format(Locale.ROOT, "A call's cost after Redis idled (per call: its script time from INFO"
                + " commandstats, and all of Redis's CPU; %d calls, one at a time, with a pause between)", PACED_SENDS);
        for (int gap : GAPS_MS) {
            String send = "send_one_paced_" + gap + "ms";
            row(report, paced, send, "send.lua, one message, " + gap + " ms apart",
                    gap == 0 ? "single sends from rmq's producer, one after another" : "");
            row(report, paced, send + "_redis_cpu", "  all of Redis's CPU", "the request's way in and out too");
            if (limit.functions()) {
                String noop = "noop_paced_" + gap + "ms";
                row(report, paced, noop, "a Function that returns 1, " + gap + " ms apart",
                        "the floor of any call on this machine");
                row(report, paced, noop + "_redis_cpu", "  all of Redis's CPU", "");
            }
        }
    }

    /**
     * Calls made one at a time with {@code gapMs} between them: what a call costs once Redis has idled, its caches
     * cooled by whatever else ran meanwhile. Adds the script time per call under {@code fixed_cost.<name>}, and
     * all of Redis's CPU per call, its way in and out included, under {@code fixed_cost.<name>_redis_cpu} (beside
     * it, not below: the report's JSON nests a name at its dots, and a figure cannot hold another).
     */
    private void paced(String name, int gapMs, Runnable call) {
        for (int i = 0; i < 50; i++) {
            call.run();
        }
        RedisProbe.Snapshot before = context.probe().snapshot();
        for (int i = 0; i < PACED_SENDS; i++) {
            call.run();
            if (gapMs > 0) {
                Waits.sleep(gapMs);
            }
        }
        RedisProbe.Cost cost = context.probe().snapshot().since(before);
        // the snapshots' own INFO calls are not scripts, so the script time is the calls' alone; Redis's CPU takes
        // in the two INFO calls of the snapshots, a few µs over 300 calls
        context.samples().add("fixed_cost." + name, cost.usecPer(RedisProbe.SCRIPTS, PACED_SENDS));
        context.samples().add("fixed_cost." + name + "_redis_cpu", cost.cpuMicrosPer(PACED_SENDS));
    }

    /**
     * One case of the section, shared with {@link Instructions}, which counts the same calls in instructions: its
     * name in the report, its label and note, what Redis holds before its calls, and the calls.
     */
    record Case(String name, String label, String note, Setup setup, Calls calls) {

        /** Readies Redis for {@code calls} calls of the case. */
        interface Setup {
            void before(long calls);
        }

        /** Makes {@code count} calls of the case with redis-benchmark, by FCALL or by EVALSHA. */
        interface Calls {
            Measured make(LimitCases limit, long count, boolean evalsha);
        }
    }

    /**
     * The cases, in the order they run: each of the first five empties Redis first, the last two act on the leases the
     * fifth left (a poll that takes one message leases it).
     */
    static List<Case> cases(RedisProbe probe, RmqCases rmq, RmqClient client, TopicDefinition priority,
                            TopicDefinition range) {
        Case.Setup empty = calls -> probe.flushAll();
        Case.Setup backlog = calls -> {
            probe.flushAll();
            rmq.fill(client, calls + BACKLOG_BEYOND_CALLS, backlog(priority));
        };
        Case.Setup asLeft = calls -> { };
        return List.of(
                new Case("send_one", "send.lua, one message", "as a single send makes it", empty,
                        (limit, count, evalsha) -> limit.sendScript(count, 1, evalsha)),
                new Case("send_one_pipelined", "send.lua, one message, with a call key",
                        "as a batch's pipeline makes it: its reply kept for a replay", empty,
                        (limit, count, evalsha) -> limit.sendScript(count, 1, evalsha, true)),
                new Case("prepare_empty_priority", "prepare.lua, empty priority slot", "an idle consumer's poll", empty,
                        (limit, count, evalsha) -> limit.scriptCall(count, priority.name(), poll(priority), evalsha)),
                new Case("prepare_empty_range_merge", "prepare.lua, empty range-merge slot", "", empty,
                        (limit, count, evalsha) -> limit.scriptCall(count, range.name(), poll(range), evalsha)),
                new Case("prepare_one_priority", "prepare.lua, taking one message",
                        "a priority slot with a backlog, polls of 1", backlog,
                        (limit, count, evalsha) -> limit.scriptCall(count, priority.name(), poll(priority), evalsha)),
                new Case("ack_stale", "ack.lua, one ack (its lease gone)", "the call before it changes anything", asLeft,
                        (limit, count, evalsha) -> limit.scriptCall(count, priority.name(), staleAck(priority), evalsha)),
                new Case("extend_stale", "extend.lua, one lease (gone)", "the same, for an extension", asLeft,
                        (limit, count, evalsha) -> limit.scriptCall(count, priority.name(), STALE_EXTEND, evalsha)));
    }

    /** The suffix of a case's name made by EVALSHA where Redis has Functions (with none, EVALSHA is the only way). */
    static String suffix(boolean evalsha) {
        return evalsha ? "_evalsha" : "";
    }

    /** The same, for a case's label. */
    static String how(boolean evalsha) {
        return evalsha ? ", by EVALSHA" : "";
    }

    /** Priority messages at random priorities, for the polls that take one. */
    private static RmqCases.Messages backlog(TopicDefinition priority) {
        return i -> OutgoingMessage.priority(priority.name(), Payloads.next(),
                17 + ThreadLocalRandom.current().nextInt(1_000_000));
    }

    /** An extension of one lease that no longer runs: the extension's call up to its first change. */
    private static final ExtendCall STALE_EXTEND = new ExtendCall(LEASE_MS, "", false,
            List.of(new ExtendCall.Lease("gone", 1)));

    /**
     * A commit of one delivery whose lease is gone: what an ack's call costs before it ends anything (redis-benchmark
     * repeats one command, so it cannot quote the token of a lease it was given).
     */
    private static AckCall staleAck(TopicDefinition topic) {
        return new AckCall(RetryPolicy.of(topic), "", new KeyLayout("").wakeChannel(topic.name()), 0,
                List.of(new AckCall.Ack(AckCall.Op.COMMIT, "gone", 1, "")));
    }

    /** A container worker's poll of one message, leased, unfenced. */
    private static PrepareCall poll(TopicDefinition topic) {
        return new PrepareCall(RetryPolicy.of(topic), 1, LEASE_MS, "", IDLE_MS, RECOVER_LIMIT, false, null);
    }

    private void row(Report report, String section, String name, String label, String note) {
        report.figure("scripts.fixed_cost_us." + name, context.samples().figure("fixed_cost." + name), MICROS, section,
                label, note);
    }
}
