package dev.rmq.faults;

import dev.rmq.faults.Workload.Payload;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.topic.TopicDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Recovery probes. Right after a fault is injected, one probe goes to every slot of every topic of every
 * deployment (a range-merge
 * probe due 1 ms after the send, a priority probe at the highest priority, a fixed-time probe due 50 ms after
 * the send); the fault's recovery time is from the injection until the last of them was consumed, that is
 * until every slot of every topic is consumed again. A send that fails (Redis is down) is repeated every
 * 200 ms. A probe that was accepted and is still not consumed after {@link #RESEND_PERIOD} is sent again, until the
 * fault is settled: a master that dies right after acknowledging a probe may take it with it, since probes are sent
 * as the fault is injected and, as any send that is not durable, may be lost with an unreplicated write. A probe
 * sent again merges into the first while that one waits, and only its first consumption counts.
 */
final class Probes implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Probes.class);

    static final Duration SEND_TIMEOUT = Duration.ofSeconds(90);
    static final Duration RESEND_PERIOD = Duration.ofSeconds(3);

    private final HarnessClients clients;
    private final List<TopicDefinition> topics;
    private final ConsumerTail tail;
    private final String[] slotBases = new String[Workload.SLOTS];
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "rmq-faults-probes");
        thread.setDaemon(true);
        return thread;
    });
    private int sent;
    /** Faults whose probes are no longer sent: all consumed, or given up on. */
    private final Set<Integer> settled = ConcurrentHashMap.newKeySet();

    Probes(HarnessClients clients, ConsumerTail tail) {
        this.clients = clients;
        this.topics = clients.plainTopics();
        this.tail = tail;
        // one slot basis per slot; every topic has the same slot amount, so the same bases serve them all
        TopicDefinition any = topics.get(0);
        for (int i = 0, found = 0; found < Workload.SLOTS; i++) {
            String basis = "probe-basis-" + i;
            int slot = any.slotOf(basis);
            if (slotBases[slot] == null) {
                slotBases[slot] = basis;
                found++;
            }
        }
    }

    /** The probe keys of one fault. */
    private List<String> keys(int faultId) {
        List<String> keys = new ArrayList<>();
        for (TopicDefinition topic : topics) {
            for (int slot = 0; slot < Workload.SLOTS; slot++) {
                keys.add(key(faultId, topic, slot));
            }
        }
        return keys;
    }

    private static String key(int faultId, TopicDefinition topic, int slot) {
        return Workload.PROBE_PREFIX + faultId + "." + topic.name() + "." + slot;
    }

    /** The probes of a fault not consumed yet. */
    List<String> notConsumed(int faultId) {
        return keys(faultId).stream().filter(k -> tail.probeDone(k) == null).toList();
    }

    /** Starts sending the probes of a fault in the background; completes once they are all in Redis. */
    CompletableFuture<Void> send(int faultId) {
        return CompletableFuture.runAsync(() -> {
            sendUntilAccepted(faultId);
            resendLost(faultId);
        }, executor);
    }

    /** Sends again, every {@link #RESEND_PERIOD}, the probes of a fault not consumed yet, until it is settled. */
    private void resendLost(int faultId) {
        long deadline = System.nanoTime() + SEND_TIMEOUT.toNanos();
        int round = 0;
        while (!settled.contains(faultId) && System.nanoTime() - deadline < 0) {
            try {
                TimeUnit.MILLISECONDS.sleep(RESEND_PERIOD.toMillis());
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return;
            }
            round++;
            for (TopicDefinition topic : topics) {
                List<OutgoingMessage> lost = batch(faultId, topic).stream()
                        .filter(probe -> !settled.contains(faultId)
                                && tail.probeDone(Objects.requireNonNull(probe.key(), "a probe has its key")) == null)
                        .toList();
                if (lost.isEmpty()) {
                    continue;
                }
                try {
                    clients.forTopic(topic.name()).producer().sendAll(lost);
                    synchronized (this) {
                        sent += lost.size();
                    }
                    if (round == 1) {
                        log.info("fault {}: {} probe(s) of {} not consumed after {}, sent again", faultId, lost.size(),
                                topic.name(), RESEND_PERIOD);
                    }
                } catch (RuntimeException e) {
                    // still failing over: the next round tries again
                }
            }
        }
    }

    /**
     * Sends the probes topic by topic, each topic's again until it is accepted (a probe whose send is repeated
     * after it was consumed is simply consumed again; the first consumption counts).
     */
    private void sendUntilAccepted(int faultId) {
        long deadline = System.nanoTime() + SEND_TIMEOUT.toNanos();
        for (TopicDefinition topic : topics) {
            int failures = 0;
            while (System.nanoTime() - deadline < 0) {
                try {
                    clients.forTopic(topic.name()).producer().sendAll(batch(faultId, topic));
                    synchronized (this) {
                        sent += Workload.SLOTS;
                    }
                    break;
                } catch (RuntimeException e) {
                    // Redis is down or failing over; said at the first failure and every 25th, for the run's log
                    if (failures++ % 25 == 0) {
                        log.info("fault {}: the probes of {} were not accepted ({} time(s)), sent again in 200 ms: {}",
                                faultId, topic.name(), failures, e.toString());
                    }
                    try {
                        TimeUnit.MILLISECONDS.sleep(200);
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }
    }

    private List<OutgoingMessage> batch(int faultId, TopicDefinition topic) {
        String payload = Payload.probe(faultId).encode();
        Instant fixed = Instant.now().plusMillis(50);
        List<OutgoingMessage> batch = new ArrayList<>();
        for (int slot = 0; slot < Workload.SLOTS; slot++) {
            OutgoingMessage message = switch (topic.type()) {
                case RANGE_MERGE -> OutgoingMessage.rangeMerge(topic.name(), payload, Duration.ofMillis(1));
                case PRIORITY -> OutgoingMessage.priority(topic.name(), payload, OutgoingMessage.MAX_PRIORITY);
                case FIXED_TIME -> OutgoingMessage.fixedTime(topic.name(), payload, fixed);
            };
            batch.add(Workload.labelled(message, payload).withKey(key(faultId, topic, slot))
                    .withSlotBasis(slotBases[slot]));
        }
        return batch;
    }

    /**
     * Waits until every probe of the fault was consumed; returns the host time (micros) of the last one, or -1
     * when not all were consumed within {@code timeout}.
     */
    long awaitConsumed(int faultId, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> keys = keys(faultId);
        while (true) {
            long last = 0;
            boolean all = true;
            for (String key : keys) {
                Long done = tail.probeDone(key);
                if (done == null) {
                    all = false;
                    break;
                }
                last = Math.max(last, done);
            }
            if (all) {
                settled.add(faultId);
                return last;
            }
            if (System.nanoTime() - deadline > 0) {
                settled.add(faultId);
                return -1;
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    synchronized int sentCount() {
        return sent;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
