package dev.rmq.benchmarks;

import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * Where a case's Redis time goes: calls and time per message of each command in {@code INFO commandstats},
 * sampled every repetition and reported as {@code <case>.commandstats}, for profiling before tuning.
 */
final class CommandProfile {

    /** The commands whose calls and time per message INFO commandstats reports (Redis 7 counts those scripts run). */
    static final List<String> COMMANDS = List.of("evalsha", "fcall", "zadd", "zrangebyscore", "zremrangebyrank", "hmget",
            "hdel", "hset", "zscore", "zrem", "time", "get", "set", "del", "zrange", "publish");

    private CommandProfile() {
    }

    static void sample(Samples samples, String name, Measured m) {
        for (String command : COMMANDS) {
            samples.add(name + ".cmd." + command + ".calls", m.callsPerMessage(command));
            samples.add(name + ".cmd." + command + ".usec", m.cost().usecPer(command, m.messages()));
        }
    }

    /** The medians of the commands the case called, under {@code <name>.commandstats}. */
    static void report(Report report, Samples samples, String name) {
        ObjectNode node = report.object();
        for (String command : COMMANDS) {
            Figure calls = samples.figure(name + ".cmd." + command + ".calls");
            Figure usec = samples.figure(name + ".cmd." + command + ".usec");
            if (calls.isPresent() && calls.median() > 0) {
                ObjectNode c = node.putObject(command);
                c.put("calls_per_msg", Math.round(calls.median() * 10_000) / 10_000.0);
                c.put("usec_per_msg", Math.round(usec.median() * 1000) / 1000.0);
            }
        }
        report.value(name + ".commandstats", node);
    }
}
