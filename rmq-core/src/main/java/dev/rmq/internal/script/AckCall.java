package dev.rmq.internal.script;

import dev.rmq.consumer.AckOutcome;

import java.util.List;
import java.util.Map;

/**
 * ack.lua: ends in-flight deliveries of one slot.
 *
 * @param policy      the topic's retry policy, for the deliveries that failed
 * @param fence       the worker's fencing token, empty when unfenced
 * @param wakeChannel where idle consumers of the topic are woken, for messages parked behind these deliveries
 * @param slot        the slot
 * @param acks        the deliveries to end
 */
public record AckCall(RetryPolicy policy, String fence, String wakeChannel, int slot, List<Ack> acks)
        implements ScriptCall<List<AckOutcome>> {

    /** How a delivery ends. */
    public enum Op {
        /** Done. */
        COMMIT('C'),
        /** Failed: retry after backoff, or dead after the maximum retries. */
        ROLL_BACK('R'),
        /** Failed: retry at once, without the backoff; still an attempt, so the maximum retries hold. */
        RETRY_NOW('N'),
        /** Dead at once: the handler's verdict. */
        DEAD('D'),
        /** Dead at once: it cannot be decoded. */
        UNDECODABLE('X'),
        /** Dead at once: its payload cannot be decrypted. */
        UNDECRYPTABLE('Y'),
        /** Never started: back to waiting at its place, the attempt not counted. */
        RELEASE('U'),
        /**
         * Handed back by the program: back to waiting at its place, the attempt not counted but the release
         * counted, and dead once the topic's releases are spent.
         */
        HAND_BACK('H');

        private final char code;

        Op(char code) {
            this.code = code;
        }
    }

    /**
     * One delivery to end.
     *
     * @param op    how
     * @param key   the message key
     * @param token the lease deadline the delivery holds
     * @param error why it failed, or why it was handed back; empty on commit and release
     */
    public record Ack(Op op, String key, long token, String error) {
    }

    /** An ack's row, here and in prepare.lua, which ends the last batch's deliveries before its poll. */
    static final Argv<Ack> ROW = Argv.<Ack>builder()
            .arg("op", ack -> ack.op().code)
            .arg("key", Ack::key)
            .arg("token", Ack::token)
            .arg("reason", Ack::error)
            .build();

    /** The outcome words of ack.lua, and of prepare.lua's ended. */
    static final Map<String, AckOutcome> OUTCOMES = Reply.words(AckOutcome.values(), AckOutcome::scriptName);

    static final Argv<AckCall> ARGV = Argv.<AckCall>builder()
            .group("policy", AckCall::policy, RetryPolicy.ARGV)
            .arg("fence", AckCall::fence)
            .arg("wake_channel", AckCall::wakeChannel)
            .arg("slot", AckCall::slot)
            .rows("acks", AckCall::acks, AckCall.ROW)
            .build();

    static final Reply<List<AckOutcome>> REPLY = Reply.of(Reply.fields(), "results",
            Reply.fields().word("outcome", OUTCOMES),
            row -> row.<AckOutcome>word("outcome"), Reply.Fields::rows);

    @Override
    public Script script() {
        return Script.ACK;
    }

    @Override
    public byte[][] argv() {
        return ARGV.encode(this);
    }

    @Override
    public List<AckOutcome> decode(Object reply) {
        return REPLY.decode(script(), reply);
    }
}
