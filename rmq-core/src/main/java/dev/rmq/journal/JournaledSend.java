package dev.rmq.journal;

import dev.rmq.topic.TopicType;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.Map;

/**
 * A message as Redis stored it: all a journal needs to put it back.
 *
 * @param topic     the topic
 * @param type      the topic's type
 * @param slot      the slot it went to
 * @param key       its key
 * @param merged    whether it merged into a message of the same key that was waiting
 * @param score     its due time (epoch ms) for range-merge and fixed-time messages, its priority otherwise; for a
 *                  range-merge message, the due time by the sender's clock (Redis keeps the first send's on a merge)
 * @param notBefore for a priority message, when it becomes visible; null for at once
 * @param expireAt  when its time to live runs out; null for never
 * @param headers   its headers
 * @param payload   its payload, as the client's codec wrote it
 * @param sentAt    when it was sent, by the sender's clock
 */
public record JournaledSend(String topic, TopicType type, int slot, String key, boolean merged, long score,
                            @Nullable Instant notBefore, @Nullable Instant expireAt, Map<String, String> headers,
                            byte[] payload, Instant sentAt) {

    public JournaledSend {
        headers = Map.copyOf(headers);
    }
}
