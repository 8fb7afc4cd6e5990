package dev.rmq.benchmarks;

import static dev.rmq.benchmarks.Report.Unit.BYTES;
import static dev.rmq.benchmarks.Report.Unit.MICROS;
import static dev.rmq.benchmarks.Report.Unit.RATE;

/**
 * Redisson's queues in the throughput rounds, each with the best setting the search found: RStream's XADD
 * and consumer group, RDelayedQueue's offers and consumers, then the table's "Peers" section.
 */
final class PeerRound {

    /** RStream's produce: XADDs per pipelined RBatch and batches in flight, the same shape as rmq's. */
    static final int STREAM_BATCH = 1000;
    static final int STREAM_IN_FLIGHT = 4;

    private final Context context;
    private final PeerCases peers;
    private final BestSettings best;

    PeerRound(Context context, PeerCases peers, BestSettings best) {
        this.context = context;
        this.peers = peers;
        this.best = best;
    }

    /**
     * RDelayedQueue's consume case: its offers, {@code inFlight} outstanding, are all due at one instant, set
     * late enough for them all to be offered at {@code produceRate}, with half as long again and 300 ms to spare.
     */
    static Measured delayedConsume(PeerCases peers, Plan plan, int inFlight, double produceRate,
                                   Plan.DelayedSetting setting) {
        long offerMillis = Math.round(plan.delayed() / produceRate * 1000 * 1.5) + 300;
        return peers.delayedConsume("consume-delayed", (int) plan.delayed(), inFlight, offerMillis, setting.threads(),
                setting.drain());
    }

    void measure() {
        Samples samples = context.samples();
        RedisProbe probe = context.probe();
        Plan plan = context.plan();
        long memoryBefore = probe.usedMemory();
        Measured m = peers.streamProduce("stream", plan.consume(), STREAM_BATCH, STREAM_IN_FLIGHT);
        samples.add("stream.produce", m);
        samples.add("stream.memory", (probe.usedMemory() - memoryBefore) / (double) plan.consume());
        peers.streamGroup("stream");
        m = peers.streamConsume("stream", plan.consume(), best.stream().threads(), best.stream().count());
        samples.add("stream.consume", m);
        probe.flushAll();

        memoryBefore = probe.usedMemory();
        m = peers.delayedProduce("delayed", plan.delayed(), best.delayedInFlight());
        samples.add("delayed.produce", m);
        samples.add("delayed.memory", (probe.usedMemory() - memoryBefore) / (double) plan.delayed());
        probe.flushAll();
        m = delayedConsume(peers, plan, best.delayedInFlight(), best.delayedProduceRate(), best.delayed());
        samples.add("delayed.consume", m.rate());
        samples.add("delayed.consume.cpu", m.cpuMicrosPerMessage());
        probe.flushAll();
    }

    void report() {
        Report report = context.report();
        Samples samples = context.samples();
        String section = "Peers (Redisson " + org.redisson.Version.class.getPackage().getImplementationVersion() + ", same Redis)";
        report.figure("peers.redisson_rstream.produce_msgs_per_s", samples.figure("stream.produce"), RATE, section,
                "RStream XADD", "RBatch of " + STREAM_BATCH + ", " + STREAM_IN_FLIGHT + " in flight");
        report.figure("peers.redisson_rstream.produce_redis_cpu_us_per_msg", samples.figure("stream.produce.cpu"), MICROS,
                section, "  Redis CPU", "");
        report.figure("peers.redisson_rstream.produce_client_cpu_us_per_msg", samples.figure("stream.produce.jvm"),
                MICROS, section, "  client (JVM) CPU", "");
        report.figure("peers.redisson_rstream.consume_msgs_per_s", samples.figure("stream.consume"), RATE, section,
                "RStream group readGroup + ack", best.stream().toString());
        report.figure("peers.redisson_rstream.consume_redis_cpu_us_per_msg", samples.figure("stream.consume.cpu"), MICROS,
                section, "  Redis CPU", "");
        report.figure("peers.redisson_rstream.consume_client_cpu_us_per_msg", samples.figure("stream.consume.jvm"),
                MICROS, section, "  client (JVM) CPU", "");
        report.figure("peers.redisson_rstream.memory_bytes_per_msg", samples.figure("stream.memory"), BYTES, section,
                "  memory", "");
        report.value("peers.redisson_rstream.settings", "produce: RBatch of " + STREAM_BATCH + " XADD, " + STREAM_IN_FLIGHT
                + " in flight; consume: one group, " + best.stream() + ", XACK per batch");
        report.figure("peers.redisson_delayed_queue.produce_msgs_per_s", samples.figure("delayed.produce"), RATE, section,
                "RDelayedQueue offerAsync", best.delayedInFlight() + " in flight");
        report.figure("peers.redisson_delayed_queue.produce_redis_cpu_us_per_msg", samples.figure("delayed.produce.cpu"),
                MICROS, section, "  Redis CPU", "");
        report.figure("peers.redisson_delayed_queue.produce_client_cpu_us_per_msg", samples.figure("delayed.produce.jvm"),
                MICROS, section, "  client (JVM) CPU", "");
        report.figure("peers.redisson_delayed_queue.memory_bytes_per_msg", samples.figure("delayed.memory"), BYTES,
                section, "  memory", "");
        report.figure("peers.redisson_delayed_queue.consume_msgs_per_s", samples.figure("delayed.consume"), RATE, section,
                "RDelayedQueue consume", best.delayed() + "; due within a few ms");
        report.figure("peers.redisson_delayed_queue.consume_redis_cpu_us_per_msg", samples.figure("delayed.consume.cpu"),
                MICROS, section, "  Redis CPU", "transfer task + pops");
        report.value("peers.redisson_delayed_queue.settings", "produce: offerAsync, " + best.delayedInFlight()
                + " in flight; consume and lateness: " + best.delayed() + " (each the best of the candidates tried)");
        report.value("peers.redisson_delayed_queue.api", "RedissonClient.getDelayedQueue (deprecated in 4.x; its"
                + " successor RReliableQueue throws UnsupportedOperationException outside Redisson PRO)");
    }
}
