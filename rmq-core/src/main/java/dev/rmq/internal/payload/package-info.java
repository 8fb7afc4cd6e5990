/**
 * What a topic's {@link dev.rmq.codec.PayloadForm} does to the bytes the codec writes: {@link
 * dev.rmq.internal.payload.Payloads} versions, compresses and encrypts them on a send and undoes it on a read,
 * following the headers each message carries.
 */
@NullMarked
package dev.rmq.internal.payload;

import org.jspecify.annotations.NullMarked;
