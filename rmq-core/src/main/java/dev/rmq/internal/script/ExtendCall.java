package dev.rmq.internal.script;

import java.util.List;

/**
 * extend.lua: lengthens the leases of in-flight deliveries of one slot.
 *
 * @param leaseMs the new lease, from now
 * @param fence   the worker's fencing token, empty when unfenced
 * @param hold    whether an at-most-once batch with messages not started holds the slot until the new lease ends
 * @param leases  the deliveries
 */
public record ExtendCall(long leaseMs, String fence, boolean hold, List<Lease> leases)
        implements ScriptCall<List<Long>> {

    /** The token extend.lua answers for a delivery that a cancel removed, where a lost lease answers 0. */
    public static final long CANCELLED = -1;

    /** A delivery's key and the lease deadline it holds now. */
    public record Lease(String key, long token) {
    }

    static final Argv<ExtendCall> ARGV = Argv.<ExtendCall>builder()
            .arg("lease_ms", ExtendCall::leaseMs)
            .arg("fence", ExtendCall::fence)
            .arg("hold", call -> call.hold() ? "1" : "0")
            .rows("leases", ExtendCall::leases, Argv.<Lease>builder()
                    .arg("key", Lease::key)
                    .arg("token", Lease::token)
                    .build())
            .build();

    static final Reply<List<Long>> REPLY = Reply.of(Reply.fields(), "leases", Reply.fields().number("token"),
            row -> row.number("token"), Reply.Fields::rows);

    @Override
    public Script script() {
        return Script.EXTEND;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    /** Each delivery's new token, or 0 where its lease was already lost. */
    @Override
    public List<Long> decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
