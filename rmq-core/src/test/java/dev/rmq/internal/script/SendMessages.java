package dev.rmq.internal.script;

import dev.rmq.internal.redis.Envelope;
import dev.rmq.topic.TopicType;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Messages for the send scripts' tests, as the producer encodes them. */
final class SendMessages {

    private SendMessages() {
    }

    /**
     * A send's value for {@code type}, a step later (or higher) than the one before. A range-merge's window steps by
     * ten seconds, well beyond {@link ClockTime#TOLERANCE_MS}, since its due time is compared as a time of the Redis
     * clock.
     */
    static long value(TopicType type, long base, int step) {
        return switch (type) {
            case RANGE_MERGE -> 60_000 + step * 10_000L;
            case PRIORITY -> 20 + step;
            case FIXED_TIME -> base + step * 10_000L;
        };
    }

    /**
     * A message with one header and {@code payload}, and a time to live of {@code ttlMs} (0 for none). Its envelope's
     * score is 0, as a range-merge send's: send.lua stores it so, and a priority or fixed-time message sent with it
     * is rewritten at its first delivery, as one stored before envelopes carried their score.
     */
    static SendCall.Message message(String key, long value, String payload, long ttlMs) {
        return new SendCall.Message(key, value, Envelope.encodeNew(Map.of("h", payload), payload.getBytes(
                StandardCharsets.UTF_8), 0, ttlMs, 0));
    }
}
