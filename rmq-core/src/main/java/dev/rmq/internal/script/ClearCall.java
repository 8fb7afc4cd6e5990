package dev.rmq.internal.script;

import java.util.List;

/**
 * clear.lua: removes every waiting and parked message of a slot in one step, leaving in-flight and dead ones.
 *
 * @param listKeys whether the reply lists the keys removed, for a journal to close them
 */
public record ClearCall(boolean listKeys) implements ScriptCall<ClearCall.Cleared> {

    /**
     * What one slot gave up.
     *
     * @param waiting the waiting messages removed (due now or later, or waiting out a not-before time or a backoff)
     * @param parked  the parked messages removed
     * @param keys    their keys, when asked for; else empty
     */
    public record Cleared(long waiting, long parked, List<String> keys) {
    }

    static final Argv<ClearCall> ARGV = Argv.<ClearCall>builder()
            .arg("list_keys", call -> call.listKeys() ? "1" : "0")
            .build();

    static final Reply<Cleared> REPLY = Reply.of(Reply.fields().number("waiting").number("parked"), "keys",
            Reply.fields().text("key"), row -> row.text("key"),
            all -> new Cleared(all.number("waiting"), all.number("parked"), all.rows()));

    @Override
    public Script script() {
        return Script.CLEAR;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public Cleared decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
