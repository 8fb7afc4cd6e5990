package dev.rmq.internal.coordination;

import dev.rmq.topic.TopicZones;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Computes which worker owns which slot. The plan is:
 * <ul>
 * <li>balanced: each of w workers holds ⌊n/w⌋ or ⌈n/w⌉ of n slots;</li>
 * <li>sticky: a worker keeps the slots it held, up to its share, so only the slots that must move do;</li>
 * <li>deterministic: the same members and previous plan give the same plan, on every instance.</li>
 * </ul>
 * The larger shares go to the workers that held the most slots (ties: lowest id), so a join or a leave
 * moves as few slots as possible.
 *
 * <p>With zones, each zone's slots are planned among the workers of that zone alone, balanced among them; the
 * slots of a zone that has no live worker are planned among every worker, and go back to the zone's workers
 * as soon as one joins. A worker's zone is part of its member name ({@link #memberName}).
 */
public final class SlotPlanner {

    private static final char ZONE_MARK = '~';

    private SlotPlanner() {
    }

    /** The member name of a worker of {@code zone} (null for none): {@code ~zone~id}, or the id alone. */
    public static String memberName(@Nullable String zone, String id) {
        return zone == null ? id : ZONE_MARK + zone + ZONE_MARK + id;
    }

    /** The zone of a member name, or null when it has none. */
    public static @Nullable String zoneOf(String member) {
        if (member.isEmpty() || member.charAt(0) != ZONE_MARK) {
            return null;
        }
        int end = member.indexOf(ZONE_MARK, 1);
        return end < 0 ? null : member.substring(1, end);
    }

    /**
     * @param slotAmount the topic's slots
     * @param members    the live workers
     * @param previous   slot → worker of the previous plan (slots of departed workers are reassigned)
     * @return slot → worker for every slot, or an empty map when there are no members
     */
    public static Map<Integer, String> plan(int slotAmount, SortedSet<String> members, Map<Integer, String> previous) {
        return plan(slotAmount, TopicZones.NONE, members, previous);
    }

    /** The plan of a topic whose slots are spread over {@code zones}; see the class comment. */
    public static Map<Integer, String> plan(int slotAmount, TopicZones zones, SortedSet<String> members,
                                            Map<Integer, String> previous) {
        Map<Integer, String> plan = new TreeMap<>();
        if (members.isEmpty()) {
            return plan;
        }
        Map<String, SortedSet<String>> byZone = new HashMap<>();
        for (String member : members) {
            String zone = zoneOf(member);
            if (zone != null) {
                byZone.computeIfAbsent(zone, z -> new TreeSet<>()).add(member);
            }
        }
        Map<String, SortedSet<Integer>> slotsByZone = new TreeMap<>();
        SortedSet<Integer> orphans = new TreeSet<>();
        for (int slot = 0; slot < slotAmount; slot++) {
            String zone = zones.zoneOf(slot);
            if (zone != null && byZone.containsKey(zone)) {
                slotsByZone.computeIfAbsent(zone, z -> new TreeSet<>()).add(slot);
            } else {
                orphans.add(slot);
            }
        }
        slotsByZone.forEach((zone, slots) -> plan.putAll(planSlots(slots,
                Objects.requireNonNull(byZone.get(zone), "only a zone with members has slots of its own"), previous)));
        if (!orphans.isEmpty()) {
            plan.putAll(planSlots(orphans, members, previous));
        }
        return plan;
    }

    /** Plans {@code slots} among {@code members}: balanced, sticky and deterministic. */
    private static Map<Integer, String> planSlots(SortedSet<Integer> slots, SortedSet<String> members,
                                                  Map<Integer, String> previous) {
        Map<Integer, String> plan = new TreeMap<>();
        Map<String, SortedSet<Integer>> held = new HashMap<>();
        for (String member : members) {
            held.put(member, new TreeSet<>());
        }
        previous.forEach((slot, member) -> {
            SortedSet<Integer> itsSlots = held.get(member);
            if (slots.contains(slot) && itsSlots != null) {
                itsSlots.add(slot);
            }
        });

        // every member has its entry in held, quota and kept: the defaults below are never used
        List<String> byHoldings = new ArrayList<>(members);
        byHoldings.sort(Comparator
                .comparingInt((String m) -> -held.getOrDefault(m, Collections.emptySortedSet()).size())
                .thenComparing(Comparator.naturalOrder()));
        int base = slots.size() / members.size();
        int extra = slots.size() % members.size();
        Map<String, Integer> quota = new HashMap<>();
        for (int i = 0; i < byHoldings.size(); i++) {
            quota.put(byHoldings.get(i), base + (i < extra ? 1 : 0));
        }

        SortedSet<Integer> free = new TreeSet<>(slots);
        Map<String, Integer> kept = new HashMap<>();
        for (String member : members) {
            int has = 0;
            for (int slot : held.getOrDefault(member, Collections.emptySortedSet())) {
                if (has == quota.getOrDefault(member, 0)) {
                    break;
                }
                plan.put(slot, member);
                free.remove(slot);
                has++;
            }
            kept.put(member, has);
        }
        for (String member : members) {
            int has = kept.getOrDefault(member, 0);
            while (has < quota.getOrDefault(member, 0)) {
                int slot = free.first();
                free.remove(slot);
                plan.put(slot, member);
                has++;
            }
        }
        return plan;
    }
}
