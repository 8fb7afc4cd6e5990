package dev.rmq.benchmarks;

import dev.rmq.embedded.RedisServer;
import org.jspecify.annotations.Nullable;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Reads what the benchmark's own redis-server spent: CPU ({@code INFO cpu}: used_cpu_sys + used_cpu_user),
 * memory ({@code INFO memory}: used_memory) and per-command calls and time ({@code INFO commandstats},
 * which in Redis 7 also counts the commands a script runs).
 */
final class RedisProbe {

    /**
     * The entry of {@link Snapshot} that sums every script call, whichever command made it: EVALSHA (and EVAL) of
     * a script, or FCALL of a Redis Function, which is how rmq runs its scripts on Redis 7 and later.
     */
    static final String SCRIPTS = "scripts";

    private final RedisServer server;

    RedisProbe(RedisServer server) {
        this.server = server;
    }

    RedisServer server() {
        return server;
    }

    /** What Redis has spent so far, to subtract from a later snapshot. */
    Snapshot snapshot() {
        Map<String, String> cpu = server.info("cpu");
        Map<String, String> stats = server.info("commandstats");
        Map<String, long[]> commands = new HashMap<>();
        stats.forEach((field, value) -> {
            if (field.startsWith("cmdstat_")) {
                commands.put(field.substring("cmdstat_".length()), new long[] {stat(value, "calls"), stat(value, "usec")});
            }
        });
        long[] scripts = new long[2];
        for (String command : List.of("evalsha", "eval", "fcall")) {
            long[] counted = commands.getOrDefault(command, new long[2]);
            scripts[0] += counted[0];
            scripts[1] += counted[1];
        }
        commands.put(SCRIPTS, scripts);
        double cpuSeconds = Double.parseDouble(cpu.get("used_cpu_sys")) + Double.parseDouble(cpu.get("used_cpu_user"));
        return new Snapshot(System.nanoTime(), cpuSeconds, commands, jvmCpuNanos(), jvmAllocatedBytes());
    }

    long usedMemory() {
        return Long.parseLong(server.info("memory").get("used_memory"));
    }

    /**
     * Deletes the replay keys of pipelined send calls ({@code rmq:call{t_i}:<uuid>}, kept 30 s so that a repeated
     * batch replays its reply): one per script call, not per message, so not part of what a queued message costs.
     */
    void deleteReplayKeys() {
        // KEYS and TIME reply with an array, never nil
        for (Object key : (List<?>) Objects.requireNonNull(server.command("KEYS", "rmq:call{*"))) {
            server.command("DEL", String.valueOf(key));
        }
    }

    /**
     * Empties Redis, and returns once its memory is given back. In the background: a synchronous FLUSHALL of a
     * large backlog (50M messages, 15 GB) takes longer than a command may, so Redis frees it on its lazy-free
     * thread while this waits for the thread to finish.
     */
    void flushAll() {
        server.command("FLUSHALL", "ASYNC");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (!"0".equals(server.info("memory").get("lazyfree_pending_objects"))) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("Redis had not freed the flushed data after 10 minutes");
            }
            // the lazy-free thread works through the flushed keys; a 50M-message backlog takes seconds
            Waits.sleep(50);
        }
    }

    /** The Redis clock in microseconds. */
    long timeMicros() {
        List<?> time = (List<?>) Objects.requireNonNull(server.command("TIME"));
        return Long.parseLong(String.valueOf(time.get(0))) * 1_000_000 + Long.parseLong(String.valueOf(time.get(1)));
    }

    private static long stat(String value, String name) {
        for (String part : value.split(",")) {
            int eq = part.indexOf('=');
            if (eq > 0 && part.substring(0, eq).equals(name)) {
                return Long.parseLong(part.substring(eq + 1));
            }
        }
        return 0;
    }

    /** The CPU time of this whole JVM (every thread: the client's, Redisson's, the JIT's and the GC's). */
    static long jvmCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
    }

    /**
     * The bytes each live thread of the JVM has allocated so far, by thread id; null where the platform does not
     * tell. Two snapshots are compared thread by thread: one that started between them counts from nothing, and one
     * that ended between them takes what it allocated meanwhile with it. The client's own threads (Redisson's, a
     * container's workers) live through a case.
     */
    static @Nullable Map<Long, Long> jvmAllocatedBytes() {
        if (!(java.lang.management.ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean
                threads) || !threads.isThreadAllocatedMemoryEnabled()) {
            return null;
        }
        long[] ids = threads.getAllThreadIds();
        long[] bytes = threads.getThreadAllocatedBytes(ids);
        Map<Long, Long> byThread = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            // -1 for a thread that ended while it was asked
            if (bytes[i] >= 0) {
                byThread.put(ids[i], bytes[i]);
            }
        }
        return byThread;
    }

    /** Redis's counters, and this JVM's CPU time and allocated bytes, at one instant. */
    record Snapshot(long nanos, double cpuSeconds, Map<String, long[]> commands, long jvmCpuNanos,
                    @Nullable Map<Long, Long> jvmAllocatedBytes) {

        Cost since(Snapshot before) {
            Map<String, long[]> delta = new HashMap<>();
            commands.forEach((name, now) -> {
                long[] then = before.commands.getOrDefault(name, new long[2]);
                if (now[0] - then[0] > 0) {
                    delta.put(name, new long[] {now[0] - then[0], now[1] - then[1]});
                }
            });
            double jvm = jvmCpuNanos < 0 || before.jvmCpuNanos < 0 ? Double.NaN : (jvmCpuNanos - before.jvmCpuNanos) / 1e9;
            double allocated = allocatedSince(before);
            return new Cost((nanos - before.nanos) / 1e9, cpuSeconds - before.cpuSeconds, delta, jvm, allocated);
        }

        private double allocatedSince(Snapshot before) {
            Map<Long, Long> now = jvmAllocatedBytes;
            Map<Long, Long> then = before.jvmAllocatedBytes;
            if (now == null || then == null) {
                return Double.NaN;
            }
            long sum = 0;
            for (Map.Entry<Long, Long> thread : now.entrySet()) {
                sum += thread.getValue() - then.getOrDefault(thread.getKey(), 0L);
            }
            return sum;
        }
    }

    /**
     * What Redis spent between two snapshots.
     *
     * @param seconds    wall time
     * @param cpuSeconds Redis CPU (system + user)
     * @param commands   command name to {calls, usec} (the benchmark's own INFO calls included, a handful)
     * @param jvmCpuSeconds the CPU this JVM spent meanwhile (NaN where the platform does not tell)
     * @param jvmAllocatedBytes what this JVM's threads allocated meanwhile (see {@link #jvmAllocatedBytes()}; NaN
     *                          where the platform does not tell): unlike CPU time, it repeats from run to run
     */
    record Cost(double seconds, double cpuSeconds, Map<String, long[]> commands, double jvmCpuSeconds,
                double jvmAllocatedBytes) {

        double cpuMicrosPer(long messages) {
            return cpuSeconds * 1e6 / messages;
        }

        double jvmCpuMicrosPer(long messages) {
            return jvmCpuSeconds * 1e6 / messages;
        }

        double jvmAllocatedBytesPer(long messages) {
            return jvmAllocatedBytes / messages;
        }

        double callsPer(String command, long messages) {
            long[] c = commands.get(command);
            return c == null ? 0 : c[0] / (double) messages;
        }

        double usecPer(String command, long messages) {
            long[] c = commands.get(command);
            return c == null ? 0 : c[1] / (double) messages;
        }
    }
}
