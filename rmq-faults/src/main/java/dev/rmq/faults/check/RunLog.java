package dev.rmq.faults.check;

import dev.rmq.dead.DeadReason;
import dev.rmq.faults.events.EventReader;
import dev.rmq.faults.events.HarnessEvent;
import org.jspecify.annotations.Nullable;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A run as the checker sees it, read from its events: the sends, the handler runs, the consumer lives, what rmq
 * reported about acknowledgements and sessions, the faults and the dead queue at the end.
 */
final class RunLog {

    /** A consumer process's life: when it started and ended, whether it was killed, and when it was frozen. */
    record Incarnation(String id, long startMicros, long endMicros, boolean killed, List<long[]> pauses) {
    }

    record Send(long seq, String topic, String key, int slot, boolean ok, boolean merged, boolean durable,
                long startMicros, long endMicros, long value) {

        /** Whether this send may have created a message rather than merged into one. */
        boolean mayCreate() {
            return !ok || !merged;
        }
    }

    /**
     * One handler run. {@code end} is the run's end, or the end of its process (or of the run) when it never
     * ended; {@code leaseMs} is the lease deadline the delivery had when its handler started; {@code callStart} is
     * when the handler call that ran it began (a batch listener's call runs its messages one after another).
     */
    record Run(String incarnation, String worker, String topic, int slot, String key, long seq, boolean probe,
               int attempt, long start, long end, String outcome, long redisNowMs, long dueMs, long fixedMs,
               long leaseMs, long callStart) {

        boolean succeeded() {
            return "ok".equals(outcome);
        }

        String slotName() {
            return topic + "_" + slot;
        }

        /** The worker across processes: its incarnation and thread. */
        String who() {
            return incarnation + "/" + worker;
        }
    }

    /** What rmq reported about an acknowledgement of a slot: it failed, came too late for its lease, or was fenced. */
    enum TroubleKind { FAILED, STALE, FENCED }

    record AckTrouble(TroubleKind kind, String incarnation, String worker, String slot, @Nullable String key,
                      long micros) {
    }

    record Fault(int id, String kind, String target, long injectMicros, long healMicros, long recoveryMicros,
                 Set<String> slots) {
    }

    record Dead(String topic, int slot, String key, long seq, boolean probe, DeadReason reason, String lastError,
                int attempts) {
    }

    final Map<String, String> topicTypes = new LinkedHashMap<>();
    final Map<String, String> topicDeployments = new LinkedHashMap<>();
    /** The topics whose messages are delivered at most once: their losses are allowed, a second delivery is not. */
    final Set<String> atMostOnceTopics = new TreeSet<>();
    /** Each topic's time to live in microseconds, 0 for none. */
    final Map<String, Long> topicTtlMicros = new HashMap<>();
    long sessionTimeoutMicros = 4_000_000;
    /** The topics' lease, from which a run's lease deadline tells when its delivery was polled or last renewed. */
    long leaseMicros = 3_000_000;
    final List<Send> sends = new ArrayList<>();
    final List<Run> runs = new ArrayList<>();
    final Map<String, Incarnation> incarnations = new LinkedHashMap<>();
    final Map<String, List<AckTrouble>> troubles = new HashMap<>();
    final Map<String, List<Long>> sessionsLost = new HashMap<>();
    final List<Fault> faults = new ArrayList<>();
    final List<Dead> dead = new ArrayList<>();
    long runEndMicros;

    private RunLog() {
    }

    /**
     * The run whose {@code .events} files are in {@code dir}, read a line at a time: those of different processes in
     * any order, those of one process in the order it wrote them.
     */
    static RunLog read(Path dir) {
        Reading reading = new Reading();
        EventReader.forEachInRun(dir, reading::add);
        return reading.finish();
    }

    /** A log being read, with what only the end of the run completes: the handlers still running, the lives. */
    private static final class Reading {
        final RunLog log = new RunLog();
        final Map<String, HarnessEvent.Delivered> open = new HashMap<>();
        final Map<String, long[]> lives = new LinkedHashMap<>();
        final Map<String, Boolean> killed = new HashMap<>();
        final Map<String, List<long[]>> pauses = new HashMap<>();
        final List<HarnessEvent.Delivered> unfinished = new ArrayList<>();
        /**
         * One instance of each name the events repeat (topics, slots, processes, workers, outcomes): each event's
         * parse makes its own copies, and a run of millions of deliveries would keep millions of copies of a few
         * dozen names.
         */
        final Map<String, String> names = new HashMap<>();

        /** Folds one event into the log; the maps collect what only the end of the run completes. */
        void add(HarnessEvent event) {
            log.runEndMicros = Math.max(log.runEndMicros, event.micros());
            if (event instanceof HarnessEvent.RunStarted e) {
                log.sessionTimeoutMicros = e.sessionTimeoutMs() * 1000;
                log.leaseMicros = e.leaseMs() * 1000;
                for (HarnessEvent.Topic topic : e.topics()) {
                    log.topicTypes.put(topic.name(), topic.type());
                    log.topicDeployments.put(topic.name(), topic.deployment());
                    if ("AT_MOST_ONCE".equals(topic.delivery())) {
                        log.atMostOnceTopics.add(topic.name());
                    }
                    log.topicTtlMicros.put(topic.name(), topic.ttlMs() * 1000);
                }
            } else if (event instanceof HarnessEvent.Sent e) {
                log.sends.add(new Send(e.seq(), name(e.topic()), e.key(), e.slot(), true, e.merged(), e.durable(),
                        e.startMicros(), e.micros(), e.value()));
            } else if (event instanceof HarnessEvent.SendFailed e) {
                log.sends.add(new Send(e.seq(), name(e.topic()), e.key(), -1, false, false, e.durable(),
                        e.startMicros(), e.micros(), e.value()));
            } else if (event instanceof HarnessEvent.Delivered e) {
                HarnessEvent.Delivered before = open.put(e.incarnation() + "/" + e.worker(), e);
                if (before != null) {
                    unfinished.add(before);
                }
            } else if (event instanceof HarnessEvent.Handled e) {
                HarnessEvent.Delivered start = open.remove(e.incarnation() + "/" + e.worker());
                if (start != null) {
                    log.runs.add(run(start, e.micros(), e.outcome()));
                }
            } else if (event instanceof HarnessEvent.Acknowledged e) {
                if ("stale".equals(e.outcome())) {
                    trouble(TroubleKind.STALE, e.incarnation(), e.worker(), e.topic(), e.slot(), e.key(), e.micros());
                }
            } else if (event instanceof HarnessEvent.AckFailed e) {
                trouble(TroubleKind.FAILED, e.incarnation(), e.worker(), e.topic(), e.slot(), null, e.micros());
            } else if (event instanceof HarnessEvent.SlotFenced e) {
                if ("ack".equals(e.during())) {
                    trouble(TroubleKind.FENCED, e.incarnation(), e.worker(), e.topic(), e.slot(), null, e.micros());
                }
            } else if (event instanceof HarnessEvent.SessionChanged e) {
                if ("LOST".equals(e.state())) {
                    log.sessionsLost.computeIfAbsent(e.incarnation(), k -> new ArrayList<>()).add(e.micros());
                }
            } else if (event instanceof HarnessEvent.ProcessStarted e) {
                lives.put(e.incarnation(), new long[] {e.micros(), -1});
            } else if (event instanceof HarnessEvent.ProcessEnded e) {
                lives.computeIfAbsent(e.incarnation(), k -> new long[] {Long.MIN_VALUE, -1})[1] = e.micros();
                killed.put(e.incarnation(), e.killed());
            } else if (event instanceof HarnessEvent.ProcessPaused e) {
                pauses.computeIfAbsent(e.incarnation(), k -> new ArrayList<>())
                        .add(new long[] {e.micros(), e.resumedMicros()});
            } else if (event instanceof HarnessEvent.FaultInjected e) {
                log.faults.add(new Fault(e.id(), e.kind(), e.target(), e.micros(), e.healMicros(), e.recoveryMicros(),
                        e.slots()));
            } else if (event instanceof HarnessEvent.DeadAtEnd e) {
                log.dead.add(new Dead(e.topic(), e.slot(), e.key(), e.seq(), e.probe(),
                        DeadReason.of(e.reason() == null ? "" : e.reason()), e.lastError(), e.attempts()));
            }
            // owner changes and the run's end are for people: who held a slot is judged from the handlers that ran
        }

        RunLog finish() {
            lives.forEach((id, life) -> log.incarnations.put(id, new Incarnation(id, life[0], life[1],
                    killed.getOrDefault(id, false), List.copyOf(pauses.getOrDefault(id, List.of())))));
            unfinished.addAll(open.values());
            for (HarnessEvent.Delivered start : unfinished) {
                Incarnation life = log.incarnations.get(start.incarnation());
                long end = life != null && life.endMicros() >= 0 ? life.endMicros() : log.runEndMicros;
                log.runs.add(run(start, end, "none"));
            }
            log.sends.sort(Comparator.comparingLong(Send::seq));
            log.runs.sort(Comparator.comparingLong(Run::start));
            return log;
        }

        private Run run(HarnessEvent.Delivered b, long end, String outcome) {
            return new Run(name(b.incarnation()), name(b.worker()), name(b.topic()), b.slot(), b.key(), b.seq(),
                    b.probe(), b.attempt(), b.micros(), end, name(outcome), b.redisNowMs(), b.dueMs(), b.fixedMs(),
                    b.leaseMs(), b.callMicros() == null ? b.micros() : b.callMicros());
        }

        private void trouble(TroubleKind kind, String incarnation, String worker, String topic, int slot,
                             @Nullable String key, long micros) {
            String process = name(incarnation);
            log.troubles.computeIfAbsent(process, k -> new ArrayList<>()).add(new AckTrouble(kind, process,
                    name(worker), name(topic + "_" + slot), key, micros));
        }

        private String name(String name) {
            return names.computeIfAbsent(name, n -> n);
        }
    }

    String typeOf(String topic) {
        String type = topicTypes.get(topic);
        if (type == null) {
            throw new IllegalArgumentException("the run's events name no topic '" + topic + "'");
        }
        return type;
    }

    /**
     * What rmq reported of the kind about the slot of {@code run}, from the worker that ran it, between {@code from}
     * and {@code to}; a lease ran out ({@link TroubleKind#STALE}) only for the key of {@code run}. Null when nothing.
     */
    @Nullable AckTrouble reported(Run run, TroubleKind kind, long from, long to) {
        for (AckTrouble trouble : troubles.getOrDefault(run.incarnation(), List.of())) {
            if (trouble.kind() == kind && trouble.worker().equals(run.worker()) && trouble.slot().equals(run.slotName())
                    && (kind != TroubleKind.STALE || run.key().equals(trouble.key()))
                    && trouble.micros() >= from && trouble.micros() <= to) {
                return trouble;
            }
        }
        return null;
    }

    boolean sessionLostBetween(String incarnation, long from, long to) {
        return sessionsLost.getOrDefault(incarnation, List.of()).stream().anyMatch(at -> at >= from && at <= to);
    }

    boolean wasPausedDuring(Run run) {
        return wasPaused(run.incarnation(), run.start(), run.end());
    }

    /**
     * Whether the handler call that ran {@code run} was frozen before the run began: a batch listener's call that a
     * SIGSTOP caught goes on with its next messages once the process runs again.
     */
    boolean callWasPausedBefore(Run run) {
        return run.callStart() < run.start() && wasPaused(run.incarnation(), run.callStart(), run.start());
    }

    private boolean wasPaused(String incarnation, long from, long to) {
        Incarnation life = incarnations.get(incarnation);
        if (life == null) {
            return false;
        }
        for (long[] pause : life.pauses()) {
            if (pause[0] <= to && pause[1] >= from) {
                return true;
            }
        }
        return false;
    }
}
