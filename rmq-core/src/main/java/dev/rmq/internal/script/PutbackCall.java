package dev.rmq.internal.script;

import dev.rmq.topic.TopicType;

import java.util.List;
import java.util.Map;

/**
 * putback.lua: returns messages an at-most-once consumer took and never started to waiting.
 *
 * @param type        the topic's type
 * @param wakeChannel where idle consumers of the topic are woken
 * @param slot        the slot
 * @param messages    the messages, as the poll returned them
 */
public record PutbackCall(TopicType type, String wakeChannel, int slot, List<PrepareCall.Message> messages)
        implements ScriptCall<List<Boolean>> {

    static final Argv<PutbackCall> ARGV = Argv.<PutbackCall>builder()
            .arg("type", call -> call.type().scriptCode())
            .arg("wake_channel", PutbackCall::wakeChannel)
            .arg("slot", PutbackCall::slot)
            .rows("messages", PutbackCall::messages, Argv.<PrepareCall.Message>builder()
                    .arg("key", PrepareCall.Message::key)
                    .arg("envelope", PrepareCall.Message::envelope)
                    .build())
            .build();

    static final Reply<List<Boolean>> REPLY = Reply.of(Reply.fields(), "results",
            Reply.fields().word("outcome", Map.of("back", Boolean.TRUE, "superseded", Boolean.FALSE)),
            row -> row.<Boolean>word("outcome"), Reply.Fields::rows);

    @Override
    public Script script() {
        return Script.PUTBACK;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    /** Per message, whether it waits again (false: a newer message with its key waits already). */
    @Override
    public List<Boolean> decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
