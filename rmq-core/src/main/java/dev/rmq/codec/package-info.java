/**
 * Payload encoding and merge keys: {@link dev.rmq.codec.PayloadCodec} turns payloads into bytes and back
 * (deterministic JSON by default, so equal objects merge); {@link dev.rmq.codec.MessageKeys} derives a
 * message's merge key from its payload bytes.
 */
@NullMarked
package dev.rmq.codec;

import org.jspecify.annotations.NullMarked;
