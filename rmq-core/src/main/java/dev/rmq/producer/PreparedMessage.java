package dev.rmq.producer;

/**
 * A message checked as a send checks it, and encoded, but not sent ({@code RmqClient.prepare}): what a store of
 * sends to make later (an outbox) keeps, so that a later send of it is the send the application asked for.
 *
 * @param topic   its topic
 * @param slot    the slot it goes to
 * @param key     its key: its own, or the one derived from its payload
 * @param payload its payload as the client's codec encodes it; send it as {@link dev.rmq.codec.EncodedPayload}
 */
public record PreparedMessage(String topic, int slot, String key, byte[] payload) {
}
