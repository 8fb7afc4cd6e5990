package dev.rmq.topic;

/** What a topic promises about each message reaching a handler. */
public enum DeliveryGuarantee {

    /**
     * The default: a message is taken under a lease and stays in Redis until its handler succeeded or it is
     * dead. A consumer that dies or a reply that is lost makes it come again, so a handler may see it twice.
     */
    AT_LEAST_ONCE,

    /**
     * A message leaves Redis when a consumer takes it: no lease, no acknowledgement, no retry. A handler that
     * fails, or a consumer that dies holding it, loses it; the failure is counted and logged. Cheaper in Redis
     * per message, for data that is worthless once late or that the next message replaces. The topic's lease
     * still bounds how long a batch's handlers are expected to run: a consumer that takes over the slot from one
     * that was cut off waits that long, so that one slot still runs one handler at a time.
     */
    AT_MOST_ONCE
}
