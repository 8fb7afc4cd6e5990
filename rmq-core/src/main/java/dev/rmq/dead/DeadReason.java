package dev.rmq.dead;

/**
 * Why a message went to the dead queue: a code that tools and filters can rely on, beside the text of its last
 * error, which is for people and may be reworded.
 */
public enum DeadReason {
    /** Its time to live ran out, on a topic whose expiry action is {@code DEAD}. */
    EXPIRED("expired"),
    /** Its last allowed attempt's lease ran out before it was acknowledged: the consumer died, hung or was cut off. */
    LEASE_EXPIRED("lease_expired"),
    /** The handler failed on its last allowed attempt. */
    RETRIES_SPENT("retries_spent"),
    /** It was released (handed back without an attempt) once more than its topic's {@code maxReleases} allow. */
    RELEASES_SPENT("releases_spent"),
    /** Its stored bytes or its payload could not be decoded. */
    UNDECODABLE("undecodable"),
    /** Its payload could not be decrypted: its key is not in the key ring, or its bytes fail their tag. */
    UNDECRYPTABLE("undecryptable"),
    /** The handler or the error handler sent it to dead ({@code ConsumeResult.dead}, {@code message.dead(...)}). */
    HANDLER_VERDICT("handler_verdict"),
    /** It died before this version, which keeps the reason; its last error may tell. */
    UNKNOWN("");

    private final String code;

    DeadReason(String code) {
        this.code = code;
    }

    /** The code as Redis stores it and as the HTTP API and the endpoint show it ({@code ""} for {@link #UNKNOWN}). */
    public String code() {
        return code;
    }

    /** The reason a stored code names; {@link #UNKNOWN} for none, or for one a later version wrote. */
    public static DeadReason of(String code) {
        for (DeadReason reason : values()) {
            if (reason.code.equals(code)) {
                return reason;
            }
        }
        return UNKNOWN;
    }
}
