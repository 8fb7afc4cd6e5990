package dev.rmq.server.api.delivery;

import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;

/**
 * What a settle did, as rmq's {@code AckOutcome}: {@code COMMITTED}, {@code RETRY}, {@code DEAD}, {@code EXPIRED},
 * {@code MERGED}, {@code RELEASED}, {@code STALE}, {@code GONE} or {@code CANCELLED} (a cancel removed the delivery
 * while it was held: nothing was done); or {@code EXTENDED} for an extension, with the
 * new lease deadline and the new token: the token names the lease, so the old one settles nothing any more; or
 * {@code PROGRESS_RECORDED} for a progress report, with the lease deadline and the token, new only when the report
 * extended the lease.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OutcomeView(String outcome, @Nullable String leaseDeadline, @Nullable String token) {
}
