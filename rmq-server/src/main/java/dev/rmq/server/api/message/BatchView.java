package dev.rmq.server.api.message;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import java.util.List;

/**
 * What a batch did, message by message in the order sent.
 *
 * @param stored  how many are in Redis, added or merged
 * @param duplicates how many their repeated-key rule left out, kept or throttled
 * @param refused how many were refused (a full backlog, a fixed time too far past)
 * @param unknown how many Redis did not answer for: they may be stored; sending them again is safe
 */
public record BatchView(int stored, int duplicates, int refused, int unknown, List<Item> results) {

    /**
     * One message's outcome: {@code STORED} or {@code DUPLICATE} with its receipt, or {@code REFUSED} /
     * {@code UNKNOWN} with the problem.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Item(int index, String status, @Nullable String topic, @Nullable String key, @Nullable Integer slot,
                       @Nullable String outcome, @Nullable Boolean merged, @Nullable String lateBy,
                       @Nullable JsonNode problem) {

        static Item answered(int index, String status, ReceiptView receipt) {
            return new Item(index, status, receipt.topic(), receipt.key(), receipt.slot(), receipt.outcome(),
                    receipt.merged(), receipt.lateBy(), null);
        }

        static Item failed(int index, String status, JsonNode problem) {
            return new Item(index, status, null, null, null, null, null, null, problem);
        }
    }
}
