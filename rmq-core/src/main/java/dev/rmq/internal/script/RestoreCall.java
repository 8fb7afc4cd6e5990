package dev.rmq.internal.script;

import dev.rmq.journal.RmqRestorer;

import java.util.List;
import java.util.Map;

/**
 * restore.lua: puts back messages of one slot that Redis lost, each unless its key is still there.
 *
 * @param type        the topic's type
 * @param wakeChannel where idle consumers of the topic are woken
 * @param slot        the slot
 * @param fifo        whether the topic takes equals in the order first sent
 * @param dryRun      whether nothing is written, and the outcomes say what a restore would do
 * @param messages    the messages, in order
 */
public record RestoreCall(RetryPolicy policy, String wakeChannel, int slot, boolean fifo, boolean dryRun,
                          List<Message> messages)
        implements ScriptCall<List<RmqRestorer.Outcome>> {

    /**
     * @param key      the message key
     * @param envelope its envelope as stored ({@code Envelope.encodeStored})
     */
    public record Message(String key, byte[] envelope) {
    }

    private static final Argv<Message> MESSAGE = Argv.<Message>builder()
            .arg("key", Message::key)
            .arg("envelope", Message::envelope)
            .build();

    static final Argv<RestoreCall> ARGV = Argv.<RestoreCall>builder()
            .group("policy", RestoreCall::policy, RetryPolicy.ARGV)
            .arg("wake_channel", RestoreCall::wakeChannel)
            .arg("slot", RestoreCall::slot)
            .arg("fifo", call -> call.fifo() ? "1" : "0")
            .arg("dry_run", call -> call.dryRun() ? "1" : "0")
            .rows("messages", RestoreCall::messages, MESSAGE)
            .build();

    static final Reply<List<RmqRestorer.Outcome>> REPLY = Reply.of(Reply.fields(), "results",
            Reply.fields().word("outcome", Map.of("restored", RmqRestorer.Outcome.RESTORED,
                    "present", RmqRestorer.Outcome.PRESENT, "expired", RmqRestorer.Outcome.EXPIRED)),
            row -> row.<RmqRestorer.Outcome>word("outcome"), Reply.Fields::rows);

    @Override
    public Script script() {
        return Script.RESTORE;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public List<RmqRestorer.Outcome> decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
