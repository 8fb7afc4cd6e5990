package dev.rmq.internal.script;

/**
 * fence_give.lua: clears the slot's owner unless another owner took it; yields whether it was cleared.
 *
 * @param token the fencing token of the owner that lets the slot go
 */
public record FenceGiveCall(String token) implements NumberReply.YesNo {

    static final Argv<FenceGiveCall> ARGV = Argv.<FenceGiveCall>builder().arg("token", FenceGiveCall::token).build();

    @Override
    public Script script() {
        return Script.FENCE_GIVE;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }
}
