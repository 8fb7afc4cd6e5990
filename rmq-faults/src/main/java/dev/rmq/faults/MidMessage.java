package dev.rmq.faults;

import dev.rmq.faults.Workload.Payload;
import dev.rmq.faults.events.EventLog;
import dev.rmq.faults.events.HarnessEvent;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.SendReceipt;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Finds a consumer in the middle of a message, for a kill or a pause that must strike one: a handler of the
 * workload's slow messages that has run at least {@value #RUN_MICROS} µs and has at least {@value #LEFT_MS} ms of
 * work left, waited for up to 3 s; or else whichever consumer starts a slow message that this class sends for the
 * purpose ({@value #BAIT_WORK_MS} ms of work, key {@code n.bait.<fault id>}), waited for up to 20 s. The bait's
 * send goes to the harness's event log like any other send, so that the checker accounts for it.
 */
final class MidMessage {

    private static final long RUN_MICROS = 50_000;
    private static final long LEFT_MS = 150;
    private static final int BAIT_WORK_MS = 1500;
    /** The harness's own sends (bait) take seqs from here, far above the producer's. */
    static final long HARNESS_SEQ_BASE = 1L << 40;

    private final ConsumerFleet fleet;
    private final HarnessClients clients;
    private final EventLog events;
    private final Random random;
    private int baits;

    /** A consumer found in the middle of a message. */
    record Busy(ConsumerFleet.Consumer consumer, String worker, ConsumerTail.Handler handler) {

        String describe(long at) {
            return "mid-message (" + handler.key() + " on " + worker + ", " + (at - handler.startMicros()) / 1000
                    + " ms into " + handler.workMs() + " ms of work)";
        }
    }

    MidMessage(ConsumerFleet fleet, HarnessClients clients, EventLog events, Random random) {
        this.fleet = fleet;
        this.clients = clients;
        this.events = events;
        this.random = random;
    }

    /** A consumer busy with a message, or null when none was found nor took the bait. */
    @Nullable Busy await(int faultId) throws InterruptedException {
        Busy busy = poll(null, Duration.ofSeconds(3));
        if (busy != null) {
            return busy;
        }
        String bait = sendBait(faultId);
        return bait == null ? null : poll(bait, Duration.ofSeconds(20));
    }

    static String describe(@Nullable Busy busy, long at) {
        return busy == null ? "no handler found running" : busy.describe(at);
    }

    /** How many slow messages were sent for the purpose. */
    int baits() {
        return baits;
    }

    private @Nullable Busy poll(@Nullable String key, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            long now = EventLog.nowMicros();
            List<Busy> found = new ArrayList<>();
            for (ConsumerFleet.Consumer consumer : fleet.all()) {
                consumer.openHandlers().forEach((worker, handler) -> {
                    if ((key == null || handler.key().equals(key)) && now - handler.startMicros() >= RUN_MICROS
                            && handler.remainingMs(now) >= LEFT_MS) {
                        found.add(new Busy(consumer, worker, handler));
                    }
                });
            }
            if (!found.isEmpty()) {
                return found.get(random.nextInt(found.size()));
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        return null;
    }

    /** Sends one slow message, due at once, to a random slot of a random topic; its key, or null when it failed. */
    private @Nullable String sendBait(int faultId) {
        List<TopicDefinition> topics = clients.topics();
        TopicDefinition topic = topics.get(random.nextInt(topics.size()));
        String key = Workload.PLAIN_PREFIX + "bait." + faultId;
        long seq = HARNESS_SEQ_BASE + baits++;
        long value = switch (topic.type()) {
            case RANGE_MERGE -> 1;
            case PRIORITY -> OutgoingMessage.MAX_PRIORITY;
            case FIXED_TIME -> System.currentTimeMillis() + 100;
        };
        long fixed = topic.type() == TopicType.FIXED_TIME ? value : 0;
        String payload = Payload.message(seq, BAIT_WORK_MS, false, fixed).encode();
        OutgoingMessage message = switch (topic.type()) {
            case RANGE_MERGE -> OutgoingMessage.rangeMerge(topic.name(), payload, Duration.ofMillis(value));
            case PRIORITY -> OutgoingMessage.priority(topic.name(), payload, value);
            case FIXED_TIME -> OutgoingMessage.fixedTime(topic.name(), payload, Instant.ofEpochMilli(value));
        };
        long start = EventLog.nowMicros();
        try {
            SendReceipt receipt = clients.forTopic(topic.name()).producer()
                    .send(Workload.labelled(message, payload).withKey(key));
            events.write(new HarnessEvent.Sent(EventLog.nowMicros(), seq, receipt.topic(), receipt.key(), receipt.slot(),
                    receipt.merged(), false, start, value));
            return key;
        } catch (RuntimeException e) {
            events.write(new HarnessEvent.SendFailed(EventLog.nowMicros(), seq, topic.name(), key, false, start, value,
                    e.getClass().getSimpleName()));
            return null;
        }
    }
}
