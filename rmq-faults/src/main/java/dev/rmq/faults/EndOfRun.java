package dev.rmq.faults;

import dev.rmq.RmqClient;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.faults.Workload.Payload;
import dev.rmq.faults.events.EventLog;
import dev.rmq.faults.events.HarnessEvent;
import dev.rmq.metrics.SlotStats;
import dev.rmq.topic.TopicDefinition;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The end of a run: waiting for the queues to drain, and recording the dead queue for the checker. */
final class EndOfRun {

    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(150);

    private EndOfRun() {
    }

    /**
     * Waits until nothing waits and nothing is in flight in any topic (three checks in a row, a second apart),
     * at most {@link #DRAIN_TIMEOUT}; the figures of the wait, with {@code drained} false when it ran out. Per topic
     * ({@code topics}): what waited or was in flight at the first check and at the last, and since when it has been
     * empty (-1 when it was not at the end; a retry can fill it again), so that a slow drain shows which topic held it
     * up.
     */
    static Map<String, Object> drain(HarnessClients clients) throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
        long start = System.nanoTime();
        int quiet = 0;
        long waiting = -1;
        long inFlight = -1;
        Map<String, TopicDrain> topics = new LinkedHashMap<>();
        while (System.nanoTime() - deadline < 0) {
            try {
                waiting = 0;
                inFlight = 0;
                for (TopicDefinition topic : clients.topics()) {
                    SlotStats totals = clients.forTopic(topic.name()).inspector().totals(topic.name());
                    waiting += totals.backlog();
                    inFlight += totals.inFlight();
                    long held = totals.backlog() + totals.inFlight();
                    topics.computeIfAbsent(topic.name(), name -> new TopicDrain(held))
                            .checked(held, System.nanoTime() - start);
                }
                quiet = waiting == 0 && inFlight == 0 ? quiet + 1 : 0;
            } catch (RuntimeException e) {
                quiet = 0;
            }
            if (quiet >= 3) {
                break;
            }
            TimeUnit.SECONDS.sleep(1);
        }
        Map<String, Object> drain = new LinkedHashMap<>();
        drain.put("drained", quiet >= 3);
        drain.put("seconds", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start));
        drain.put("timeout_seconds", DRAIN_TIMEOUT.toSeconds());
        drain.put("waiting_left", waiting);
        drain.put("in_flight_left", inFlight);
        Map<String, Object> perTopic = new LinkedHashMap<>();
        topics.forEach((name, topic) -> perTopic.put(name, topic.figures()));
        drain.put("topics", perTopic);
        return drain;
    }

    /** One topic's drain: what it held at the first check and at the last, and since when it has been empty. */
    private static final class TopicDrain {

        private final long atStart;
        private long left;
        private long emptyAfterNanos = -1;

        TopicDrain(long atStart) {
            this.atStart = atStart;
        }

        void checked(long held, long sinceStartNanos) {
            left = held;
            if (held > 0) {
                emptyAfterNanos = -1;
            } else if (emptyAfterNanos < 0) {
                emptyAfterNanos = sinceStartNanos;
            }
        }

        Map<String, Object> figures() {
            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("held_at_start", atStart);
            figures.put("empty_after_s", emptyAfterNanos < 0 ? -1 : TimeUnit.NANOSECONDS.toSeconds(emptyAfterNanos));
            figures.put("left", left);
            return figures;
        }
    }

    /** Writes every message in the dead queues to the event log, with the seq its payload carries. */
    static void recordDeadQueue(HarnessClients clients, EventLog events) {
        for (TopicDefinition topic : clients.topics()) {
            RmqClient rmq = clients.forTopic(topic.name());
            for (int slot = 0; slot < topic.slotAmount(); slot++) {
                for (long offset = 0; ; offset += RmqDeadQueue.MAX_PAGE) {
                    List<DeadMessage> page = rmq.deadQueue().list(topic.name(), slot, offset, RmqDeadQueue.MAX_PAGE);
                    for (DeadMessage m : page) {
                        long seq = -1;
                        boolean probe = false;
                        try {
                            Payload payload = Payload.decode(Workload.deadPayload(m));
                            seq = payload.seq();
                            probe = payload.probe();
                        } catch (RuntimeException e) {
                            // undecodable: not one of the harness's messages
                        }
                        events.write(new HarnessEvent.DeadAtEnd(EventLog.nowMicros(), m.topic(), m.slot(), m.key(), seq,
                                probe, m.reason().code(), m.lastError(), m.attempts()));
                    }
                    if (page.size() < RmqDeadQueue.MAX_PAGE) {
                        break;
                    }
                }
            }
        }
    }
}
