package dev.rmq.faults.check;

import dev.rmq.faults.check.Messages.Instance;
import dev.rmq.faults.check.RunLog.AckTrouble;
import dev.rmq.faults.check.RunLog.Fault;
import dev.rmq.faults.check.RunLog.Incarnation;
import dev.rmq.faults.check.RunLog.Run;
import dev.rmq.faults.check.RunLog.TroubleKind;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Every duplicate is explained. A duplicate is a successful delivery of an instance beyond the first, allowed
 * only where the first delivery's commit never took effect: the consumer died before committing, it was slower
 * than its lease (a pause), or the commit's reply or write was lost. So each duplicate must be explained by
 * something that hit that very delivery between its handler's start and the time by which its commit was sent
 * ({@link #commitDeadline}: the later of the handler's end and its lease deadline, plus {@link #ACK_GRACE}):
 * <ul>
 *   <li>{@code kill}, {@code stop}, {@code zk-expire}, and the network faults of one consumer's links
 *       ({@code net-latency}, {@code net-stall}, {@code net-stall-past-lease}, {@code net-reset},
 *       {@code net-refuse}, {@code zk-partition}): the fault's target is the consumer incarnation that ran
 *       the first delivery, and it struck within that interval: the fault, from its injection until it was undone
 *       (and {@link #FAULT_LANDS} more, as a signal lands after it is recorded as sent), overlaps it; the
 *       interval starts at the delivery's poll when the handler started after its lease had run out (a consumer
 *       frozen between its poll and the handler); the second delivery may be that late one instead, whose commit
 *       is refused ({@code <kind>-late-handler});</li>
 *   <li>{@code redis-restart}, {@code failover}, {@code master-kill}, {@code sentinel-failover}: the fault hit the node that held the
 *       message's slot, and its outage (widened by {@link #OUTAGE_MARGIN}, and for a master kill reaching
 *       {@link LossCheck#REPLICATION_LAG} back, for a commit the master applied but never replicated) overlaps the
 *       interval from the handler's end to the commit deadline: the commit or its reply was lost with the node;</li>
 *   <li>{@code redis-flush}: the flush emptied the node that held the message's slot, and either the window from
 *       {@link #JOURNAL_LAG} before the flush until the restore ended (widened by {@link #OUTAGE_MARGIN}) overlaps
 *       the first delivery (a delivery in flight at the flush, whose commit found nothing, is put back by the
 *       restore; so is one committed shortly before the flush, whose row the consumer's asynchronous journal had
 *       not written yet), or the journal shows that its restore put back a message committed before the flush and
 *       delivered again after it, because the commit's row was not there yet: the row was written after the
 *       restore had read the message (the consumer's journal was behind, by however much), or never, by a consumer
 *       killed after the commit and before the restore ended, whose unwritten rows died with it. A commit row that a
 *       consumer which lived on never wrote is a journal that lost a row, and explains nothing;</li>
 *   <li>{@code zk-quorum}: the workers stop when the quorum goes, so only an in-flight handler whose commit got
 *       fenced produces one: the first delivery's incarnation lost its session during the outage, after the
 *       delivery began, and rmq reported the commit of that slot fenced;</li>
 *   <li>rmq's own report, from the worker that ran the first delivery, between its end and the redelivery: the
 *       ack call of that slot failed ({@code ack-failed}: the reply was lost), the lease of that very key had run
 *       out before its ack ({@code lease-expired}: slower than its lease), or the slot was fenced at the ack after
 *       that incarnation lost its ZooKeeper session ({@code session-lost}).</li>
 * </ul>
 * Anything else is an unexplained duplicate, and fails the run, whatever else happened elsewhere meanwhile.
 * A message of an at-most-once topic is never delivered twice, whatever happened: a second delivery of the same
 * send's payload, successful or not, fails the run. Deliveries of one key that carry different sends' payloads are
 * different stored messages: a take removes an at-most-once message, and a send merges only into a message still
 * waiting, whose payload it then replaces. So failed sends that each stored a message (a durable send whose
 * replica did not answer, say) and were each delivered once are not a second delivery.
 */
final class DuplicateCheck {

    static final String KILL = "kill";
    static final String STOP = "stop";
    static final String ZK_EXPIRE = "zk-expire";
    static final String REDIS_RESTART = "redis-restart";
    static final String REDIS_FLUSH = "redis-flush";
    static final String FAILOVER = "failover";
    static final String MASTER_KILL = "master-kill";
    static final String SENTINEL_FAILOVER = "sentinel-failover";
    static final String ZK_QUORUM = "zk-quorum";
    static final String NET_LATENCY = "net-latency";
    static final String NET_STALL = "net-stall";
    static final String NET_STALL_PAST_LEASE = "net-stall-past-lease";
    static final String NET_RESET = "net-reset";
    static final String NET_REFUSE = "net-refuse";
    static final String ZK_PARTITION = "zk-partition";

    /** The faults that strike one consumer incarnation, named as their target. */
    private static final Set<String> CONSUMER_FAULTS = Set.of(KILL, STOP, ZK_EXPIRE, NET_LATENCY, NET_STALL,
            NET_STALL_PAST_LEASE, NET_RESET, NET_REFUSE, ZK_PARTITION);

    static final long MS = 1_000;
    private static final long SECOND = 1_000_000;
    /**
     * After the later of a handler's end and its lease deadline, by when its commit has gone out: the worker
     * commits what it handled before it extends the rest of a batch, which it does once half the lease is gone.
     */
    static final long ACK_GRACE = SECOND;
    /** Widens a Redis outage on both sides: an ack already on the wire when the node went, and the reconnect. */
    static final long OUTAGE_MARGIN = SECOND;
    /**
     * How long before a flush a commit is taken to have no journal row yet without asking the journal, so that the
     * restore puts its message back: a consumer's asynchronous journal is usually less behind. A commit longer before
     * is explained only by the journal's own rows (see {@link #restoredAheadOfTheJournal}).
     */
    static final long JOURNAL_LAG = 5 * SECOND;
    /**
     * How long after its recorded injection a fault on a consumer lands: the harness records the time, then sends
     * the signal, so a handler may start in between and still be struck.
     */
    static final long FAULT_LANDS = 200 * MS;

    private final RunLog log;
    private final JournalRecord journal;
    /** Each key's journal rows, read once however many duplicates and flushes ask. */
    private final Map<String, List<JournalRecord.Transition>> journalRows = new HashMap<>();
    /** After a quorum returns, a session may still be declared lost for up to a session timeout and some. */
    private final long quorumGrace;
    /** A consumer learns that its session was lost up to a session timeout after its slot was taken over. */
    private final long sessionGrace;

    private DuplicateCheck(RunLog log, JournalRecord journal) {
        this.log = log;
        this.journal = journal;
        this.quorumGrace = log.sessionTimeoutMicros + 5 * SECOND;
        this.sessionGrace = log.sessionTimeoutMicros + 2 * SECOND;
    }

    static void run(RunLog log, Messages messages, JournalRecord journal, Verdict verdict) {
        new DuplicateCheck(log, journal).check(messages, verdict);
    }

    private void check(Messages messages, Verdict verdict) {
        long duplicates = 0;
        long unexplained = 0;
        Map<String, Long> causes = new TreeMap<>();
        List<String> examples = new ArrayList<>();
        long atMostOnceBroken = 0;
        List<String> atMostOnceExamples = new ArrayList<>();
        for (Instance instance : messages.all()) {
            if (log.atMostOnceTopics.contains(instance.topic)) {
                Map<Long, Long> runsBySend = new TreeMap<>();
                instance.runs.forEach(run -> runsBySend.merge(run.seq(), 1L, Long::sum));
                runsBySend.forEach((seq, runs) -> {
                    if (runs > 1) {
                        Verdict.example(atMostOnceExamples, instance.topic + " " + instance.key + ": the payload of send "
                                + seq + " delivered " + runs + " times");
                    }
                });
                atMostOnceBroken += runsBySend.values().stream().filter(runs -> runs > 1).count();
                continue;
            }
            List<Run> ok = instance.runs.stream().filter(Run::succeeded).sorted(Comparator.comparingLong(Run::start)).toList();
            for (int i = 1; i < ok.size(); i++) {
                duplicates++;
                String cause = explain(ok.get(i - 1), ok.get(i));
                if (cause == null) {
                    unexplained++;
                    Verdict.example(examples, instance.topic + " " + instance.key + ": " + brief(ok.get(i - 1)) + " then "
                            + brief(ok.get(i)));
                } else {
                    causes.merge(cause, 1L, Long::sum);
                }
            }
        }
        verdict.figures().put("duplicates", duplicates);
        verdict.figures().put("duplicates_by_cause", causes);
        verdict.figures().put("duplicates_unexplained", unexplained);
        verdict.details().put("duplicate_unexplained_examples", examples);
        verdict.figures().put("at_most_once_delivered_twice", atMostOnceBroken);
        verdict.details().put("at_most_once_delivered_twice_examples", atMostOnceExamples);
        verdict.failIf(unexplained > 0, unexplained + " duplicate(s) outside every window the design allows");
        verdict.failIf(atMostOnceBroken > 0, atMostOnceBroken + " at-most-once message(s) delivered more than once");
    }

    /**
     * The latest time by which the commit of {@code run} has been sent, when nothing stops its worker: the later of
     * the handler's end and its lease deadline, plus {@link #ACK_GRACE}.
     */
    static long commitDeadline(Run run) {
        return Math.max(run.end(), run.leaseMs() * MS) + ACK_GRACE;
    }

    /**
     * When the consumer of {@code run} took its delivery in hand: the poll (or the lease's last renewal) that its lease
     * deadline was counted from, or the handler's start if that was earlier. A consumer frozen or cut off between its
     * poll and a handler is struck in that delivery although the handler starts only after the fault: the worker
     * checked the lease before the freeze, and runs the handler late, after its lease went to another consumer.
     */
    private long heldFrom(Run run) {
        return Math.min(run.start(), run.leaseMs() * MS - log.leaseMicros);
    }

    /** The cause that allows a second successful delivery after {@code first}, or null when none does. */
    private @Nullable String explain(Run first, Run second) {
        long commitBy = commitDeadline(first);
        String slot = first.slotName();
        for (Fault fault : log.faults) {
            if (credits(fault, first, second, slot, commitBy)) {
                return fault.kind();
            }
        }
        // the second is the late one: a consumer frozen after its poll ran it once awake, after its lease had gone to
        // the consumer that ran the first; its commit is refused
        if (second.start() > second.leaseMs() * MS) {
            for (Fault fault : log.faults) {
                if (struckConsumer(fault, second, commitDeadline(second))) {
                    return fault.kind() + "-late-handler";
                }
            }
        }
        if (reported(first, second, TroubleKind.FAILED) != null) {
            return "ack-failed";
        }
        if (reported(first, second, TroubleKind.STALE) != null) {
            return "lease-expired";
        }
        AckTrouble fenced = reported(first, second, TroubleKind.FENCED);
        if (fenced != null && log.sessionLostBetween(first.incarnation(), first.start(), fenced.micros() + sessionGrace)) {
            return "session-lost";
        }
        return null;
    }

    private boolean credits(Fault fault, Run first, Run second, String slot, long commitBy) {
        return struckConsumer(fault, first, commitBy) || switch (fault.kind()) {
            case REDIS_RESTART, FAILOVER -> fault.slots().contains(slot) && intersects(fault.injectMicros() - OUTAGE_MARGIN,
                    fault.healMicros() + OUTAGE_MARGIN, first.end(), commitBy);
            case MASTER_KILL, SENTINEL_FAILOVER -> fault.slots().contains(slot) && intersects(fault.injectMicros() - LossCheck.REPLICATION_LAG,
                    fault.healMicros() + OUTAGE_MARGIN, first.end(), commitBy);
            case REDIS_FLUSH -> fault.slots().contains(slot) && (intersects(fault.injectMicros() - JOURNAL_LAG,
                    fault.healMicros() + OUTAGE_MARGIN, first.start(), commitBy) || restoredAheadOfTheJournal(first, second, fault));
            case ZK_QUORUM -> log.sessionLostBetween(first.incarnation(), Math.max(first.start(), fault.injectMicros()),
                    fault.healMicros() + quorumGrace) && reported(first, second, TroubleKind.FENCED) != null;
            default -> false;
        };
    }

    /**
     * Whether the restore after {@code flush} put back the message that {@code first} committed before the flush,
     * {@code second} being its delivery after the flush, because the journal held no row of that commit when the
     * restore read it. Either the commit's row (an {@code acked} row of the key, made from the first delivery's start
     * until the flush) was written after the restore had read its message: after a restore's mark of that message or
     * of one with a greater id, which the restore reads later (it skips the mark of a message a writer finished
     * meanwhile, so the message's own mark may be missing). Or no such row was ever written, by a consumer killed
     * after the commit and before the restore ended, and the restore marked a message of the key put back.
     */
    private boolean restoredAheadOfTheJournal(Run first, Run second, Fault flush) {
        if (first.start() >= flush.injectMicros() || second.start() < flush.injectMicros()) {
            return false;
        }
        long from = flush.injectMicros() - MS;
        long to = flush.healMicros() + OUTAGE_MARGIN;
        List<JournalRecord.Transition> rows = journalRows.computeIfAbsent(first.topic() + "\n" + first.key(),
                k -> journal.of(first.topic(), first.key()));
        List<JournalRecord.Transition> commits = rows.stream().filter(row -> row.state().equals("acked")
                && row.atMicros() >= first.start() - MS && row.atMicros() <= flush.injectMicros()).toList();
        if (!commits.isEmpty()) {
            return commits.stream().allMatch(commit -> commit.id() > journal.firstRestoredFrom(commit.messageId(), from, to));
        }
        Incarnation consumer = log.incarnations.get(first.incarnation());
        boolean diedWithItsRows = consumer != null && consumer.killed() && consumer.endMicros() >= first.end()
                && consumer.endMicros() <= to;
        return diedWithItsRows && rows.stream().anyMatch(row -> row.state().equals("restored") && row.atMicros() >= from
                && row.atMicros() <= to);
    }

    /** Whether a fault of one consumer struck the incarnation of {@code run} while it held the delivery. */
    private boolean struckConsumer(Fault fault, Run run, long commitBy) {
        return CONSUMER_FAULTS.contains(fault.kind()) && fault.target().equals(run.incarnation())
                && intersects(fault.injectMicros(), fault.healMicros() + FAULT_LANDS, heldFrom(run), commitBy);
    }

    private static boolean intersects(long from, long to, long otherFrom, long otherTo) {
        return from <= otherTo && otherFrom <= to;
    }

    /**
     * What rmq reported from the worker that ran {@code first} about an ack of its slot (of its very key, for a
     * late one) between the end of {@code first} and the start of {@code second}; null when nothing. Reports are
     * given a millisecond of slack before the end of {@code first}, as the two come from different clocks' reads.
     */
    private @Nullable AckTrouble reported(Run first, Run second, TroubleKind kind) {
        return log.reported(first, kind, first.end() - MS, second.start());
    }

    static String brief(Run run) {
        return run.who() + " [" + run.key() + " seq " + run.seq() + " attempt " + run.attempt() + ", " + run.start() + ".."
                + run.end() + " µs, " + run.outcome() + "]";
    }
}
