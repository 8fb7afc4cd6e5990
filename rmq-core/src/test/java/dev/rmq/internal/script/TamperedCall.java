package dev.rmq.internal.script;

import java.util.List;

/** A send call whose arguments were changed after encoding, as a Java side out of step with its script would. */
record TamperedCall(SendCall call, byte[][] args) implements ScriptCall<List<SendCall.Result>> {

    @Override
    public Script script() {
        return call.script();
    }

    @Override
    public byte[][] argv() {
        return args;
    }

    @Override
    public List<SendCall.Result> decode(Object reply) {
        return call.decode(reply);
    }
}
