package dev.rmq.internal.slot;

/** What a renewal of a session's leases came to ({@link SlotSession#renew}). */
public enum Renewal {
    /** Redis renewed them (those whose lease was already lost are marked lost), or confirmed the fence. */
    RENEWED,
    /** The call failed; the leases run as before, and the driver carries on. */
    FAILED,
    /** The consumer no longer owns the slot. */
    FENCED
}
