package dev.rmq.spring.listener;

import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.StopReport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Owns the listener containers and runs them with the application: it starts those marked auto-startup
 * when the context starts, and stops all of them, in parallel, when it stops. A graceful stop stops
 * polling, lets in-flight messages finish and commit, and releases the slots; it keeps within
 * {@code spring.lifecycle.timeout-per-shutdown-phase}, so the context never waits on it in vain.
 */
public class RmqListenerEndpointRegistry implements SmartLifecycle, DisposableBean {

    /** The bean name the auto-configuration gives the registry. */
    public static final String BEAN_NAME = "rmqListenerEndpointRegistry";
    /** Late in start-up and early in shutdown, like spring-kafka's containers: listeners stop before what they use. */
    public static final int PHASE = Integer.MAX_VALUE - 100;

    private static final Logger log = LoggerFactory.getLogger(RmqListenerEndpointRegistry.class);
    /** Kept back from the phase timeout for the containers' own joins and the callback. */
    private static final Duration STOP_MARGIN = Duration.ofSeconds(1);

    private final Duration phaseTimeout;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Registration> containers = new LinkedHashMap<>();
    private volatile boolean running;

    private record Registration(RmqListenerEndpoint endpoint, RmqConsumerContainer<?> container, boolean autoStartup) {
    }

    /**
     * @param phaseTimeout {@code spring.lifecycle.timeout-per-shutdown-phase}: how long the context waits for
     *                     this registry to stop
     */
    public RmqListenerEndpointRegistry(Duration phaseTimeout) {
        this.phaseTimeout = Objects.requireNonNull(phaseTimeout, "phaseTimeout");
    }

    /**
     * Creates the endpoint's container with the factory and keeps it. When the registry already runs (a
     * listener bean created after start-up), an auto-startup container starts at once.
     *
     * @throws IllegalStateException when another listener already uses the endpoint's id
     */
    public RmqConsumerContainer<?> registerListenerContainer(RmqListenerEndpoint endpoint,
                                                             RmqListenerContainerFactory factory) {
        lock.lock();
        try {
            Registration existing = containers.get(endpoint.id());
            if (existing != null) {
                throw new IllegalStateException("two @RmqListener containers have the id '" + endpoint.id() + "': "
                        + existing.endpoint().describe() + " and " + endpoint.describe() + "; give one another id");
            }
            RmqConsumerContainer<?> container = factory.createContainer(endpoint);
            boolean autoStartup = endpoint.autoStartup() != null ? endpoint.autoStartup() : factory.isAutoStartup();
            containers.put(endpoint.id(), new Registration(endpoint, container, autoStartup));
            if (running && autoStartup) {
                container.start();
            }
            return container;
        } finally {
            lock.unlock();
        }
    }

    /** The container with this id, or null. */
    public @Nullable RmqConsumerContainer<?> getListenerContainer(String id) {
        lock.lock();
        try {
            Registration registration = containers.get(id);
            return registration != null ? registration.container() : null;
        } finally {
            lock.unlock();
        }
    }

    public Set<String> getListenerContainerIds() {
        lock.lock();
        try {
            return Set.copyOf(containers.keySet());
        } finally {
            lock.unlock();
        }
    }

    public Collection<RmqConsumerContainer<?>> getListenerContainers() {
        lock.lock();
        try {
            return containers.values().stream().<RmqConsumerContainer<?>>map(Registration::container).toList();
        } finally {
            lock.unlock();
        }
    }

    /** The containers consuming this topic. */
    public List<RmqConsumerContainer<?>> getListenerContainers(String topic) {
        return getListenerContainers().stream().filter(c -> c.topic().name().equals(topic)).toList();
    }

    @Override
    public void start() {
        lock.lock();
        try {
            for (Registration registration : containers.values()) {
                if (registration.autoStartup()) {
                    registration.container().start();
                }
            }
            running = true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void stop() {
        stopAll().join();
    }

    @Override
    public void stop(Runnable callback) {
        stopAll().whenComplete((ignored, error) -> callback.run());
    }

    /**
     * Stops the running containers at once, each within its shutdown timeout capped by the phase's, and logs one
     * line for the whole stop: at WARN when deliveries were left to lease recovery, else at INFO.
     */
    private CompletableFuture<Void> stopAll() {
        List<RmqConsumerContainer<?>> toStop = new ArrayList<>();
        lock.lock();
        try {
            running = false;
            for (Registration registration : containers.values()) {
                if (registration.container().isRunning()) {
                    toStop.add(registration.container());
                }
            }
        } finally {
            lock.unlock();
        }
        if (toStop.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        Duration budget = phaseTimeout.minus(STOP_MARGIN).isNegative() ? Duration.ZERO : phaseTimeout.minus(STOP_MARGIN);
        // One thread per container, so that N containers share the phase timeout rather than queue for it.
        List<CompletableFuture<StopReport>> stops = toStop.stream().map(container -> {
            Duration own = container.settings().shutdownTimeout();
            Duration bound = own.compareTo(budget) < 0 ? own : budget;
            return CompletableFuture.supplyAsync(() -> stop(container, bound),
                    runnable -> new Thread(runnable, "rmq-stop-" + container.id()).start());
        }).toList();
        return CompletableFuture.allOf(stops.toArray(CompletableFuture[]::new)).thenRun(() -> {
            StopReport report = StopReport.sum(stops.stream().map(CompletableFuture::join).toList());
            if (report.needsAttention()) {
                log.warn("rmq listeners {}", report.describe());
            } else {
                log.info("rmq listeners {}", report.describe());
            }
        });
    }

    private static StopReport stop(RmqConsumerContainer<?> container, Duration bound) {
        try {
            return container.stop(bound);
        } catch (RuntimeException | Error e) {
            log.warn("rmq container {} did not stop cleanly", container.id(), e);
            return StopReport.NOTHING;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** Stops, without waiting, whatever the lifecycle did not (a context that failed to start). */
    @Override
    public void destroy() {
        for (RmqConsumerContainer<?> container : getListenerContainers()) {
            if (container.isRunning()) {
                container.stop(Duration.ZERO);
            }
        }
    }
}
