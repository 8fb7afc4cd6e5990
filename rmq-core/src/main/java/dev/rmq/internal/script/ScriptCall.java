package dev.rmq.internal.script;

import org.redisson.api.RScript;

/**
 * One call of one script, typed on both ends: it encodes its arguments with the script's {@link Argv} and
 * reads the script's reply into Java records and enums. Every caller of a script goes through its call type,
 * so no argument list or reply is built or read by position anywhere else.
 *
 * @param <R> what the reply becomes
 */
public interface ScriptCall<R> {

    Script script();

    /** The arguments, as the script's ARGV block lays them out. */
    byte[][] argv();

    /** The reply read into Java; the reply is a {@code List} or a {@code Long} as {@link #replyType()} says. */
    R decode(Object reply);

    /** How Redisson is to read the reply: a Lua table (the default) or a number. */
    default RScript.ReturnType replyType() {
        return RScript.ReturnType.LIST;
    }
}
