package dev.rmq.internal.slot;

import dev.rmq.consumer.SlotOrder;
import dev.rmq.internal.script.SlotHeads;
import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which of a consumer's due slots of one topic it polls next, and how much it may take there ({@link SlotOrder}).
 *
 * <p>Most urgent first: a consumer knows each slot's next due message from that slot's last poll, whose reply names
 * it. It reads the heads it does not know (a slot just assigned or woken, or after a failed poll) in one round trip
 * before it chooses. While a consumer works through a slot's waiting messages, or knows its head from such a read,
 * a send of a more urgent one tells it on the slot's wake channel, and it reads that head again. On a priority
 * topic the chosen slot's poll takes nothing less urgent than the next slot's head: its floor. On a time-based topic
 * it takes a whole poll, the earliest due first: a backlog there is late as a whole, and floors would cut its polls
 * short. Round robin keeps the order the driver gave, and polls without a floor.
 */
public final class SlotChoice {

    private SlotChoice() {
    }

    /**
     * How urgent a slot's next due message is, from its score: its priority, or the negated due time, so that more
     * urgent is always greater. Negative infinity when none is due ({@code score} null).
     */
    public static double urgency(TopicType type, @Nullable Long score) {
        if (score == null) {
            return Double.NEGATIVE_INFINITY;
        }
        return type.isTimed() ? -score.doubleValue() : score.doubleValue();
    }

    /** The score of an urgency ({@link #urgency}); null when it is not a finite one. */
    static @Nullable Long score(TopicType type, double urgency) {
        if (Double.isNaN(urgency) || Double.isInfinite(urgency)) {
            return null;
        }
        return (long) (type.isTimed() ? -urgency : urgency);
    }

    /** Each session's wake-ups so far, before its head is read. */
    private static <T> long[] wakes(List<SlotSession<T>> sessions) {
        long[] wakes = new long[sessions.size()];
        for (int i = 0; i < wakes.length; i++) {
            wakes[i] = sessions.get(i).timing().wakes();
        }
        return wakes;
    }

    /** What a read of a slot's most urgent scores tells of its head, unless a wake-up came during the read. */
    private static void read(SlotSession<?> session, SlotHeads.Heads heads, long wakesBefore) {
        List<Long> top = heads.scores();
        session.timing().urgency(urgency(session.topic().type(), top.isEmpty() ? null : top.get(0)),
                heads.delayedDueMs(), wakesBefore);
    }

    /** Unknown heads, whose read failed, go after every known one. */
    private static double rank(double urgency) {
        return Double.isNaN(urgency) ? Double.NEGATIVE_INFINITY : urgency;
    }

    /** A due slot and how urgent its head was when the pass began. */
    private record Ranked<T>(SlotSession<T> session, double urgency) {
    }

    /**
     * {@code due} most urgent first, reading the heads not known yet; equals keep the driver's order. Each urgency is
     * read once: a wake-up may forget a head while the list is sorted, and a comparison whose answer changes breaks
     * the sort, which may then throw.
     */
    private static <T> List<Ranked<T>> sort(List<SlotSession<T>> due, SlotCalls calls) {
        List<SlotSession<T>> unknown = new ArrayList<>();
        for (SlotSession<T> session : due) {
            if (Double.isNaN(session.urgency())) {
                unknown.add(session);
            }
        }
        if (!unknown.isEmpty()) {
            long[] wakes = wakes(unknown);
            try {
                List<SlotHeads.Heads> heads = calls.tops(unknown.stream().map(session -> session.keys).toList(), 1);
                for (int i = 0; i < unknown.size(); i++) {
                    read(unknown.get(i), heads.get(i), wakes[i]);
                }
            } catch (RuntimeException e) {
                // left unknown: they are polled after the known ones, and their polls report the failure
            }
        }
        List<Ranked<T>> ranked = new ArrayList<>(due.size());
        for (SlotSession<T> session : due) {
            ranked.add(new Ranked<>(session, session.urgency()));
        }
        ranked.sort(Comparator.comparingDouble((Ranked<T> r) -> rank(r.urgency())).reversed());
        return ranked;
    }

    /**
     * One poll of a pass over a consumer's due slots: the slot, its floor score (null for a whole poll), and how many
     * messages it should take (0 for the driver's own share).
     */
    public record Pick<T>(SlotSession<T> session, @Nullable Long floor, int want) {

        Pick(SlotSession<T> session, @Nullable Long floor) {
            this(session, floor, 0);
        }
    }

    /**
     * The polls of one pass over a consumer's due slots of one topic, in order. In turn: each slot, a whole poll.
     * Most urgent first: the due slots with no message known to be due are polled first, and alone, since their
     * polls recover expired leases and may find messages more urgent than any known; on a priority topic they take
     * nothing less urgent than the most urgent head known. Otherwise the most urgent slot alone, on a priority
     * topic taking nothing less urgent than the next one's head. The driver plans again after each pass.
     */
    public static <T> List<Pick<T>> plan(List<SlotSession<T>> due, SlotCalls calls) {
        List<Pick<T>> picks = new ArrayList<>();
        if (calls.slotOrder() != SlotOrder.MOST_URGENT || due.size() < 2) {
            due.forEach(session -> picks.add(new Pick<>(session, null)));
            return picks;
        }
        List<Ranked<T>> ranked = sort(due, calls);
        TopicType type = due.get(0).topic().type();
        // a time-based backlog is late as a whole: its polls are not cut short, which would cost many more of them
        boolean floors = !type.isTimed();
        // the most urgent head known; a slot whose delayed message came due (positive infinity) has none to give
        Long best = null;
        for (int i = 0; floors && best == null && i < ranked.size(); i++) {
            best = score(type, ranked.get(i).urgency());
        }
        for (Ranked<T> slot : ranked) {
            if (!(slot.urgency() > Double.NEGATIVE_INFINITY)) {
                picks.add(new Pick<>(slot.session(), best));
            }
        }
        if (picks.isEmpty()) {
            picks.add(new Pick<>(ranked.get(0).session(), floors ? score(type, ranked.get(1).urgency()) : null));
        }
        return picks;
    }

    /**
     * The polls of one pull of up to {@code want} messages from the due slots of a priority topic, most urgent
     * first: the most urgent {@code want} messages over those slots, read beforehand, each slot polled once for its
     * part of them, none below the least urgent of them (the floor). The driver puts what they give in order. A
     * slot's delayed messages that came due count among its messages by their priorities, read for the purpose: its
     * poll moves them among the waiting ones before it takes its part. Null when the consumer takes its slots in
     * turn, or on a time-based topic, whose polls are whole.
     */
    public static <T> @Nullable List<Pick<T>> top(List<SlotSession<T>> due, int want, SlotCalls calls) {
        if (calls.slotOrder() != SlotOrder.MOST_URGENT || due.size() < 2 || due.get(0).topic().type().isTimed()) {
            return null;
        }
        long[] wakes = wakes(due);
        List<SlotHeads.Heads> tops;
        try {
            tops = calls.tops(due.stream().map(session -> session.keys).toList(), want);
        } catch (RuntimeException e) {
            // the polls report the failure
            return null;
        }
        List<List<Long>> ranked = withDueDelayed(due, tops, want, calls);
        // {score, slot, rank in its slot}: equals go a rank of each slot at a time, so a busy slot starves none
        List<long[]> merged = new ArrayList<>();
        for (int i = 0; i < due.size(); i++) {
            List<Long> scores = ranked.get(i);
            for (int rank = 0; rank < scores.size(); rank++) {
                merged.add(new long[] {scores.get(rank), i, rank});
            }
        }
        merged.sort(Comparator.<long[]>comparingLong(e -> -e[0]).thenComparingLong(e -> e[2])
                .thenComparingLong(e -> e[1]));
        int taken = Math.min(want, merged.size());
        Long floor = taken == 0 ? null : merged.get(taken - 1)[0];
        int[] parts = new int[due.size()];
        for (int i = 0; i < taken; i++) {
            parts[(int) merged.get(i)[1]]++;
        }
        List<Pick<T>> picks = new ArrayList<>();
        for (int i = 0; i < due.size(); i++) {
            SlotSession<T> session = due.get(i);
            read(session, tops.get(i), wakes[i]);
            // a slot with nothing waiting is still polled: its poll recovers expired leases
            if (parts[i] > 0 || tops.get(i).scores().isEmpty()) {
                picks.add(new Pick<>(session, floor, Math.max(1, parts[i])));
            }
        }
        return picks;
    }

    /**
     * Each slot's most urgent scores, up to {@code want}: its waiting messages' as read, and where its earliest delayed
     * message has come due by the Redis clock (as the last poll's reply set this host's), the priorities of its
     * delayed messages due, among them; a delayed message ranked before Redis moves it would set the floor. Without
     * them a delayed message of priority 100 that came due would wait behind another slot's backlog of 50. Where
     * that read fails, the waiting messages' scores alone: the polls report the failure.
     */
    private static <T> List<List<Long>> withDueDelayed(List<SlotSession<T>> due, List<SlotHeads.Heads> tops, int want,
                                                        SlotCalls calls) {
        List<List<Long>> scores = new ArrayList<>(tops.size());
        List<Integer> late = new ArrayList<>();
        long now = calls.redisNowMs();
        for (int i = 0; i < tops.size(); i++) {
            scores.add(tops.get(i).scores());
            Long delayedDue = tops.get(i).delayedDueMs();
            if (delayedDue != null && delayedDue <= now) {
                late.add(i);
            }
        }
        if (late.isEmpty()) {
            return scores;
        }
        List<List<Long>> priorities;
        try {
            priorities = calls.duePriorities(late.stream().map(i -> due.get(i).keys).toList(), now, want);
        } catch (RuntimeException e) {
            return scores;
        }
        for (int j = 0; j < late.size(); j++) {
            List<Long> combined = new ArrayList<>(scores.get(late.get(j)));
            combined.addAll(priorities.get(j));
            combined.sort(Comparator.reverseOrder());
            scores.set(late.get(j), combined.subList(0, Math.min(want, combined.size())));
        }
        return scores;
    }
}
