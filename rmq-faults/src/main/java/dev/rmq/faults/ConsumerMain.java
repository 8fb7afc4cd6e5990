package dev.rmq.faults;

import dev.rmq.ContainerBuilder;
import dev.rmq.consumer.BatchResult;
import dev.rmq.consumer.ConsumeResult;
import dev.rmq.consumer.ConsumerSettings;
import dev.rmq.consumer.RmqBatchFailedException;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.RmqMessage;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.events.RmqEvent;
import dev.rmq.faults.Workload.Payload;
import dev.rmq.faults.events.EventLog;
import dev.rmq.faults.events.HarnessEvent;
import dev.rmq.journal.jdbc.JournalMode;
import dev.rmq.topic.TopicDefinition;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A consumer JVM: one rmq client per Redis deployment of the run, and one container per topic, coordinated
 * through ZooKeeper (one session, one {@link RmqCoordinator} per deployment). It writes to its event log:
 * <ul>
 *   <li>from its handler, a {@link HarnessEvent.Delivered} when a handler starts and a {@link HarnessEvent.Handled}
 *       when it ends, with the host clock;</li>
 *   <li>from rmq's event listener, what rmq did with acknowledgements and slots: {@link HarnessEvent.Acknowledged},
 *       {@link HarnessEvent.AckFailed}, {@link HarnessEvent.SlotFenced} and {@link HarnessEvent.OwnerChanged};</li>
 *   <li>from Curator, each {@link HarnessEvent.SessionChanged}.</li>
 * </ul>
 *
 * <p>The handler reads the Redis clock as it starts: the host's clock, which every Redis of the run reads (see
 * {@link HostClock}), so that no round trip delays the handler or the time it reads. It works for
 * the payload's {@code work} milliseconds, then throws for a {@code poison} payload, and for a random fraction of
 * the rest ({@code --error-rate}); probes never fail. It takes one of three shapes ({@code --listeners}): one
 * message at a time; a poll's messages one after another, naming the first that fails; or a result that a thread
 * of its own completes after the work.
 *
 * <p>Arguments: {@code --name --incarnation --standalone --cluster (addresses or -) --zk --log --error-rate
 * --threads --listeners}. Stdin: {@code EXPIRE} expires its ZooKeeper session (Curator's injectSessionExpiration) and answers
 * {@code EXPIRED} once the workers have let their slots go; {@code STATUS} answers what each container holds;
 * {@code EXIT} stops gracefully and exits.
 */
public final class ConsumerMain {

    /** The container's worker threads are named {@code rmq-<worker>}; rmq's events name the worker alone. */
    private static final String THREAD_PREFIX = "rmq-";
    /** Where asynchronous handlers do their work and end: not the worker's thread. */
    private static final ExecutorService ASYNC_WORK = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "async-work");
        thread.setDaemon(true);
        return thread;
    });

    private final EventLog log;
    private final String instance;
    private final double errorRate;

    private ConsumerMain(EventLog log, String instance, double errorRate) {
        this.log = log;
        this.instance = instance;
        this.errorRate = errorRate;
    }

    public static void main(String[] args) throws Exception {
        ChildArgs a = ChildArgs.parse(args);
        String instance = a.get("name") + "-" + a.getInt("incarnation");
        EventLog log = new EventLog(a.path("log"));
        HarnessJournal journal = HarnessJournal.fromArgs(a, JournalMode.ASYNC);
        HarnessClients clients = HarnessClients.connect(a.redis(), 1, event -> {
            HarnessEvent harnessEvent = toHarnessEvent(instance, event);
            if (harnessEvent != null) {
                log.write(harnessEvent);
            }
        }, journal == null ? null : journal.journal());
        CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(a.get("zk"))
                .sessionTimeoutMs(Workload.SESSION_TIMEOUT_MS).connectionTimeoutMs(2000)
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 1000)).build();
        curator.start();
        ConsumerMain consumer = new ConsumerMain(log, instance, a.getDouble("error-rate"));
        // one coordinator per deployment, on the one session: each fences its topics' slots in its own Redis
        Map<Deployment, RmqCoordinator> coordinators = new EnumMap<>(Deployment.class);
        for (Deployment deployment : clients.deployments()) {
            RmqCoordinator coordinator = RmqCoordinator.builder(curator, clients.rmq(deployment))
                    .instanceId(instance).origin("fault harness consumer " + instance).build();
            coordinator.start();
            coordinators.put(deployment, coordinator);
        }
        curator.getConnectionStateListenable().addListener((client, state) -> log.write(new HarnessEvent.SessionChanged(
                EventLog.nowMicros(), instance, state.name(), "0x" + Long.toHexString(sessionId(client)))));
        ConsumerSettings settings = ConsumerSettings.DEFAULTS.withConcurrency(a.getInt("threads")).withBatchSize(8)
                .withIdlePoll(Duration.ofMillis(500)).withShutdownTimeout(Duration.ofSeconds(5));
        List<RmqConsumerContainer<String>> containers = new ArrayList<>();
        int shapes = 0;
        for (Map.Entry<Deployment, RmqCoordinator> entry : coordinators.entrySet()) {
            Deployment deployment = entry.getKey();
            RmqCoordinator coordinator = entry.getValue();
            for (TopicDefinition topic : Workload.topics(deployment)) {
                // ids such as "ms" and "pc": the worker threads (rmq-<id>-<n>) must differ across topics and deployments
                ContainerBuilder<String> builder = clients.rmq(deployment).container(topic.name(), String.class);
                switch (shape(a.get("listeners"), a.get("name"), shapes++)) {
                    case "batch" -> builder.batchHandler(consumer::handleBatch);
                    case "async" -> builder.asyncHandler(consumer::handleAsync);
                    default -> builder.handler(consumer::handle);
                }
                containers.add(builder.id(Workload.abbreviation(topic) + deployment.suffix()).settings(settings)
                        .assignment(coordinator::newAssignment).build());
            }
        }
        containers.forEach(RmqConsumerContainer::start);

        CountDownLatch exit = new CountDownLatch(1);
        ChildArgs.readCommands(command -> {
            switch (command) {
                case "EXPIRE" -> ChildArgs.reply(expireSession(curator, containers));
                case "STATUS" -> ChildArgs.reply("STATUS " + status(curator, containers));
                case "EXIT" -> exit.countDown();
                default -> ChildArgs.reply("UNKNOWN " + command.replaceAll("\\s+", "_"));
            }
        });
        ChildArgs.reply("READY " + instance);
        exit.await();
        // a bounded, orderly exit; the harness kills the process if this hangs
        for (RmqConsumerContainer<String> container : containers) {
            container.stop(Duration.ofSeconds(5));
        }
        coordinators.values().forEach(RmqCoordinator::close);
        curator.close();
        clients.close();
        if (journal != null) {
            journal.close();
        }
        log.close();
        ChildArgs.reply("EXITED");
        System.exit(0);
    }

    /**
     * The handler shape of this consumer's {@code index}-th container: the one asked for, or with {@code mixed} the
     * three in turn, starting from one the consumer's name picks, so that consumers differ on one topic.
     */
    static String shape(String listeners, String name, int index) {
        if (!listeners.equals("mixed")) {
            return listeners;
        }
        List<String> shapes = List.of("single", "batch", "async");
        return shapes.get(Math.floorMod(name.hashCode() + index, shapes.size()));
    }

    /**
     * rmq's event as the checker reads it, with this incarnation's name; null for a delivery, which the handler
     * records itself, with what it read.
     */
    private static @Nullable HarnessEvent toHarnessEvent(String instance, RmqEvent event) {
        if (event instanceof RmqEvent.Delivered) {
            return null;
        }
        long micros = EventLog.micros(event.time());
        if (event instanceof RmqEvent.Acknowledged e) {
            return new HarnessEvent.Acknowledged(micros, instance, e.worker(), e.topic(), e.slot(), e.key(),
                    e.outcome().scriptName());
        }
        if (event instanceof RmqEvent.AckFailed e) {
            return new HarnessEvent.AckFailed(micros, instance, e.worker(), e.topic(), e.slot(), e.keys(), e.error());
        }
        if (event instanceof RmqEvent.SlotFenced e) {
            return new HarnessEvent.SlotFenced(micros, instance, e.worker(), e.topic(), e.slot(), e.during());
        }
        if (event instanceof RmqEvent.SlotAssigned e) {
            return new HarnessEvent.OwnerChanged(micros, instance, e.worker(), e.topic(), e.slot(), true);
        }
        if (event instanceof RmqEvent.SlotReleased e) {
            return new HarnessEvent.OwnerChanged(micros, instance, e.worker(), e.topic(), e.slot(), false);
        }
        RmqEvent.LeasesRecovered e = (RmqEvent.LeasesRecovered) event;
        return new HarnessEvent.LeasesRecovered(micros, instance, e.worker(), e.topic(), e.slot(), e.count());
    }

    /**
     * Expires the ZooKeeper session on the client side, as a session timeout seen by the client does, and
     * answers once Curator has reported LOST and every worker has let its slots go (or after 10 s): the probes
     * the harness sends next then measure the outage, not the moment before the client noticed.
     */
    private static String expireSession(CuratorFramework curator, List<RmqConsumerContainer<String>> containers) {
        CountDownLatch lost = new CountDownLatch(1);
        ConnectionStateListener listener = (client, state) -> {
            if (state == ConnectionState.LOST) {
                lost.countDown();
            }
        };
        curator.getConnectionStateListenable().addListener(listener);
        try {
            long start = System.nanoTime();
            curator.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
            if (!lost.await(10, TimeUnit.SECONDS)) {
                return "EXPIRE-FAILED Curator reported no LOST within 10 s";
            }
            long lostMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (containers.stream().anyMatch(c -> !c.heldSlots().isEmpty()) && System.nanoTime() - deadline < 0) {
                TimeUnit.MILLISECONDS.sleep(5);
            }
            return "EXPIRED LOST after " + lostMs + " ms, slots let go after "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms";
        } catch (Exception e) {
            return "EXPIRE-FAILED " + e.toString().replaceAll("\\s+", "_");
        } finally {
            curator.getConnectionStateListenable().removeListener(listener);
        }
    }

    private static long sessionId(CuratorFramework curator) {
        try {
            return curator.getZookeeperClient().getZooKeeper().getSessionId();
        } catch (Exception e) {
            return -1;
        }
    }

    /** The ZooKeeper session and the slots each container's workers hold, for the harness's end-of-run view. */
    private static String status(CuratorFramework curator, List<RmqConsumerContainer<String>> containers) {
        StringBuilder text = new StringBuilder("session=0x" + Long.toHexString(sessionId(curator)));
        for (RmqConsumerContainer<String> container : containers) {
            text.append(' ').append(container.topic().name()).append('=');
            List<String> owners = new ArrayList<>();
            container.owners().forEach(o -> owners.add(o.workerId() + ":" + o.ownedSlots()));
            text.append(String.join(",", owners).replace(" ", ""));
        }
        return text.toString();
    }

    /** One message's handling, from its start, written when it began, to the outcome written when it ends. */
    private record Handling(RmqMessage<String> message, String worker, Payload payload) {
    }

    /** The handler of one message, start to end, on the worker's thread. */
    private ConsumeResult handle(RmqMessage<String> message) throws Exception {
        return end(begin(message));
    }

    /**
     * A poll's messages one after another; the first that fails is named, so that those after it go back unstarted
     * and their runs end there.
     */
    private BatchResult handleBatch(List<RmqMessage<String>> messages) {
        long call = EventLog.nowMicros();
        for (int i = 0; i < messages.size(); i++) {
            try {
                end(begin(messages.get(i), call));
            } catch (Exception e) {
                throw new RmqBatchFailedException(i, e);
            }
        }
        return BatchResult.success();
    }

    /** Starts the message on the worker's thread; its work and its end happen on another thread. */
    private CompletionStage<ConsumeResult> handleAsync(RmqMessage<String> message) throws Exception {
        Handling handling = begin(message);
        CompletableFuture<ConsumeResult> result = new CompletableFuture<>();
        ASYNC_WORK.execute(() -> {
            try {
                result.complete(end(handling));
            } catch (Exception e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    private Handling begin(RmqMessage<String> message) {
        return begin(message, 0);
    }

    /** @param callMicros when the handler call that runs the message began, or 0 when it begins now */
    private Handling begin(RmqMessage<String> message, long callMicros) {
        long start = EventLog.nowMicros();
        String worker = workerOf(Thread.currentThread().getName());
        Payload payload = Payload.decode(message.payload());
        long due = message.dueTime().map(java.time.Instant::toEpochMilli).orElse(-1L);
        log.write(new HarnessEvent.Delivered(start, instance, worker, message.topic(), message.slot(), message.key(),
                payload.seq(), payload.probe(), message.attempt(), start / 1000, due, payload.fixedMs(),
                message.leaseDeadline().toEpochMilli(), payload.workMs(), callMicros == 0 ? start : callMicros));
        return new Handling(message, worker, payload);
    }

    private ConsumeResult end(Handling handling) throws Exception {
        RmqMessage<String> message = handling.message();
        Payload payload = handling.payload();
        if (payload.workMs() > 0) {
            Thread.sleep(payload.workMs());
        }
        String outcome = "ok";
        if (!payload.probe()) {
            if (payload.poison()) {
                outcome = "poison";
            } else if (errorRate > 0 && ThreadLocalRandom.current().nextDouble() < errorRate) {
                outcome = "err";
            }
        }
        log.write(new HarnessEvent.Handled(EventLog.nowMicros(), instance, handling.worker(), message.topic(),
                message.slot(), message.key(), payload.seq(), message.attempt(), outcome));
        return switch (outcome) {
            case "ok" -> ConsumeResult.success();
            case "poison" -> throw new IllegalStateException("poison message " + payload.seq() + " always fails");
            default -> throw new IllegalStateException("injected listener error (rate " + errorRate + ")");
        };
    }

    /**
     * The worker a handler runs for, as rmq's events name it: its thread is {@code rmq-<worker>}, followed by the
     * slot it serves while it handles that slot's messages.
     */
    static String workerOf(String thread) {
        String name = thread.startsWith(THREAD_PREFIX) ? thread.substring(THREAD_PREFIX.length()) : thread;
        int slot = name.indexOf(' ');
        return slot < 0 ? name : name.substring(0, slot);
    }
}
