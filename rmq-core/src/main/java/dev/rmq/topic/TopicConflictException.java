package dev.rmq.topic;

/** Two applications define one topic differently; the second fails to start. */
public class TopicConflictException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public TopicConflictException(String message) {
        super(message);
    }
}
