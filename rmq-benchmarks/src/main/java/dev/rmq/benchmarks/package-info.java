/**
 * The benchmark command ({@code rmq-benchmarks/bench}): rmq's produce and consume throughput (through
 * the core container and through the Spring Boot starter's {@code @RmqListener}), due-time
 * lateness, Redis CPU and memory per message and backlog scaling, measured in one run against the same
 * Redis server's own limit ({@code redis-benchmark} running rmq's send script and plain ZADD, pipelined)
 * and against Redisson's {@code RStream} consumer groups and {@code RDelayedQueue}.
 *
 * <p>{@link dev.rmq.benchmarks.Bench} is the entry point. Every figure is the median of several
 * repetitions, reported with its range; the results go to stdout as a table, to a JSON file and to a
 * PNG chart. Nothing here runs in the default test build.
 *
 * <p>How it is laid out:
 * <ul>
 *   <li>{@code BenchRun} runs the sections in order, then {@code Targets} reads the figures against the
 *       benchmark's targets and {@code Report} and {@code Charts} write them out;</li>
 *   <li>the sections: {@code SettingSearch} (each case's best setting, by {@code GridSearch}) and
 *       {@code ThroughputSection} (its rounds of {@code LimitRound}, {@code ProduceRound},
 *       {@code ConsumeRound} and {@code PeerRound}), {@code MemorySection}, {@code BacklogSection} and
 *       {@code LatenessSection};</li>
 *   <li>the cases they run, one repetition each: {@code RmqCases}, {@code StarterCases}, {@code PeerCases}
 *       and {@code LimitCases}, measured through {@code RedisProbe}.</li>
 * </ul>
 */
@NullMarked
package dev.rmq.benchmarks;

import org.jspecify.annotations.NullMarked;
