package dev.rmq.faults;

import dev.rmq.faults.check.InvariantChecker;
import dev.rmq.faults.check.JournalRecord;
import dev.rmq.faults.check.Verdict;
import dev.rmq.faults.events.EventLog;
import dev.rmq.faults.events.HarnessEvent;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A harness run written by hand, for the checker's tests: each test adds the run's events with the helpers here,
 * then {@link #check()} writes them through the same files and reader as a real run's and checks the run.
 */
abstract class HandWrittenRun {

    static final String MERGE = Workload.topic(Deployment.STANDALONE, TopicType.RANGE_MERGE).name();
    static final String PRIORITY = Workload.topic(Deployment.STANDALONE, TopicType.PRIORITY).name();
    static final String FIXED = Workload.topic(Deployment.STANDALONE, TopicType.FIXED_TIME).name();
    static final String CLUSTER_PRIORITY = Workload.topic(Deployment.CLUSTER, TopicType.PRIORITY).name();
    static final String AT_MOST_ONCE = "faults-amo-s";
    static final String TTL = "faults-ttl-s";
    static final long T0 = 1_800_000_000_000_000L;
    static final long S = 1_000_000;
    static final long MS = 1_000;

    @TempDir
    Path dir;

    /** Events by the file they go to: the producer's, the harness's, one per consumer incarnation. */
    private final Map<String, List<HarnessEvent>> files = new LinkedHashMap<>();
    private final Set<String> incarnations = new LinkedHashSet<>();
    private int faults;
    /** What the run's journal held at its end. */
    private final List<JournalRow> journal = new ArrayList<>();
    /** Bytes after the last event of a file: a line a SIGKILL cut short. */
    private final Map<String, byte[]> cutLines = new LinkedHashMap<>();

    void event(String file, HarnessEvent event) {
        files.computeIfAbsent(file, k -> new ArrayList<>()).add(event);
    }

    /**
     * Ends {@code file} with {@code bytes} and no line end, as a process killed while writing an event leaves it; the
     * last call for a file wins.
     */
    void cutShort(String file, byte[] bytes) {
        cutLines.put(file, bytes);
    }

    void sent(long seq, String topic, String key, boolean merged, long at, long value) {
        sent(seq, topic, key, 0, merged, false, at, value);
    }

    void sent(long seq, String topic, String key, int slot, boolean merged, boolean durable, long at, long value) {
        event("producer", new HarnessEvent.Sent(at + 500, seq, topic, key, slot, merged, durable, at, value));
    }

    void failedSend(long seq, String topic, String key, long at, long value) {
        failedSend(seq, topic, key, at, at + 500, value);
    }

    /** A send whose call began at {@code at} and failed at {@code end}. */
    void failedSend(long seq, String topic, String key, long at, long end, long value) {
        event("producer", new HarnessEvent.SendFailed(end, seq, topic, key, false, at, value,
                "RmqUnavailableException: down"));
    }

    /** A handler run whose lease ran until 3 s after its start. */
    void ran(String inc, String worker, String topic, int slot, String key, long seq, int attempt, long start,
             long end, String outcome, long redisNowMs, long dueMs, long fixedMs) {
        ran(inc, worker, topic, slot, key, seq, attempt, start, end, outcome, redisNowMs, dueMs, fixedMs,
                start / 1000 + 3000);
    }

    /** A handler run of {@code worker} in incarnation {@code inc}; end -1 leaves it without an end. */
    void ran(String inc, String worker, String topic, int slot, String key, long seq, int attempt, long start,
             long end, String outcome, long redisNowMs, long dueMs, long fixedMs, long leaseMs) {
        ranInCall(inc, worker, topic, slot, key, seq, attempt, start, end, outcome, redisNowMs, dueMs, fixedMs, leaseMs,
                start);
    }

    /** A handler run, as {@link #ran}, of a handler call that began at {@code call} (a batch listener's). */
    void ranInCall(String inc, String worker, String topic, int slot, String key, long seq, int attempt,
                   long start, long end, String outcome, long redisNowMs, long dueMs, long fixedMs, long leaseMs,
                   long call) {
        if (incarnations.add(inc)) {
            event("harness", new HarnessEvent.ProcessStarted(T0 - 10 * S, inc));
        }
        event(inc, new HarnessEvent.Delivered(start, inc, worker, topic, slot, key, seq, false, attempt, redisNowMs,
                dueMs, fixedMs, leaseMs, 1, call));
        if (end >= 0) {
            event(inc, new HarnessEvent.Handled(end, inc, worker, topic, slot, key, seq, attempt, outcome));
        }
    }

    /** A successful 1 ms delivery by worker p-0 of {@code inc}, in slot 0. */
    void consumed(String inc, String topic, String key, long seq, long start) {
        consumed(inc, topic, 0, key, seq, start);
    }

    void consumed(String inc, String topic, int slot, String key, long seq, long start) {
        ran(inc, "p-0", topic, slot, key, seq, 1, start, start + 1000, "ok", start / 1000, -1, 0);
    }

    /** rmq reported that an ack call of a worker failed. */
    void ackFailed(String inc, long at, String worker, String topic, int slot) {
        event(inc, new HarnessEvent.AckFailed(at, inc, worker, topic, slot, List.of("k"), "RedisTimeoutException"));
    }

    /** rmq reported that the lease of {@code key} ran out before its ack. */
    void stale(String inc, long at, String worker, String topic, int slot, String key) {
        event(inc, new HarnessEvent.Acknowledged(at, inc, worker, topic, slot, key, "stale"));
    }

    /** rmq reported its worker fenced out of a slot at an ack. */
    void fencedAtAck(String inc, long at, String worker, String topic, int slot) {
        event(inc, new HarnessEvent.SlotFenced(at, inc, worker, topic, slot, "ack"));
    }

    void sessionLost(String inc, long at) {
        event(inc, new HarnessEvent.SessionChanged(at, inc, "LOST", "0x1"));
    }

    void killed(String inc, long at) {
        event("harness", new HarnessEvent.ProcessEnded(at, inc, true));
    }

    void paused(String inc, long from, long to) {
        event("harness", new HarnessEvent.ProcessPaused(from, inc, to));
    }

    void dead(String topic, int slot, String key, long seq, String reason, String lastError, int attempts) {
        event("harness", new HarnessEvent.DeadAtEnd(T0 + 900 * S, topic, slot, key, seq, false, reason, lastError,
                attempts));
    }

    /** A row of the journal of a {@link #PRIORITY} key, written after every row given before it. */
    void journaled(String key, long messageId, String state, long at) {
        journal.add(new JournalRow(PRIORITY, key,
                new JournalRecord.Transition(journal.size() + 1, messageId, state, at)));
    }

    private record JournalRow(String topic, String key, JournalRecord.Transition transition) {
    }

    void fault(FaultKind kind, String target, long inject, long heal, Set<String> slots) {
        event("harness",
                new HarnessEvent.FaultInjected(inject, ++faults, kind.cliName(), target, heal, 3 * S, slots, ""));
    }

    /** Writes the events as a run would, each file with its own {@link EventLog}, and checks the run. */
    Verdict check() {
        List<HarnessEvent.Topic> topics = new ArrayList<>();
        for (Deployment deployment : Deployment.values()) {
            for (TopicDefinition topic : Workload.topics(deployment)) {
                topics.add(new HarnessEvent.Topic(topic.name(), topic.type().name(), deployment.cliName(),
                        topic.delivery().name(), topic.ttl().toMillis()));
            }
        }
        files.computeIfAbsent("harness", k -> new ArrayList<>()).add(0,
                new HarnessEvent.RunStarted(T0 - 20 * S, Workload.SESSION_TIMEOUT_MS, Workload.LEASE.toMillis(),
                        topics));
        files.get("harness").add(new HarnessEvent.RunEnded(T0 + 1000 * S));
        files.forEach((name, events) -> {
            try (EventLog log = new EventLog(dir.resolve(name + ".events"))) {
                events.forEach(log::write);
            }
        });
        cutLines.forEach((name, bytes) -> {
            try {
                Files.write(dir.resolve(name + ".events"), bytes, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return InvariantChecker.check(dir, new JournalRecord() {
            @Override
            public List<JournalRecord.Transition> of(String topic, String key) {
                return journal.stream().filter(row -> row.topic().equals(topic) && row.key().equals(key))
                        .map(JournalRow::transition).toList();
            }

            @Override
            public long firstRestoredFrom(long messageId, long fromMicros, long toMicros) {
                return journal.stream().map(JournalRow::transition).filter(t -> t.state().equals("restored")
                        && t.messageId() >= messageId && t.atMicros() >= fromMicros && t.atMicros() <= toMicros)
                        .mapToLong(JournalRecord.Transition::id).min().orElse(Long.MAX_VALUE);
            }
        });
    }
}
