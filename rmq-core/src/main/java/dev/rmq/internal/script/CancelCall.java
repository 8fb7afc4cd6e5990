package dev.rmq.internal.script;

/**
 * cancel.lua: removes a waiting or retrying message; yields whether one was removed.
 *
 * @param key the message key
 */
public record CancelCall(String key) implements ScriptCall<Boolean> {

    static final Argv<CancelCall> ARGV = Argv.<CancelCall>builder().arg("key", CancelCall::key).build();

    static final Reply<Boolean> REPLY = Reply.of(Reply.fields().flag("removed"), head -> head.flag("removed"));

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
