/**
 * Micrometer Observation around sends and handler calls, when the application gives rmq an
 * {@code ObservationRegistry}: a trace started where a message is sent continues in the handler that consumes it,
 * through the message's headers, as spring-kafka's observation does.
 */
package dev.rmq.internal.observation;
