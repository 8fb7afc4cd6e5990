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
     * at most {@link #DRAIN_TIMEOUT}; the figures of the wait, with {@code drained} false when it ran out.
     */
    static Map<String, Object> drain(HarnessClients clients) throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN_TIMEOUT.toNanos();
        long start = System.nanoTime();
        int quiet = 0;
        long waiting = -1;
        long inFlight = -1;
        while (System.nanoTime() - deadline < 0) {
            try {
                waiting = 0;
                inFlight = 0;
                for (TopicDefinition topic : clients.topics()) {
                    SlotStats totals = clients.forTopic(topic.name()).inspector().totals(topic.name());
                    waiting += totals.backlog();
                    inFlight += totals.inFlight();
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
        return drain;
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
