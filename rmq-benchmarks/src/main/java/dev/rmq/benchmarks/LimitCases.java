package dev.rmq.benchmarks;

import dev.rmq.internal.redis.KeyLayout;
import dev.rmq.internal.redis.SlotKeys;
import dev.rmq.internal.script.Script;
import dev.rmq.internal.script.ScriptCall;
import dev.rmq.internal.script.SendCall;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * "The limit": what the same Redis does for {@code redis-benchmark}, a C client with nothing between it
 * and the socket. rmq's send script as rmq runs it, by FCALL of its Redis Function on Redis 7 and later and by
 * EVALSHA before (one message per call, as a single send makes it, and
 * {@link ProduceRound#PER_CALL} per call, as the batched produce case does), and plain ZADD, all pipelined. Keys and members are randomized with
 * {@code __rand_int__}, so every call adds a new message.
 */
final class LimitCases {

    static final int PIPELINE = 64;
    static final int CLIENTS = 50;
    /**
     * An envelope as the producer writes it for a 64-byte payload with no headers: 14 + 1 + 64 bytes. The send
     * script reads only the low three bits of its flags byte, which say "no control" for 'H' as for 0; printable
     * bytes throughout, for the command line.
     */
    private static final String ENVELOPE = "EH" + "E".repeat(12 + 1 + Payloads.SIZE);

    private final RedisProbe probe;
    private final Path tool;

    private LimitCases(RedisProbe probe, Path tool) {
        this.probe = probe;
        this.tool = tool;
    }

    /** Empty when no redis-benchmark is found next to redis-server or on PATH. */
    static Optional<LimitCases> find(RedisProbe probe) {
        List<Path> candidates = new ArrayList<>();
        // the one beside the redis-server this run uses, so the two come from the same release
        candidates.add(probe.server().binary().path().resolveSibling("redis-benchmark"));
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                candidates.add(Path.of(dir, "redis-benchmark"));
            }
        }
        return candidates.stream().filter(Files::isExecutable).findFirst().map(p -> new LimitCases(probe, p));
    }

    Path tool() {
        return tool;
    }

    /**
     * rmq's send script with {@code perCall} messages of one slot per call; returns messages/s. One
     * message per call runs it as {@code sendAsync} does (the slot's keys); more run it as a pipelined
     * {@code sendAllAsync} call does, with one key more, the call key under which the reply is kept for a replay.
     */
    Measured sendScript(long calls, int perCall) {
        return sendScript(calls, perCall, false);
    }

    /** @param evalsha by EVALSHA even where Redis has Functions, to compare the two ways of calling */
    Measured sendScript(long calls, int perCall, boolean evalsha) {
        return sendScript(calls, perCall, evalsha, perCall > 1);
    }

    /** @param callKey with a call key, as every call of a pipeline has (a batch's, a send that waits for replicas) */
    Measured sendScript(long calls, int perCall, boolean evalsha, boolean callKey) {
        SlotKeys keys = new KeyLayout("").slot("limit", 0);
        List<Object> scriptKeys = callKey ? keys.asScriptKeys(Script.SEND.keys(), "__rand_int__")
                : keys.asScriptKeys(Script.SEND.keys());
        List<String> command = call(Script.SEND, scriptKeys, evalsha);
        // the arguments exactly as the producer's SendCall encodes them, keys randomised by redis-benchmark
        List<SendCall.Message> messages = new ArrayList<>(perCall);
        for (int i = 0; i < perCall; i++) {
            messages.add(new SendCall.Message("k" + i + ":__rand_int__", 3_600_000,
                    ENVELOPE.getBytes(StandardCharsets.US_ASCII)));
        }
        SendCall call = SendCall.of(TopicType.RANGE_MERGE, new KeyLayout("").wakeChannel("limit"), 0, 0,
                TopicDefinition.DEFAULT_LATE_TOLERANCE.toMillis(), false, messages);
        for (byte[] arg : call.argv()) {
            command.add(new String(arg, StandardCharsets.US_ASCII));
        }
        Measured run = run(calls, command);
        return new Measured(run.messages() * perCall, run.seconds(), run.cost());
    }

    /**
     * One script call made {@code calls} times by {@code redis-benchmark}, on the keys of slot 0 of {@code topic},
     * with the arguments exactly as rmq encodes them; for what a call costs Redis that handles one message or none.
     */
    Measured scriptCall(long calls, String topic, ScriptCall<?> call, boolean evalsha) {
        Script script = call.script();
        List<Object> scriptKeys = new KeyLayout("").slot(topic, 0).asScriptKeys(script.keys());
        List<String> command = call(script, scriptKeys, evalsha);
        for (byte[] arg : call.argv()) {
            command.add(new String(arg, StandardCharsets.US_ASCII));
        }
        return run(calls, command);
    }

    /** Whether this Redis has Functions, and so rmq calls its scripts by FCALL. */
    boolean functions() {
        return Integer.parseInt(probe.server().version().split("\\.")[0]) >= 7;
    }

    /**
     * The start of a call of {@code script} on {@code scriptKeys}, its arguments to follow, as rmq makes it (FCALL
     * where Redis has Functions) or by EVALSHA; the script or library is loaded first.
     */
    private List<String> call(Script script, List<Object> scriptKeys, boolean evalsha) {
        List<String> command;
        if (evalsha || !functions()) {
            Object sha = probe.server().command("SCRIPT", "LOAD", script.source());
            if (!script.sha().equals(sha)) {
                throw new IllegalStateException("SCRIPT LOAD gave " + sha + ", rmq computes " + script.sha());
            }
            command = new ArrayList<>(List.of("EVALSHA", script.sha(), Integer.toString(scriptKeys.size())));
        } else {
            probe.server().command("FUNCTION", "LOAD", "REPLACE", "#!lua name=" + script.functionName() + "\n"
                    + script.functionCode());
            command = new ArrayList<>(List.of("FCALL", script.functionName(), Integer.toString(scriptKeys.size())));
        }
        for (Object key : scriptKeys) {
            command.add((String) key);
        }
        return command;
    }

    /** Plain ZADD of a new member to one sorted set. */
    Measured zadd(long calls) {
        return run(calls, List.of("ZADD", "limit-zset", "__rand_int__", "m:__rand_int__"));
    }

    private Measured run(long requests, List<String> command) {
        List<String> line = new ArrayList<>(List.of(tool.toString(), "-h", "127.0.0.1",
                "-p", Integer.toString(probe.server().port()), "-c", Integer.toString(CLIENTS),
                "-P", Integer.toString(PIPELINE), "-n", Long.toString(requests), "-r", "1000000000", "--csv"));
        line.addAll(command);
        RedisProbe.Snapshot before = probe.snapshot();
        String output;
        try {
            // the output goes to a file, so a redis-benchmark that hangs cannot block the wait for it
            Path outputFile = Files.createTempFile("rmq-limit-", ".csv");
            try {
                Process process = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(outputFile.toFile())
                        .start();
                if (!process.waitFor(10, TimeUnit.MINUTES)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    throw new IllegalStateException("redis-benchmark did not finish within 10 minutes");
                }
                output = Files.readString(outputFile);
                if (process.exitValue() != 0) {
                    throw new IllegalStateException("redis-benchmark exited with " + process.exitValue() + ": " + output);
                }
            } finally {
                Files.deleteIfExists(outputFile);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + tool, e);
        } catch (InterruptedException e) {
            throw Waits.interrupted(e);
        }
        RedisProbe.Cost cost = probe.snapshot().since(before);
        double rps = parseRps(output);
        return new Measured(requests, requests / rps, cost);
    }

    /** The requests per second from redis-benchmark's {@code --csv} output (6.x and 7.x). */
    static double parseRps(String output) {
        String last = null;
        for (String line : output.split("\r?\n|\r")) {
            String trimmed = line.trim();
            if (trimmed.startsWith("\"") && !trimmed.startsWith("\"test\"")) {
                last = trimmed;
            }
        }
        if (last == null) {
            throw new IllegalStateException("no result line in redis-benchmark's output:\n" + output);
        }
        String[] fields = last.split("\",\"");
        if (fields.length < 2) {
            throw new IllegalStateException("cannot read redis-benchmark's result line: " + last);
        }
        String rps = fields[1].replace("\"", "");
        if (rps.contains("ERR") || rps.isBlank()) {
            throw new IllegalStateException("redis-benchmark reported an error: " + output);
        }
        return Double.parseDouble(rps);
    }
}
