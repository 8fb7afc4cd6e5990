package dev.rmq.benchmarks;

import dev.rmq.consumer.ConsumerSettings;

import java.util.List;

/**
 * How much each case does, for the quick or the full run.
 *
 * @param produce          messages per repetition of each batched produce case
 * @param produceSingle    messages per repetition of the single-send case
 * @param consume          messages per repetition of the consume cases (rmq and RStream)
 * @param grid             messages per candidate when searching the best consume setting
 * @param consumeGrid      the rmq consume settings tried
 * @param streamGrid       the RStream consumer settings tried
 * @param delayedInFlight  the RDelayedQueue offers outstanding tried for its produce case
 * @param delayedGrid      the RDelayedQueue consumer settings tried
 * @param memory           messages queued to measure memory per message
 * @param backlogs         the backlog sizes
 * @param backlogWindow    messages consumed per repetition from the head of each backlog
 * @param latenessMillis   how long the lateness cases produce at 5k msgs/s: 10 s in the full run, 2 s in the
 *                         quick one, which would otherwise spend 2 of its 3 minutes on lateness alone
 * @param limitCalls       send script calls, one message each (a single send's shape), per repetition of the limit
 * @param limitBatchCalls  send script calls of {@link ProduceRound#PER_CALL} messages each (a batched send's shape)
 * @param zaddCalls        ZADD calls per repetition
 * @param delayed          offers per repetition of the RDelayedQueue produce and consume cases (and per candidate)
 */
record Plan(long produce, long produceSingle, long consume, long grid, List<ConsumeSetting> consumeGrid,
            List<StreamSetting> streamGrid, List<Integer> delayedInFlight, List<DelayedSetting> delayedGrid, long memory, List<Long> backlogs,
            long backlogWindow, long latenessMillis, long limitCalls, long limitBatchCalls, long zaddCalls,
            long delayed) {

    static final int LATENESS_RATE = 5000;
    static final long LATENESS_SPREAD_MS = 10_000;

    /** An rmq consume setting: the topic's slots, the container's threads and its poll batch. */
    record ConsumeSetting(int slots, int threads, int batch) {

        /** The container's settings: the threads and poll batch, the rest as rmq's defaults. */
        ConsumerSettings consumerSettings() {
            return ConsumerSettings.DEFAULTS.withConcurrency(threads).withBatchSize(batch);
        }

        @Override
        public String toString() {
            return slots + " slots, " + threads + " threads, batch " + batch;
        }
    }

    /** An RStream consume setting: consumer threads of one group and the XREADGROUP COUNT. */
    record StreamSetting(int threads, int count) {
        @Override
        public String toString() {
            return threads + " consumers, COUNT " + count;
        }
    }

    /** An RDelayedQueue consumer setting: consumer threads, each BLPOP then a non-blocking drain of up to {@code drain}. */
    record DelayedSetting(int threads, int drain) {
        @Override
        public String toString() {
            return threads + " consumers, BLPOP then drain " + drain;
        }
    }

    static Plan quick() {
        return new Plan(100_000, 20_000, 100_000, 100_000,
                List.of(new ConsumeSetting(16, 2, 1000), new ConsumeSetting(16, 4, 256), new ConsumeSetting(16, 4, 1000),
                        new ConsumeSetting(64, 8, 1000)),
                List.of(new StreamSetting(2, 256), new StreamSetting(4, 256), new StreamSetting(4, 1000)),
                List.of(100, 500, 2000),
                List.of(new DelayedSetting(1, 64), new DelayedSetting(2, 64), new DelayedSetting(4, 64),
                        new DelayedSetting(2, 256)),
                100_000, List.of(10_000L, 1_000_000L), 20_000, 2_000,
                100_000, 3_000, 500_000, 20_000);
    }

    static Plan full() {
        return new Plan(500_000, 100_000, 500_000, 200_000,
                List.of(new ConsumeSetting(4, 2, 256), new ConsumeSetting(16, 2, 256), new ConsumeSetting(16, 4, 256),
                        new ConsumeSetting(64, 4, 256), new ConsumeSetting(64, 8, 256), new ConsumeSetting(16, 2, 1000),
                        new ConsumeSetting(16, 4, 1000), new ConsumeSetting(64, 8, 1000)),
                List.of(new StreamSetting(1, 256), new StreamSetting(2, 256), new StreamSetting(4, 256),
                        new StreamSetting(2, 1000), new StreamSetting(4, 1000), new StreamSetting(8, 1000)),
                List.of(16, 100, 500, 2000),
                List.of(new DelayedSetting(1, 64), new DelayedSetting(2, 64), new DelayedSetting(4, 64),
                        new DelayedSetting(1, 256), new DelayedSetting(2, 256), new DelayedSetting(4, 256)),
                1_000_000, List.of(10_000L, 1_000_000L, 10_000_000L), 50_000, 10_000,
                300_000, 10_000, 2_000_000, 100_000);
    }

    /** This plan with other backlog sizes, the smallest first. */
    Plan withBacklogs(List<Long> sizes) {
        return new Plan(produce, produceSingle, consume, grid, consumeGrid, streamGrid, delayedInFlight, delayedGrid,
                memory, List.copyOf(sizes), backlogWindow, latenessMillis, limitCalls, limitBatchCalls, zaddCalls,
                delayed);
    }
}
