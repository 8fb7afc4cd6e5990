package dev.rmq.spring.config;

import dev.rmq.RmqClient;
import dev.rmq.admin.PauseState;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.consumer.SlotOwner;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.dead.DeadMessage;
import dev.rmq.dead.RmqDeadQueue;
import dev.rmq.metrics.SlotStats;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code rmq} actuator endpoint, read-only: the topics with their job controls, whether they are paused,
 * their backlog, in-flight and dead counts, each slot's counts and owners, and pages of a slot's dead messages.
 * <ul>
 * <li>{@code GET /actuator/rmq}: every topic, with totals and its listener containers;</li>
 * <li>{@code GET /actuator/rmq/{topic}}: one topic, slot by slot, with the workers that own each slot;</li>
 * <li>{@code GET /actuator/rmq/{topic}/{slot}?offset=0&limit=20}: one slot and a page of its dead messages.</li>
 * </ul>
 * With an {@link RmqCoordinator} the owners are those of the whole cluster, as ZooKeeper records them, and each
 * slot shows its planned worker too, which differs from the owner only during a handover. Without one, the
 * owners are this instance's workers. {@link WritableRmqEndpoint} adds pause, resume, requeue, delete and purge.
 */
@Endpoint(id = "rmq")
public class RmqEndpoint {

    /** The most payload characters shown per dead message; the rest is cut, so a page stays readable. */
    static final int PAYLOAD_PREVIEW = 4096;
    private static final int DEFAULT_PAGE = 20;

    protected final RmqClient client;
    private final @Nullable RmqListenerEndpointRegistry registry;
    private final @Nullable RmqCoordinator coordinator;
    private final String assignmentMode;
    private final String instance = ManagementFactory.getRuntimeMXBean().getName();

    public RmqEndpoint(RmqClient client, @Nullable RmqListenerEndpointRegistry registry,
                       @Nullable RmqCoordinator coordinator, String assignmentMode) {
        this.client = client;
        this.registry = registry;
        this.coordinator = coordinator;
        this.assignmentMode = assignmentMode;
    }

    /** What {@code GET /actuator/rmq} shows. */
    public record Overview(String instance, String assignment, boolean writeOperations,
                           List<TopicSummary> topics) {
    }

    /** {@code state} is {@code running}, {@code paused} or {@code partly paused (n of m slots)}. */
    public record TopicSummary(String name, String type, int slotAmount, String state, String leaseTimeout,
                               int maxRetries, String backoff, int deadCapacity, Controls controls, long backlog,
                               long inFlight, long dead, List<ListenerSummary> listeners) {
    }

    /** A topic's job controls; null where a control is not set. */
    public record Controls(@Nullable String ttl, String expiry, @Nullable Integer maxBacklog, String delivery,
                           @Nullable Double rateLimit, @Nullable String lateTolerance) {

        static Controls of(TopicDefinition topic) {
            return new Controls(topic.ttl().isZero() ? null : topic.ttl().toString(), topic.expiry().name(),
                    topic.maxBacklog() == 0 ? null : topic.maxBacklog(), topic.delivery().name(),
                    topic.rateLimit() == 0 ? null : topic.rateLimit(),
                    topic.type() == TopicType.FIXED_TIME ? topic.lateTolerance().toString() : null);
        }
    }

    public record ListenerSummary(String id, boolean running, int concurrency, int ownedSlots) {
    }

    public record TopicDetail(String name, String type, String state, long backlog, long inFlight, long dead,
                              List<SlotDetail> slots) {
    }

    /** {@code planned} is the worker ZooKeeper's plan gives the slot; null without coordination. */
    public record SlotDetail(int slot, boolean paused, long backlog, long inFlight, long dead, List<String> owners,
                             @Nullable String planned) {
    }

    public record SlotPage(String topic, int slot, long backlog, long inFlight, long dead, List<String> owners,
                           long offset, List<DeadEntry> deadMessages) {
    }

    public record DeadEntry(String key, String diedAt, int attempts, String lastError, Map<String, String> headers,
                            String payload, int payloadBytes) {
    }

    @ReadOperation
    public Overview overview() {
        List<TopicSummary> topics = new ArrayList<>();
        for (TopicDefinition topic : client.topics().all()) {
            List<SlotStats> slots = client.inspector().slots(topic.name());
            SlotStats totals = SlotStats.sum(slots);
            List<ListenerSummary> listeners = containers(topic.name()).stream()
                    .map(c -> new ListenerSummary(c.id(), c.isRunning(), c.settings().concurrency(), c.ownedSlots().size()))
                    .toList();
            topics.add(new TopicSummary(topic.name(), topic.type().name(), topic.slotAmount(), state(topic, slots),
                    topic.leaseTimeout().toString(), topic.maxRetries(), topic.backoff().toString(), topic.deadCapacity(),
                    Controls.of(topic), totals.backlog(), totals.inFlight(), totals.dead(), listeners));
        }
        return new Overview(instance, assignmentMode, writeOperationsEnabled(),
                topics);
    }

    /** One topic slot by slot; null (404) when the topic is unknown. */
    @ReadOperation
    public @Nullable TopicDetail topic(@Selector String topic) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        TopicDefinition definition = client.topics().require(topic);
        Map<Integer, List<String>> owners = owners(topic);
        Map<Integer, String> plan = coordinator != null ? coordinator.plan(topic) : Map.of();
        List<SlotStats> stats = client.inspector().slots(topic);
        List<SlotDetail> slots = new ArrayList<>();
        for (SlotStats slot : stats) {
            slots.add(new SlotDetail(slot.slot(), slot.paused(), slot.backlog(), slot.inFlight(), slot.dead(),
                    owners.getOrDefault(slot.slot(), List.of()), plan.get(slot.slot())));
        }
        SlotStats total = SlotStats.sum(stats);
        return new TopicDetail(topic, definition.type().name(), state(definition, stats), total.backlog(),
                total.inFlight(), total.dead(), slots);
    }

    /** One slot and a page of its dead messages, oldest first; null (404) when the topic is unknown. */
    @ReadOperation
    public @Nullable SlotPage slot(@Selector String topic, @Selector int slot, @Nullable Long offset,
                                   @Nullable Integer limit) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        checkSlot(topic, slot);
        long from = offset == null ? 0 : offset;
        int size = limit == null ? DEFAULT_PAGE : limit;
        if (from < 0 || size < 1 || size > RmqDeadQueue.MAX_PAGE) {
            throw new InvalidEndpointRequestException("offset must be 0 or more and limit in 1.." + RmqDeadQueue.MAX_PAGE,
                    "bad page");
        }
        SlotStats stats = client.inspector().slot(topic, slot);
        List<DeadEntry> dead = client.deadQueue().list(topic, slot, from, size).stream().map(RmqEndpoint::entry).toList();
        return new SlotPage(topic, slot, stats.backlog(), stats.inFlight(), stats.dead(), owners(topic, slot), from, dead);
    }

    private static String state(TopicDefinition topic, List<SlotStats> slots) {
        int paused = (int) slots.stream().filter(SlotStats::paused).count();
        return new PauseState(topic.name(), paused, topic.slotAmount()).describe();
    }

    protected boolean writeOperationsEnabled() {
        return false;
    }

    protected void checkSlot(String topic, int slot) {
        int amount = client.topics().require(topic).slotAmount();
        if (slot < 0 || slot >= amount) {
            throw new InvalidEndpointRequestException("slot of topic '" + topic + "' must be in 0.." + (amount - 1)
                    + ", was " + slot, "bad slot");
        }
    }

    private List<RmqConsumerContainer<?>> containers(String topic) {
        return registry == null ? List.of() : registry.getListenerContainers(topic);
    }

    /** The workers that own one slot, read alone: in the whole cluster when coordinated, else of this instance. */
    private List<String> owners(String topic, int slot) {
        if (coordinator != null) {
            return coordinator.owner(topic, slot).map(List::of).orElse(List.of());
        }
        List<String> owners = new ArrayList<>();
        for (RmqConsumerContainer<?> container : containers(topic)) {
            for (SlotOwner owner : container.owners()) {
                if (owner.ownedSlots().contains(slot)) {
                    owners.add(owner.workerId());
                }
            }
        }
        return owners;
    }

    /** Slot to the workers that own it: in the whole cluster when coordinated, else of this instance. */
    private Map<Integer, List<String>> owners(String topic) {
        Map<Integer, List<String>> owners = new TreeMap<>();
        if (coordinator != null) {
            coordinator.owners(topic).forEach((slot, worker) -> owners.put(slot, List.of(worker)));
            return owners;
        }
        for (RmqConsumerContainer<?> container : containers(topic)) {
            for (SlotOwner owner : container.owners()) {
                for (int slot : owner.ownedSlots()) {
                    owners.computeIfAbsent(slot, s -> new ArrayList<>()).add(owner.workerId());
                }
            }
        }
        return owners;
    }

    private static DeadEntry entry(DeadMessage message) {
        String text = message.payloadText();
        String preview = text.length() > PAYLOAD_PREVIEW ? text.substring(0, PAYLOAD_PREVIEW) + "…" : text;
        return new DeadEntry(message.key(), message.diedAt().toString(), message.attempts(), message.lastError(),
                message.headers(), preview, message.payload().length);
    }
}
