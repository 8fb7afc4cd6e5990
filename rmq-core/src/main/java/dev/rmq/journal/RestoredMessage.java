package dev.rmq.journal;

import java.util.Map;

/**
 * A message to put back into Redis.
 *
 * @param key       its key
 * @param slot      its slot
 * @param score     its due time (epoch ms) or priority; a due time in the past makes it due at once
 * @param notBefore for a priority message, when it becomes visible (epoch ms), 0 for at once
 * @param expireAt  when its time to live runs out (epoch ms), 0 for never
 * @param attempts  the deliveries it has had: the next is attempt {@code attempts + 1}
 * @param headers   its headers
 * @param payload   its payload, as the client's codec wrote it
 * @param lastError the reason of its last failure, which its next delivery shows; empty when none
 */
public record RestoredMessage(String key, int slot, long score, long notBefore, long expireAt, int attempts,
                              Map<String, String> headers, byte[] payload, String lastError) {

    /** A message that never failed, or whose last error is not known. */
    public RestoredMessage(String key, int slot, long score, long notBefore, long expireAt, int attempts,
                           Map<String, String> headers, byte[] payload) {
        this(key, slot, score, notBefore, expireAt, attempts, headers, payload, "");
    }

    public RestoredMessage {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("a restored message needs its key, was " + (key == null ? "null" : "empty"));
        }
        if (attempts < 0 || attempts > 65535) {
            throw new IllegalArgumentException("attempts must be in 0..65535, was " + attempts);
        }
        if (notBefore < 0 || expireAt < 0) {
            throw new IllegalArgumentException("notBefore and expireAt are epoch ms, or 0 for none; were " + notBefore
                    + " and " + expireAt);
        }
        if (headers == null || payload == null) {
            throw new IllegalArgumentException("a restored message needs its headers (empty for none) and its payload;"
                    + " key \"" + key + "\" had " + (headers == null ? "null headers" : "a null payload"));
        }
        headers = Map.copyOf(headers);
        lastError = lastError == null ? "" : lastError;
    }
}
