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
 * @param debounced whether that merge moved a range-merge message's due time to this send's (the DEBOUNCE rule);
 *                  otherwise a merged range-merge message keeps the first send's due time
 * @param behindDelivery whether it was added while a delivery of its key was in flight: that older message is not
 *                  lost but running, and this one waits for it to end
 * @param score     its due time (epoch ms) for range-merge and fixed-time messages, its priority otherwise; for a
 *                  range-merge message, the due time by the sender's clock
 * @param notBefore for a priority message, when it becomes visible; null for at once
 * @param expireAt  when its time to live runs out; null for never
 * @param headers   its headers
 * @param payload   its payload, as the client's codec wrote it
 * @param sentAt    when it was sent, by the sender's clock
 */
public record JournaledSend(String topic, TopicType type, int slot, String key, boolean merged, boolean debounced,
                            boolean behindDelivery, long score,
                            @Nullable Instant notBefore, @Nullable Instant expireAt, Map<String, String> headers,
                            byte[] payload, Instant sentAt) {

    public JournaledSend {
        headers = Map.copyOf(headers);
    }
}
