package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisServerOptions;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.redisson.api.RedissonClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The fixed-cost cases of {@link FixedCostSection} counted in instructions: callgrind counts what redis-server
 * executes inside FCALL and EVALSHA, the same for the same binary and calls whatever else the machine runs, where
 * the section's µs of {@code INFO commandstats} move by a fifth between runs on a busy machine. Started by
 * {@code rmq-benchmarks/instructions}, which points {@code rmq.test.redis.binary} at a wrapper that runs
 * redis-server under {@code valgrind --tool=callgrind}, collecting only inside those two commands, and names the
 * directory of its dumps in {@code rmq.instructions.dir}. Each case zeroes the counts, makes its calls with
 * {@code redis-benchmark}, and has callgrind dump them.
 */
public final class Instructions {

    private static final Duration VALGRIND_START = Duration.ofMinutes(2);
    private static final List<Integer> CONSUME_BATCHES = List.of(1, 10, 100, 1000);
    private static final ConsumerSettings CONSUMER = ConsumerSettings.DEFAULTS.withConcurrency(1);

    private Instructions() {
    }

    public static void main(String[] args) {
        long calls = args.length > 0 ? Long.parseLong(args[0]) : 2_000;
        if (calls < 1) {
            throw new IllegalArgumentException("calls must be at least 1, not " + calls);
        }
        Path dumps = Path.of(System.getProperty("rmq.instructions.dir", ""));
        if (!Files.isDirectory(dumps)) {
            throw new IllegalStateException("rmq.instructions.dir names no directory: run rmq-benchmarks/instructions");
        }
        try (RedisServer server = RedisServer.start(RedisServerOptions.defaults().withStartupTimeout(VALGRIND_START))) {
            RedissonClient redisson = Bench.redisson(server);
            try {
                run(server, redisson, new Callgrind(server.pid(), dumps), calls);
            } finally {
                redisson.shutdown();
            }
        }
    }

    private static void run(RedisServer server, RedissonClient redisson, Callgrind callgrind, long calls) {
        RedisProbe probe = new RedisProbe(server);
        RmqCases rmq = new RmqCases(redisson, probe);
        LimitCases limit = LimitCases.find(probe)
                .orElseThrow(() -> new IllegalStateException("redis-benchmark was not found on PATH"));
        TopicDefinition priority = RmqCases.topic("fixed-p", TopicType.PRIORITY, 1);
        TopicDefinition range = RmqCases.topic("fixed-r", TopicType.RANGE_MERGE, 1);
        RmqClient client = rmq.client(priority);
        List<FixedCostSection.Case> cases = FixedCostSection.cases(probe, rmq, client, priority, range);
        System.out.printf(Locale.ROOT, "Instructions per script call (callgrind, redis-server %s, %,d calls per case,"
                + " by redis-benchmark, one slot)%n", server.version(), calls);
        System.out.printf(Locale.ROOT, "  %-52s %12s%n", "call", "instructions");
        List<Boolean> ways = limit.functions() ? List.of(false, true) : List.of(false);
        for (boolean evalsha : ways) {
            for (FixedCostSection.Case c : cases) {
                c.setup().before(calls);
                callgrind.zero();
                long made = c.calls().make(limit, calls, evalsha).messages();
                line(c.label() + FixedCostSection.how(evalsha), callgrind.dump(), made);
            }
        }
        consume(probe, rmq, client, priority, callgrind, calls);
    }

    /**
     * What a message costs to consume, in instructions: a container of one thread works through a backlog of one
     * priority slot, at each poll size; every poll and ack call counts, over the messages. At least ten polls each.
     */
    private static void consume(RedisProbe probe, RmqCases rmq, RmqClient client, TopicDefinition topic,
                                Callgrind callgrind, long calls) {
        System.out.printf(Locale.ROOT, "Instructions per message consumed (callgrind, the container's poll and ack calls,"
                + " one thread, a backlog of one priority slot)%n");
        System.out.printf(Locale.ROOT, "  %-52s %12s%n", "poll size", "instructions");
        for (int batch : CONSUME_BATCHES) {
            long messages = Math.max(calls, 10L * batch);
            probe.flushAll();
            rmq.fill(client, messages, RmqCases.waiting(topic));
            callgrind.zero();
            long consumed = rmq.consume(client, topic.name(), messages, CONSUMER.withBatchSize(batch)).messages();
            line("polls of " + batch + " (" + String.format(Locale.ROOT, "%,d", messages) + " messages)",
                    callgrind.dump(), consumed);
        }
    }

    private static void line(String label, long instructions, long calls) {
        System.out.printf(Locale.ROOT, "  %-52s %,12d%n", label, instructions / Math.max(1, calls));
    }

    /** Drives the callgrind of one redis-server by {@code callgrind_control}: zero its counts, dump them. */
    private record Callgrind(long pid, Path dumps) {

        void zero() {
            control("--zero");
        }

        /** The instructions counted since the last zero. */
        long dump() {
            control("--dump");
            Path latest;
            try (Stream<Path> files = Files.list(dumps)) {
                latest = files.filter(f -> f.getFileName().toString().startsWith("callgrind.out." + pid + "."))
                        .max(Comparator.comparingLong(Callgrind::part))
                        .orElseThrow(() -> new IllegalStateException("callgrind wrote no dump in " + dumps));
                for (String line : Files.readAllLines(latest)) {
                    if (line.startsWith("summary:")) {
                        return Long.parseLong(line.substring("summary:".length()).trim());
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            throw new IllegalStateException(latest + " has no summary line");
        }

        private static long part(Path file) {
            String name = file.getFileName().toString();
            return Long.parseLong(name.substring(name.lastIndexOf('.') + 1));
        }

        private void control(String what) {
            try {
                Process process = new ProcessBuilder("callgrind_control", what, Long.toString(pid))
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (!process.waitFor(1, TimeUnit.MINUTES) || process.exitValue() != 0) {
                    process.destroyForcibly();
                    throw new IllegalStateException("callgrind_control " + what + " " + pid + " failed");
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot run callgrind_control (valgrind's)", e);
            } catch (InterruptedException e) {
                throw Waits.interrupted(e);
            }
        }
    }
}
