package dev.rmq.faults;

import dev.rmq.faults.events.EventLog;
import dev.rmq.faults.events.HarnessEvent;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The consumer JVMs of a run, across their restarts: {@code c2-1}, then {@code c2-2} after a kill, and so on.
 * Every start, end, kill and pause goes to the harness's event log, so that the checker knows each
 * incarnation's life.
 */
final class ConsumerFleet {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final String CHILD_HEAP = "256m";

    private final Path dir;
    private final HarnessOptions options;
    private final String zookeeper;
    private final Supplier<Map<Deployment, List<String>>> redisAddresses;
    /** The journal's JDBC URL, or {@code -} for none. */
    private final String journalUrl;
    private final ConsumerTail tail;
    private final EventLog events;
    private final List<Consumer> consumers = new ArrayList<>();

    /** One of the consumers. */
    final class Consumer {
        final String name;
        private int incarnation;
        /** Null until its first {@link #launch()}, as are its links. */
        private @Nullable ChildJvm jvm;
        private @Nullable NetworkLinks links;

        private Consumer(String name) {
            this.name = name;
        }

        /** Its links to the standalone Redis and to ZooKeeper, for the network faults. */
        NetworkLinks links() {
            return Objects.requireNonNull(links, "consumer " + name + " was never launched");
        }

        String id() {
            return name + "-" + incarnation;
        }

        ChildJvm jvm() {
            return Objects.requireNonNull(jvm, "consumer " + name + " was never launched");
        }

        void launch() {
            incarnation++;
            if (links == null) {
                Map<Deployment, List<String>> direct = redisAddresses.get();
                List<String> standalone = direct.get(Deployment.STANDALONE);
                links = new NetworkLinks(standalone == null ? null : standalone.get(0), zookeeper);
            }
            String id = id();
            Path log = dir.resolve("consumer-" + id + ".events");
            tail.follow(id, log);
            events.write(new HarnessEvent.ProcessStarted(EventLog.nowMicros(), id));
            List<String> args = new ArrayList<>(List.of("--name", name, "--incarnation", Integer.toString(incarnation),
                    "--zk", links.zkConnect(), "--log", log.toString(), "--error-rate", Double.toString(options.errorRate()),
                    "--threads", Integer.toString(options.threads()), "--listeners", options.listeners(),
                    "--" + HarnessJournal.ARG, journalUrl));
            args.addAll(ChildArgs.redisArgs(links.redisAddresses(redisAddresses.get())));
            jvm = ChildJvm.start("consumer " + id, ConsumerMain.class, args, stderr(id), CHILD_HEAP);
        }

        void awaitReady() throws InterruptedException {
            if (jvm().await("READY", START_TIMEOUT) == null) {
                throw new IllegalStateException("consumer " + id() + " did not start within " + START_TIMEOUT + "; see "
                        + stderr(id()));
            }
        }

        /** SIGKILL, recorded as the end of this incarnation. */
        void kill() throws InterruptedException {
            jvm().kill();
            events.write(new HarnessEvent.ProcessEnded(EventLog.nowMicros(), id(), true));
        }

        /** SIGSTOP. */
        void pause() {
            jvm().pause();
        }

        /** SIGCONT after a {@link #pause()} at {@code pausedMicros}; returns when it was resumed (host micros). */
        long resume(long pausedMicros) {
            jvm().resume();
            long resumed = EventLog.nowMicros();
            events.write(new HarnessEvent.ProcessPaused(pausedMicros, id(), resumed));
            return resumed;
        }

        /** The handlers running in it now, by worker. */
        Map<String, ConsumerTail.Handler> openHandlers() {
            return tail.openHandlers(id());
        }
    }

    ConsumerFleet(Path dir, HarnessOptions options, String zookeeper, Supplier<Map<Deployment, List<String>>> redisAddresses,
                  String journalUrl, ConsumerTail tail, EventLog events) {
        this.dir = dir;
        this.options = options;
        this.zookeeper = zookeeper;
        this.redisAddresses = redisAddresses;
        this.journalUrl = journalUrl;
        this.tail = tail;
        this.events = events;
    }

    /** Starts the configured number of consumers and waits until each is ready. */
    void start() throws InterruptedException {
        for (int i = 1; i <= options.consumers(); i++) {
            Consumer consumer = new Consumer("c" + i);
            consumers.add(consumer);
            consumer.launch();
        }
        for (Consumer consumer : consumers) {
            consumer.awaitReady();
        }
    }

    List<Consumer> all() {
        return List.copyOf(consumers);
    }

    Consumer pick(Random random) {
        return consumers.get(random.nextInt(consumers.size()));
    }

    /**
     * Who holds what: what each consumer says it holds, by incarnation, and what ZooKeeper and Redis hold.
     * Taken at the end of a run, and when a fault does not recover, so that a slot nobody consumes can be explained.
     */
    Map<String, Object> coordination(HarnessClients clients) throws InterruptedException {
        Map<String, Object> snapshot = status();
        snapshot.put("zookeeper_and_redis", CoordinationSnapshot.take(zookeeper, clients));
        return snapshot;
    }

    private Map<String, Object> status() throws InterruptedException {
        Map<String, Object> status = new LinkedHashMap<>();
        for (Consumer consumer : consumers) {
            consumer.jvm().send("STATUS");
            String reply = consumer.jvm().await("STATUS", Duration.ofSeconds(10));
            status.put(consumer.id(), reply == null ? "(no answer)" : reply.substring("STATUS ".length()));
        }
        return status;
    }

    /** Asks every consumer to stop gracefully, and kills those that do not within 30 s. */
    void exitAll(java.util.function.Consumer<String> say) throws InterruptedException {
        for (Consumer consumer : consumers) {
            consumer.jvm().send("EXIT");
        }
        for (Consumer consumer : consumers) {
            if (!consumer.jvm().exit("EXIT", Duration.ofSeconds(30))) {
                say.accept("consumer " + consumer.id() + " did not exit in time; killed");
            }
            events.write(new HarnessEvent.ProcessEnded(EventLog.nowMicros(), consumer.id(), false));
            if (consumer.links != null) {
                consumer.links.close();
            }
        }
    }

    /** Lines of the consumers' own logs that contain {@code text}, over every incarnation. */
    long logLines(String text) throws IOException {
        long count = 0;
        for (Consumer consumer : consumers) {
            for (int i = 1; i <= consumer.incarnation; i++) {
                Path log = stderr(consumer.name + "-" + i);
                if (Files.exists(log)) {
                    try (Stream<String> lines = Files.lines(log)) {
                        count += lines.filter(line -> line.contains(text)).count();
                    }
                }
            }
        }
        return count;
    }

    /** How many consumer processes were started in all. */
    int incarnations() {
        return consumers.stream().mapToInt(c -> c.incarnation).sum();
    }

    private Path stderr(String incarnation) {
        return dir.resolve("consumer-" + incarnation + ".log");
    }
}
