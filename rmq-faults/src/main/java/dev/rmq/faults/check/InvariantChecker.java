package dev.rmq.faults.check;

import dev.rmq.faults.check.RunLog.Fault;
import dev.rmq.faults.check.RunLog.Incarnation;
import dev.rmq.faults.check.RunLog.Run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Judges a fault-harness run from its events alone and accounts for every send receipt. Each invariant is
 * its own check:
 * <ul>
 *   <li>{@link LossCheck}: nothing accountable is lost, but for what an unreplicated master's SIGKILL may take;</li>
 *   <li>{@link DuplicateCheck}: every duplicate delivery is explained by a fault or an rmq report;</li>
 *   <li>{@link EarlyCheck}: nothing is delivered before it is due;</li>
 *   <li>{@link OverlapCheck}: no slot has two workers at once, but for a frozen handler past its lease.</li>
 * </ul>
 * The figures of the run (how many faults, how fast recovered, whether kills struck mid-message) come with them.
 */
public final class InvariantChecker {

    /** The fault kinds in the order the figures list them; a kind absent from the run is left out. */
    private static final List<String> KIND_ORDER = List.of(DuplicateCheck.KILL, DuplicateCheck.STOP,
            DuplicateCheck.REDIS_RESTART, DuplicateCheck.REDIS_FLUSH, DuplicateCheck.FAILOVER, DuplicateCheck.MASTER_KILL,
            DuplicateCheck.SENTINEL_FAILOVER, DuplicateCheck.ZK_EXPIRE, DuplicateCheck.ZK_QUORUM, DuplicateCheck.ZK_PARTITION,
            DuplicateCheck.NET_LATENCY, DuplicateCheck.NET_STALL, DuplicateCheck.NET_STALL_PAST_LEASE,
            DuplicateCheck.NET_RESET, DuplicateCheck.NET_REFUSE);
    private static final String LISTENER_ERRORS = "listener-errors";

    private InvariantChecker() {
    }

    /** Judges the run whose {@code .events} files are in {@code dir}, a run without a journal. */
    public static Verdict check(Path dir) {
        return check(dir, JournalRecord.NONE);
    }

    /** Judges the run whose {@code .events} files are in {@code dir}, with what its journal held at its end. */
    public static Verdict check(Path dir, JournalRecord journal) {
        return check(RunLog.read(dir), journal);
    }

    private static Verdict check(RunLog log, JournalRecord journal) {
        Messages messages = new Messages(log);
        Verdict verdict = new Verdict();
        LossCheck.run(log, messages, verdict);
        DuplicateCheck.run(log, messages, journal, verdict);
        EarlyCheck.run(log, messages, verdict);
        OverlapCheck.run(log, verdict);
        addRunFigures(log, verdict);
        return verdict;
    }

    private static void addRunFigures(RunLog log, Verdict verdict) {
        long killsMidMessage = log.incarnations.values().stream().filter(Incarnation::killed)
                .filter(life -> log.runs.stream().anyMatch(r -> r.incarnation().equals(life.id()) && r.outcome().equals("none")))
                .count();
        long pausesMidMessage = 0;
        for (Incarnation life : log.incarnations.values()) {
            for (long[] pause : life.pauses()) {
                if (log.runs.stream().anyMatch(r -> r.incarnation().equals(life.id()) && r.start() < pause[0]
                        && r.end() > pause[0])) {
                    pausesMidMessage++;
                }
            }
        }
        long listenerErrors = log.runs.stream().filter(r -> r.outcome().equals("err") || r.outcome().equals("poison")).count();
        long probeRuns = log.runs.stream().filter(Run::probe).count();
        verdict.figures().put("kills_mid_message", killsMidMessage);
        verdict.figures().put("pauses_mid_message", pausesMidMessage);
        verdict.figures().put("faults", faultCounts(log, listenerErrors));
        verdict.figures().put("recovery_ms", recovery(log));
        verdict.details().put("deliveries", log.runs.size() - probeRuns);
        verdict.details().put("probe_deliveries", probeRuns);
    }

    private static Map<String, Object> faultCounts(RunLog log, long listenerErrors) {
        Map<String, Object> counts = new LinkedHashMap<>();
        for (String kind : kinds(log)) {
            counts.put(kind, log.faults.stream().filter(f -> f.kind().equals(kind)).count());
        }
        if (listenerErrors > 0) {
            counts.put(LISTENER_ERRORS, listenerErrors);
        }
        return counts;
    }

    private static Map<String, Object> recovery(RunLog log) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String kind : kinds(log)) {
            List<Long> sorted = log.faults.stream().filter(f -> f.kind().equals(kind) && f.recoveryMicros() >= 0)
                    .map(f -> f.recoveryMicros() / 1000).sorted().toList();
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("p50", sorted.isEmpty() ? null : sorted.get((sorted.size() - 1) / 2));
            figures.put("max", sorted.isEmpty() ? null : sorted.get(sorted.size() - 1));
            long unrecovered = log.faults.stream().filter(f -> f.kind().equals(kind) && f.recoveryMicros() < 0).count();
            if (unrecovered > 0) {
                figures.put("unrecovered", unrecovered);
            }
            out.put(kind, figures);
        }
        return out;
    }

    /** The kinds of the run's faults, known ones in their usual order first. */
    private static List<String> kinds(RunLog log) {
        List<String> kinds = new ArrayList<>();
        for (String kind : KIND_ORDER) {
            if (log.faults.stream().anyMatch(f -> f.kind().equals(kind))) {
                kinds.add(kind);
            }
        }
        for (Fault fault : log.faults) {
            if (!kinds.contains(fault.kind())) {
                kinds.add(fault.kind());
            }
        }
        return kinds;
    }
}
