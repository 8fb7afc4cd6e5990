package dev.rmq.server.api.delivery;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;

/**
 * What a settle did, as rmq's {@code AckOutcome}: {@code COMMITTED}, {@code RETRY}, {@code DEAD}, {@code EXPIRED},
 * {@code MERGED}, {@code RELEASED}, {@code STALE} or {@code GONE}; or {@code EXTENDED} for an extension, with the
 * new lease deadline.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OutcomeView(String outcome, @Nullable String leaseDeadline) {
}
