package dev.rmq.benchmarks;

/**
 * What every part of a run shares: the options and the plan they give, the Redis it measures, the values of
 * each figure's repetitions, and the report they end in.
 */
record Context(Options options, Plan plan, RedisProbe probe, Samples samples, Report report) {

    static Context of(Options options, RedisProbe probe) {
        return new Context(options, options.quick() ? Plan.quick() : Plan.full(), probe, new Samples(), new Report());
    }

    int reps() {
        return options.reps();
    }
}
