package dev.rmq.admin;

/** What {@link RmqAdmin#clear(String, ClearScope)} removes besides the waiting messages. */
public enum ClearScope {

    /**
     * Every waiting message (due now or later, or waiting out a not-before time or a retry's backoff) and every
     * parked one. In-flight deliveries end as usual and dead messages stay.
     */
    WAITING,

    /** What {@link #WAITING} removes, and the dead queue as well. */
    WAITING_AND_DEAD
}
