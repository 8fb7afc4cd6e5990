package dev.rmq.benchmarks;

import org.jspecify.annotations.Nullable;

import static dev.rmq.benchmarks.Report.Unit.MICROS;
import static dev.rmq.benchmarks.Report.Unit.RATE;

/**
 * The limit in the throughput rounds: {@code redis-benchmark} running rmq's send script in both of rmq's
 * call shapes, and plain ZADD, on the same Redis, then the table's "The limit" section.
 */
final class LimitRound {

    private final Context context;
    /** Null when no {@code redis-benchmark} was found: the round skips the limit and reports it as skipped. */
    private final @Nullable LimitCases limit;

    LimitRound(Context context, @Nullable LimitCases limit) {
        this.context = context;
        this.limit = limit;
    }

    void measure() {
        if (limit == null) {
            return;
        }
        Plan plan = context.plan();
        measure("limit.script", limit.sendScript(plan.limitCalls(), 1));
        measure("limit.script_batch", limit.sendScript(plan.limitBatchCalls(), ProduceRound.PER_CALL));
        measure("limit.zadd", limit.zadd(plan.zaddCalls()));
    }

    private void measure(String name, Measured m) {
        context.samples().add(name, m.rate());
        context.samples().add(name + ".cpu", m.cpuMicrosPerMessage());
        context.probe().flushAll();
    }

    void report() {
        Report report = context.report();
        Samples samples = context.samples();
        if (limit == null) {
            report.value("limit.produce_script_msgs_per_s", null);
            report.value("limit.zadd_pipelined_per_s", null);
            report.value("limit.tool", "redis-benchmark not found: skipped");
            return;
        }
        String section = "The limit (redis-benchmark -P " + LimitCases.PIPELINE + " -c " + LimitCases.CLIENTS + ", same Redis)";
        report.figure("limit.produce_script_msgs_per_s", samples.figure("limit.script_batch"), RATE, section,
                "send script, " + ProduceRound.PER_CALL + " msgs/call", "rmq's batched shape: the target's base");
        report.figure("limit.produce_script_redis_cpu_us_per_msg", samples.figure("limit.script_batch.cpu"), MICROS,
                section, "  Redis CPU", "");
        report.value("limit.produce_script_msgs_per_call", ProduceRound.PER_CALL);
        report.figure("limit.produce_script_single_msgs_per_s", samples.figure("limit.script"), RATE, section,
                "send script, 1 msg/call", "a single send's shape");
        report.figure("limit.produce_script_single_redis_cpu_us_per_msg", samples.figure("limit.script.cpu"), MICROS,
                section, "  Redis CPU", "");
        report.figure("limit.zadd_pipelined_per_s", samples.figure("limit.zadd"), RATE, section, "ZADD", "");
        report.figure("limit.zadd_redis_cpu_us_per_op", samples.figure("limit.zadd.cpu"), MICROS, section,
                "  Redis CPU", "");
        report.value("limit.tool", limit.tool().toString());
        report.value("limit.target_basis", "produce.msgs_per_s is read against limit.produce_script_msgs_per_s: the"
                + " same send script with the same " + ProduceRound.PER_CALL + " messages per call that rmq's batched"
                + " produce makes, by redis-benchmark with " + LimitCases.CLIENTS + " clients pipelining "
                + LimitCases.PIPELINE + " calls each; produce.limit_ratio is that ratio per round");
    }
}
