package dev.rmq.faults;

import dev.rmq.events.RmqEventListener;
import dev.rmq.faults.Workload.Payload;
import dev.rmq.faults.events.EventLog;
import dev.rmq.faults.events.HarnessEvent;
import dev.rmq.journal.jdbc.JournalMode;
import dev.rmq.producer.BatchSendException;
import dev.rmq.producer.Durability;
import dev.rmq.producer.OutgoingMessage;
import dev.rmq.producer.RmqProducer;
import dev.rmq.producer.SendOutcome;
import dev.rmq.producer.SendReceipt;
import dev.rmq.topic.TopicDefinition;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The producer JVM. It drives a mixed workload over the three topics and writes one event per send to its
 * event log, as each send completes: a {@link HarnessEvent.Sent} receipt, or a {@link HarnessEvent.SendFailed}
 * for a send that threw (it may still have been applied).
 *
 * <p>Work comes in bursts, each to
 * one deployment picked at random among the run's (so with {@code --redis both} half go to standalone Redis and
 * half to the Cluster): a burst is one key sent one to five times, either spread over up to 800 ms (so that
 * the later sends merge into the waiting message: every due time is at least 1 s after the send) or in one
 * {@code sendAll}. Some bursts are instead batches of distinct keys of that deployment's topics in one
 * {@code sendAll}, which spreads over slots and Cluster nodes. Cluster bursts go through a durable producer
 * ({@code Durability.replicas(1, 1 s)}) with {@code --durable all}, half of them with {@code mix}; their keys
 * start with {@code d.}, the others with {@code n.}. Standalone Redis has no replica, so its sends are never
 * durable.
 *
 * <p>A message's handler works for its payload's {@code work} ms: mostly 0-3 ms, 9% 5-50 ms and 3% 200-1500 ms,
 * slow enough for the harness to kill or stop a consumer in the middle of one.
 *
 * <p>One thread plans the sends and numbers them (seq); they go out asynchronously, a window of calls at a time for
 * each deployment ({@link ProducerLanes}), so that the producer keeps to a high rate however long a durable or
 * journaled send waits. A key's send starts only once that key's previous send has completed, so the sends of one
 * key reach Redis in seq order, as a single thread would send them. Events are written as sends complete; the checker orders them by seq.
 *
 * <p>Arguments: {@code --standalone --cluster (addresses or -) --log --seed --rate (bursts/s) --durable none|mix|all}. Stdin:
 * {@code STOP} ends the workload: what was planned and not started is dropped, the sends under way complete, then
 * it prints {@code STOPPED <sends> <bursts planned> <bursts skipped> <ms waited for room>} and, for each
 * deployment, {@code <name>=<calls started>/<ms waited for room>}: how far it kept its rate.
 */
public final class ProducerMain {

    private static final Duration DRAIN = Duration.ofSeconds(30);

    private final List<Deployment> deployments;
    private final Map<Deployment, RmqProducer> plain = new EnumMap<>(Deployment.class);
    private final Map<Deployment, RmqProducer> durable = new EnumMap<>(Deployment.class);
    private final EventLog log;
    private final Random random;
    private final double burstsPerSecond;
    private final String durableMode;
    private final ProducerLanes<Planned> lanes;
    private long seq;
    private long bursts;
    private long order;
    private volatile boolean stopping;
    /** Bursts that came due while many planned calls of their deployment waited already: the rate not kept. */
    private long skippedBursts;
    /** The last send of each key that has not completed yet, which that key's next send waits for. */
    private final Map<String, CompletableFuture<Void>> lastOfKey = new ConcurrentHashMap<>();
    /** Starts a key's send after its previous one completed: off Redisson's threads, which a send may block on. */
    private final ExecutorService chained = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "producer-chained");
        t.setDaemon(true);
        return t;
    });

    /** A send (or a batch of sends) planned for a time. */
    private record Planned(long atNanos, long order, List<Spec> messages, boolean durable) {
    }

    /** One message of a burst; the payload and the value are fixed when it is sent. */
    private record Spec(TopicDefinition topic, String key, int workMs, boolean poison, long rangeMs) {
    }

    private ProducerMain(HarnessClients clients, EventLog log, long seed, double burstsPerSecond, String durableMode) {
        this.deployments = List.copyOf(clients.deployments());
        this.lanes = new ProducerLanes<>(deployments, Comparator.comparingLong(Planned::atNanos)
                .thenComparingLong(Planned::order), Planned::atNanos);
        for (Deployment deployment : deployments) {
            RmqProducer producer = clients.rmq(deployment).producer();
            plain.put(deployment, producer);
            durable.put(deployment, producer.withDurability(Durability.replicas(1, Duration.ofSeconds(1))));
        }
        this.log = log;
        this.random = new Random(seed);
        this.burstsPerSecond = burstsPerSecond;
        this.durableMode = durableMode;
    }

    public static void main(String[] args) throws Exception {
        ChildArgs a = ChildArgs.parse(args);
        // a send counts as stored once its journal row has committed too, so that a restore can bring it back
        HarnessJournal journal = HarnessJournal.fromArgs(a, JournalMode.SYNC);
        HarnessClients clients = HarnessClients.connect(a.redis(), 0, RmqEventListener.NONE,
                journal == null ? null : journal.journal());
        try (EventLog log = new EventLog(a.path("log"))) {
            ProducerMain producer = new ProducerMain(clients, log, a.getLong("seed"), a.getDouble("rate"), a.get("durable"));
            ChildArgs.readCommands(command -> {
                if (command.equals("STOP") || command.equals("EXIT")) {
                    producer.stopping = true;
                }
            });
            ChildArgs.reply("READY");
            producer.run();
            producer.drain();
            ChildArgs.reply("STOPPED " + producer.seq + " " + producer.bursts + " " + producer.skippedBursts + " "
                    + producer.lanes.report());
        } finally {
            clients.close();
            if (journal != null) {
                journal.close();
            }
        }
        System.exit(0);
    }

    private void run() {
        lanes.plannedBy(Thread.currentThread());
        long nextBurst = System.nanoTime();
        while (true) {
            long now = System.nanoTime();
            if (stopping) {
                // what was planned and not sent has no receipt and no event, so nothing expects it: a producer
                // that fell behind stops at once instead of working through its backlog
                lanes.stop(now);
                return;
            }
            // every burst due by now, counted from when it was due: a wake-up later than planned must not lower
            // the rate
            while (now - nextBurst >= 0) {
                planBurst(now);
                double gapSeconds = -Math.log(1 - random.nextDouble()) / burstsPerSecond;
                nextBurst += (long) (gapSeconds * 1e9);
            }
            long wake = Math.min(nextBurst - now, lanes.startDue(now, this::execute));
            // a lane without room is woken by the call that completes
            LockSupport.parkNanos(Math.max(100_000, Math.min(wake, TimeUnit.MILLISECONDS.toNanos(20))));
        }
    }

    private void planBurst(long now) {
        Deployment deployment = deployments.get(random.nextInt(deployments.size()));
        if (lanes.crowded(deployment)) {
            skippedBursts++;
            return;
        }
        long id = bursts++;
        List<TopicDefinition> topics = Workload.topics(deployment);
        boolean replicated = deployment.replicated();
        boolean isDurable = replicated && switch (durableMode) {
            case "all" -> true;
            case "mix" -> random.nextBoolean();
            default -> false;
        };
        String prefix = isDurable ? Workload.DURABLE_PREFIX : Workload.PLAIN_PREFIX;
        double style = random.nextDouble();
        if (style < 0.15) {
            // distinct keys of all topics in one sendAll: one pipeline over many slots (and Cluster nodes)
            int count = 2 + random.nextInt(7);
            List<Spec> batch = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                TopicDefinition topic = topics.get(random.nextInt(topics.size()));
                batch.add(spec(topic, prefix + Workload.abbreviation(topic) + "." + id + "-" + i));
            }
            lanes.plan(deployment, new Planned(now, order++, batch, isDurable));
            return;
        }
        TopicDefinition topic = topics.get(random.nextInt(topics.size()));
        Spec spec = spec(topic, prefix + Workload.abbreviation(topic) + "." + id);
        int sends = random.nextDouble() < 0.4 ? 1 : 2 + random.nextInt(4);
        if (sends > 1 && style < 0.35) {
            // the whole burst in one sendAll: one script call, so every send after the first merges
            lanes.plan(deployment, new Planned(now, order++, java.util.Collections.nCopies(sends, spec), isDurable));
            return;
        }
        long at = now;
        for (int i = 0; i < sends; i++) {
            lanes.plan(deployment, new Planned(at, order++, List.of(spec), isDurable));
            at += TimeUnit.MILLISECONDS.toNanos(50 + random.nextInt(151));
        }
    }

    private Spec spec(TopicDefinition topic, String key) {
        double r = random.nextDouble();
        int workMs = r < 0.88 ? random.nextInt(4) : r < 0.97 ? 5 + random.nextInt(45) : 200 + random.nextInt(1301);
        boolean poison = random.nextDouble() < 0.005;
        return new Spec(topic, key, workMs, poison, 1000 + random.nextInt(2001));
    }

    /** Starts a planned call; {@code completed} runs once it has completed, whatever came of it. */
    private void execute(Planned planned, Runnable completed) {
        List<OutgoingMessage> messages = new ArrayList<>(planned.messages().size());
        long[] seqs = new long[planned.messages().size()];
        long[] values = new long[seqs.length];
        long nowMs = System.currentTimeMillis();
        for (int i = 0; i < seqs.length; i++) {
            Spec spec = planned.messages().get(i);
            seqs[i] = seq++;
            values[i] = switch (spec.topic().type()) {
                case RANGE_MERGE -> spec.rangeMs();
                case PRIORITY -> 17 + random.nextInt(1_000_000);
                case FIXED_TIME -> nowMs + 1000 + random.nextInt(3001);
            };
            long fixed = spec.topic().type() == dev.rmq.topic.TopicType.FIXED_TIME ? values[i] : 0;
            String payload = Payload.message(seqs[i], spec.workMs(), spec.poison(), fixed).encode();
            OutgoingMessage message = switch (spec.topic().type()) {
                case RANGE_MERGE -> OutgoingMessage.rangeMerge(spec.topic().name(), payload, Duration.ofMillis(values[i]));
                case PRIORITY -> OutgoingMessage.priority(spec.topic().name(), payload, values[i]);
                case FIXED_TIME -> OutgoingMessage.fixedTime(spec.topic().name(), payload, Instant.ofEpochMilli(values[i]));
            };
            messages.add(Workload.labelled(message, payload).withKey(spec.key()));
        }
        Deployment deployment = Workload.deploymentOf(planned.messages().get(0).topic().name());
        RmqProducer producer = Objects.requireNonNull((planned.durable() ? durable : plain).get(deployment),
                "the constructor makes both producers of every deployment");
        List<CompletableFuture<Void>> before = new ArrayList<>();
        for (Spec spec : planned.messages()) {
            CompletableFuture<Void> last = lastOfKey.get(spec.key());
            if (last != null && !last.isDone()) {
                before.add(last);
            }
        }
        CompletableFuture<Void> done = before.isEmpty() ? send(producer, planned, messages, seqs, values)
                : CompletableFuture.allOf(before.toArray(CompletableFuture[]::new)).handle((v, e) -> null)
                        .thenComposeAsync(v -> send(producer, planned, messages, seqs, values), chained);
        for (Spec spec : planned.messages()) {
            lastOfKey.put(spec.key(), done);
        }
        done.whenComplete((v, e) -> {
            for (Spec spec : planned.messages()) {
                lastOfKey.remove(spec.key(), done);
            }
            completed.run();
        });
    }

    /** Sends one planned call and writes its events; never fails, as its events say what went wrong. */
    private CompletableFuture<Void> send(RmqProducer producer, Planned planned, List<OutgoingMessage> messages,
                                         long[] seqs, long[] values) {
        long start = EventLog.nowMicros();
        CompletionStage<List<SendReceipt>> sent;
        try {
            sent = messages.size() == 1 ? producer.sendAsync(messages.get(0)).thenApply(List::of)
                    : producer.sendAllAsync(messages);
        } catch (RuntimeException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((receipts, error) -> {
            try {
                written(planned, seqs, values, start, receipts, error);
            } catch (RuntimeException e) {
                // the checker would count these sends as never made: say so where the run's logs are read
                System.err.println("producer: the events of seq " + Arrays.toString(seqs) + " were not written: " + e);
            }
            return (Void) null;
        }).toCompletableFuture();
    }

    private void written(Planned planned, long[] seqs, long[] values, long start, @Nullable List<SendReceipt> receipts,
                         @Nullable Throwable error) {
        long end = EventLog.nowMicros();
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause == null && receipts != null) {
            for (int i = 0; i < seqs.length; i++) {
                SendReceipt r = receipts.get(i);
                log.write(new HarnessEvent.Sent(end, seqs[i], r.topic(), r.key(), r.slot(), r.merged(), planned.durable(),
                        start, values[i]));
            }
        } else if (cause instanceof BatchSendException e) {
            // the batch's own account: what it stored is sent, the rest failed (refused, or unknown)
            for (int i = 0; i < seqs.length; i++) {
                SendOutcome outcome = e.outcomes().get(i);
                if (outcome.status() == SendOutcome.Status.STORED) {
                    SendReceipt r = Objects.requireNonNull(outcome.receipt(), "a stored send has its receipt");
                    log.write(new HarnessEvent.Sent(end, seqs[i], r.topic(), r.key(), r.slot(), r.merged(),
                            planned.durable(), start, values[i]));
                } else {
                    sendFailed(planned, i, seqs[i], values[i], start, end, outcome.status() + ": " + outcome.error());
                }
            }
        } else {
            String what = cause == null ? "no receipts" : cause.getClass().getSimpleName() + ": " + cause.getMessage();
            for (int i = 0; i < seqs.length; i++) {
                sendFailed(planned, i, seqs[i], values[i], start, end, what);
            }
        }
    }

    /**
     * Waits until the sends under way have completed, so that every send made has its event before STOPPED (which
     * carries the time waited for room, for the harness to report).
     */
    private void drain() {
        int left = lanes.drain(DRAIN);
        if (left > 0) {
            System.err.println("producer: " + left + " sends still under way after " + DRAIN.toSeconds()
                    + " s; their events are missing");
        }
        chained.shutdown();
    }

    /**
     * How far the producer kept its rate, from its {@code STOPPED} line: the bursts it planned, those it skipped
     * because thousands of planned calls of their deployment waited already, how long due calls waited for room
     * among the calls under way, and for each deployment its calls started and their wait. Empty when it did not
     * stop.
     */
    static Map<String, Object> report(@Nullable String stopped) {
        Map<String, Object> report = new LinkedHashMap<>();
        String[] fields = stopped == null ? new String[0] : stopped.trim().split(" ");
        if (fields.length >= 5) {
            report.put("bursts_planned", Long.parseLong(fields[2]));
            report.put("bursts_skipped", Long.parseLong(fields[3]));
            report.put("waited_for_room_ms", Long.parseLong(fields[4]));
            Map<String, Object> byDeployment = new LinkedHashMap<>();
            for (int i = 5; i < fields.length; i++) {
                String[] lane = fields[i].split("[=/]");
                Map<String, Long> figures = new LinkedHashMap<>();
                figures.put("calls", Long.parseLong(lane[1]));
                figures.put("waited_for_room_ms", Long.parseLong(lane[2]));
                byDeployment.put(lane[0], figures);
            }
            report.put("by_deployment", byDeployment);
        }
        return report;
    }

    private void sendFailed(Planned planned, int index, long seq, long value, long start, long end, String error) {
        Spec spec = planned.messages().get(index);
        log.write(new HarnessEvent.SendFailed(end, seq, spec.topic().name(), spec.key(), planned.durable(), start, value,
                error.length() > 300 ? error.substring(0, 300) : error));
    }
}
