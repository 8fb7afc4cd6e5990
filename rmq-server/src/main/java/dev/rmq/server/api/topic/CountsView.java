package dev.rmq.server.api.topic;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.rmq.admin.PauseState;
import dev.rmq.inspect.SlotCounts;
import dev.rmq.inspect.TopicCounts;
import org.jspecify.annotations.Nullable;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a topic's messages are, by the Redis clock: the sums, each slot's counts, and each zone's sums.
 *
 * @param state {@code running}, {@code paused}, or {@code partly paused (n of m slots)}
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record CountsView(String topic, String state, Counts total, List<Counts> slots, Map<String, Counts> zones) {

    /**
     * One slot's counts, or a sum (without a slot). {@code waiting} is {@code dueNow + later + parked};
     * {@code retrying} counts those of the waiting ones that failed before; {@code dueAgeMs} is how long the oldest
     * due message has waited since its due time (range-merge and fixed-time; 0 when none is due; for a sum, the most
     * of any slot).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Counts(@Nullable Integer slot, long waiting, long dueNow, long later, long retrying, long parked,
                         long inFlight, long dead, boolean paused, long dueAgeMs) {

        static Counts of(SlotCounts counts) {
            return new Counts(counts.slot() < 0 ? null : counts.slot(), counts.waiting(), counts.dueNow(),
                    counts.later(), counts.retrying(), counts.parked(), counts.inFlight(), counts.dead(),
                    counts.paused(), counts.dueAgeMs());
        }
    }

    static CountsView of(TopicCounts counts) {
        Map<String, Counts> zones = new LinkedHashMap<>();
        counts.zones().forEach((zone, sum) -> zones.put(zone, Counts.of(sum)));
        return new CountsView(counts.topic(), PauseState.of(counts).describe(),
                Counts.of(counts.total()), counts.slots().stream().map(Counts::of).toList(), zones);
    }
}
