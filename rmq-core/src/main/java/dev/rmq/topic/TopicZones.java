package dev.rmq.topic;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How a topic's slots are spread over availability zones, as dyno-queues spreads its shards: zone {@code i} of
 * {@code n} holds the slots {@code s} with {@code s mod n == i}. With zones, a producer sends to the slots of its
 * own zone (unless the routing is {@link ZoneRouting#BASIS}), and consumers take their own zone's slots first: with
 * ZooKeeper, a zone's slots go to that zone's workers and to others only while the zone has none. Immutable.
 */
public final class TopicZones {

    /** How a producer routes when the topic does not say: to its own zone's slots. */
    public static final ZoneRouting DEFAULT_ROUTING = ZoneRouting.SENDER_ZONE;

    /** No zones: every slot is everyone's. */
    public static final TopicZones NONE = new TopicZones(List.of(), DEFAULT_ROUTING);

    private final List<String> names;
    private final ZoneRouting routing;

    private TopicZones(List<String> names, ZoneRouting routing) {
        this.names = names;
        this.routing = routing;
    }

    /**
     * Zones named {@code names}, in order; none when the list is empty.
     *
     * @throws IllegalArgumentException for an invalid or repeated name, or a null routing
     */
    public static TopicZones of(List<String> names, ZoneRouting routing) {
        if (names == null || routing == null) {
            throw new IllegalArgumentException("zones and their routing must not be null");
        }
        Set<String> seen = new HashSet<>();
        List<String> checked = new ArrayList<>(names.size());
        for (String name : names) {
            Names.check("zone name", name);
            if (!seen.add(name)) {
                throw new IllegalArgumentException("zone '" + name + "' is listed twice in " + names);
            }
            checked.add(name);
        }
        return checked.isEmpty() && routing == ZoneRouting.SENDER_ZONE ? NONE
                : new TopicZones(List.copyOf(checked), routing);
    }

    public List<String> names() {
        return names;
    }

    public ZoneRouting routing() {
        return routing;
    }

    public boolean isEmpty() {
        return names.isEmpty();
    }

    /** The zone that holds {@code slot}, or null without zones. */
    public @Nullable String zoneOf(int slot) {
        return names.isEmpty() ? null : names.get(slot % names.size());
    }

    /**
     * Whether a consumer of {@code zone} takes {@code slot} first: always without zones or without a zone of its own
     * ({@code zone} null).
     */
    public boolean isLocal(int slot, @Nullable String zone) {
        return names.isEmpty() || zone == null || !names.contains(zone) || zone.equals(zoneOf(slot));
    }

    /**
     * The slot of a message with {@code slotBasis} sent from {@code senderZone} (null for none), in a topic of
     * {@code slotAmount} slots: within the sender's zone, {@code CRC32(basis) mod} the zone's slot count picks the
     * zone's slot; otherwise, as without zones.
     */
    public int slotOf(String slotBasis, int slotAmount, @Nullable String senderZone) {
        int zone = routing == ZoneRouting.BASIS || senderZone == null ? -1 : names.indexOf(senderZone);
        if (zone < 0) {
            return SlotRouter.slotOf(slotBasis, slotAmount);
        }
        int zones = names.size();
        int slotsOfZone = (slotAmount - 1 - zone) / zones + 1;
        return zone + zones * SlotRouter.slotOf(slotBasis, slotsOfZone);
    }

    /** Checks the zones against a topic's slot amount: each zone needs a slot. */
    void check(String topic, int slotAmount) {
        if (names.size() > slotAmount) {
            throw new IllegalArgumentException("topic '" + topic + "' spreads its " + slotAmount + " slot(s) over "
                    + names.size() + " zones " + names + "; each zone needs at least one slot");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TopicZones z && names.equals(z.names) && routing == z.routing;
    }

    @Override
    public int hashCode() {
        return Objects.hash(names, routing);
    }

    @Override
    public String toString() {
        return names.isEmpty() ? "none" : names + "/" + routing;
    }
}
