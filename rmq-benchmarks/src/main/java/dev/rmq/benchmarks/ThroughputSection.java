package dev.rmq.benchmarks;

import org.jspecify.annotations.Nullable;

/**
 * The throughput section. It runs in rounds, each of which runs the limit, every rmq case (the job controls'
 * included) and every peer once,
 * so that background load on the machine hits them alike; the ratios the targets are read against are taken
 * within each round, so both their sides share the same moments. Then each part reports its figures.
 */
final class ThroughputSection {

    private final Context context;
    private final LimitRound limit;
    private final ProduceRound produce;
    private final ConsumeRound consume;
    private final PeerRound peers;
    private final ControlsRound controls;

    /** {@code limit} is null when no redis-benchmark was found. */
    ThroughputSection(Context context, RmqCases rmq, StarterCases starter, PeerCases peers, @Nullable LimitCases limit,
                      BestSettings best) {
        this.context = context;
        this.limit = new LimitRound(context, limit);
        this.produce = new ProduceRound(context, rmq);
        this.consume = new ConsumeRound(context, rmq, starter, best.consume());
        this.peers = new PeerRound(context, peers, best);
        this.controls = new ControlsRound(context, rmq, best.consume());
    }

    void run() {
        for (int round = 1; round <= context.reps(); round++) {
            Log.info("throughput round %d of %d", round, context.reps());
            limit.measure();
            produce.measure();
            consume.measure();
            controls.measure();
            peers.measure();
            ratiosOfRound();
        }
        produce.report();
        consume.report();
        controls.report();
        limit.report();
        peers.report();
    }

    private void ratiosOfRound() {
        Samples samples = context.samples();
        samples.addRatio("produce.limit_ratio", "produce.RANGE_MERGE", "limit.script_batch");
        samples.addRatio("produce_single.limit_ratio", "produce_single", "limit.script");
        samples.addRatio("consume_starter.core_ratio", "consume_starter", "consume");
        samples.addRatio("consume.rstream_ratio", "consume", "stream.consume");
    }
}
