package dev.rmq.faults;

import dev.rmq.topic.TopicType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the logs of a run and accounts for every send receipt.
 *
 * <p><b>Messages.</b> The sends of one key, in the producer's order, form message instances: a receipt with
 * {@code merged=false} starts an instance and the later receipts with {@code merged=true} join it (a failed
 * send joins the instance in progress; merged receipts with no instance before them start one whose first
 * send failed). An instance with at least one receipt is accountable. Every delivery carries the seq of the
 * send whose payload it has, which names its instance. An accountable instance is
 * <ul>
 *   <li><b>consumed</b> when a handler finished it successfully at least once;</li>
 *   <li><b>dead</b> when the dead queue holds it at the end;</li>
 *   <li><b>superseded</b> when neither, but the next instance of its key is covered and this one may have been
 *       in flight when that one was sent: a failed, expired or released delivery then finds the newer send
 *       waiting and merges into it ({@code fail()} and the U ack in the scripts). For a time-based message this
 *       is only possible once it was due, so a message still not due when the next instance was created counts
 *       as lost;</li>
 *   <li><b>lost</b> otherwise. A loss is excused only for a non-durable message whose slot lived on a Cluster
 *       master that was SIGKILLed, and whose creating send was acknowledged at most {@link #REPLICATION_LAG} before
 *       the kill: Redis replicates asynchronously, and a write the master acknowledged but had not yet streamed
 *       to its replica dies with it. Those count as {@code lost_non_durable}; every other loss, and any loss of a
 *       durable send (which waited for a replica), fails the run.</li>
 * </ul>
 *
 * <p><b>Duplicates</b> are successful deliveries of an instance beyond the first. SPEC section 4 allows one
 * only where the first delivery's commit never took effect: the consumer died before committing, it was slower
 * than its lease (a pause), or the commit's reply or write was lost. So each duplicate must be explained by
 * something that hit that very delivery between its handler's start and the time by which its commit was sent
 * ({@link #commitDeadline}: the later of the handler's end and its lease deadline, plus {@link #ACK_GRACE}):
 * <ul>
 *   <li>{@code kill}, {@code stop}, {@code zk-expire}: the fault's target is the consumer incarnation that ran
 *       the first delivery, and it struck within that interval;</li>
 *   <li>{@code redis-restart}, {@code failover}, {@code master-kill}: the fault hit the node that held the
 *       message's slot, and its outage (widened by {@link #OUTAGE_MARGIN}, and for a master kill reaching
 *       {@link #REPLICATION_LAG} back, for a commit the master applied but never replicated) overlaps the
 *       interval from the handler's end to the commit deadline: the commit or its reply was lost with the node;</li>
 *   <li>{@code zk-quorum}: the workers stop when the quorum goes, so only an in-flight handler whose commit got
 *       fenced produces one: the first delivery's incarnation lost its session during the outage, after the
 *       delivery began, and it reported the commit of that slot refused;</li>
 *   <li>the consumer's own report, from the worker thread that ran the first delivery, between its end and the
 *       redelivery: the ack call of that slot failed ({@code ack-failed}: the reply was lost), the lease of
 *       that very key had run out before its ack ({@code lease-expired}: slower than its lease), or the slot
 *       was fenced at the ack after that incarnation lost its ZooKeeper session ({@code session-lost}).</li>
 * </ul>
 * Anything else is an unexplained duplicate, and fails the run, whatever else happened elsewhere meanwhile.
 *
 * <p><b>Exclusivity.</b> Each handler run is an interval of one slot, from its B line to its E line (or to the
 * death of its process). Two intervals of one slot by different workers that intersect are an overlap. Since a
 * slot taken over without a release is polled only after the old owner's latest lease, the one overlap the
 * design allows is a handler that outlived its own lease: the earlier run was frozen by SIGSTOP while it ran,
 * and the later one started after the earlier one's lease deadline. It is counted as a paused-handler overlap
 * and must end in a redelivery of its message (fencing refused its late commit), or in the dead queue after
 * the lease expiry used up its retries; every other overlap is a violation.
 *
 * <p><b>Due times.</b> A delivery is early when the Redis clock its handler read at the start is before the
 * fixed time its payload was sent with (fixed-time), before rmq's own due time of the delivery, or, checked
 * independently of rmq, before a range-merge message's earliest possible due time: the time of the send that
 * created it plus its timeRange, less {@link #EARLY_TOLERANCE_MS}. The producer's and Redis's clocks are one host
 * clock, and the producer reads it before the send, so that bound is never later than the due time the script
 * computed.
 */
final class InvariantChecker {

    private static final long MS = 1_000;
    private static final long SECOND = 1_000_000;
    private static final int EXAMPLES = 20;

    /**
     * After the later of a handler's end and its lease deadline, by when its commit has gone out: the worker
     * commits what it handled before it extends the rest of a batch, which it does once half the lease is gone.
     */
    static final long ACK_GRACE = SECOND;
    /** Widens a Redis outage on both sides: an ack already on the wire when the node went, and the reconnect. */
    static final long OUTAGE_MARGIN = SECOND;
    /**
     * How long before a master SIGKILL an acknowledged write may still be missing from its replica. Redis streams
     * every write to its replicas in the event-loop iteration that applied it, so on loopback the gap is
     * milliseconds; 2 s leaves room for a master or replica descheduled on a busy two-core machine.
     */
    static final long REPLICATION_LAG = 2 * SECOND;
    /** The SIGKILL of a master lands within this long after the recorded injection. */
    static final long KILL_LANDS = 200 * MS;
    /** Rounding of the producer's microsecond clock and of Redis's millisecond scores. */
    static final long EARLY_TOLERANCE_MS = 2;
    /** After a quorum returns, a session may still be declared lost for up to a session timeout and some. */
    static final long QUORUM_GRACE = Workload.SESSION_TIMEOUT_MS * MS + 5 * SECOND;
    /** A consumer learns that its session was lost up to a session timeout after its slot was taken over. */
    static final long SESSION_GRACE = Workload.SESSION_TIMEOUT_MS * MS + 2 * SECOND;

    private static final Pattern SLOT_TAG = Pattern.compile("(faults-[a-z]+-[a-z])_(\\d+)");
    private static final Pattern LOG_LINE = Pattern.compile("^(\\S+) \\[([^\\]]+)\\] \\S+ \\S+ - (.*)$");
    private static final Pattern STALE_KEY = Pattern.compile("the lease of '([^']*)' in ");
    private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");

    /** A consumer process's life: when it started and ended, whether it was killed, and when it was stopped. */
    record Incarnation(String id, long startMicros, long endMicros, boolean killed, List<long[]> pauses) {
    }

    /** A message found in the dead queue at the end. */
    record DeadEntry(String topic, int slot, String key, String payload, String lastError, int attempts) {
    }

    /**
     * The logs of a run.
     *
     * @param producerLogs   S and F lines of every sender (the producer, the harness's own slow messages)
     * @param consumerLogs   incarnation to its B, E and Z lines
     * @param consumerStderr incarnation to its slf4j log, where rmq reports acks that failed or were refused
     */
    record Inputs(List<Path> producerLogs, Map<String, Path> consumerLogs, Map<String, Path> consumerStderr,
                  Map<String, Incarnation> incarnations, List<FaultRecord> faults, List<DeadEntry> dead,
                  long runEndMicros) {
    }

    record Send(long seq, String topic, String key, int slot, boolean ok, boolean merged, boolean durable,
                long startMicros, long endMicros, long value) {

        /** Whether this send may have created a message rather than merged into one. */
        boolean mayCreate() {
            return !ok || !merged;
        }
    }

    /**
     * One handler run. end is -1 when no E line was written (the process died or is stuck); leaseMs is the lease
     * deadline the delivery had when its handler started.
     */
    record Run(String incarnation, String worker, String topic, int slot, String key, long seq, int attempt,
               long start, long end, String outcome, long redisNowMs, long dueMs, long fixedMs, long leaseMs) {

        boolean succeeded() {
            return "ok".equals(outcome);
        }

        Run withEnd(long newEnd) {
            return new Run(incarnation, worker, topic, slot, key, seq, attempt, start, newEnd, outcome, redisNowMs, dueMs,
                    fixedMs, leaseMs);
        }

        /** The worker thread's name, as rmq's log shows it. */
        String thread() {
            return worker.substring(worker.indexOf('/') + 1);
        }

        String slotName() {
            return topic + "_" + slot;
        }
    }

    /** What rmq's worker logged about an ack of a slot: it failed, came too late for the lease, or was fenced. */
    enum TroubleKind { FAILED, STALE, FENCED }

    record AckTrouble(TroubleKind kind, String thread, String slot, String key, long micros) {
    }

    enum Status { CONSUMED, DEAD, SUPERSEDED, LOST, UNRECEIPTED }

    static final class Instance {
        final String topic;
        final String key;
        final TopicType type;
        final boolean durable;
        final List<Send> sends = new ArrayList<>();
        final List<Run> runs = new ArrayList<>();
        DeadEntry dead;
        Status status;

        Instance(String topic, String key) {
            this.topic = topic;
            this.key = key;
            this.type = Workload.topic(topic).type();
            this.durable = Workload.isDurableKey(key);
        }

        long firstSeq() {
            return sends.get(0).seq();
        }

        boolean accountable() {
            return sends.stream().anyMatch(Send::ok);
        }

        boolean consumed() {
            return runs.stream().anyMatch(Run::succeeded);
        }

        /** The slot, from the first receipt. */
        int slot() {
            return sends.stream().filter(Send::ok).mapToInt(Send::slot).findFirst().orElse(-1);
        }

        /** The earliest time (epoch ms, Redis clock = host clock) at which this message could have been polled. */
        long earliestDueMs() {
            Send first = sends.get(0);
            return switch (type) {
                case PRIORITY -> Long.MIN_VALUE;
                case RANGE_MERGE -> first.startMicros() / 1000 + first.value();
                case FIXED_TIME -> sends.get(sends.size() - 1).value();
            };
        }

        /**
         * For a range-merge message, the earliest due time a delivery carrying the payload of send {@code seq} can
         * have: the message was created by one of the sends up to it that did not merge (or failed, yet may have
         * been applied), at that send's start or later, and a merge keeps the creating send's due time.
         */
        long earliestRangeDueMs(long seq) {
            long earliest = Long.MAX_VALUE;
            for (Send send : sends) {
                if (send.seq() <= seq && send.mayCreate()) {
                    earliest = Math.min(earliest, send.startMicros() / 1000 + send.value());
                }
            }
            return earliest == Long.MAX_VALUE ? Long.MIN_VALUE : earliest;
        }
    }

    /** The outcome: the figures of the result, the details, and what failed. */
    record Result(Map<String, Object> figures, Map<String, Object> details, List<String> failures) {

        boolean passed() {
            return failures.isEmpty();
        }

        long figure(String name) {
            return ((Number) figures.get(name)).longValue();
        }
    }

    private final Inputs in;
    private final Map<String, List<Instance>> byKey = new HashMap<>();
    private final List<Run> runs = new ArrayList<>();
    private final Map<String, List<AckTrouble>> ackTrouble = new HashMap<>();
    private final Map<String, List<Long>> sessionsLost = new HashMap<>();
    private long sent;
    private long merged;
    private long sendFailures;

    private InvariantChecker(Inputs in) {
        this.in = in;
    }

    static Result check(Inputs in) {
        return new InvariantChecker(in).run();
    }

    private Result run() {
        readSends();
        readRuns();
        readAckTrouble();
        attribute();
        return evaluate();
    }

    // ---- reading -----------------------------------------------------------------------------------------------

    private static List<String[]> lines(Path file) {
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            List<String[]> rows = new ArrayList<>();
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    rows.add(line.split(" "));
                }
            }
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private void readSends() {
        List<Send> all = new ArrayList<>();
        for (Path file : in.producerLogs()) {
            for (String[] f : lines(file)) {
                if (f.length < 11 || !(f[0].equals("S") || f[0].equals("F"))) {
                    continue;
                }
                try {
                    boolean ok = f[0].equals("S");
                    all.add(new Send(Long.parseLong(f[1]), f[2], f[3], Integer.parseInt(f[4]), ok, ok && f[5].equals("1"),
                            f[6].equals("1"), Long.parseLong(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9])));
                } catch (NumberFormatException e) {
                    // a line cut short
                }
            }
        }
        all.sort(Comparator.comparingLong(Send::seq));
        for (Send send : all) {
            if (send.ok()) {
                sent++;
                if (send.merged()) {
                    merged++;
                }
            } else {
                sendFailures++;
            }
            List<Instance> instances = byKey.computeIfAbsent(send.topic() + " " + send.key(), k -> new ArrayList<>());
            Instance current = instances.isEmpty() ? null : instances.get(instances.size() - 1);
            if (current == null || (send.ok() && !send.merged())) {
                current = new Instance(send.topic(), send.key());
                instances.add(current);
            }
            current.sends.add(send);
        }
    }

    private void readRuns() {
        for (Map.Entry<String, Path> entry : in.consumerLogs().entrySet()) {
            String incarnation = entry.getKey();
            Incarnation life = in.incarnations().get(incarnation);
            Map<String, String[]> open = new HashMap<>();
            for (String[] f : lines(entry.getValue())) {
                try {
                    if (f[0].equals("B") && f.length >= 12) {
                        Long.parseLong(f[11]);
                        open.put(f[2], f);
                    } else if (f[0].equals("E") && f.length >= 9) {
                        String[] b = open.remove(f[2]);
                        if (b != null) {
                            runs.add(run(incarnation, b, Long.parseLong(f[1]), f[8]));
                        }
                    } else if (f[0].equals("Z") && f.length >= 4 && f[3].equals("LOST")) {
                        sessionsLost.computeIfAbsent(incarnation, k -> new ArrayList<>()).add(Long.parseLong(f[1]));
                    }
                } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
                    // a line cut short by SIGKILL
                }
            }
            long end = life != null && life.endMicros() >= 0 ? life.endMicros() : in.runEndMicros();
            for (String[] b : open.values()) {
                runs.add(run(incarnation, b, -1, "none").withEnd(end));
            }
        }
        runs.sort(Comparator.comparingLong(Run::start));
    }

    private static Run run(String incarnation, String[] b, long end, String outcome) {
        return new Run(incarnation, b[2], b[3], Integer.parseInt(b[4]), b[5], Long.parseLong(b[6]), Integer.parseInt(b[7]),
                Long.parseLong(b[1]), end, outcome, Long.parseLong(b[8]), Long.parseLong(b[9]), Long.parseLong(b[10]),
                Long.parseLong(b[11]));
    }

    /** rmq's own warnings, per incarnation, that an ack of a slot failed, came after its lease, or was fenced. */
    private void readAckTrouble() {
        for (Map.Entry<String, Path> entry : in.consumerStderr().entrySet()) {
            Path file = entry.getValue();
            if (!Files.exists(file)) {
                continue;
            }
            List<String> text;
            try {
                text = Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                continue;
            }
            for (String line : text) {
                TroubleKind kind = line.contains("could not acknowledge") ? TroubleKind.FAILED
                        : line.contains("ran out before its ack") ? TroubleKind.STALE
                        : line.contains("before acknowledging") ? TroubleKind.FENCED : null;
                Matcher parts = LOG_LINE.matcher(line);
                if (kind == null || !parts.matches()) {
                    continue;
                }
                Matcher tag = SLOT_TAG.matcher(parts.group(3));
                if (!tag.find()) {
                    continue;
                }
                String key = null;
                if (kind == TroubleKind.STALE) {
                    Matcher stale = STALE_KEY.matcher(parts.group(3));
                    if (!stale.find()) {
                        continue;
                    }
                    key = stale.group(1);
                }
                try {
                    OffsetDateTime at = OffsetDateTime.parse(parts.group(1), LOG_TIME);
                    long micros = ChronoUnit.MICROS.between(Instant.EPOCH, at.toInstant());
                    ackTrouble.computeIfAbsent(entry.getKey(), k -> new ArrayList<>())
                            .add(new AckTrouble(kind, parts.group(2), tag.group(1) + "_" + tag.group(2), key, micros));
                } catch (RuntimeException e) {
                    // not a log line of ours
                }
            }
        }
    }

    // ---- attribution -------------------------------------------------------------------------------------------

    private Instance instanceOf(String topic, String key, long seq) {
        List<Instance> instances = byKey.get(topic + " " + key);
        if (instances == null) {
            return null;
        }
        Instance found = null;
        for (Instance instance : instances) {
            if (instance.firstSeq() <= seq) {
                found = instance;
            } else {
                break;
            }
        }
        return found;
    }

    private long unattributedRuns;
    private long unattributedDead;
    private long deadWithoutReason;
    private final List<String> deadWithoutReasonExamples = new ArrayList<>();

    private void attribute() {
        for (Run run : runs) {
            if (Workload.isProbeKey(run.key())) {
                continue;
            }
            Instance instance = instanceOf(run.topic(), run.key(), run.seq());
            if (instance == null) {
                unattributedRuns++;
            } else {
                instance.runs.add(run);
            }
        }
        for (DeadEntry dead : in.dead()) {
            if (dead.lastError() == null || dead.lastError().isBlank()) {
                deadWithoutReason++;
                if (deadWithoutReasonExamples.size() < EXAMPLES) {
                    deadWithoutReasonExamples.add(dead.topic() + "_" + dead.slot() + " " + dead.key());
                }
            }
            Instance instance = null;
            try {
                Workload.Payload payload = Workload.Payload.decode(dead.payload());
                instance = payload.probe() ? null : instanceOf(dead.topic(), dead.key(), payload.seq());
            } catch (RuntimeException e) {
                // undecodable: cannot be ours
            }
            if (instance == null) {
                unattributedDead++;
            } else {
                instance.dead = dead;
            }
        }
        for (List<Instance> instances : byKey.values()) {
            boolean nextCovered = false;
            Instance next = null;
            for (int i = instances.size() - 1; i >= 0; i--) {
                Instance instance = instances.get(i);
                if (instance.consumed()) {
                    instance.status = Status.CONSUMED;
                } else if (instance.dead != null) {
                    instance.status = Status.DEAD;
                } else if (next != null && nextCovered && mayHaveMergedInto(instance, next)) {
                    instance.status = Status.SUPERSEDED;
                } else {
                    instance.status = Status.LOST;
                }
                boolean covered = instance.status != Status.LOST;
                if (!instance.accountable()) {
                    instance.status = Status.UNRECEIPTED;
                }
                nextCovered = covered;
                next = instance;
            }
        }
    }

    /** Whether {@code older} could have been in flight when {@code newer} was created, so that it merged into it. */
    private static boolean mayHaveMergedInto(Instance older, Instance newer) {
        long newerCreatedMs = newer.sends.get(0).endMicros() / 1000;
        return older.earliestDueMs() <= newerCreatedMs + 100;
    }

    // ---- evaluation --------------------------------------------------------------------------------------------

    private Result evaluate() {
        Map<String, Object> details = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();

        long messages = 0;
        long consumed = 0;
        long dead = 0;
        long deadAndConsumed = 0;
        long superseded = 0;
        long lostDurable = 0;
        long lostExcused = 0;
        long lostUnexplained = 0;
        long unreceiptedConsumed = 0;
        long durableMessages = 0;
        Map<String, Long> messagesByDeployment = new TreeMap<>();
        Map<String, Long> supersededByType = new TreeMap<>();
        List<String> lostExamples = new ArrayList<>();
        for (List<Instance> instances : byKey.values()) {
            for (Instance instance : instances) {
                if (instance.status == Status.UNRECEIPTED) {
                    if (instance.consumed()) {
                        unreceiptedConsumed++;
                    }
                    continue;
                }
                messages++;
                messagesByDeployment.merge(Workload.deploymentOf(instance.topic).cliName(), 1L, Long::sum);
                if (instance.durable) {
                    durableMessages++;
                }
                if (instance.consumed()) {
                    consumed++;
                }
                if (instance.dead != null) {
                    dead++;
                    if (instance.consumed()) {
                        deadAndConsumed++;
                    }
                }
                switch (instance.status) {
                    case SUPERSEDED -> {
                        superseded++;
                        supersededByType.merge(instance.type.name(), 1L, Long::sum);
                    }
                    case LOST -> {
                        String excuse = null;
                        if (instance.durable) {
                            lostDurable++;
                        } else if ((excuse = lostWithUnreplicatedWrite(instance)) != null) {
                            lostExcused++;
                        } else {
                            lostUnexplained++;
                        }
                        if (lostExamples.size() < EXAMPLES) {
                            lostExamples.add(describe(instance) + (excuse == null ? "" : "; " + excuse));
                        }
                    }
                    default -> {
                    }
                }
            }
        }

        // duplicates
        long duplicates = 0;
        long unexplained = 0;
        Map<String, Long> duplicateCauses = new TreeMap<>();
        List<String> unexplainedExamples = new ArrayList<>();
        for (List<Instance> instances : byKey.values()) {
            for (Instance instance : instances) {
                List<Run> ok = instance.runs.stream().filter(Run::succeeded).sorted(Comparator.comparingLong(Run::start)).toList();
                for (int i = 1; i < ok.size(); i++) {
                    duplicates++;
                    String cause = explainDuplicate(ok.get(i - 1), ok.get(i));
                    if (cause == null) {
                        unexplained++;
                        if (unexplainedExamples.size() < EXAMPLES) {
                            unexplainedExamples.add(instance.topic + " " + instance.key + ": " + brief(ok.get(i - 1))
                                    + " then " + brief(ok.get(i)));
                        }
                    } else {
                        duplicateCauses.merge(cause, 1L, Long::sum);
                    }
                }
            }
        }

        // early deliveries
        long early = 0;
        long unknownClock = 0;
        Map<String, Long> earlyByRule = new TreeMap<>();
        List<String> earlyExamples = new ArrayList<>();
        for (Run run : runs) {
            if (run.redisNowMs() < 0) {
                unknownClock++;
                continue;
            }
            String rule = null;
            if (run.fixedMs() > 0 && run.redisNowMs() < run.fixedMs()) {
                rule = "before its fixed time";
            } else if (Workload.topic(run.topic()).type() == TopicType.RANGE_MERGE && !Workload.isProbeKey(run.key())) {
                Instance instance = instanceOf(run.topic(), run.key(), run.seq());
                if (instance != null && run.redisNowMs() < instance.earliestRangeDueMs(run.seq()) - EARLY_TOLERANCE_MS) {
                    rule = "before its creating send + timeRange";
                }
            }
            if (rule == null && run.dueMs() >= 0 && run.redisNowMs() < run.dueMs()) {
                rule = "before rmq's due time";
            }
            if (rule != null) {
                early++;
                earlyByRule.merge(rule, 1L, Long::sum);
                if (earlyExamples.size() < EXAMPLES) {
                    earlyExamples.add(brief(run) + " " + rule + ": Redis clock " + run.redisNowMs() + " ms, rmq due "
                            + run.dueMs() + " ms, fixed " + run.fixedMs() + " ms");
                }
            }
        }

        // exclusivity
        long violations = 0;
        long pausedOverlaps = 0;
        long pausedRedelivered = 0;
        List<String> violationExamples = new ArrayList<>();
        List<String> pausedExamples = new ArrayList<>();
        Map<String, List<Run>> bySlot = new TreeMap<>();
        for (Run run : runs) {
            bySlot.computeIfAbsent(run.slotName(), k -> new ArrayList<>()).add(run);
        }
        for (List<Run> slotRuns : bySlot.values()) {
            List<Run> active = new ArrayList<>();
            for (Run run : slotRuns) {
                active.removeIf(a -> a.end() <= run.start());
                Run violating = null;
                Run paused = null;
                for (Run other : active) {
                    if (other.worker().equals(run.worker())) {
                        continue;
                    }
                    if (wasPausedDuring(other) && run.start() >= other.leaseMs() * MS - EARLY_TOLERANCE_MS * MS) {
                        paused = paused == null ? other : paused;
                    } else {
                        violating = violating == null ? other : violating;
                    }
                }
                if (violating != null) {
                    violations++;
                    if (violationExamples.size() < EXAMPLES) {
                        violationExamples.add(run.slotName() + ": " + brief(violating) + " still ran when " + brief(run)
                                + " started");
                    }
                } else if (paused != null) {
                    pausedOverlaps++;
                    boolean redelivered = redeliveredAfter(paused);
                    if (redelivered) {
                        pausedRedelivered++;
                    }
                    if (pausedExamples.size() < EXAMPLES) {
                        pausedExamples.add(run.slotName() + ": " + brief(paused) + " was frozen by SIGSTOP mid-handler, outlived"
                                + " its lease (" + paused.leaseMs() + " ms) and finished after " + brief(run) + " started; "
                                + (redelivered ? "its message was redelivered" : "its message was NOT redelivered"));
                    }
                }
                active.add(run);
            }
        }

        // were the kills and pauses really in the middle of a message?
        long killsMidMessage = in.incarnations().values().stream().filter(Incarnation::killed)
                .filter(life -> runs.stream().anyMatch(r -> r.incarnation().equals(life.id()) && r.outcome().equals("none")))
                .count();
        long pausesMidMessage = 0;
        for (Incarnation life : in.incarnations().values()) {
            for (long[] pause : life.pauses()) {
                if (runs.stream().anyMatch(r -> r.incarnation().equals(life.id()) && r.start() < pause[0] && r.end() > pause[0])) {
                    pausesMidMessage++;
                }
            }
        }

        long listenerErrors = runs.stream().filter(r -> r.outcome().equals("err") || r.outcome().equals("poison")).count();
        long probeRuns = runs.stream().filter(r -> Workload.isProbeKey(r.key())).count();

        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("sent", sent);
        figures.put("merged", merged);
        figures.put("consumed_unique", consumed);
        figures.put("duplicates", duplicates);
        figures.put("duplicates_by_cause", duplicateCauses);
        figures.put("duplicates_unexplained", unexplained);
        figures.put("dead", dead);
        figures.put("lost", lostDurable + lostExcused + lostUnexplained);
        figures.put("lost_durable", lostDurable);
        figures.put("lost_non_durable", lostExcused);
        figures.put("lost_unexplained", lostUnexplained);
        figures.put("early", early);
        figures.put("overlap_violations", violations);
        figures.put("paused_handler_overlaps", pausedOverlaps);
        figures.put("paused_handler_overlaps_redelivered", pausedRedelivered);
        figures.put("kills_mid_message", killsMidMessage);
        figures.put("pauses_mid_message", pausesMidMessage);
        figures.put("faults", faultCounts(listenerErrors));
        figures.put("recovery_ms", recovery());

        details.put("messages", messages);
        details.put("messages_by_deployment", messagesByDeployment);
        details.put("messages_durable", durableMessages);
        details.put("send_failures", sendFailures);
        details.put("superseded", superseded);
        details.put("superseded_by_type", supersededByType);
        details.put("dead_and_consumed", deadAndConsumed);
        details.put("dead_without_reason", deadWithoutReason);
        details.put("dead_not_attributed", unattributedDead);
        details.put("consumed_without_receipt", unreceiptedConsumed);
        details.put("deliveries", runs.size() - probeRuns);
        details.put("deliveries_not_attributed", unattributedRuns);
        details.put("probe_deliveries", probeRuns);
        details.put("deliveries_without_redis_clock", unknownClock);
        details.put("early_by_rule", earlyByRule);
        details.put("lost_examples", lostExamples);
        details.put("duplicate_unexplained_examples", unexplainedExamples);
        details.put("early_examples", earlyExamples);
        details.put("overlap_violation_examples", violationExamples);
        details.put("paused_handler_overlap_examples", pausedExamples);
        details.put("dead_without_reason_examples", deadWithoutReasonExamples);

        if (lostDurable > 0) {
            failures.add(lostDurable + " durable message(s) lost");
        }
        if (lostUnexplained > 0) {
            failures.add(lostUnexplained + " message(s) lost without a master SIGKILL right after their send to explain it");
        }
        if (early > 0) {
            failures.add(early + " delivery(ies) before the due time");
        }
        if (violations > 0) {
            failures.add(violations + " time(s) two workers ran one slot at once");
        }
        if (pausedOverlaps > pausedRedelivered) {
            failures.add((pausedOverlaps - pausedRedelivered) + " paused handler(s) overlapped by a new owner whose message"
                    + " was not redelivered: a late commit was accepted");
        }
        if (unexplained > 0) {
            failures.add(unexplained + " duplicate(s) outside every window SPEC section 4 allows");
        }
        if (deadWithoutReason > 0) {
            failures.add(deadWithoutReason + " dead message(s) without a recorded reason");
        }
        return new Result(figures, details, failures);
    }

    private Map<String, Object> faultCounts(long listenerErrors) {
        Map<FaultKind, Long> counts = new EnumMap<>(FaultKind.class);
        for (FaultRecord fault : in.faults()) {
            counts.merge(fault.kind(), 1L, Long::sum);
        }
        if (listenerErrors > 0) {
            counts.put(FaultKind.LISTENER_ERRORS, listenerErrors);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        counts.forEach((kind, count) -> out.put(kind.cliName(), count));
        return out;
    }

    private Map<String, Object> recovery() {
        Map<FaultKind, List<Long>> byKind = new EnumMap<>(FaultKind.class);
        for (FaultRecord fault : in.faults()) {
            byKind.computeIfAbsent(fault.kind(), k -> new ArrayList<>());
            if (fault.recoveryMicros() >= 0) {
                byKind.get(fault.kind()).add(fault.recoveryMicros() / 1000);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        byKind.forEach((kind, values) -> {
            Map<String, Object> figures = new LinkedHashMap<>();
            List<Long> sorted = values.stream().sorted().toList();
            figures.put("p50", sorted.isEmpty() ? null : sorted.get((sorted.size() - 1) / 2));
            figures.put("max", sorted.isEmpty() ? null : sorted.get(sorted.size() - 1));
            long unrecovered = in.faults().stream().filter(f -> f.kind() == kind && f.recoveryMicros() < 0).count();
            if (unrecovered > 0) {
                figures.put("unrecovered", unrecovered);
            }
            out.put(kind.cliName(), figures);
        });
        return out;
    }

    /**
     * The master kill that explains the loss of a non-durable message, or null: the kill hit the master of the
     * message's slot, and the send that created the message went out before the kill landed and was acknowledged
     * at most {@link #REPLICATION_LAG} before it.
     */
    private String lostWithUnreplicatedWrite(Instance instance) {
        Send creating = instance.sends.get(0);
        String slot = instance.topic + "_" + instance.slot();
        for (FaultRecord fault : in.faults()) {
            if (fault.kind() == FaultKind.MASTER_KILL && fault.slots().contains(slot)
                    && creating.startMicros() <= fault.injectMicros() + KILL_LANDS
                    && creating.endMicros() >= fault.injectMicros() - REPLICATION_LAG) {
                return "sent " + (fault.injectMicros() - creating.endMicros()) / 1000 + " ms before fault " + fault.id()
                        + " killed its master";
            }
        }
        return null;
    }

    /**
     * The latest time by which the commit of {@code run} has been sent, when nothing stops its worker: the later of
     * the handler's end and its lease deadline, plus {@link #ACK_GRACE}.
     */
    static long commitDeadline(Run run) {
        return Math.max(run.end(), run.leaseMs() * MS) + ACK_GRACE;
    }

    private static boolean intersects(long from, long to, long otherFrom, long otherTo) {
        return from <= otherTo && otherFrom <= to;
    }

    /** The cause that allows a second successful delivery after {@code first}, or null when none does. */
    private String explainDuplicate(Run first, Run second) {
        long commitBy = commitDeadline(first);
        String slot = first.slotName();
        for (FaultRecord fault : in.faults()) {
            boolean credited = switch (fault.kind()) {
                case KILL, STOP, ZK_EXPIRE -> fault.target().equals(first.incarnation())
                        && fault.injectMicros() >= first.start() && fault.injectMicros() <= commitBy;
                case REDIS_RESTART, FAILOVER -> fault.slots().contains(slot) && intersects(fault.injectMicros() - OUTAGE_MARGIN,
                        fault.healMicros() + OUTAGE_MARGIN, first.end(), commitBy);
                case MASTER_KILL -> fault.slots().contains(slot) && intersects(fault.injectMicros() - REPLICATION_LAG,
                        fault.healMicros() + OUTAGE_MARGIN, first.end(), commitBy);
                case ZK_QUORUM -> sessionLostBetween(first.incarnation(), Math.max(first.start(), fault.injectMicros()),
                        fault.healMicros() + QUORUM_GRACE) && reported(first, second, TroubleKind.FENCED) != null;
                case LISTENER_ERRORS -> false;
            };
            if (credited) {
                return fault.kind().cliName();
            }
        }
        if (reported(first, second, TroubleKind.FAILED) != null) {
            return "ack-failed";
        }
        if (reported(first, second, TroubleKind.STALE) != null) {
            return "lease-expired";
        }
        AckTrouble fenced = reported(first, second, TroubleKind.FENCED);
        if (fenced != null && sessionLostBetween(first.incarnation(), first.start(), fenced.micros() + SESSION_GRACE)) {
            return "session-lost";
        }
        return null;
    }

    /**
     * What the worker thread that ran {@code first} reported about an ack of its slot (of its very key, for a late
     * one) between the end of {@code first} and the start of {@code second}; null when nothing. Log lines have
     * millisecond times, hence the millisecond of slack.
     */
    private AckTrouble reported(Run first, Run second, TroubleKind kind) {
        for (AckTrouble trouble : ackTrouble.getOrDefault(first.incarnation(), List.of())) {
            if (trouble.kind() == kind && trouble.thread().equals(first.thread()) && trouble.slot().equals(first.slotName())
                    && (kind != TroubleKind.STALE || first.key().equals(trouble.key()))
                    && trouble.micros() >= first.end() - MS && trouble.micros() <= second.start()) {
                return trouble;
            }
        }
        return null;
    }

    private boolean sessionLostBetween(String incarnation, long from, long to) {
        return sessionsLost.getOrDefault(incarnation, List.of()).stream().anyMatch(at -> at >= from && at <= to);
    }

    private boolean wasPausedDuring(Run run) {
        Incarnation life = in.incarnations().get(run.incarnation());
        if (life == null) {
            return false;
        }
        for (long[] pause : life.pauses()) {
            if (pause[0] <= run.end() && pause[1] >= run.start()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the message of {@code run} was delivered again after it, as a refused commit makes it, or went dead
     * because that lease expiry used up its retries.
     */
    private boolean redeliveredAfter(Run run) {
        boolean again = runs.stream().anyMatch(r -> r != run && r.key().equals(run.key()) && r.topic().equals(run.topic())
                && r.start() > run.start());
        return again || in.dead().stream().anyMatch(d -> d.key().equals(run.key()) && d.topic().equals(run.topic())
                && d.lastError() != null && d.lastError().contains("lease expired"));
    }

    private static String brief(Run run) {
        return run.worker() + " [" + run.key() + " seq " + run.seq() + " attempt " + run.attempt() + ", " + run.start()
                + ".." + run.end() + " µs, " + run.outcome() + "]";
    }

    private static String describe(Instance instance) {
        StringBuilder text = new StringBuilder(instance.topic + " " + instance.key + " sends");
        for (Send send : instance.sends) {
            text.append(' ').append(send.seq()).append(send.ok() ? (send.merged() ? "(merged)" : "(new)") : "(failed)")
                    .append('@').append(send.startMicros());
        }
        text.append(", ").append(instance.runs.size()).append(" delivery(ies)");
        return text.toString();
    }
}
