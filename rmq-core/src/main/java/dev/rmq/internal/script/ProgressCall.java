package dev.rmq.internal.script;

/**
 * progress.lua: records an in-flight delivery's progress in the slot's progress hash, and may lengthen its lease.
 *
 * @param fence   the worker's fencing token, empty when unfenced or settled by reference
 * @param key     the message key
 * @param token   the lease deadline the delivery holds now
 * @param leaseMs the new lease from now, 0 to keep the lease as it is
 * @param percent 0 to 100
 * @param note    what the handler says of it, empty for nothing
 */
public record ProgressCall(String fence, String key, long token, long leaseMs, int percent, String note)
        implements ScriptCall<Long> {

    static final Argv<ProgressCall> ARGV = Argv.<ProgressCall>builder()
            .arg("fence", ProgressCall::fence)
            .arg("key", ProgressCall::key)
            .arg("token", ProgressCall::token)
            .arg("lease_ms", ProgressCall::leaseMs)
            .arg("percent", ProgressCall::percent)
            .arg("note", ProgressCall::note)
            .build();

    static final Reply<Long> REPLY = Reply.of(Reply.fields().number("token"), head -> head.number("token"));

    @Override
    public Script script() {
        return Script.PROGRESS;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    /**
     * The delivery's token after the report (a new one when the lease was lengthened), 0 when its lease was already
     * lost, or {@link ExtendCall#CANCELLED} when a cancel removed it.
     */
    @Override
    public Long decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
