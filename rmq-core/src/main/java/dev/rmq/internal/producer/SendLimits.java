package dev.rmq.internal.producer;

/**
 * What a producer's sends may hold, as the client's builder set it (and checked).
 *
 * @param maxPayloadBytes the largest message, payload plus headers as stored
 * @param bufferBytes     the most bytes of single sends that may wait for their lane's call in flight to Redis
 */
public record SendLimits(int maxPayloadBytes, long bufferBytes) {
}
