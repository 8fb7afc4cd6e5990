package dev.rmq.internal.script;

/**
 * cancel.lua: removes a waiting or retrying message; yields whether one was removed.
 *
 * @param key the message key
 */
public record CancelCall(String key) implements NumberReply.YesNo {

    static final Argv<CancelCall> ARGV = Argv.<CancelCall>builder().arg("key", CancelCall::key).build();

    @Override
    public Script script() {
        return Script.CANCEL;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }
}
