package dev.rmq.benchmarks;

import java.util.List;

/**
 * What every part of a run shares: the options and the plan they give, the Redis it measures, the values of
 * each figure's repetitions, and the report they end in.
 */
record Context(Options options, Plan plan, RedisProbe probe, Samples samples, Report report) {

    static Context of(Options options, RedisProbe probe) {
        Plan plan = options.quick() ? Plan.quick() : Plan.full();
        if (options.backlog() > 0) {
            plan = plan.withBacklogs(List.of(Options.SMALLEST_BACKLOG, options.backlog()));
        }
        return new Context(options, plan, probe, new Samples(), new Report());
    }

    int reps() {
        return options.reps();
    }
}
