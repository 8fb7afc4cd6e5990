package dev.rmq.spring.actuate;

import dev.rmq.RmqClient;
import dev.rmq.admin.ClearReport;
import dev.rmq.admin.PauseState;
import dev.rmq.consumer.RmqConsumerContainer;
import dev.rmq.coordination.RmqCoordinator;
import dev.rmq.inspect.PeekCursor;
import dev.rmq.inspect.PeekPage;
import dev.rmq.inspect.SlotCounts;
import dev.rmq.inspect.TopicCounts;
import dev.rmq.journal.NoJournalException;
import dev.rmq.producer.StoredMessage;
import dev.rmq.spring.actuate.RmqEndpointViews.Counts;
import dev.rmq.spring.actuate.RmqEndpointViews.DeadEntry;
import dev.rmq.spring.actuate.RmqEndpointViews.HistoryEntry;
import dev.rmq.spring.actuate.RmqEndpointViews.HistoryPage;
import dev.rmq.spring.actuate.RmqEndpointViews.ListenerSummary;
import dev.rmq.spring.actuate.RmqEndpointViews.MessageEntry;
import dev.rmq.spring.actuate.RmqEndpointViews.MessagePage;
import dev.rmq.spring.actuate.RmqEndpointViews.Overview;
import dev.rmq.spring.actuate.RmqEndpointViews.SlotDetail;
import dev.rmq.spring.actuate.RmqEndpointViews.SlotPage;
import dev.rmq.spring.actuate.RmqEndpointViews.TopicDetail;
import dev.rmq.spring.actuate.RmqEndpointViews.TopicSummary;
import dev.rmq.spring.listener.RmqListenerEndpointRegistry;
import dev.rmq.topic.TopicDefinition;
import dev.rmq.topic.TopicDescription;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The {@code rmq} actuator endpoint, read-only: the topics with their job controls and zones, whether they are
 * paused, where their messages are (due now, later, retrying, parked, in flight, dead), each slot's counts and
 * owners, and pages of messages without taking them.
 * <ul>
 * <li>{@code GET /actuator/rmq}: every topic, with its counts and its listener containers;</li>
 * <li>{@code GET /actuator/rmq/{topic}}: one topic slot by slot, each zone's sums, and the workers that own each
 * slot; with {@code ?view=waiting} (or {@code inflight}) {@code &offset=0&limit=20}, a page of the topic's waiting
 * messages in the order consumers take them (or of its in-flight ones, by lease deadline). A first page of waiting
 * messages gives {@code next}, a cursor: {@code ?view=waiting&cursor=...} pages on at any depth, and
 * {@code &order=newest} starts from the messages consumers take last;</li>
 * <li>{@code GET /actuator/rmq/{topic}/{slot}?offset=0&limit=20}: one slot and a page of its dead messages, or with
 * {@code view=waiting} or {@code view=inflight} a page of those;</li>
 * <li>{@code GET /actuator/rmq/{topic}/history/{key}}: with a journal, the key's messages, the latest first, each
 * with every change of its state.</li>
 * </ul>
 * With an {@link RmqCoordinator} the owners are those of the whole cluster, as ZooKeeper records them, and each
 * slot shows its planned worker too, which differs from the owner only during a handover. Without one, the
 * owners are this instance's workers.
 *
 * <p>The write operations follow Spring Boot's endpoint access control, read-only by default: with
 * {@code management.endpoint.rmq.access=UNRESTRICTED},
 * <ul>
 * <li>{@code POST /actuator/rmq/{topic}} with {@code {"action": "pause"}} or {@code {"action": "resume"}} pauses or
 * resumes the topic for every consumer in every application, with {@code {"action": "clear"}} removes every
 * waiting and parked message of the topic (deliveries in flight end as usual, dead messages stay), and with no
 * action, or {@code "requeue"}, requeues every dead message of the topic;</li>
 * <li>{@code POST /actuator/rmq/{topic}/{slot}} with {@code {"key": "..."}} requeues one;</li>
 * <li>{@code DELETE /actuator/rmq/{topic}} purges the topic's dead messages;</li>
 * <li>{@code DELETE /actuator/rmq/{topic}/{slot}?key=...} deletes one.</li>
 * </ul>
 * A requeued message starts again from attempt 0: due now, or at its priority. A clear logs the caller's principal
 * in an INFO line, before the client's own line with what it removed.
 */
@Endpoint(id = RmqEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class RmqEndpoint {

    /** The endpoint's id: its path under the actuator's, and its name in {@code management.endpoint.<id>.*}. */
    public static final String ID = "rmq";

    private static final Logger log = LoggerFactory.getLogger(RmqEndpoint.class);

    private static final int DEFAULT_PAGE = 20;

    private final RmqClient client;
    private final SlotOwners owners;
    private final String assignmentMode;
    private final BooleanSupplier writesAllowed;
    private final String instance = ManagementFactory.getRuntimeMXBean().getName();

    /**
     * @param writesAllowed whether the endpoint's access lets writes through (shown in the overview; Spring Boot
     *                      itself maps or leaves out the write operations)
     */
    public RmqEndpoint(RmqClient client, @Nullable RmqListenerEndpointRegistry registry,
                       @Nullable RmqCoordinator coordinator, String assignmentMode, BooleanSupplier writesAllowed) {
        this.client = client;
        this.owners = new SlotOwners(registry, coordinator);
        this.assignmentMode = assignmentMode;
        this.writesAllowed = writesAllowed;
    }

    @ReadOperation
    public Overview overview() {
        List<TopicSummary> topics = new ArrayList<>();
        for (TopicDefinition topic : client.topics().all()) {
            TopicCounts counts = client.inspector().counts(topic.name());
            SlotCounts total = counts.total();
            List<ListenerSummary> listeners = containers(topic.name()).stream()
                    .map(c -> new ListenerSummary(c.id(), c.isRunning(), c.settings().concurrency(), c.ownedSlots().size()))
                    .toList();
            topics.add(new TopicSummary(TopicDescription.of(topic), PauseState.of(counts).describe(), total.waiting(),
                    total.inFlight(), total.dead(), Counts.of(total), listeners));
        }
        return new Overview(instance, assignmentMode, client.zone(), writesAllowed.getAsBoolean(), topics);
    }

    /** One topic slot by slot, and a page of its messages when {@code view} asks; null (404) for an unknown topic. */
    @ReadOperation
    public @Nullable TopicDetail topic(@Selector String topic, @Nullable String view, @Nullable Long offset,
                                       @Nullable Integer limit, @Nullable String cursor, @Nullable String order) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        TopicDefinition definition = client.topics().require(topic);
        MessagePage page = null;
        if (view != null) {
            page = topicPage(definition, checkView(view, false), offset, limitOrDefault(limit), cursor, order);
        } else if (cursor != null || order != null) {
            throw new InvalidEndpointRequestException("cursor and order page the waiting messages: add view=waiting",
                    "bad page");
        }
        Map<Integer, List<String>> owners = owners(topic);
        Map<Integer, String> plan = this.owners.plan(topic);
        TopicCounts counts = client.inspector().counts(topic);
        List<SlotDetail> slots = new ArrayList<>();
        for (SlotCounts slot : counts.slots()) {
            slots.add(new SlotDetail(slot.slot(), definition.zones().zoneOf(slot.slot()), slot.paused(), slot.waiting(),
                    slot.inFlight(), slot.dead(), Counts.of(slot), owners.getOrDefault(slot.slot(), List.of()),
                    plan.get(slot.slot())));
        }
        Map<String, Counts> zones = new LinkedHashMap<>();
        counts.zones().forEach((zone, sum) -> zones.put(zone, Counts.of(sum)));
        SlotCounts total = counts.total();
        return new TopicDetail(topic, definition.type().name(), PauseState.of(counts).describe(), total.waiting(),
                total.inFlight(), total.dead(), Counts.of(total), zones, slots, page);
    }

    /**
     * A page of the topic's waiting messages, by offset (at most 1,000 deep) or by cursor (at any depth, in consume
     * order or newest first), or of its in-flight ones by offset. A first page of waiting messages, and every page
     * by cursor, gives the cursor of the next page.
     */
    private MessagePage topicPage(TopicDefinition definition, String view, @Nullable Long offset, int size,
                                  @Nullable String cursor, @Nullable String order) {
        String topic = definition.name();
        boolean byCursor = cursor != null || order != null;
        if (byCursor && (offset != null || !view.equals("waiting"))) {
            throw new InvalidEndpointRequestException("cursor and order page the waiting messages (view=waiting),"
                    + " without an offset: a cursor says where its page starts", "bad page");
        }
        if (view.equals("inflight")) {
            int from = intOffset(offset);
            return page(view, (long) from, size, pageOf(() -> client.inspector().inFlight(topic, from, size)),
                    null, definition);
        }
        if (!byCursor && offsetOr0(offset) != 0) {
            int from = intOffset(offset);
            return page(view, (long) from, size, pageOf(() -> client.inspector().peek(topic, from, size)), null,
                    definition);
        }
        PeekPage peeked = pageOf(() -> client.inspector().peek(topic, pageStart(cursor, order), size));
        PeekCursor next = peeked.next();
        return page(view, byCursor ? null : 0L, size, peeked.messages(), next == null ? null : next.token(),
                definition);
    }

    private static PeekCursor pageStart(@Nullable String cursor, @Nullable String order) {
        try {
            return PeekCursor.of(cursor, order);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(Objects.requireNonNullElse(e.getMessage(), "bad cursor"),
                    "bad cursor");
        }
    }

    /** An offset for the inspector; past an int, it refuses the offset as too deep all the same. */
    private static int intOffset(@Nullable Long offset) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, offsetOr0(offset)));
    }

    /**
     * One slot and a page of it, oldest dead messages first by default, or with {@code view=waiting} or
     * {@code view=inflight}; null (404) when the topic is unknown.
     */
    @ReadOperation
    public @Nullable SlotPage slot(@Selector String topic, @Selector int slot, @Nullable String view,
                                   @Nullable Long offset, @Nullable Integer limit) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        checkSlot(topic, slot);
        long from = offsetOr0(offset);
        String what = view == null ? "dead" : checkView(view, true);
        int size = limitOrDefault(limit);
        SlotCounts counts = client.inspector().counts(topic, slot);
        List<DeadEntry> dead = null;
        MessagePage page = null;
        TopicDefinition definition = client.topics().require(topic);
        switch (what) {
            case "dead" -> dead = pageOf(() -> client.deadQueue().list(topic, slot, from, size)).stream()
                    .map(DeadEntry::of).toList();
            case "waiting" -> page = page(what, from, size,
                    pageOf(() -> client.inspector().peek(topic, slot, from, size)), null, definition);
            default -> page = page(what, from, size,
                    pageOf(() -> client.inspector().inFlight(topic, slot, from, size)), null, definition);
        }
        return new SlotPage(topic, slot, counts.waiting(), counts.inFlight(), counts.dead(), Counts.of(counts),
                owners(topic, slot), from, dead, page);
    }

    /**
     * What the journal holds of a key's messages, the latest first: {@code GET /actuator/rmq/{topic}/history/{key}};
     * null (404) for an unknown topic, or a path whose middle part is not {@code history}.
     */
    @ReadOperation
    public @Nullable HistoryPage history(@Selector String topic, @Selector String section, @Selector String key) {
        if (!client.topics().contains(topic) || !section.equals("history")) {
            return null;
        }
        try {
            return new HistoryPage(topic, key, client.inspector().history(topic, key).stream()
                    .map(HistoryEntry::of).toList());
        } catch (NoJournalException e) {
            throw new InvalidEndpointRequestException(Objects.requireNonNullElse(e.getMessage(), "no journal"),
                    "no journal");
        }
    }

    private static MessagePage page(String view, @Nullable Long offset, int limit, List<StoredMessage> messages,
                                    @Nullable String next, TopicDefinition topic) {
        return new MessagePage(view, offset, limit, messages.stream().map(m -> MessageEntry.of(m, topic.type())).toList(),
                next);
    }

    private static String checkView(String view, boolean deadAllowed) {
        if (view.equals("waiting") || view.equals("inflight") || (deadAllowed && view.equals("dead"))) {
            return view;
        }
        throw new InvalidEndpointRequestException("view must be " + (deadAllowed ? "dead, " : "") + "waiting or inflight,"
                + " was '" + view + "'", "bad view");
    }

    private static long offsetOr0(@Nullable Long offset) {
        return offset == null ? 0 : offset;
    }

    private static int limitOrDefault(@Nullable Integer limit) {
        return limit == null ? DEFAULT_PAGE : limit;
    }

    /** Reads a page. The inspector and the dead queue check offset and limit; what they refuse is a 400 here. */
    private static <R> R pageOf(Supplier<R> read) {
        try {
            return read.get();
        } catch (IllegalArgumentException e) {
            // the inspector and the dead queue always say what they refuse
            throw new InvalidEndpointRequestException(Objects.requireNonNullElse(e.getMessage(), "bad page"), "bad page");
        }
    }


    /**
     * What a write operation did: {@code messages} requeued, deleted or purged, and the topic's pause state
     * ({@code running}, {@code paused} or {@code partly paused (n of m slots)}) after a pause or resume.
     */
    public record Change(String topic, @Nullable Integer slot, @Nullable String key, String operation, long messages,
                         @Nullable String state) {
    }

    /** Pauses, resumes, clears, or (without an action) requeues every dead message of the topic. */
    @WriteOperation
    public @Nullable Change change(@Selector String topic, @Nullable String action, SecurityContext security) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        String what = action == null ? "requeue" : action;
        return switch (what) {
            case "requeue" -> new Change(topic, null, null, "requeue", client.deadQueue().requeueAll(topic), null);
            case "pause" -> new Change(topic, null, null, "pause", 0, client.admin().pause(topic).describe());
            case "resume" -> new Change(topic, null, null, "resume", 0, client.admin().resume(topic).describe());
            case "clear" -> clear(topic, security);
            default -> throw new InvalidEndpointRequestException("action must be pause, resume, clear or requeue, was '"
                    + action + "'", "bad action");
        };
    }

    private Change clear(String topic, SecurityContext security) {
        String caller = security.getPrincipal() != null ? security.getPrincipal().getName() : "an anonymous caller";
        log.info("topic {}: clear asked through the actuator by {}", topic, caller);
        ClearReport report = client.admin().clear(topic);
        return new Change(topic, null, null, "clear", report.total(), null);
    }

    @WriteOperation
    public @Nullable Change requeue(@Selector String topic, @Selector int slot, String key) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        checkSlot(topic, slot);
        return new Change(topic, slot, key, "requeue", client.deadQueue().requeue(topic, slot, key) ? 1 : 0, null);
    }

    @DeleteOperation
    public @Nullable Change purge(@Selector String topic) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        return new Change(topic, null, null, "purge", client.deadQueue().purge(topic), null);
    }

    @DeleteOperation
    public @Nullable Change delete(@Selector String topic, @Selector int slot, String key) {
        if (!client.topics().contains(topic)) {
            return null;
        }
        checkSlot(topic, slot);
        return new Change(topic, slot, key, "delete", client.deadQueue().delete(topic, slot, key) ? 1 : 0, null);
    }

    private void checkSlot(String topic, int slot) {
        int amount = client.topics().require(topic).slotAmount();
        if (slot < 0 || slot >= amount) {
            throw new InvalidEndpointRequestException("slot of topic '" + topic + "' must be in 0.." + (amount - 1)
                    + ", was " + slot, "bad slot");
        }
    }

    private List<RmqConsumerContainer<?>> containers(String topic) {
        return owners.containers(topic);
    }

    private List<String> owners(String topic, int slot) {
        return owners.of(topic, slot);
    }

    private Map<Integer, List<String>> owners(String topic) {
        return owners.of(topic);
    }
}
