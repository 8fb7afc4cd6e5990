package dev.rmq.internal.script;

/**
 * dead_delete.lua: removes one dead message for good; yields whether it was dead.
 *
 * @param key the message key
 */
public record DeadDeleteCall(String key) implements NumberReply.YesNo {

    static final Argv<DeadDeleteCall> ARGV = Argv.<DeadDeleteCall>builder().arg("key", DeadDeleteCall::key).build();

    @Override
    public Script script() {
        return Script.DEAD_DELETE;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }
}
