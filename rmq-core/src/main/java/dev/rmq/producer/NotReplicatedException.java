package dev.rmq.producer;

import dev.rmq.exceptions.RmqException;

/**
 * A durable send reached the master but not enough replicas in time. The message is queued on the master
 * and will be consumed unless the master fails before replicating it; the sender decides whether to
 * send again (a send with the same key merges).
 */
public class NotReplicatedException extends RmqException {

    private static final long serialVersionUID = 1L;

    public NotReplicatedException(String message) {
        super(message, null);
    }
}
