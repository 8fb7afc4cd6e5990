package dev.rmq.internal.coordination;

import dev.rmq.topic.TopicZones;
import dev.rmq.topic.ZoneRouting;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedSet;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

class SlotPlannerTests {

    private static SortedSet<String> members(String... ids) {
        return new TreeSet<>(List.of(ids));
    }

    private static Map<String, Integer> counts(Map<Integer, String> plan) {
        Map<String, Integer> counts = new HashMap<>();
        plan.values().forEach(m -> counts.merge(m, 1, Integer::sum));
        return counts;
    }

    private static int moved(Map<Integer, String> before, Map<Integer, String> after) {
        int moved = 0;
        for (Map.Entry<Integer, String> e : after.entrySet()) {
            if (before.containsKey(e.getKey()) && !before.get(e.getKey()).equals(e.getValue())) {
                moved++;
            }
        }
        return moved;
    }

    @Test
    void givesEveryWorkerTheFloorOrTheCeilingOfItsShare() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            int slots = 1 << random.nextInt(8);
            SortedSet<String> members = new TreeSet<>();
            int w = 1 + random.nextInt(12);
            for (int i = 0; i < w; i++) {
                members.add("w" + random.nextInt(1000));
            }
            Map<Integer, String> plan = SlotPlanner.plan(slots, members, Map.of());
            assertThat(plan).hasSize(slots);
            int floor = slots / members.size();
            for (String m : members) {
                assertThat(counts(plan).getOrDefault(m, 0)).isBetween(floor, floor + 1);
            }
        }
    }

    @Test
    void movesOnlyWhatMustMoveWhenAWorkerJoinsOrLeaves() {
        Map<Integer, String> three = SlotPlanner.plan(64, members("a", "b", "c"), Map.of());
        Map<Integer, String> four = SlotPlanner.plan(64, members("a", "b", "c", "d"), three);
        assertThat(counts(four).get("d")).isEqualTo(16);
        assertThat(moved(three, four)).isEqualTo(16);

        Map<Integer, String> afterLeave = SlotPlanner.plan(64, members("a", "c", "d"), four);
        // only b's 16 slots move; everyone else keeps what they had
        assertThat(moved(four, afterLeave)).isEqualTo(16);
        four.forEach((slot, member) -> {
            if (!member.equals("b")) {
                assertThat(afterLeave.get(slot)).isEqualTo(member);
            }
        });
    }

    @Test
    void isDeterministicForTheSameMembersAndPreviousPlan() {
        Map<Integer, String> previous = SlotPlanner.plan(32, members("x", "y"), Map.of());
        Map<Integer, String> one = SlotPlanner.plan(32, members("x", "y", "z"), previous);
        Map<Integer, String> two = SlotPlanner.plan(32, members("z", "y", "x"), new HashMap<>(previous));
        assertThat(one).isEqualTo(two);
    }

    @Test
    void leavesWorkersBeyondTheSlotCountWithNothing() {
        Map<Integer, String> plan = SlotPlanner.plan(2, members("a", "b", "c", "d"), Map.of());
        assertThat(plan).hasSize(2);
        assertThat(counts(plan).values()).containsOnly(1);
        assertThat(SlotPlanner.plan(4, new TreeSet<>(), Map.of())).isEmpty();
    }

    @Test
    void keepsTheLargerSharesWithTheWorkersThatAlreadyHeldThem() {
        Map<Integer, String> previous = new HashMap<>();
        for (int s = 0; s < 5; s++) {
            previous.put(s, s < 3 ? "b" : "a");
        }
        Map<Integer, String> plan = SlotPlanner.plan(5, members("a", "b"), previous);
        assertThat(plan).isEqualTo(previous);
    }

    @Test
    void returnsABalancedPlanOfLiveMembersUnchangedAndChangesAnyOther() {
        // the assignment rewrites the plan only when the planner changes it, so every balanced plan is a fixed point
        Random random = new Random(11);
        for (int round = 0; round < 200; round++) {
            int slots = 1 << random.nextInt(8);
            SortedSet<String> members = new TreeSet<>();
            int w = 1 + random.nextInt(12);
            for (int i = 0; i < w; i++) {
                members.add("w" + random.nextInt(1000));
            }
            Map<Integer, String> balanced = SlotPlanner.plan(slots, members, Map.of());
            assertThat(SlotPlanner.plan(slots, members, balanced)).isEqualTo(balanced);

            SortedSet<String> withNewcomer = new TreeSet<>(members);
            withNewcomer.add("newcomer");
            if (slots >= withNewcomer.size()) {
                assertThat(SlotPlanner.plan(slots, withNewcomer, balanced)).isNotEqualTo(balanced);
            }
            Map<Integer, String> missingSlot = new HashMap<>(balanced);
            missingSlot.remove(0);
            assertThat(SlotPlanner.plan(slots, members, missingSlot)).isNotEqualTo(missingSlot);
        }
    }

    @Test
    void aZonesSlotsGoToItsOwnWorkersAndToEveryoneOnlyWhileItHasNone() {
        TopicZones zones = TopicZones.of(List.of("a", "b"), ZoneRouting.SENDER_ZONE);
        String a1 = SlotPlanner.memberName("a", "i1-c-0");
        String a2 = SlotPlanner.memberName("a", "i2-c-0");
        String b1 = SlotPlanner.memberName("b", "i3-c-0");
        assertThat(SlotPlanner.zoneOf(b1)).isEqualTo("b");
        assertThat(SlotPlanner.zoneOf("i4-c-0")).isNull();

        Map<Integer, String> full = SlotPlanner.plan(8, zones, members(a1, a2, b1), Map.of());
        assertThat(full).hasSize(8);
        full.forEach((slot, member) -> assertThat(SlotPlanner.zoneOf(member)).as("slot %d", slot)
                .isEqualTo(zones.zoneOf(slot)));
        assertThat(counts(full)).containsEntry(a1, 2).containsEntry(a2, 2).containsEntry(b1, 4);

        Map<Integer, String> zoneBGone = SlotPlanner.plan(8, zones, members(a1, a2), full);
        assertThat(counts(zoneBGone)).containsEntry(a1, 4).containsEntry(a2, 4);
        assertThat(moved(full, zoneBGone)).as("only zone b's slots move").isEqualTo(4);

        String b2 = SlotPlanner.memberName("b", "i5-c-0");
        Map<Integer, String> zoneBBack = SlotPlanner.plan(8, zones, members(a1, a2, b2), zoneBGone);
        zoneBBack.forEach((slot, member) -> assertThat(SlotPlanner.zoneOf(member)).isEqualTo(zones.zoneOf(slot)));
        assertThat(SlotPlanner.plan(8, zones, members(a1, a2, b2), zoneBBack)).as("stable").isEqualTo(zoneBBack);

        String zoneless = "i6-c-0";
        Map<Integer, String> withZoneless = SlotPlanner.plan(8, zones, members(a1, zoneless), Map.of());
        // zone a's slots stay with zone a; zone b has no worker, so its slots go to everyone, the zoneless one too
        withZoneless.forEach((slot, member) -> {
            if (zones.zoneOf(slot).equals("a")) {
                assertThat(member).as("slot %d", slot).isEqualTo(a1);
            }
        });
        assertThat(withZoneless.values()).contains(zoneless);
    }
}
