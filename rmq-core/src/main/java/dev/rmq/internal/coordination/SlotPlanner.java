package dev.rmq.internal.coordination;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 */
public final class SlotPlanner {

    private SlotPlanner() {
    }

    /**
     * @param slotAmount the topic's slots
     * @param members    the live workers
     * @param previous   slot → worker of the previous plan (slots of departed workers are reassigned)
     * @return slot → worker for every slot, or an empty map when there are no members
     */
    public static Map<Integer, String> plan(int slotAmount, SortedSet<String> members, Map<Integer, String> previous) {
        Map<Integer, String> plan = new TreeMap<>();
        if (members.isEmpty()) {
            return plan;
        }
        Map<String, SortedSet<Integer>> held = new HashMap<>();
        for (String member : members) {
            held.put(member, new TreeSet<>());
        }
        previous.forEach((slot, member) -> {
            if (slot >= 0 && slot < slotAmount && held.containsKey(member)) {
                held.get(member).add(slot);
            }
        });

        List<String> byHoldings = new ArrayList<>(members);
        byHoldings.sort(Comparator.comparingInt((String m) -> -held.get(m).size()).thenComparing(Comparator.naturalOrder()));
        int base = slotAmount / members.size();
        int extra = slotAmount % members.size();
        Map<String, Integer> quota = new HashMap<>();
        for (int i = 0; i < byHoldings.size(); i++) {
            quota.put(byHoldings.get(i), base + (i < extra ? 1 : 0));
        }

        SortedSet<Integer> free = new TreeSet<>();
        for (int slot = 0; slot < slotAmount; slot++) {
            free.add(slot);
        }
        Map<String, Integer> kept = new HashMap<>();
        for (String member : members) {
            int has = 0;
            for (int slot : held.get(member)) {
                if (has == quota.get(member)) {
                    break;
                }
                plan.put(slot, member);
                free.remove(slot);
                has++;
            }
            kept.put(member, has);
        }
        for (String member : members) {
            int has = kept.get(member);
            while (has < quota.get(member)) {
                int slot = free.first();
                free.remove(slot);
                plan.put(slot, member);
                has++;
            }
        }
        return plan;
    }
}
