package dev.rmq.internal.script;

/**
 * dead_delete.lua: removes one dead message for good; yields whether it was dead.
 *
 * @param key the message key
 */
public record DeadDeleteCall(String key) implements ScriptCall<Boolean> {

    static final Argv<DeadDeleteCall> ARGV = Argv.<DeadDeleteCall>builder().arg("key", DeadDeleteCall::key).build();

    static final Reply<Boolean> REPLY = Reply.of(Reply.fields().flag("removed"), head -> head.flag("removed"));

    @Override
    public Script script() {
        return Script.DEAD_DELETE;
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
