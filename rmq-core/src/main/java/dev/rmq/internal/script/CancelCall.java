package dev.rmq.internal.script;

/**
 * cancel.lua: removes the message of a key that waits (or retries, or is parked) and cancels its delivery in
 * flight; yields whether either was there.
 *
 * @param key the message key
 */
public record CancelCall(String key) implements ScriptCall<Boolean> {

    static final Argv<CancelCall> ARGV = Argv.<CancelCall>builder().arg("key", CancelCall::key).build();

    static final Reply<Boolean> REPLY = Reply.of(Reply.fields().flag("waiting").flag("in_flight"),
            head -> head.flag("waiting") || head.flag("in_flight"));

    @Override
    public Script script() {
        return Script.CANCEL;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Boolean decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
