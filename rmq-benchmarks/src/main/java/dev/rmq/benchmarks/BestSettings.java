package dev.rmq.benchmarks;

/**
 * The settings the cases run with: each the fastest its grid search found or, when the throughput section
 * does not run and so searches nothing, the default here.
 *
 * @param consume            rmq's consume: slots, threads and poll batch
 * @param stream             RStream's consumers and COUNT
 * @param delayedInFlight    RDelayedQueue's offers outstanding
 * @param delayedProduceRate the rate those offers reached, which sizes the RDelayedQueue consume case
 * @param delayed            RDelayedQueue's consumers and drain, for its consume and lateness cases
 */
record BestSettings(Plan.ConsumeSetting consume, Plan.StreamSetting stream, int delayedInFlight, double delayedProduceRate,
                    Plan.DelayedSetting delayed) {

    static final BestSettings DEFAULTS = new BestSettings(new Plan.ConsumeSetting(16, 2, 256), new Plan.StreamSetting(2, 256),
            100, 20_000, new Plan.DelayedSetting(2, 64));
}
