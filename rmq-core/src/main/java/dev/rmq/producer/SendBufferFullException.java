package dev.rmq.producer;

import dev.rmq.exceptions.RmqUnavailableException;

/**
 * A single send refused at once, unsent, because the producer's send buffer was full: sends waiting for their
 * lane's call in flight to Redis already held {@code RmqClient.Builder.sendBufferBytes} of messages. Redis answers
 * more slowly than the application sends, or not at all; the send may go again once earlier ones have come back.
 * Nothing of it was written.
 */
public class SendBufferFullException extends RmqUnavailableException {

    private static final long serialVersionUID = 1L;

    private final long waitingBytes;
    private final long bufferBytes;

    public SendBufferFullException(String topic, String key, long waitingBytes, long bufferBytes) {
        super("not sent: the message with key '" + key + "' of topic '" + topic + "' would join " + waitingBytes
                + " bytes of sends already waiting for calls to Redis that have not come back, past the producer's"
                + " send buffer of " + bufferBytes + " bytes (RmqClient sendBufferBytes). Redis answers more slowly"
                + " than the application sends, or not at all; send it again later", null);
        this.waitingBytes = waitingBytes;
        this.bufferBytes = bufferBytes;
    }

    /** The bytes of messages that waited when this send was refused. */
    public long waitingBytes() {
        return waitingBytes;
    }

    /** The producer's send buffer, in bytes. */
    public long bufferBytes() {
        return bufferBytes;
    }
}
