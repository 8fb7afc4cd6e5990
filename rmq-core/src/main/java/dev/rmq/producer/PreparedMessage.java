package dev.rmq.producer;

import java.util.Map;

/**
 * A message checked as a send checks it, and encoded, but not sent ({@code RmqClient.prepare}): what a store of
 * sends to make later (an outbox) keeps, so that a later send of it is the send the application asked for.
 *
 * @param topic   its topic
 * @param slot    the slot it goes to
 * @param key     its key: its own, or the one derived from its payload
 * @param headers its headers as a later send must give them: its own, and the version of its payload when its topic
 *                has versions, so that a send after the topic's version moved on still upcasts it
 * @param payload its payload as the client's codec encodes it; send it as {@link dev.rmq.codec.EncodedPayload}
 */
public record PreparedMessage(String topic, int slot, String key, Map<String, String> headers, byte[] payload) {

    public PreparedMessage {
        headers = Map.copyOf(headers);
    }
}
