package dev.rmq.internal.script;

import org.redisson.api.RScript;

/** A call whose script answers with one integer. */
interface NumberReply<R> extends ScriptCall<R> {

    @Override
    default RScript.ReturnType replyType() {
        return RScript.ReturnType.LONG;
    }

    @Override
    default R decode(Object reply) {
        return decode(Replies.number(reply));
    }

    R decode(long reply);

    /** A call whose script answers 1 for yes and 0 for no. */
    interface YesNo extends NumberReply<Boolean> {

        @Override
        default Boolean decode(long reply) {
            return reply == 1;
        }
    }
}
