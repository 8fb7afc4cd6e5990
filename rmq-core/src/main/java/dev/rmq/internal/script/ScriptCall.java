package dev.rmq.internal.script;

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

    /**
     * The reply read into Java by the script's {@link Reply}: every script replies with a flat list, as lib.lua
     * says.
     */
    R decode(Object reply);
}
