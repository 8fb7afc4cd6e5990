package dev.rmq.benchmarks;

import dev.rmq.RmqClient;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.embedded.RedisServer;
import dev.rmq.embedded.RedisServerOptions;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.redisson.api.RedissonClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The fixed-cost cases of {@link FixedCostSection} counted in instructions: callgrind counts what redis-server
 * executes inside FCALL and EVALSHA, the same for the same binary and calls whatever else the machine runs, where
 * the section's µs of {@code INFO commandstats} move by a fifth between runs on a busy machine. Started by
 * {@code rmq-benchmarks/instructions}, which points {@code rmq.test.redis.binary} at a wrapper that runs
 * redis-server under {@code valgrind --tool=callgrind}, collecting only inside those two commands, and names the
 * directory of its dumps in {@code rmq.instructions.dir}. Each case zeroes the counts, makes its calls with
 * {@code redis-benchmark}, and has callgrind dump them. A case's figure is per call that callgrind counted, not per
 * call asked for: pipelined, redis-benchmark sends a few pipelines more than {@code -n} asks, and more the slower the
 * server answers, which under valgrind varies from run to run.
 */
public final class Instructions {

    private static final Duration VALGRIND_START = Duration.ofMinutes(2);
    private static final List<Integer> CONSUME_BATCHES = List.of(1, 10, 64, 100, 1000);
    private static final int SMALL_BATCH = 64;
    private static final int SMALL_PAYLOAD = 16;
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
                c.calls().make(limit, calls, evalsha);
                Counted counted = callgrind.dump();
                line(c.label() + FixedCostSection.how(evalsha), counted.instructions(), counted.scriptCalls());
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
            consumeCase(probe, rmq, client, topic, callgrind, batch, Math.max(calls, 10L * batch),
                    RmqCases.waiting(topic), "");
        }
        // envelopes of up to 64 bytes, which Redis keeps in a listpack where a hash holds up to 128 of them
        consumeCase(probe, rmq, client, topic, callgrind, SMALL_BATCH, Math.max(calls, 10L * SMALL_BATCH),
                i -> OutgoingMessage.priority(topic.name(), Payloads.next(SMALL_PAYLOAD),
                        17 + ThreadLocalRandom.current().nextInt(1_000_000)), ", " + SMALL_PAYLOAD + "-byte payloads");
    }

    private static void consumeCase(RedisProbe probe, RmqCases rmq, RmqClient client, TopicDefinition topic,
                                    Callgrind callgrind, int batch, long messages, RmqCases.Messages sent,
                                    String what) {
        probe.flushAll();
        rmq.fill(client, messages, sent);
        callgrind.zero();
        long consumed = rmq.consume(client, topic.name(), messages, CONSUMER.withBatchSize(batch)).messages();
        line("polls of " + batch + what + " (" + String.format(Locale.ROOT, "%,d", messages) + " messages)",
                callgrind.dump().instructions(), consumed);
    }

    private static void line(String label, long instructions, long calls) {
        System.out.printf(Locale.ROOT, "  %-52s %,12d%n", label, instructions / Math.max(1, calls));
    }

    /** Drives the callgrind of one redis-server by {@code callgrind_control}: zero its counts, dump them. */
    private record Callgrind(long pid, Path dumps) {

        void zero() {
            control("--zero");
        }

        /** What was counted since the last zero. */
        Counted dump() {
            control("--dump");
            Path latest;
            try (Stream<Path> files = Files.list(dumps)) {
                latest = files.filter(f -> f.getFileName().toString().startsWith("callgrind.out." + pid + "."))
                        .max(Comparator.comparingLong(Callgrind::part))
                        .orElseThrow(() -> new IllegalStateException("callgrind wrote no dump in " + dumps));
                return Counted.of(latest, Files.readAllLines(latest));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
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

    /**
     * One dump's counts: its instructions, and the calls of the two script commands that callgrind collects inside.
     * A dump names a function in full the first time ({@code cfn=(12) fcallCommand}), then by its number alone, and
     * gives the calls of each caller's arc on the line after it ({@code calls=2048 0x...}).
     */
    record Counted(long instructions, long scriptCalls) {

        private static final Pattern NAMED = Pattern.compile("^c?fn=\\((\\d+)\\)(?: (.*))?$");
        private static final Set<String> SCRIPT_COMMANDS = Set.of("fcallCommand", "evalShaCommand");

        static Counted of(Path file, List<String> lines) {
            Long summary = null;
            long scriptCalls = 0;
            Map<String, String> names = new HashMap<>();
            boolean callsScript = false;
            for (String line : lines) {
                Matcher named = NAMED.matcher(line);
                if (named.matches()) {
                    if (named.group(2) != null) {
                        names.put(named.group(1), named.group(2));
                    }
                    callsScript = line.startsWith("cfn=") && SCRIPT_COMMANDS.contains(names.get(named.group(1)));
                } else if (callsScript && line.startsWith("calls=")) {
                    scriptCalls += Long.parseLong(line.substring("calls=".length()).split(" ")[0]);
                    callsScript = false;
                } else if (line.startsWith("summary:")) {
                    summary = Long.parseLong(line.substring("summary:".length()).trim());
                }
            }
            if (summary == null) {
                throw new IllegalStateException(file + " has no summary line");
            }
            if (scriptCalls == 0) {
                throw new IllegalStateException(file + " counts no call of " + SCRIPT_COMMANDS);
            }
            return new Counted(summary, scriptCalls);
        }
    }
}
