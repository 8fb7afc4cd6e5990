/**
 * Micrometer Observation around sends and handler calls, when the application gives rmq an
 * {@code ObservationRegistry}: a trace started where a message is sent continues in the handler that consumes it,
 * through the message's headers, as spring-kafka's observation does. And the application's metrics and event
 * listeners, called so that one that throws breaks none of rmq's work and is logged, rate-limited.
 */
@NullMarked
package dev.rmq.internal.observation;

import org.jspecify.annotations.NullMarked;
