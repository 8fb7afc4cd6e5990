package dev.rmq.internal.script;

/**
 * fence_give.lua: clears the slot's owner unless another owner took it; yields whether it was cleared.
 *
 * @param token the fencing token of the owner that lets the slot go
 */
public record FenceGiveCall(String token) implements ScriptCall<Boolean> {

    static final Argv<FenceGiveCall> ARGV = Argv.<FenceGiveCall>builder().arg("token", FenceGiveCall::token).build();

    static final Reply<Boolean> REPLY = Reply.of(Reply.fields().flag("cleared"), head -> head.flag("cleared"));

    @Override
    public Script script() {
        return Script.FENCE_GIVE;
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
