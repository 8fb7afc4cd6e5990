package dev.rmq.internal.slot;

import dev.rmq.consumer.SlotOrder;
import dev.rmq.topic.TopicType;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which of a consumer's due slots of one topic it polls next, and how much it may take there ({@link SlotOrder}).
 *
 * <p>Most urgent first: a consumer knows each slot's next due message from that slot's last poll, whose reply names
 * it. It reads the heads it does not know (a slot just assigned, or after a failed poll) in one round trip before
 * it chooses. While a consumer works through a slot's waiting messages, a send of a more urgent one tells it on the
 * slot's wake channel, and it reads that head again. On a priority topic the chosen slot's poll takes nothing less
 * urgent than the next slot's head: its floor. On a time-based topic it takes a whole poll, the earliest due first:
 * a backlog there is late as a whole, and floors would cut its polls short. Round robin keeps the order the driver
 * gave, and polls without a floor.
 */
public final class SlotChoice {

    private static final Comparator<SlotSession<?>> MOST_URGENT_FIRST =
            Comparator.comparingDouble((SlotSession<?> session) -> rank(session.urgency())).reversed();

    private SlotChoice() {
    }

    /**
     * How urgent a slot's next due message is, from its score: its priority, or the negated due time, so that more
     * urgent is always greater. Negative infinity when none is due ({@code score} null).
     */
    public static double urgency(TopicType type, Long score) {
        if (score == null) {
            return Double.NEGATIVE_INFINITY;
        }
        return type.isTimed() ? -score.doubleValue() : score.doubleValue();
    }

    /** The score of an urgency ({@link #urgency}); null when it is not a finite one. */
    static Long score(TopicType type, double urgency) {
        if (Double.isNaN(urgency) || Double.isInfinite(urgency)) {
            return null;
        }
        return (long) (type.isTimed() ? -urgency : urgency);
    }

    /** Unknown heads, whose read failed, go after every known one. */
    private static double rank(double urgency) {
        return Double.isNaN(urgency) ? Double.NEGATIVE_INFINITY : urgency;
    }

    /** Sorts {@code due} most urgent first, reading the heads not known yet; equals keep the driver's order. */
    private static <T> void sort(List<SlotSession<T>> due, SlotCalls calls) {
        List<SlotSession<T>> unknown = new ArrayList<>();
        for (SlotSession<T> session : due) {
            if (Double.isNaN(session.urgency())) {
                unknown.add(session);
            }
        }
        if (!unknown.isEmpty()) {
            try {
                List<Long> heads = calls.heads(unknown.stream().map(session -> session.keys).toList());
                for (int i = 0; i < unknown.size(); i++) {
                    SlotSession<T> session = unknown.get(i);
                    session.timing().urgency(urgency(session.topic().type(), heads.get(i)));
                }
            } catch (RuntimeException e) {
                // left unknown: they are polled after the known ones, and their polls report the failure
            }
        }
        due.sort(MOST_URGENT_FIRST);
    }

    /** One poll of a pass over a consumer's due slots: the slot, and its floor score (null for a whole poll). */
    public record Pick<T>(SlotSession<T> session, Long floor) {
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
        sort(due, calls);
        TopicType type = due.get(0).topic().type();
        // a time-based backlog is late as a whole: its polls are not cut short, which would cost many more of them
        boolean floors = !type.isTimed();
        Long best = floors ? score(type, due.get(0).urgency()) : null;
        for (SlotSession<T> session : due) {
            if (!(session.urgency() > Double.NEGATIVE_INFINITY)) {
                picks.add(new Pick<>(session, best));
            }
        }
        if (picks.isEmpty()) {
            picks.add(new Pick<>(due.get(0), floors ? score(type, due.get(1).urgency()) : null));
        }
        return picks;
    }
}
