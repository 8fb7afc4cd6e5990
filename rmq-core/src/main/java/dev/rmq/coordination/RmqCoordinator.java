package dev.rmq.coordination;

import dev.rmq.RmqClient;
import dev.rmq.consumer.SlotAssignment;
import dev.rmq.consumer.SlotFencing;
import dev.rmq.internal.coordination.Membership;
import dev.rmq.internal.coordination.Ownership;
import dev.rmq.internal.coordination.TopicRegistration;
import dev.rmq.internal.coordination.ZkPaths;
import dev.rmq.internal.coordination.ZooKeeperSlotAssignment;
import dev.rmq.topic.TopicConflictException;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.data.ACL;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Closeable;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One per application: registers its topic definitions in ZooKeeper (refusing conflicting ones) and
 * gives each consumer container a slot assignment that keeps every slot with one worker of the whole cluster. It uses the caller's started
 * {@link CuratorFramework} and does not close it. Like Curator's recipes it starts once and closes once.
 *
 * <p>While ZooKeeper is unreachable the workers keep exclusivity rather than availability: on SUSPENDED
 * they stop polling, on LOST they give up their slots, and they resume only once they hold them again.
 */
public final class RmqCoordinator implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(RmqCoordinator.class);

    /** Built latent; started once; stopped once, whether it started or not. */
    private enum State { LATENT, STARTED, STOPPED }
    /** The longest {@link #close()} takes, whatever state Redis and ZooKeeper are in. */
    public static final Duration CLOSE_BOUND = Duration.ofSeconds(10);

    private final CuratorFramework curator;
    private final TopicRegistry topics;
    private final SlotFencing fencing;
    private final Membership membership;
    private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
    private final List<ZooKeeperSlotAssignment> assignments = new CopyOnWriteArrayList<>();
    private final ConnectionStateListener connectionListener = this::onConnectionState;
    /** When the ZooKeeper connection was last suspended (System.nanoTime), 0 while it is up. */
    private volatile long suspendedAtNanos;

    private RmqCoordinator(Builder builder) {
        this.curator = builder.curator;
        this.topics = builder.client.topics();
        this.fencing = builder.client.slotFencing();
        String instanceId = builder.instanceId != null ? builder.instanceId : defaultInstanceId();
        this.membership = new Membership(new ZkPaths(builder.root), builder.acl == null ? null : List.copyOf(builder.acl),
                instanceId, builder.origin != null ? builder.origin : "instance " + instanceId, builder.client.zone());
    }

    /** Starts describing the coordinator of {@code client}'s topics on a started {@code curator}. */
    public static Builder builder(CuratorFramework curator, RmqClient client) {
        return new Builder(curator, client);
    }

    /**
     * Registers every topic of the context.
     *
     * @throws TopicConflictException when another application defined a topic differently
     * @throws IllegalStateException  when started twice, or Curator is not started
     */
    public void start() {
        if (!state.compareAndSet(State.LATENT, State.STARTED)) {
            throw new IllegalStateException("RmqCoordinator " + membership.instanceId() + " was already started, or"
                    + " closed: a coordinator starts once");
        }
        if (curator.getState() != CuratorFrameworkState.STARTED) {
            throw new IllegalStateException("the CuratorFramework must be started before the RmqCoordinator");
        }
        ZkPaths paths = membership.paths();
        for (TopicDefinition topic : topics.all()) {
            try {
                TopicRegistration.register(curator, paths, membership.acl(), topic, membership.instanceId(),
                        membership.origin());
            } catch (TopicConflictException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("cannot register topic '" + topic.name() + "' at "
                        + paths.topic(topic.name()) + " in ZooKeeper " + curator.getZookeeperClient().getCurrentConnectionString()
                        + " (is it reachable?): " + e, e);
            }
        }
        curator.getConnectionStateListenable().addListener(connectionListener);
        log.info("rmq coordination {} started under {} for topics {}", membership.instanceId(), paths.root(),
                topics.all().stream().map(TopicDefinition::name).toList());
    }

    /**
     * A new assignment for one container, e.g. {@code container.assignment(coordinator::newAssignment)}; it joins
     * the topic's members when the container starts it.
     */
    public SlotAssignment newAssignment() {
        requireStarted();
        ZooKeeperSlotAssignment assignment = new ZooKeeperSlotAssignment(curator, membership, fencing, assignments::remove);
        assignments.add(assignment);
        return assignment;
    }

    /** The current plan of a topic: slot → worker. */
    public Map<Integer, String> plan(String topic) {
        requireStarted();
        return Ownership.readPlan(curator, membership.paths(), topics.require(topic).name());
    }

    /** Who holds each slot of a topic now: slot → worker (slots nobody holds are absent). */
    public Map<Integer, String> owners(String topic) {
        requireStarted();
        return Ownership.readOwners(curator, membership.paths(), topics.require(topic));
    }

    /** Who holds one slot of a topic now, if anyone. */
    public Optional<String> owner(String topic, int slot) {
        requireStarted();
        TopicDefinition definition = topics.require(topic);
        return Ownership.readOwner(curator, membership.paths(), definition, definition.requireSlot(slot));
    }

    /**
     * Gives back every slot the containers of this coordinator still hold and stops following ZooKeeper, within
     * {@link #CLOSE_BOUND}. Containers stopped first have given theirs back already.
     */
    @Override
    public void close() {
        State was = state.getAndSet(State.STOPPED);
        if (was == State.STOPPED) {
            return;
        }
        curator.getConnectionStateListenable().removeListener(connectionListener);
        long deadline = System.nanoTime() + CLOSE_BOUND.toNanos();
        for (ZooKeeperSlotAssignment assignment : assignments) {
            assignment.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        if (was == State.STARTED) {
            for (TopicDefinition topic : topics.all()) {
                TopicRegistration.forget(curator, membership.paths(), topic, membership.instanceId());
            }
        }
    }

    /** Tells every assignment, then logs one line for the whole instance: what the change did to its slots. */
    private void onConnectionState(CuratorFramework client, ConnectionState state) {
        int slots = 0;
        for (ZooKeeperSlotAssignment assignment : assignments) {
            slots += assignment.onConnectionState(state);
        }
        String id = membership.instanceId();
        switch (state) {
            case SUSPENDED -> {
                suspendedAtNanos = System.nanoTime();
                log.warn("rmq coordination {}: ZooKeeper connection SUSPENDED; {} slot(s) stop taking messages and"
                        + " finish what they hold; they are given up if the session expires", id, slots);
            }
            case LOST -> log.warn("rmq coordination {}: ZooKeeper session LOST{}; {} slot(s) given up, for other"
                    + " instances to take over", id, since(), slots);
            case RECONNECTED -> log.info("rmq coordination {}: ZooKeeper connection RECONNECTED{}; {}", id, since(),
                    slots > 0 ? slots + " slot(s) held resume where their owner znodes are still this instance's"
                            : "the slots are planned afresh");
            default -> log.info("rmq coordination {}: ZooKeeper connection {}", id, state);
        }
        if (state == ConnectionState.RECONNECTED || state == ConnectionState.CONNECTED) {
            suspendedAtNanos = 0;
        }
    }

    /** " after 3.2 s" since the connection was suspended, or nothing when it was not. */
    private String since() {
        long at = suspendedAtNanos;
        return at == 0 ? "" : String.format(Locale.ROOT, " after %.1f s", (System.nanoTime() - at) / 1e9);
    }

    private void requireStarted() {
        if (state.get() != State.STARTED) {
            throw new IllegalStateException("RmqCoordinator " + membership.instanceId() + " is not running");
        }
    }

    private static String defaultInstanceId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "unknown-host";
        }
        return host.replaceAll("[^A-Za-z0-9.-]", "-") + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Collects the coordinator's settings. */
    public static final class Builder {
        private final CuratorFramework curator;
        private final RmqClient client;
        private String root = "/rmq";
        /** Null: the CuratorFramework's own ACLProvider decides, as for any other Curator create. */
        private @Nullable List<ACL> acl;
        /** Null for the host name plus a random suffix. */
        private @Nullable String instanceId;
        /** Null for "instance" and the instance id. */
        private @Nullable String origin;

        private Builder(CuratorFramework curator, RmqClient client) {
            if (curator == null || client == null) {
                throw new IllegalArgumentException("a CuratorFramework and an RmqClient are required");
            }
            this.curator = curator;
            this.client = client;
        }

        /** The root znode of rmq's data; {@code /rmq} by default. */
        public Builder root(String value) {
            new ZkPaths(value);
            this.root = value;
            return this;
        }

        /**
         * The ACL of every znode rmq creates. By default the CuratorFramework's {@code ACLProvider} decides
         * (open, unless the client was built with a provider of its own).
         */
        public Builder acl(List<ACL> value) {
            if (value == null || value.isEmpty()) {
                throw new IllegalArgumentException("acl must name at least one entry");
            }
            this.acl = value;
            return this;
        }

        /** This application instance's id, unique in the cluster; host name plus a random suffix by default. */
        public Builder instanceId(String value) {
            if (value == null || !value.matches("[A-Za-z0-9._-]{1,100}")) {
                throw new IllegalArgumentException("instanceId must be 1 to 100 letters, digits, '.', '_' or '-', was "
                        + value);
            }
            this.instanceId = value;
            return this;
        }

        /** Where this application's definitions come from, named in conflict errors. */
        public Builder origin(String value) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException("origin must not be blank");
            }
            this.origin = value;
            return this;
        }

        public RmqCoordinator build() {
            return new RmqCoordinator(this);
        }
    }
}
